// The loss chart of the in-browser trainer: the loss on the first and the second copy of the
// repeated string against the training step, for one model or two (scaled and unscaled) on the
// same axes. Colour tells the copies apart and the dash the models, and a legend names each line
// in words, so colour is never the only cue. Text uses currentColor and follows the theme.
import { svg } from '../../shared/dom.js';

// The phase-change labels sit in a band of their own above the plot, one line each, so they never
// cross a curve (inside the plot they lay over the second copy's low loss after the drop).
const W = 360, PLOT_H = 160, LEFT = 40, RIGHT = 14, BOTTOM = 38, LABEL_LINE = 12;
const PLOT_W = W - LEFT - RIGHT;

const niceStep = (max) => {
  const raw = max / 4, p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((f) => f * p).find((s) => s >= raw);
};
const tick = (x) => (x >= 1000 ? `${+(x / 1000).toFixed(2)}k` : String(+x.toFixed(2)));

/** A legend swatch: a short stretch of the series' line, drawn as in the chart. */
export function swatch(series) {
  return svg('svg', { viewBox: '0 0 28 10', width: 28, height: 10, class: 'loss-swatch', 'aria-hidden': 'true' },
    svg('line', { x1: 1, y1: 5, x2: 27, y2: 5, class: `loss-line ${series.className}`, 'stroke-dasharray': series.dashed ? '5 3' : undefined }));
}

/**
 * @param {object} o
 * @param {{ name: string, className: string, dashed?: boolean, points: { step: number, value: number }[] }[]} o.series
 * @param {number} o.steps       at least this many steps on the x-axis
 * @param {number} o.chance      a reference line: the loss of a uniform guess, ln(vocabulary)
 * @param {string} o.chanceText  its label
 * @param {{ step: number, text: string }[]} [o.markers]  vertical marks (the phase change)
 * @param {string} o.label       the accessible name
 */
export function lossChart({ series, steps, chance, chanceText, markers = [], label }) {
  const TOP = 8 + markers.length * LABEL_LINE, H = TOP + PLOT_H + BOTTOM;
  const values = series.flatMap((s) => s.points.map((p) => p.value)).filter(Number.isFinite);
  const xStep = niceStep(Math.max(steps, 500)), xMax = Math.ceil(Math.max(steps, 500) / xStep) * xStep;
  const yMax = Math.ceil(Math.max(chance, ...values) * 2) / 2;
  const X = (step) => LEFT + (step / xMax) * PLOT_W;
  const Y = (v) => TOP + PLOT_H - (Math.max(0, Math.min(v, yMax)) / yMax) * PLOT_H;
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H,
    role: 'img', 'aria-label': label, class: 'chart loss-chart', 'font-family': 'system-ui, sans-serif', 'font-size': 10,
  }, svg('title', { text: 'Training loss per step' }));
  const axis = { stroke: 'currentColor', 'stroke-opacity': 0.5 };
  root.append(
    svg('line', { x1: LEFT, y1: TOP + PLOT_H, x2: LEFT + PLOT_W, y2: TOP + PLOT_H, ...axis }),
    svg('line', { x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + PLOT_H, ...axis }),
    svg('text', { x: LEFT + PLOT_W / 2, y: H - 4, 'text-anchor': 'middle', fill: 'currentColor', text: 'training step' }),
    svg('text', { x: 11, y: TOP + PLOT_H / 2, 'text-anchor': 'middle', fill: 'currentColor', transform: `rotate(-90 11 ${TOP + PLOT_H / 2})`, text: 'loss (nats)' }));
  for (let x = 0; x <= xMax; x += xStep) {
    root.append(
      svg('line', { x1: X(x), x2: X(x), y1: TOP + PLOT_H, y2: TOP + PLOT_H + 3, ...axis }),
      svg('text', { x: X(x), y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(x) }));
  }
  for (let y = 0; y <= yMax; y += yMax > 3 ? 1 : 0.5) {
    root.append(
      svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(y), y2: Y(y), stroke: 'currentColor', 'stroke-opacity': 0.12 }),
      svg('text', { x: LEFT - 5, y: Y(y) + 3, 'text-anchor': 'end', fill: 'currentColor', text: tick(y) }));
  }
  // A uniform guess over the vocabulary: where both copies start.
  root.append(
    svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(chance), y2: Y(chance), stroke: 'currentColor', 'stroke-opacity': 0.45, 'stroke-dasharray': '1 3' }));
  for (const s of series) {
    const d = s.points.filter((p) => Number.isFinite(p.value)).map((p, i) => `${i ? 'L' : 'M'}${X(p.step).toFixed(1)} ${Y(p.value).toFixed(1)}`).join('');
    if (d) root.append(svg('path', { d, fill: 'none', class: `loss-line ${s.className}`, 'stroke-dasharray': s.dashed ? '5 3' : undefined, dataset: { series: s.name } }));
  }
  // Labels last, over the lines.
  root.append(svg('text', { x: LEFT + PLOT_W - 2, y: Y(chance) + 11, 'text-anchor': 'end', fill: 'currentColor', class: 'chart-label', text: chanceText }));
  markers.forEach((m, i) => { // one line each in the band above the plot, its mark reaching up to it
    const x = X(m.step), right = x > LEFT + PLOT_W * 0.6, y = 4 + (i + 1) * LABEL_LINE - 3;
    root.append(
      svg('line', { x1: x, x2: x, y1: y + 2, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.6, 'stroke-dasharray': '3 2', class: 'phase-mark' }),
      svg('text', { x: x + (right ? -3 : 3), y, 'text-anchor': right ? 'end' : 'start', fill: 'currentColor', class: 'chart-label', text: m.text }));
  });
  return root;
}
