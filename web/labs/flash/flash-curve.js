// The memory curve: for n = 64, 128, … at d = 64, the floats each path held at once, as the core's
// allocator counted them running both paths (attentionPeakFloats), as far as about a second of
// this browser's time reaches. No float here comes from a formula in JS; this module only draws.
import { h, svg } from '../../shared/dom.js';
import { scrollBox } from '../widgets/scroll-cue.js';

const D = 64;            // one head of GPT-2's size, as the cost lab measures
const TILE = 64;         // B: keys per tile, a typical FlashAttention tile
const FIRST_N = 64;
const BUDGET_MS = 1000;  // about a second of the page's time, one size per task so the page stays responsive
const MIN_SIZES = 3;     // fewer points draw no curve, however long a busy machine takes over them
const fmt = (x) => x.toLocaleString('en-US');

// The chart's box, as widgets/chart.js draws its charts (that one draws a single series).
const W = 360, H = 210, LEFT = 48, RIGHT = 46, TOP = 14, BOTTOM = 40;
const PLOT_W = W - LEFT - RIGHT, PLOT_H = H - TOP - BOTTOM;

/** 16777216 → "16.8M", 4288 → "4,288": an axis tick. */
const tick = (x) => (x >= 1e6 ? `${+(x / 1e6).toPrecision(3)}M` : x >= 1e4 ? `${+(x / 1e3).toPrecision(3)}k` : fmt(x));

// Both series on one pair of log axes, each line named at its end (colour is not the only cue).
function curveChart(points) {
  const xs = points.map((p) => Math.log2(p.n));
  const ys = points.flatMap((p) => [Math.log10(p.fullPeakFloats), Math.log10(p.peakFloats)]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.floor(Math.min(...ys)), y1 = Math.max(Math.ceil(Math.max(...ys)), y0 + 1);
  const X = (n) => LEFT + ((Math.log2(n) - x0) / (x1 - x0)) * PLOT_W;
  const Y = (f) => TOP + PLOT_H - ((Math.log10(f) - y0) / (y1 - y0)) * PLOT_H;
  const root = svg('svg', { xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', class: 'chart flash-curve-chart',
    'font-family': 'system-ui, sans-serif', 'font-size': 10,
    'aria-label': `Floats held against n, log scales: the plain path from ${fmt(points[0].fullPeakFloats)} to ${fmt(points.at(-1).fullPeakFloats)}, the tiled path from ${fmt(points[0].peakFloats)} to ${fmt(points.at(-1).peakFloats)}, for n from ${fmt(points[0].n)} to ${fmt(points.at(-1).n)}` },
  svg('title', { text: 'Floats held at once against n' }));
  for (let e = y0; e <= y1; e++) {
    root.append(svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(10 ** e), y2: Y(10 ** e), stroke: 'currentColor', 'stroke-opacity': 0.12 }),
      svg('text', { x: LEFT - 5, y: Y(10 ** e) + 3, 'text-anchor': 'end', fill: 'currentColor', text: tick(10 ** e) }));
  }
  for (const p of points) root.append(svg('text', { x: X(p.n), y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(p.n) }));
  root.append(
    svg('line', { x1: LEFT, y1: TOP + PLOT_H, x2: LEFT + PLOT_W, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
    svg('line', { x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
    svg('text', { x: LEFT + PLOT_W / 2, y: H - 4, 'text-anchor': 'middle', fill: 'currentColor', text: 'n (tokens, log scale)' }),
    svg('text', { x: 12, y: TOP + PLOT_H / 2, 'text-anchor': 'middle', fill: 'currentColor', transform: `rotate(-90 12 ${TOP + PLOT_H / 2})`, text: 'floats held (log scale)' }));
  for (const [key, name, of] of [['unscaled', 'plain', (p) => p.fullPeakFloats], ['scaled', 'tiled', (p) => p.peakFloats]]) {
    root.append(svg('polyline', { points: points.map((p) => `${X(p.n)},${Y(of(p))}`).join(' '), fill: 'none', 'stroke-width': 2, class: `median-line series-${key}` }));
    for (const p of points) root.append(svg('circle', { cx: X(p.n), cy: Y(of(p)), r: 3.5, class: `series-${key}` }, svg('title', { text: `n = ${fmt(p.n)}, ${name} path: ${fmt(of(p))} floats` })));
    const end = points.at(-1);
    root.append(svg('text', { x: X(end.n) + 6, y: Y(of(end)) + 3, fill: 'currentColor', 'font-weight': 700, class: 'chart-label', text: name }));
  }
  return root;
}

export class MemoryCurvePart {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError }) {
    this.attn = attn;
    this.onError = onError;
    this.points = [];
    // The curve takes about a second of this page's time, so it runs when the learner asks.
    this.button = h('button', { type: 'button', class: 'flash-measure', text: 'Measure the memory curve', on: { click: () => this.measure() } });
    this.body = h('div', { class: 'lab-results flash-curve-box', 'aria-live': 'polite' });
    this.element = h('section', { class: 'flash-part flash-curve', role: 'group', 'aria-label': 'Memory against n' },
      h('h3', { text: 'Memory against n, at d = 64' }),
      h('p', {}, `For n tokens of seeded queries, keys and values at d = d_v = ${D}, the core runs both paths and its allocator counts the most floats each held at once: the plain path the n × n scores and Z, the tiled path one tile of B = ${TILE} scores, m and ℓ for each row, and Z. Each n is run here, in this browser, as far as about a second reaches.`),
      h('div', { class: 'control-row' }, this.button),
      this.body);
  }

  /** Runs n = 64, 128, … one size per task until about a second has passed (three sizes at least); resolves once drawn. */
  measure() {
    this.points = [];
    this.button.disabled = true;
    this.body.replaceChildren(h('p', { class: 'hint', text: 'Measuring…' }));
    const started = performance.now();
    const maxN = this.attn.limits().maxPeakTokens; // past it the core refuses: the plain path's n² scores
    return new Promise((resolve) => {
      const next = (n) => {
        try {
          this.points.push({ n, ...this.attn.attentionPeakFloats({ n, d: D, tile: TILE }) });
        } catch (error) {
          this.onError(error.message);
        }
        const elapsed = performance.now() - started;
        if (n * 2 <= maxN && (this.points.length < MIN_SIZES || elapsed < BUDGET_MS)) setTimeout(() => next(n * 2));
        else {
          this.#draw(n * 2 <= maxN ? 'time' : 'limit', elapsed);
          this.button.disabled = false;
          this.button.textContent = 'Measure again';
          resolve();
        }
      };
      setTimeout(() => next(FIRST_N));
    });
  }

  // Where the curve stops, and why: the second ran out, or the core's limit; never n = 65,536.
  #draw(stoppedBy, elapsed) {
    const points = this.points;
    if (!points.length) return;
    const last = points.at(-1);
    const cell = (x, name) => h('td', { 'aria-label': `${name}: ${fmt(x)}`, dataset: { value: x }, text: fmt(x) });
    const table = h('table', { class: 'grid computed lab-matrix', dataset: { matrix: 'curve' } },
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ['plain path', 'tiled path', 'plain ÷ tiled'].map((text) => h('th', { scope: 'col', text })))),
      h('tbody', {}, points.map((p) => h('tr', { dataset: { n: p.n } },
        h('th', { scope: 'row', text: `n = ${fmt(p.n)}` }),
        cell(p.fullPeakFloats, `n = ${fmt(p.n)}, plain path, floats`), cell(p.peakFloats, `n = ${fmt(p.n)}, tiled path, floats`),
        h('td', { text: `${(p.fullPeakFloats / p.peakFloats).toFixed(1)}×` })))));
    const why = stoppedBy === 'time'
      ? `It stops at n = ${fmt(last.n)}: ${Math.round(elapsed)} ms had passed, past the second it is given, and n = ${fmt(last.n * 2)} would take about four times as long as n = ${fmt(last.n)}, the plain path’s n² · d multiplications.`
      : `It stops at n = ${fmt(last.n)}, the longest the core runs here (${Math.round(elapsed)} ms for the whole curve): at n = ${fmt(2 * last.n)} the plain path’s n² scores alone would be ${fmt((2 * last.n) ** 2 * 4 / 2 ** 20)} MiB.`;
    this.body.replaceChildren(
      h('figure', { class: 'chart-figure' }, h('figcaption', {}, h('span', {}, h('strong', { text: 'Floats held at once' }), `: the plain path against tiles of B = ${TILE}, d = ${D}`)), curveChart(points)),
      h('figure', { class: 'matrix lab-figure' }, h('figcaption', {}, h('span', {}, h('strong', { text: 'The measured peaks' }), ', floats, as the core’s allocator counted them')),
        scrollBox(table, { label: 'The measured peaks, scroll sideways' })),
      h('p', { class: 'flash-curve-stop', dataset: { last: last.n, stoppedBy } }, why,
        ` It does not reach n = 65,536: there the plain path would hold n² = 4,294,967,296 scores, 17 GB of float32, past the 4 GB a wasm32 page can address at all, and its arithmetic would take minutes. The tiled path’s floats grow as n, the plain path’s as n²: that, not the arithmetic, is what the tiles save.`));
  }
}
