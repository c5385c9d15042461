// Small SVG charts for the labs: bars (histograms, softmax weights) and a log-log scatter with
// a fitted line. Axes are labelled with units; text uses currentColor so the charts follow the
// theme, and the fills are from the Okabe–Ito palette, which stays distinct under the common
// colour-vision deficiencies.
import { svg } from '../calc/dom.js';

export const OKABE_ITO = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#7f7f7f'];

const W = 360, H = 200, LEFT = 48, RIGHT = 12, TOP = 14, BOTTOM = 40;
const PLOT_W = W - LEFT - RIGHT, PLOT_H = H - TOP - BOTTOM;

/** A short number for an axis tick: 1200 → 1.2k, 0.25 → 0.25. */
function tick(x) {
  const a = Math.abs(x);
  if (a >= 1e6) return `${+(x / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(x / 1e3).toPrecision(3)}k`;
  if (a === 0) return '0';
  if (Number.isInteger(x)) return String(x).replace('-', '−');
  return `${+x.toPrecision(3)}`.replace('-', '−');
}

function frame(title, label) {
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${H}`, width: W, height: H,
    role: 'img', 'aria-label': label, class: 'chart', 'font-family': 'system-ui, sans-serif', 'font-size': 10,
  });
  root.append(svg('title', { text: title }));
  return root;
}

function axes(root, { xLabel, yLabel }) {
  root.append(
    svg('line', { x1: LEFT, y1: TOP + PLOT_H, x2: LEFT + PLOT_W, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
    svg('line', { x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + PLOT_H, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
    svg('text', { x: LEFT + PLOT_W / 2, y: H - 4, 'text-anchor': 'middle', fill: 'currentColor', text: xLabel }),
    svg('text', { x: 12, y: TOP + PLOT_H / 2, 'text-anchor': 'middle', fill: 'currentColor', transform: `rotate(-90 12 ${TOP + PLOT_H / 2})`, text: yLabel }));
}

function yTicks(root, max, scale) {
  for (const f of [0, 0.5, 1]) {
    const y = TOP + PLOT_H - f * PLOT_H;
    root.append(
      svg('line', { x1: LEFT - 3, x2: LEFT, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
      svg('text', { x: LEFT - 5, y: y + 3, 'text-anchor': 'end', fill: 'currentColor', text: tick(f * max * scale) }));
  }
}

/**
 * Bars over a numeric range: a histogram ({ lo, hi, counts }) or a row of weights (lo = 0,
 * hi = count). `yMax` fixes the vertical scale (so two charts compare); default: the largest bar.
 */
export function barChart({ values, lo = 0, hi = values.length, xLabel, yLabel, title, label, yMax, colour = OKABE_ITO[0], xTicks }) {
  const root = frame(title, label);
  const max = yMax ?? Math.max(...values, 1e-12);
  const width = PLOT_W / values.length;
  values.forEach((v, k) => {
    const height = (Math.min(v, max) / max) * PLOT_H;
    root.append(svg('rect', { x: LEFT + k * width + (width > 4 ? 0.5 : 0), y: TOP + PLOT_H - height, width: Math.max(width - (width > 4 ? 1 : 0), 0.5), height, fill: colour }));
  });
  axes(root, { xLabel, yLabel });
  yTicks(root, max, 1);
  for (const x of xTicks ?? [lo, (lo + hi) / 2, hi]) {
    const sx = LEFT + ((x - lo) / (hi - lo)) * PLOT_W;
    root.append(
      svg('line', { x1: sx, x2: sx, y1: TOP + PLOT_H, y2: TOP + PLOT_H + 3, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
      svg('text', { x: sx, y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(x) }));
  }
  return root;
}

/**
 * Points on log-log axes (both base 10 decades, or powers of two for x), with an optional fitted
 * line y = c·x^k drawn over [fit.from, fit.to].
 */
export function logLogChart({ points, fit, xLabel, yLabel, title, label }) {
  const root = frame(title, label);
  const xs = points.map((p) => Math.log10(p.x)), ys = points.map((p) => Math.log10(p.y));
  const x0 = Math.floor(Math.min(...xs) * 2) / 2, x1 = Math.ceil(Math.max(...xs) * 2) / 2 || x0 + 1;
  const y0 = Math.floor(Math.min(...ys)), y1 = Math.max(Math.ceil(Math.max(...ys)), y0 + 1);
  const X = (lx) => LEFT + ((lx - x0) / (x1 - x0 || 1)) * PLOT_W;
  const Y = (ly) => TOP + PLOT_H - ((ly - y0) / (y1 - y0)) * PLOT_H;
  axes(root, { xLabel, yLabel });
  for (let e = y0; e <= y1; e++) {
    root.append(
      svg('line', { x1: LEFT, x2: LEFT + PLOT_W, y1: Y(e), y2: Y(e), stroke: 'currentColor', 'stroke-opacity': 0.12 }),
      svg('text', { x: LEFT - 5, y: Y(e) + 3, 'text-anchor': 'end', fill: 'currentColor', text: tick(10 ** e) }));
  }
  for (const p of points) {
    const lx = Math.log10(p.x);
    root.append(svg('text', { x: X(lx), y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(p.x) }));
  }
  if (fit) {
    const a = Math.log10(fit.from), b = Math.log10(fit.to);
    const at = (lx) => Math.log10(fit.coefficient) + fit.exponent * lx;
    root.append(svg('line', { x1: X(a), y1: Y(at(a)), x2: X(b), y2: Y(at(b)), stroke: OKABE_ITO[5], 'stroke-width': 2, 'stroke-dasharray': '5 3', class: 'fit' }));
  }
  for (const p of points) {
    root.append(svg('circle', { cx: X(Math.log10(p.x)), cy: Y(Math.log10(p.y)), r: 3.5, fill: OKABE_ITO[0], class: 'point' }, svg('title', { text: p.title ?? `${p.x}: ${p.y}` })));
  }
  return root;
}
