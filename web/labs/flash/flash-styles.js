// The flash lab's own rules, as CSS text adopted beside the labs' stylesheet (labs-styles.js)
// once the lab is on the page: a constructed stylesheet, which the strict CSP allows.
export const flashStyles = String.raw`
.flash-lab .flash-part { margin-top: 1.5em; }
.flash-lab .flash-part:first-of-type { margin-top: 0.5em; }
.flash-lab .flash-rules { display: grid; gap: 0.4em; margin: 0.5em 0 0.75em; padding-left: 1.2em; }
.flash-lab .flash-rules li { max-width: 100%; min-width: 0; }
.flash-lab .flash-rules li > .scroll-box { display: block; }
.flash-lab .flash-rules li::marker { color: var(--calc-muted); }
.flash-lab .flash-now .stat-card { min-width: 0; flex: 1 1 8em; max-width: 15em; }
.flash-lab .flash-steps { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; }
.flash-lab button[aria-disabled="true"] { opacity: 0.55; cursor: default; }
.flash-lab .lab-results { display: flex; flex-wrap: wrap; gap: 0.5em 2em; align-items: flex-start; }
.flash-lab .lab-results > * { min-width: 0; max-width: 100%; }
.flash-lab .lab-results > p { flex: 1 0 100%; margin: 0.25em 0; }
/* The key strip: this step's tile tinted (at most 30 %, where the ink keeps 4.5:1 in both themes)
   and framed, the tiles read before it lightly tinted, the rest in muted ink. */
.flash-lab .flash-keys td.current { background: color-mix(in srgb, var(--calc-accent) 24%, var(--calc-cell)); font-weight: 700; outline: 2px solid var(--calc-accent); outline-offset: -2px; }
.flash-lab .flash-keys td.read { background: color-mix(in srgb, var(--calc-accent) 9%, var(--calc-cell)); }
.flash-lab .flash-keys td.unread, .flash-lab .flash-keys td.skipped, .flash-lab .flash-keys td.masked { color: var(--calc-muted); }
.flash-lab .flash-keys td.skipped { background: repeating-linear-gradient(135deg, var(--calc-cell) 0 6px, color-mix(in srgb, var(--calc-muted) 14%, var(--calc-cell)) 6px 8px); }
.flash-lab .flash-keys .tile-start { border-left: 3px solid var(--calc-ink); }
.flash-lab .flash-keys thead th.tile-head { font-weight: 600; font-size: 0.85em; }
.flash-lab .flash-keys thead th.tile-head.current { color: var(--calc-accent); }
.flash-lab tr.current td, .flash-lab tr.current th, .flash-lab tr.newest td, .flash-lab tr.newest th { background: color-mix(in srgb, var(--calc-accent) 22%, var(--calc-cell)); }
.flash-lab tr.current th, .flash-lab tr.newest th { color: var(--calc-ink); font-weight: 700; }
.flash-lab .flash-legend { font-size: 0.85em; color: var(--calc-muted); margin: 0.25em 0 0; }
.flash-lab .stat-value { overflow-wrap: anywhere; }
.flash-lab .stat-title .tex { font-size: 1.05em; }
.flash-lab .flash-verdict strong, .flash-lab .flash-sizes-verdict strong { font-variant-numeric: tabular-nums; }
.flash-lab .flash-memory .stat-card { min-width: 11em; }
.flash-lab .flash-curve-chart .chart-label { paint-order: stroke; stroke: var(--calc-cell); stroke-width: 3px; stroke-linejoin: round; }
.flash-lab .flash-curve-chart circle { stroke: none; }
.flash-lab .flash-curve-box > p { flex: 1 0 100%; }
.flash-lab .flash-block { flex: 1 0 100%; }
.flash-lab .flash-block-table td.skipped { background: repeating-linear-gradient(135deg, var(--calc-cell) 0 6px, color-mix(in srgb, var(--calc-muted) 14%, var(--calc-cell)) 6px 8px); }
.flash-lab .flash-block-table td.masked, .flash-lab .flash-block-table td.skipped-note { color: var(--calc-muted); }
.flash-lab .flash-block-said { margin: 0.25em 0 0; }
.flash-lab.stale .lab-results, .flash-lab .flash-part.stale .lab-results { opacity: 0.4; filter: grayscale(0.6); }
`;
