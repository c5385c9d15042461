// The positions lab's own rules, as CSS text adopted beside the labs' stylesheet (labs-styles.js)
// once the lab is on the page: a constructed stylesheet, which the strict CSP allows.
export const positionsStyles = String.raw`
.positions-lab .pos-part { margin-top: 1.5em; }
.positions-lab .pos-schemes { border: 1px solid var(--calc-cell-border); border-radius: 6px; display: flex; flex-wrap: wrap; gap: 0.25em 1em; padding: 0.3em 0.75em 0.5em; }
.positions-lab .pos-schemes label { display: inline-flex; align-items: center; gap: 0.25em; }
.positions-lab .pos-order { font: inherit; width: 9em; font-variant-numeric: tabular-nums; }
.positions-lab .pos-order[aria-invalid] { border-color: var(--calc-error); }
.positions-lab .pos-arrows { max-width: 100%; }
.positions-lab .pos-arrows-svg line.moves { color: var(--calc-accent); }
.positions-lab .pos-arrows-svg line.stays { opacity: 0.4; }
.positions-lab .pos-results { display: flex; flex-wrap: wrap; gap: 0.5em 2em; align-items: flex-start; }
.positions-lab .pos-results > * { min-width: 0; max-width: 100%; }
.positions-lab .pos-figure { margin: 0; }
.positions-lab .pos-weights { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: flex-end; }
.positions-lab .pos-weights figcaption { flex: 1 0 100%; }
.positions-lab .pos-figure figcaption { font-size: 0.9em; color: var(--calc-muted); margin-bottom: 0.25em; }
/* A score the shuffle changed beyond float32 rounding: tinted and outlined (the ink keeps 4.5:1). */
.positions-lab td.moved { background: color-mix(in srgb, var(--calc-accent) 22%, var(--calc-cell)); outline: 2px solid var(--calc-accent); outline-offset: -2px; }
/* The last valid shuffle while the typed order has a problem: greyed and framed, its text still readable. */
.positions-lab .pos-shuffle.stale :is(.pos-results, .pos-verdict, .pos-arrows) { filter: grayscale(1); outline: 2px dashed var(--calc-muted); outline-offset: 3px; }
.positions-lab .pos-rope { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em 1.5em; }
.positions-lab .pos-rotation .q-before { color: var(--calc-muted); }
.positions-lab .pos-rotation .q-after { color: var(--calc-accent); }
.positions-lab .pos-rotation .k-after { color: var(--calc-ink); }
.positions-lab .pos-legend { list-style: none; padding: 0; margin: 0; font-size: 0.9em; }
.positions-lab .pos-legend li::before { content: ''; display: inline-block; width: 1.5em; height: 3px; background: currentColor; vertical-align: middle; margin-right: 0.4em; }
.positions-lab .pos-legend .q-before::before { background: var(--calc-muted); }
.positions-lab .pos-legend .q-after::before { background: var(--calc-accent); }
.positions-lab .pos-legend li { color: var(--calc-ink); }
.positions-lab .pos-alibi { max-width: 100%; }
.positions-lab h4 { margin: 1em 0 0.3em; }
`;
