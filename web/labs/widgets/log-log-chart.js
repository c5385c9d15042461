// A log-log scatter for the labs, one or more series each with a fitted line y = c·x^k, on
// chart.js's frame and axes and coloured by the same classes (labs-styles.js).
import { svg } from '../../shared/dom.js';
import { axes, frame, LEFT, PLOT_H, PLOT_W, tick, TOP } from './chart.js';

/**
 * Series of points on log-log axes (base 10 decades), each with an optional fitted line
 * y = c·x^k drawn over [fit.from, fit.to]. With more than one series each is named at its last
 * point and drawn with its own marker (circles, then squares), so colour is not the only cue.
 * @param {{ series: { key: string, name: string, points: { x: number, y: number, title?: string }[],
 *   fit?: { exponent: number, coefficient: number, from: number, to: number } }[] }} o
 */
export function logLogChart({ series, xLabel, yLabel, title, label }) {
  const root = frame(title, label);
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => Math.log10(p.x)), ys = all.map((p) => Math.log10(p.y));
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
  for (const x of new Set(all.map((p) => p.x))) {
    root.append(svg('text', { x: X(Math.log10(x)), y: TOP + PLOT_H + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(x) }));
  }
  series.forEach(({ key, name, points, fit }, k) => {
    if (fit) {
      const a = Math.log10(fit.from), b = Math.log10(fit.to);
      const at = (lx) => Math.log10(fit.coefficient) + fit.exponent * lx;
      root.append(svg('line', { x1: X(a), y1: Y(at(a)), x2: X(b), y2: Y(at(b)), 'stroke-width': 2, 'stroke-dasharray': '5 3', class: `fit fit-${key}` }));
    }
    for (const p of points) {
      const cx = X(Math.log10(p.x)), cy = Y(Math.log10(p.y)), tip = svg('title', { text: p.title ?? `${p.x}: ${p.y}` });
      root.append(k ? svg('rect', { x: cx - 3.5, y: cy - 3.5, width: 7, height: 7, class: `point-${key}` }, tip)
        : svg('circle', { cx, cy, r: 3.5, class: 'point' }, tip));
    }
    const end = points.at(-1);
    if (series.length > 1 && end) {
      // Above the point for the upper series at the end, below it for the lower: the names do not collide.
      const above = end.y >= Math.max(...series.map((s) => s.points.at(-1)?.y ?? 0));
      root.append(svg('text', { x: X(Math.log10(end.x)) - 6, y: Y(Math.log10(end.y)) + (above ? -8 : 14), 'text-anchor': 'end', fill: 'currentColor', 'font-weight': 700, class: 'chart-label', text: name }));
    }
  });
  return root;
}
