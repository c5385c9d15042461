// The KV-cache lab's own rules, as CSS text adopted beside the labs' stylesheet (labs-styles.js)
// once the lab is on the page: a constructed stylesheet, which the strict CSP allows.
export const kvcacheStyles = String.raw`
.kvcache-lab .kv-part { margin-top: 1.5em; }
.kvcache-lab .kv-part:first-of-type { margin-top: 0.5em; }
.kvcache-lab .kv-next .input-matrix { min-width: 0; }
.kvcache-lab .kv-decode .lab-results { display: flex; flex-wrap: wrap; gap: 0.5em 2em; align-items: flex-start; }
.kvcache-lab .kv-decode .lab-results > * { min-width: 0; max-width: 100%; }
.kvcache-lab .kv-decode .lab-results > p { flex: 1 0 100%; margin: 0.25em 0; }
/* The row this step added: tinted (at most 30 %, where the ink keeps 4.5:1 in both themes) and named. */
.kvcache-lab tr.newest td, .kvcache-lab tr.newest th { background: color-mix(in srgb, var(--calc-accent) 22%, var(--calc-cell)); }
.kvcache-lab tr.newest th { color: var(--calc-ink); font-weight: 700; }
.kvcache-lab .kv-verdict strong { font-variant-numeric: tabular-nums; }
.kvcache-lab .kv-groups { display: flex; flex-wrap: wrap; gap: 0.75em 1em; margin-top: 0.75em; }
.kvcache-lab .kv-group { border: 2px solid var(--group); border-radius: 8px; padding: 0.3em 0.6em 0.5em; min-width: 0; max-width: 100%; }
.kvcache-lab .kv-group h4 { font-size: 0.9em; margin: 0 0 0.3em; }
.kvcache-lab .kv-kind-name { color: var(--calc-accent); }
.kvcache-lab .stat-card .tex { font-size: 0.95em; }
/* relative: the spoken note (.sr-only, absolutely placed) stays inside the scrolling table. */
.kvcache-lab .kv-models td.beyond { color: var(--calc-muted); position: relative; }
.kvcache-lab .kv-models tr[data-model="yours"] th, .kvcache-lab .kv-models tr[data-model="yours"] td { border-top: 2px solid var(--calc-cell-border); }
.kvcache-lab .kv-yours { border: 1px solid var(--calc-cell-border); border-radius: 6px; margin: 0.5em 0; padding: 0.3em 0.75em 0.5em; }
.kvcache-lab .kv-yours label { display: inline-flex; align-items: center; gap: 0.3em; }
.kvcache-lab .kv-yours .count-input[aria-invalid] { border-color: var(--calc-error); }
.kvcache-lab .kv-models th[scope="row"], .kvcache-lab .kv-models td.num { white-space: nowrap; }
.kvcache-lab .kv-model-kind { font-weight: 400; font-size: 0.85em; color: var(--calc-muted); }
/* The last valid heads while the learner's h_kv is refused: dimmed, as the other labs dim theirs. */
.kvcache-lab .kv-part.stale .lab-results, .kvcache-lab .kv-part.stale .kv-counts { opacity: 0.4; filter: grayscale(0.6); }
.kvcache-lab .kv-sources { font-size: 0.9em; }
.kvcache-lab .kv-sources a { color: var(--calc-accent); overflow-wrap: anywhere; }
`;
