// The labs' stylesheet, as text: imported with the first lab a widget shows, so an embed without
// labs does not download it, and adopted into the element's shadow root beside the calculator's
// (see calc/calculator-styles.js). tools/dist.mjs minifies it.
export const labsStyles = String.raw`
/* The custom properties come from the calculator's stylesheet. */
.lab { margin: 2em 0 1em; padding-top: 0.5em; border-top: 1px solid var(--calc-cell-border); }
.lab:first-child, .calc > .lab:first-of-type { border-top: none; }
.lab.stale .lab-results, .lab.stale .chart-row, .lab.stale .heatmap-box { opacity: 0.4; filter: grayscale(0.6); }
.lab-verdict { font-weight: 600; margin: 0.75em 0; }
.chart-row { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
.chart-figure { margin: 0; max-width: 100%; }
.chart-figure figcaption { font-size: 0.9em; margin-bottom: 0.3em; }
svg.chart { max-width: 100%; height: auto; background: var(--calc-cell); border-radius: 6px; color: var(--calc-ink); }
/* Marks in Okabe–Ito colours, at 3:1 or more against --calc-cell in each theme (WCAG 1.4.11):
   vermillion and blue on light, orange and sky blue on dark. Each series is also named in text. */
.series-unscaled { fill: light-dark(#d55e00, #e69f00); background: light-dark(#d55e00, #e69f00); }
.series-scaled, svg.chart .point { fill: light-dark(#0072b2, #56b4e9); background: light-dark(#0072b2, #56b4e9); }
svg.chart .fit { stroke: light-dark(#d55e00, #e69f00); }
/* The cost lab's second series, the streaming kernel: bluish green, squares (chart.js). */
svg.chart .point-streaming { fill: #009e73; }
svg.chart .fit.fit-streaming { stroke: #009e73; }
/* The √d_k lab's gradient chart: a median line over a translucent band of the middle half. */
.median-line { fill: none; stroke-width: 2; }
.median-line.series-unscaled { stroke: light-dark(#d55e00, #e69f00); }
.median-line.series-scaled { stroke: light-dark(#0072b2, #56b4e9); }
.quartile-band { fill-opacity: 0.2; stroke: none; }
svg.chart .chart-label { paint-order: stroke; stroke: var(--calc-cell); stroke-width: 3px; stroke-linejoin: round; }
.gradient-swatch { vertical-align: -0.1em; margin-right: 0.2em; }
.gradient-table-box { overflow-x: auto; }
.gradient-table { font-size: 0.9em; }
.gradient-table caption { text-align: left; font-size: 0.95em; margin-bottom: 0.3em; }
.gradient-table tr.current { background: color-mix(in srgb, var(--calc-accent) 12%, transparent); }
.row-entropy { font-size: 0.9em; }
/* The comparisons read better large: up to 36em wide where there is room. */
.chart-column { width: 36em; max-width: 100%; }
.shared-axis { width: 100%; }
.shared-axis svg.chart { width: 100%; }
.shared-axis figcaption { display: flex; flex-wrap: wrap; gap: 0.2em 1.5em; }
.series-legend { margin: 0; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.35em; border-radius: 2px; vertical-align: -0.05em; }
.stat-cards { display: flex; flex-wrap: wrap; gap: 0.75em; margin: 0.75em 0; }
.stat-card {
  display: grid; gap: 0.1em; padding: 0.5em 0.8em; min-width: 11em;
  background: var(--calc-cell); border: 1px solid var(--calc-cell-border); border-radius: 6px;
}
.stat-title, .stat-expected { font-size: 0.85em; color: var(--calc-muted); }
.stat-value { font-size: 1.4em; font-variant-numeric: tabular-nums; }
.slider { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.5em; }
.slider label { display: inline-flex; align-items: center; gap: 0.5em; }
.slider input[type="range"] { width: min(14em, 60cqi); accent-color: var(--calc-accent); }
.slider-value { min-width: 3.5em; font-variant-numeric: tabular-nums; font-weight: 600; }
.slider-exact, .count-input { width: 5.5em; background: var(--calc-cell); border: 1px solid var(--calc-cell-border); border-radius: 6px; padding: 0.2em 0.3em; }
.slider-exact[aria-invalid] { border-color: var(--calc-error); }
.slider-message { color: var(--calc-error); font-size: 0.85em; }
.sliders { gap: 0.75em 1.5em; }
.cost-table { border-collapse: collapse; margin: 0.5em 0; font-variant-numeric: tabular-nums; }
.cost-table th, .cost-table td { padding: 0.25em 0.6em; border-bottom: 1px solid var(--calc-cell-border); text-align: left; }
.cost-table .num { text-align: right; }
.cost-table tr.total th, .cost-table tr.total td { font-weight: 700; }
.cost-table meter { width: 5em; vertical-align: middle; }
.cost-table td.share-cell { white-space: nowrap; }
progress { width: 12em; accent-color: var(--calc-accent); }
.lab-matrix td { cursor: default; min-width: 2.4em; font-size: 0.85em; }
.lab-matrix th { white-space: nowrap; }
.group-0 { --group: #0072b2; } .group-1 { --group: #e69f00; } .group-2 { --group: #009e73; } .group-3 { --group: #cc79a7; }
.group-4 { --group: #56b4e9; } .group-5 { --group: #d55e00; } .group-6 { --group: #f0e442; } .group-7 { --group: #7f7f7f; }
.lab-matrix td[class^="group-"] { background: color-mix(in srgb, var(--group) 22%, var(--calc-cell)); }
.lab-matrix th[class^="group-"] { border-bottom: 3px solid var(--group); }
.head-map { border-top: 4px solid var(--group); padding-top: 0.3em; }
.head-map svg { max-width: 100%; height: auto; }
.param-counter { margin-top: 1.5em; }
.param-total { font-size: 1.3em; font-variant-numeric: tabular-nums; }
.param-wrong { color: var(--calc-muted); }
.pitfall-mark { color: var(--calc-error); font-weight: 700; }
.matrix-scroll, .formula-scroll { max-width: 100%; overflow-x: auto; }
.construct-lab .input-matrix input { width: 2.6em; padding: 0.15em 0.25em; font-size: 0.8em; }
.construct-lab .grid th { font-size: 0.7em; }
.construct-lab .cell-message { min-height: 0; }
.sentence-box { display: flex; gap: 0.5em; align-items: center; }
.sentence { flex: 1; max-width: 32em; background: var(--calc-paper); border: 1px solid var(--calc-cell-border); border-radius: 6px; padding: 0.3em 0.5em; }
.sentence[aria-invalid] { border-color: var(--calc-error); }
.head-explain p { margin: 0.4em 0; max-width: 48em; }
/* A table wider than the screen scrolls in its own box: a fade on each side that has more, and
   a line under it naming what is out of sight (scroll-cue.js). */
.lab-figure { overflow: visible; min-width: 0; }
.scroll-box { max-width: 100%; }
.scroll-frame { position: relative; }
.scroller { overflow-x: auto; max-width: 100%; }
.scroller:focus-visible { outline: 2px solid var(--calc-focus); outline-offset: 2px; }
.scroll-frame::before, .scroll-frame::after {
  content: ''; position: absolute; top: 0; bottom: 0; width: 2.5em; pointer-events: none; opacity: 0;
}
.scroll-frame::before { left: 0; background: linear-gradient(to left, transparent, var(--calc-paper)); }
.scroll-frame::after { right: 0; background: linear-gradient(to right, transparent, var(--calc-paper)); }
.scroll-frame.more-left::before, .scroll-frame.more-right::after { opacity: 1; }
.scroll-cue { display: none; margin: 0.2em 0 0; min-height: 1.3em; font-size: 0.85em; font-weight: 600; color: var(--calc-accent); text-align: end; }
.scroll-box.overflows .scroll-cue { display: block; }
.scroll-cue.back { text-align: start; }
/* Look inside a trained model (learned.js): the text, the token strip, the heads' grid. */
.learned-text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.text-echo { margin: 0.3em 0 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.text-echo mark { background: color-mix(in srgb, var(--calc-error) 22%, var(--calc-paper)); color: var(--calc-ink); border-bottom: 2px solid var(--calc-error); border-radius: 2px; }
.learned-lab .cell-message { min-height: 0; }
/* Empty, the live region collapses but stays in the accessibility tree, so its first message is read. */
.learned-lab .cell-message:empty { margin: 0; }
.learned-source { font-weight: 600; }
/* The last readable text's heads, kept while the learner's text cannot be read: the pictures are
   dimmed, the words keep their contrast (the message above says what is shown). */
.learned-lab:is(.stale, .stale-heads) svg.learned-map { opacity: 0.4; filter: grayscale(0.6); }
.learned-lab:is(.stale, .stale-heads) .token-strip { border-style: dashed; filter: grayscale(1); }
.token-strip {
  display: flex; flex-wrap: wrap; gap: 0.2em; padding: 0.3em; margin: 0.3em 0;
  border: 1px solid var(--calc-cell-border); border-radius: 6px; cursor: pointer;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
.token-strip:focus-visible { outline: 2px solid var(--calc-focus); outline-offset: 2px; }
.token-strip .token {
  --weight: 0;
  display: inline-block; min-width: 1.5em; padding: 0.15em 0.1em; text-align: center; border-radius: 4px;
  border: 2px solid transparent;
  /* At most 45 %, where the ink keeps 4.5:1 on the tint in both themes. */
  background: color-mix(in srgb, var(--calc-accent) calc(var(--weight) * 45%), var(--calc-cell));
}
.token-strip .token.later { color: var(--calc-muted); background: transparent; }
.token-strip .token.from { border-color: var(--calc-focus); }
.token-strip .token.most { border-color: var(--calc-ink); font-weight: 700; }
.token-strip .token.after-previous { text-decoration: underline dotted; text-underline-offset: 0.2em; }
.look-readout { margin: 0.3em 0 0.75em; max-width: 48em; }
/* Layers as rows, heads as columns; one column where two do not fit. */
.head-grid { display: grid; grid-template-columns: repeat(var(--heads, 2), minmax(0, max-content)); gap: 1em 1.5em; }
@container (max-width: 62em) { .head-grid { grid-template-columns: minmax(0, 1fr); } }
.learned-head { margin: 0; min-width: 0; padding: 0.4em; border: 2px solid transparent; border-radius: 8px; }
.learned-head.selected { border-color: var(--calc-accent); }
.learned-head figcaption { margin-bottom: 0.3em; }
.head-roles { font-weight: 600; }
.learned-head:not(.has-role) .head-roles { font-weight: 400; color: var(--calc-muted); }
.head-scores { display: flex; flex-wrap: wrap; gap: 0 1em; font-size: 0.85em; color: var(--calc-muted); font-variant-numeric: tabular-nums; }
.head-scores .passes { color: var(--calc-ink); font-weight: 600; }
svg.learned-map { max-width: none; color: var(--calc-ink); }
svg.learned-map path { pointer-events: none; }
svg.learned-map:focus-visible { outline: 2px solid var(--calc-focus); outline-offset: 2px; }
svg.learned-map .focus-row { stroke: var(--calc-focus); stroke-width: 1.5; }
svg.learned-map .cell-cursor { stroke: var(--calc-ink); stroke-width: 2; }
.head-readout { min-height: 2.6em; margin: 0.2em 0; font-size: 0.85em; }
.learned-head .follow { margin: 0.2em 0; }
.head-details summary { cursor: pointer; font-size: 0.9em; }
.top-weights-table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
.top-weights-table th, .top-weights-table td { padding: 0.1em 0.5em; text-align: left; border-bottom: 1px solid var(--calc-cell-border); }
.training-slot { margin-top: 1.5em; }
.gradient-box, .gradient-box svg.chart { width: 100%; }
.gradient-table td, .gradient-table th { white-space: nowrap; }

/* "Train in this browser" (learned-train.js), inside the learned-heads panel. Here, not a file
   of its own: a site's bundler (Vite) inlines a file that small as a data: URL, which a strict
   CSP (style-src 'self') blocks. */
.learned-train { margin-top: 1.5em; padding-top: 0.5em; border-top: 1px solid var(--calc-cell-border); }
.learned-train h3 { margin: 0.3em 0 0.4em; }
.train-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em 0.75em; margin: 0.5em 0; }
.train-error { color: var(--calc-error); }
/* Empty, they collapse (no display: none: the status and alert regions must stay in the
   accessibility tree, or a screen reader can miss their first message). */
.train-error:empty, .train-status:empty, .train-progress:empty { margin: 0; }
.train-progress { font-variant-numeric: tabular-nums; margin: 0.4em 0; }
.train-status { font-weight: 600; margin: 0.4em 0; }
.train-shown { border: 1px solid var(--calc-cell-border); border-radius: 6px; margin: 0.5em 0; padding: 0.3em 0.75em 0.5em; }
.train-shown label { display: inline-flex; align-items: center; gap: 0.3em; margin-right: 1em; }
.train-figure { width: 36em; max-width: 100%; }
.train-figure svg.chart { width: 100%; height: auto; }
/* Okabe–Ito: vermillion (first copy) and blue (second copy) on light, orange and sky blue on dark,
   at 3:1 or more against --calc-cell. The unscaled model's lines are dashed, and each is named. */
.loss-line { fill: none; stroke-width: 2; }
.loss-first { stroke: light-dark(#d55e00, #e69f00); }
.loss-second { stroke: light-dark(#0072b2, #56b4e9); }
.train-legend { list-style: none; margin: 0.3em 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.2em 1.25em; font-size: 0.9em; }
.train-legend li { display: inline-flex; align-items: center; gap: 0.2em; }
.loss-swatch { flex: none; }
/* Labels over the lines keep a halo of the chart's background, so a line never cuts through them. */
.train-summary { font-size: 0.9em; margin: 0.3em 0; }
.train-table-box { max-width: 100%; overflow-x: auto; }
.train-values table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.9em; }
.train-values th, .train-values td { padding: 0.15em 0.5em; border-bottom: 1px solid var(--calc-cell-border); text-align: right; }
.train-compare-result { background: var(--calc-cell); border-left: 4px solid var(--calc-accent); padding: 0.4em 0.75em; }
.train-results { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
.train-goals { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.9em; }
.train-goals caption { text-align: left; margin-bottom: 0.3em; }
.train-goals th, .train-goals td { padding: 0.2em 0.5em; border-bottom: 1px solid var(--calc-cell-border); text-align: left; }
.train-goals .goal-met { color: var(--calc-pass); }
`;
