// The GPT-2 panel's stylesheet, as text: a module of the panel's own, so that its rules come with
// the panel (panels="gpt2") and not in the labs' stylesheet every lab loads. The panel adopts it
// into the element's shadow root beside the calculator's and the labs' (adoptStyles in dom.js).
export const gpt2Styles = String.raw`
/* The custom properties come from the calculator's stylesheet. */
.gpt2-drop { margin: 0.5em 0; padding: 1em; border: 2px dashed var(--calc-cell-border); border-radius: 8px; color: var(--calc-muted); text-align: center; }
.gpt2-needs .link-button { padding: 0; border: 0; background: none; color: var(--calc-accent); font: inherit; text-decoration: underline; cursor: pointer; }
.gpt2-drop.over { border-color: var(--calc-accent); color: var(--calc-ink); }
.gpt2-loading { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3em 0.6em; margin: 0.5em 0; }
.gpt2-loading progress { width: min(20em, 100%); }
.gpt2-check { font-weight: 600; }
.gpt2-next { margin: 0.3em 0 1em; padding-left: 1.8em; }
.gpt2-next .token { font-family: ui-monospace, monospace; padding: 0 0.25em; border: 1px solid var(--calc-cell-border); border-radius: 4px; }
.gpt2-lab.stale .gpt2-heads, .gpt2-lab.stale .gpt2-check, .gpt2-lab.stale .gpt2-next { opacity: 0.55; }
.gpt2-script { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.8em; }
.gpt2-lab .cell-message:empty { min-height: 0; margin: 0; }
.gpt2-all-table { border-collapse: collapse; font-size: 0.8em; }
.gpt2-all-table th, .gpt2-all-table td { padding: 1px; text-align: center; }
.gpt2-cell { display: inline-flex; align-items: center; gap: 0.2em; padding: 0.1em 0.2em; font: inherit; font-variant-numeric: tabular-nums; white-space: nowrap; }
.gpt2-cell .swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px; border: 1px solid var(--calc-cell-border); opacity: calc(0.25 + 0.75 * var(--score, 0)); }
.gpt2-cell .swatch.previousToken { background: #1f6feb; }
.gpt2-cell .swatch.firstToken { background: #e36209; }
.gpt2-cell .swatch.induction { background: #2da44e; }
.gpt2-cell .swatch.none { background: #8c959f; }
/* The panel alone under an element (index.html's exercise 4): no empty status line and no lab
   margin above its heading. The live region stays in the accessibility tree, collapsed. */
.calc-status:empty:has(+ .gpt2-lab) { min-height: 0; margin: 0; }
.calc-status:empty + .gpt2-lab { margin-top: 0; padding-top: 0; }
.calc-status:empty + .gpt2-lab > h2:first-child { margin-top: 0; }
/* The followed head's tokens sit just above the maps; on a wide screen they stay in sight while
   the maps scroll past, so following a head shows its effect where the learner clicked. */
.gpt2-follow .token-view { position: sticky; top: 0; z-index: 1; background: var(--calc-paper); padding-bottom: 0.2em; border-bottom: 1px solid var(--calc-cell-border); }
@media (max-width: 699px) {
  .gpt2-follow .token-view .look-readout { font-size: 0.85em; margin-bottom: 0.3em; }
}
/* A map focused by keyboard scrolls into view below the strip, not under it. */
.gpt2-follow .learned-head, .gpt2-follow .learned-head * { scroll-margin-top: 12em; }
.gpt2-ablation-echo { margin: 0.2em 0; }
/* The instruments: switch a head off, each layer's guess, who wrote the answer, generate. */
.gpt2-tools h3 { margin-top: 1.5em; }
.gpt2-switch { display: inline-flex; align-items: center; gap: 0.3em; font-size: 0.85em; }
.gpt2-cell-box { display: inline-flex; align-items: center; gap: 0.1em; }
.gpt2-cell-box input { margin: 0 0.1em; }
.gpt2-cell.off .swatch, figure.gpt2-off svg { opacity: 0.45; }
.gpt2-cell.off { text-decoration: line-through; }
.gpt2-change { font-variant-numeric: tabular-nums; }
.gpt2-change.up { color: var(--calc-pass); }
.gpt2-change.down { color: var(--calc-error); }
.gpt2-ablation-said { font-weight: 600; }
.gpt2-table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
.gpt2-table th, .gpt2-table td { padding: 0.15em 0.5em; border-bottom: 1px solid var(--calc-cell-border); text-align: left; }
.gpt2-table td.num { text-align: right; }
.gpt2-table tr.first-answer { background: var(--calc-cell); font-weight: 700; }
.gpt2-table tr.first-answer th::after { content: " ◀"; color: var(--calc-accent); }
.gpt2-dla-map { border-collapse: collapse; font-size: 0.75em; font-variant-numeric: tabular-nums; }
.gpt2-dla-map th, .gpt2-dla-map td { padding: 1px; text-align: center; }
.gpt2-dla-map td { min-width: 3.2em; height: 1.8em; border: 1px solid var(--calc-cell-border); }
.gpt2-dla-map td.pos { background: color-mix(in srgb, #1f6feb calc(var(--v, 0) * 60%), var(--calc-cell)); }
.gpt2-dla-map td.neg { background: color-mix(in srgb, #cf222e calc(var(--v, 0) * 60%), var(--calc-cell)); }
.gpt2-bars { display: grid; grid-template-columns: max-content 1fr max-content; gap: 0.15em 0.5em; align-items: center; max-width: 36em; font-size: 0.85em; font-variant-numeric: tabular-nums; }
.gpt2-bar { position: relative; height: 0.9em; background: var(--calc-cell); border-radius: 2px; }
.gpt2-bar > span { position: absolute; top: 0; bottom: 0; border-radius: 2px; }
.gpt2-bar > span.pos { background: light-dark(#1f6feb, #58a6ff); }
.gpt2-bar > span.neg { background: light-dark(#cf222e, #ff7b72); }
.gpt2-gen-out { font-family: ui-monospace, monospace; white-space: pre-wrap; padding: 0.4em; border: 1px solid var(--calc-cell-border); border-radius: 6px; min-height: 2.5em; }
.gpt2-gen-out .new { background: color-mix(in srgb, var(--calc-accent) 18%, var(--calc-cell)); border-radius: 3px; }
.gpt2-gen-steps { max-height: 20em; overflow: auto; }
.gpt2-tools input[type=number] { width: 5em; }
.gpt2-dla-message { color: var(--calc-error); }
.gpt2-dla-message:empty { margin: 0; }
.gpt2-tools .token, .gpt2-gen-steps .token { font-family: ui-monospace, monospace; padding: 0 0.25em; border: 1px solid var(--calc-cell-border); border-radius: 4px; }
.gpt2-ablation fieldset { border: 1px solid var(--calc-cell-border); border-radius: 6px; }
.gpt2-generate .control-row label { white-space: nowrap; }
`;
