// The √d_k lab's gradient chart: the size of the softmax's Jacobian per row against d_k, both on
// log axes, for unscaled and scaled rows: each a median line over a band from the first to the
// third quartile, a dotted line at the threshold below which a row passes almost no gradient, and
// a mark at the learner's d_k. The two series differ by dash as well as by colour, and are named
// in the figure's legend; text uses currentColor and follows the theme.
import { svg } from '../../shared/dom.js';

const W = 360, H = 230, LEFT = 48, RIGHT = 12, TOP = 12, BOTTOM = 40;
const PLOT_W = W - LEFT - RIGHT, PLOT_H = H - TOP - BOTTOM;
export const FLOOR = 1e-4; // the lowest value drawn: below it a row passes nothing that matters

const superscript = (e) => String(e).replace('-', '⁻').replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[d]);

/**
 * @param {object} o
 * @param {{ key: string, name: string, dashed?: boolean,
 *   points: { dk: number, q1: number, median: number, q3: number }[] }[]} o.series
 * @param {number} o.threshold  drawn as a dotted line
 * @param {number} [o.mark]     the learner's d_k, marked with a vertical line
 * @param {string} o.label      the accessible name
 */
export function gradientChart({ series, threshold, mark, label }) {
  const dks = series.flatMap((s) => s.points.map((p) => p.dk));
  const x0 = Math.log2(Math.min(...dks)), x1 = Math.max(Math.log2(Math.max(...dks)), x0 + 1);
  const y0 = Math.log10(FLOOR), y1 = 0;
  const X = (dk) => LEFT + ((Math.log2(dk) - x0) / (x1 - x0)) * PLOT_W;
  const Y = (v) => TOP + PLOT_H - ((Math.log10(Math.max(v, FLOOR)) - y0) / (y1 - y0)) * PLOT_H;
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H,
    role: 'img', 'aria-label': label, class: 'chart gradient-chart', 'font-family': 'system-ui, sans-serif', 'font-size': 10,
  }, svg('title', { text: 'The gradient a softmax row passes back, against d_k' }));
  const axis = { stroke: 'currentColor', 'stroke-opacity': 0.5 };
  root.append(
    svg('line', { x1: LEFT, y1: TOP + PLOT_H, x2: LEFT + PLOT_W, y2: TOP + PLOT_H, ...axis }),
    svg('line', { x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + PLOT_H, ...axis }),
    svg('text', { x: LEFT + PLOT_W / 2, y: H - 4, 'text-anchor': 'middle', fill: 'currentColor', text: 'dₖ (log scale)' }),
    svg('text', { x: 12, y: TOP + PLOT_H / 2, 'text-anchor': 'middle', fill: 'currentColor', transform: `rotate(-90 12 ${TOP + PLOT_H / 2})`, text: '‖∂softmax/∂s‖ per row (log)' }));
  for (let e = y0; e <= y1; e++) {
    root.append(
      svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(10 ** e), y2: Y(10 ** e), stroke: 'currentColor', 'stroke-opacity': 0.12 }),
      svg('text', { x: LEFT - 5, y: Y(10 ** e) + 3, 'text-anchor': 'end', fill: 'currentColor', text: e === 0 ? '1' : `10${superscript(e)}` }));
  }
  for (let e = Math.ceil(x0); e <= x1; e += 2) {
    root.append(
      svg('line', { x1: X(2 ** e), x2: X(2 ** e), y1: TOP + PLOT_H, y2: TOP + PLOT_H + 3, ...axis }),
      svg('text', { x: X(2 ** e), y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: String(2 ** e) }));
  }
  for (const s of series) {
    const pts = [...s.points].sort((a, b) => a.dk - b.dk);
    const upper = pts.map((p) => `${X(p.dk).toFixed(1)} ${Y(p.q3).toFixed(1)}`);
    const lower = pts.map((p) => `${X(p.dk).toFixed(1)} ${Y(p.q1).toFixed(1)}`).reverse();
    root.append(
      svg('path', { d: `M${upper.join('L')}L${lower.join('L')}Z`, class: `quartile-band series-${s.key}`, dataset: { band: s.key } }),
      svg('path', {
        d: `M${pts.map((p) => `${X(p.dk).toFixed(1)} ${Y(p.median).toFixed(1)}`).join('L')}`,
        class: `median-line series-${s.key}`, 'stroke-dasharray': s.dashed ? '5 3' : undefined, dataset: { median: s.key },
      }));
  }
  // The threshold and the learner's d_k, labelled over the lines.
  root.append(
    svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(threshold), y2: Y(threshold), stroke: 'currentColor', 'stroke-opacity': 0.6, 'stroke-dasharray': '1 3' }),
    svg('text', { x: LEFT + 3, y: Y(threshold) + 11, fill: 'currentColor', class: 'chart-label', text: `${threshold}: almost no gradient below` }));
  if (mark !== undefined) {
    const x = X(mark), right = x > LEFT + PLOT_W * 0.6;
    root.append(
      svg('line', { x1: x, x2: x, y1: TOP, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.6, 'stroke-dasharray': '3 2' }),
      svg('text', { x: x + (right ? -3 : 3), y: TOP + 10, 'text-anchor': right ? 'end' : 'start', fill: 'currentColor', class: 'chart-label', text: `your dₖ = ${mark}` }));
  }
  return root;
}

/** A legend swatch: a stretch of the series' median line over its band. */
export function gradientSwatch({ key, dashed }) {
  return svg('svg', { viewBox: '0 0 28 12', width: 28, height: 12, class: 'gradient-swatch', 'aria-hidden': 'true' },
    svg('rect', { x: 0, y: 1, width: 28, height: 10, class: `quartile-band series-${key}` }),
    svg('line', { x1: 1, y1: 6, x2: 27, y2: 6, class: `median-line series-${key}`, 'stroke-dasharray': dashed ? '5 3' : undefined }));
}
