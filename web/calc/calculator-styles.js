// The element's stylesheet, as text: the element adopts it into its shadow root as a constructed
// stylesheet (adoptStyles in dom.js). Kept in a module, not a .css file, so that a site's bundler
// takes it as code and never hands it to the site's own CSS pipeline (Docusaurus's webpack rule
// for .css took a .css URL and stopped its build), and it arrives with the element: no request,
// no unstyled moment. tools/dist.mjs minifies it.
export const calculatorStyles = String.raw`
/* attention-calc's look. Themable through the custom properties below. */
/* Each colour is light-dark(light, dark): the theme attribute picks the color-scheme, "auto"
   (the default) follows the theme the page names (the element sets the page-dark or page-light
   state), or else the system. Sizes are in em, so --calc-font-size scales all of it. */
:root, :host {
  color-scheme: light dark;
  --calc-ink: light-dark(#1b1f24, #e8eaed);
  --calc-paper: light-dark(#ffffff, #15181c);
  --calc-muted: light-dark(#5b6470, #9aa4b0);
  --calc-accent: light-dark(#0b5394, #8ab4f8);
  --calc-cell: light-dark(#f3f6fa, #20252c);
  --calc-cell-border: light-dark(#d5dbe3, #3a424d);
  --calc-focus: #e66100;
  --calc-error: light-dark(#b00020, #ff8a80);
  --calc-pitfall: light-dark(#fff1e0, #3a2a14);
  --calc-pitfall-ink: light-dark(#7a3b00, #ffcc80);
  --calc-pass: light-dark(#1a7f37, #7ee787);
  --calc-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
:host(:state(page-dark)) { color-scheme: dark; }
:host(:state(page-light)) { color-scheme: light; }
:host([theme="light"]) { color-scheme: light; }
:host([theme="dark"]) { color-scheme: dark; }
/* The element's own typography, whatever the host's (a slide's 42 px centred text, say), and
   its layout from its own width: the container queries below ask the host, not the screen. */
:host {
  display: block; background: var(--calc-paper); color: var(--calc-ink);
  font-family: var(--calc-font); font-size: var(--calc-font-size, 16px); font-style: normal; font-weight: 400;
  line-height: normal; letter-spacing: normal; word-spacing: normal; text-align: start; text-indent: 0;
  text-transform: none; text-shadow: none; white-space: normal;
  container-type: inline-size;
  /* A container's width cannot come from its content, so where the host is sized to fit its
     content (a flex item, a float, inline-block) it takes this width unless given one. */
  contain-intrinsic-inline-size: 36em;
}
:host([hidden]) { display: none; }
.calc-loading { color: var(--calc-muted); font-family: var(--calc-font); margin: 0.5em 0; }
.calc-loading.error { color: var(--calc-error); font-weight: 600; }

.calc { --cell-width: 4.2em; color: var(--calc-ink); font-family: var(--calc-font); line-height: 1.45; }
.calc h2 { font-size: 1.1em; margin: 1.25em 0 0.5em; }
.calc h3 { font-size: 1em; margin: 0 0 0.35em; }
.calc .hint { color: var(--calc-muted); font-size: 0.9em; margin: 0.25em 0 0.75em; }
.calc button, .calc select, .calc input { font: inherit; color: inherit; }
.calc button {
  background: var(--calc-cell); border: 1px solid var(--calc-cell-border); border-radius: 6px;
  padding: 0.3em 0.7em; cursor: pointer;
}
.calc button:hover { border-color: var(--calc-accent); }
.calc button.small { font-size: 0.85em; padding: 0.2em 0.5em; }
.calc button[aria-pressed="true"] { background: var(--calc-accent); border-color: var(--calc-accent); color: var(--calc-paper); }
.calc select { max-width: 100%; min-width: 0; text-overflow: ellipsis; background: var(--calc-cell); border: 1px solid var(--calc-cell-border); border-radius: 6px; padding: 0.2em 0.3em; }
.calc :focus-visible { outline: 2px solid var(--calc-focus); outline-offset: 1px; }
.calc .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.calc-header { overflow-x: auto; }
.calc-header .tex-display { font-size: 1.15em; }

/* minmax(0, 1fr) and min-width: 0, so a narrow widget wraps and shrinks its controls instead of
   growing to their widest (the Mode select's longest option). */
.controls { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.6em; }
.control-row { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; min-width: 0; }
.control-row > * { min-width: 0; max-width: 100%; }
.mode { display: inline-flex; align-items: center; gap: 0.3em; }
.sizes { display: flex; flex-wrap: wrap; gap: 0.5em 1em; }
.presets { gap: 0.4em; }
.seed-box { display: inline-flex; align-items: center; gap: 0.35em; color: var(--calc-muted); }
.seed-box[hidden] { display: none; }
.seed { width: 5em; background: var(--calc-cell); border: 1px solid var(--calc-cell-border); border-radius: 6px; padding: 0.2em 0.3em; }
.pitfall-banner {
  margin: 0; padding: 0.5em 0.75em; border-radius: 6px; font-weight: 600;
  background: var(--calc-pitfall); color: var(--calc-pitfall-ink); border-left: 4px solid var(--calc-error);
}
.pitfall-banner[hidden] { display: none; }

.matrices, .steps { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
/* The inputs and the result side by side where the widget is wide enough (the result's basis
   fits beside three n = 3 matrices at 1280 px), one under the other where it is not. */
.workbench { display: flex; flex-wrap: wrap; gap: 0 3em; align-items: flex-start; }
.work-inputs { flex: 0 1 auto; min-width: 0; max-width: 100%; }
/* The matrices set the column's width; its prose wraps to it rather than widening it. The
   status too: a long "not a number" message widened the column until the result wrapped under
   it, off the first screen. */
.inputs > .hint, .inputs-notice, .work-inputs > .calc-status { contain: inline-size; }
.result { flex: 1 1 22em; min-width: 0; }
/* The steps one at a time (stepper.js); printing shows them all. */
.step-off { display: none; }
.step-current { outline: 2px solid var(--calc-focus); outline-offset: 4px; border-radius: 4px; }
.stepper-box { display: grid; gap: 0.25em; min-width: 0; }
.stepper-bar, .stepper { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4em 0.75em; min-width: 0; }
.stepper-title { font-weight: 600; min-width: 0; }
.stepper-where { color: var(--calc-muted); font-size: 0.9em; margin: 0; }
@media print {
  .step-off { display: revert; }
  .stepper-box { display: none; }
}
.matrix { margin: 0; max-width: 100%; overflow-x: auto; }
.matrix figcaption { font-size: 0.9em; margin-bottom: 0.3em; display: flex; gap: 0.4em; align-items: baseline; flex-wrap: wrap; }
.step-number {
  display: inline-grid; place-items: center; width: 1.73em; height: 1.73em; border-radius: 50%;
  background: var(--calc-accent); color: var(--calc-paper); font-size: 0.833em; font-weight: 700;
}
.step-note { color: var(--calc-muted); font-size: 0.8em; }
.grid { border-collapse: separate; border-spacing: 3px; font-variant-numeric: tabular-nums; }
.grid th { font-weight: 500; color: var(--calc-muted); font-size: 0.8em; padding: 0 0.25em; }
.grid td.corner { background: none; }
.input-matrix input {
  width: var(--calc-cell-width, var(--cell-width)); box-sizing: border-box; text-align: right; padding: 0.3em 0.4em;
  background: var(--calc-paper); border: 1px solid var(--calc-cell-border); border-radius: 4px;
  font-variant-numeric: tabular-nums;
}
.input-matrix input.related { border-color: var(--calc-focus); box-shadow: 0 0 0 1px var(--calc-focus); }
.input-matrix input[aria-invalid="true"] { border-color: var(--calc-error); background: color-mix(in srgb, var(--calc-error) 10%, var(--calc-paper)); }
/* Room for a two-line message, so the layout does not jump when one appears; its text wraps to
   the matrix's width (contain: inline-size), so it never pushes the next matrix sideways. */
.input-matrix { min-width: 9em; }
/* The "±" key (grid.js): shown while a cell of its matrix has focus, in space kept for it at
   the caption's end, so showing it moves nothing. Inside the caption's line, not over its edge:
   the matrix scrolls sideways (overflow-x), so anything outside its box would be cut off. */
.matrix figcaption .sign-key {
  align-self: center; margin: 0; min-width: 2.75em; min-height: 1.9em; padding: 0 0.6em;
  font: inherit; font-size: 1.1em; line-height: 1; color: var(--calc-ink);
  background: var(--calc-paper); border: 1px solid var(--calc-cell-border); border-radius: 4px;
  touch-action: manipulation; visibility: hidden;
}
.matrix.signing figcaption .sign-key { visibility: visible; }
.cell-message { color: var(--calc-error); font-size: 0.85em; margin: 0.2em 0 0; min-height: 2.5em; contain: inline-size; }
.computed td {
  min-width: calc(var(--calc-cell-width, var(--cell-width)) - 0.8em); text-align: right; padding: 0.3em 0.4em;
  background: var(--calc-cell); border-radius: 4px; cursor: help;
}
.computed td.masked { color: var(--calc-muted); }
.computed td.fully-masked { font-style: italic; }
.computed td:hover { outline: 1px solid var(--calc-accent); }
.heatmap-box { margin-top: 0.5em; color: var(--calc-ink); }
.heatmap-box svg { max-width: 100%; height: auto; }

.masks { margin-top: 1em; display: grid; gap: 0.35em; }
.masks .label { margin: 0.25em 0 0; font-size: 0.9em; }
.toggle { display: inline-flex; gap: 0.4em; align-items: center; }
/* The hint beside "Causal mask" centred on its line, as the label is: a paragraph's margins sat it higher. */
.masks .control-row > .hint { margin: 0; }
.padding-toggles { display: flex; flex-wrap: wrap; gap: 0.75em; }
.mask-grid { border-collapse: separate; border-spacing: 3px; margin-top: 0.4em; }
.mask-grid th, .mask-grid .corner { font-weight: 500; color: var(--calc-muted); font-size: 0.8em; }
.mask-grid button { width: 2.2em; height: 2em; padding: 0; }
.mask-grid button.visible { color: var(--calc-pass); }
.mask-grid button[aria-pressed="true"] { background: var(--calc-cell-border); color: var(--calc-ink); }
.mask-grid button.hidden-by-causal, .mask-grid button.hidden-by-padding { opacity: 0.75; cursor: not-allowed; }

.calc-status { min-height: 1.5em; margin: 0.75em 0 0; }
.calc-status.error { color: var(--calc-error); font-weight: 600; }
.stale .steps, .stale .insight { opacity: 0.4; filter: grayscale(0.6); transition: opacity 0.15s; }
.calc [hidden] { display: none !important; }

/* In the flow, not sticky: a sticky panel resolves against whatever scrolls or scales the host
   (a slide) and covered the very numbers it explains. */
.explain {
  margin: 1em 0; padding: 0.6em 0.9em; min-height: 3.2em;
  background: var(--calc-paper); border: 1px solid var(--calc-cell-border); border-left: 4px solid var(--calc-accent);
  border-radius: 6px;
}
.explain p { margin: 0.15em 0; }
.explain .derivation { font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }

.insight { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; margin-top: 1.5em; }
.plot-figure { margin: 0; width: min(100%, 22em); }
.plot-figure figcaption { font-weight: 600; font-size: 0.95em; margin-bottom: 0.3em; }
svg.plot { width: 100%; height: auto; background: var(--calc-cell); border-radius: 6px; touch-action: none; color: var(--calc-ink); }
/* On the page an output outside the hull takes the theme's error red (the saved SVG keeps its own). */
svg.plot .output-point.outside rect { fill: var(--calc-error); }
/* The hull and the value handles take the theme's accent, ≥ 3:1 against the plot in both themes
   (WCAG 1.4.11); the saved SVG keeps its light-theme colours. */
svg.plot .hull { stroke: var(--calc-accent); }
svg.plot polygon.hull { fill: var(--calc-accent); }
svg.plot polyline.hull { stroke-opacity: 0.85; }
svg.plot .value-point circle:last-of-type { fill: var(--calc-accent); stroke: var(--calc-paper); }
.value-point { cursor: grab; }
.value-point.fixed { cursor: default; }
.value-point:active { cursor: grabbing; }
.value-point:focus-visible circle:last-of-type { stroke: var(--calc-focus); stroke-width: 3; }
.plot-note, .plot-axes { font-size: 0.85em; color: var(--calc-muted); margin: 0.3em 0; }
.plot-axes[hidden] { display: none; }

.checks { flex: 1 1 16em; }
.checks ul { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.4em; }
/* A hanging indent: a long check wraps under its text, not under its mark. */
.checks li { padding-left: 1.3em; text-indent: -1.3em; }
.checks li .mark { display: inline-block; width: 1.3em; text-indent: 0; font-weight: 700; }
.checks li.pass .mark { color: var(--calc-pass); }
.checks li.fail { color: var(--calc-error); font-weight: 600; }
.checks li.exempt .mark { color: var(--calc-muted); }
.checks .detail { color: var(--calc-muted); font-weight: 400; font-variant-numeric: tabular-nums; }
.checks .why { display: block; text-indent: 0; font-weight: 400; }
.check-notes p { font-size: 0.9em; color: var(--calc-muted); }
/* What to turn on to see a pitfall that changes nothing yet: an instruction, so it stands out. */
.check-notes p.check-hint {
  color: var(--calc-pitfall-ink); background: var(--calc-pitfall); border-left: 4px solid var(--calc-error);
  padding: 0.4em 0.6em; border-radius: 6px;
}

.share { margin: 1.5em 0 1em; display: grid; gap: 0.5em; }
.share-status { color: var(--calc-muted); font-size: 0.9em; }
.export-text { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.8em; }

.calc.pitfall .step-weights, .calc.pitfall .step-scaledBeforeMask { outline: 2px dashed var(--calc-error); outline-offset: 4px; border-radius: 4px; }

.results-header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.4em 1em; }
.verified {
  font-size: 0.85em; padding: 0.1em 0.5em; border-radius: 999px; font-variant-numeric: tabular-nums;
  color: var(--calc-pass); border: 1px solid currentColor;
}
.verified.fail { color: var(--calc-error); }

.note { padding: 0.5em 0.75em; border-left: 4px solid var(--calc-accent); background: var(--calc-cell); border-radius: 6px; }

@container (max-width: 480px) {
  .calc { --cell-width: 3.4em; font-size: 0.95em; }
  /* A practice answer is a decimal such as −0.707: its cells keep room for six characters. */
  .practice .input-matrix { --cell-width: 4.4em; }
  .calc-header .tex-display { font-size: 0.85em; }
  /* A phone's first screen shows the result: the presets in one row that scrolls sideways, the
     result right after Q and K, then V and the masks. The boxes around the inputs give way
     (display: contents) so that their parts can be ordered in the workbench; the groups keep
     their names. No room is kept for a message under a matrix: one under another here moves
     what follows anyway. */
  .presets { flex-wrap: nowrap; overflow-x: auto; }
  .presets > * { flex: none; }
  .workbench { gap: 0 1.5em; }
  .work-inputs, .inputs, .inputs > .matrices { display: contents; }
  .workbench > *, .inputs > *, .work-inputs > * { flex: 1 1 100%; }
  .inputs > .matrices > .input-matrix { flex: none; }
  .inputs > h2 { margin-top: 0.4em; }
  .inputs > .hint { margin-bottom: 0.5em; font-size: 0.8em; }
  .workbench > .result { order: 1; }
  .inputs > .matrices > .input-matrix:nth-child(3) { order: 2; margin-top: 0.5em; }
  .work-inputs > .mask-panel, .workbench > .practice-slot, .workbench > .practice { order: 3; }
  .input-matrix .cell-message:empty, .inputs-notice:empty, .work-inputs > .calc-status:empty { min-height: 0; margin: 0; }
}

/* --- Practice mode (practice.js): the learner's grids, each entry marked once committed ------- */
.practicing .practice-off { display: none; }
.practice { flex: 1 1 22em; min-width: 0; display: grid; gap: 0.6em; align-content: start; }
.practice p { margin: 0; }
.practice-summary { font-weight: 600; }
.practice-step, .practice-confirm { border-top: 1px solid var(--calc-cell-border); padding-top: 0.5em; min-width: 0; }
/* The progress on its own line: floated, it narrowed the step's grid into a scroll box at 360 px. */
.practice-step-head { text-align: end; }
.practice-progress { font-size: 0.85em; color: var(--calc-muted); }
.practice .cell-message { min-height: 0; }
.practice-progress.done { color: var(--calc-pass); font-weight: 600; }
/* A mark besides the colour: a right entry has a solid green border, a wrong one a dashed red one.
   The grid tints a cell with aria-invalid="true"; a right one has aria-invalid="false".
   Its padding gives back the border's extra pixel, so marking a cell moves nothing around it. */
.input-matrix input.right, .input-matrix input.carried { border: 2px solid var(--calc-pass); background: var(--calc-paper); }
.input-matrix input.wrong { border: 2px dashed var(--calc-error); }
.input-matrix input.right, .input-matrix input.carried, .input-matrix input.wrong { padding: calc(0.3em - 1px) calc(0.4em - 1px); }
.input-matrix input.given { color: var(--calc-muted); background: var(--calc-cell); }
.practice-verdict, .practice-detail { font-size: 0.9em; overflow-wrap: anywhere; }
.practice-verdict.wrong { color: var(--calc-error); }
.practice-verdict.right, .practice-verdict.carried { color: var(--calc-pass); }
`;
