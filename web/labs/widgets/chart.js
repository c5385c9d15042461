// Small SVG charts for the labs: rows of bars on one shared axis (histograms, softmax weights)
// and a log-log scatter with a fitted line. Axes are labelled with units; text uses currentColor
// so the charts follow the theme. Marks carry classes (series-…, point, fit) that labs-styles.js
// colours per theme from the Okabe–Ito palette, which stays distinct under the common
// colour-vision deficiencies, at 3:1 or more against the chart's background.
import { svg } from '../../shared/dom.js';

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

function frame(title, label, height = H) {
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${height}`, width: W, height,
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

/**
 * Rows of bars on ONE x-axis and ONE y scale, so that what differs between the rows (how wide a
 * distribution is, how tall its highest bar) is seen at a glance rather than read off the axis
 * labels. The axis spans [lo, hi]; each series' bars span the series' own [lo, hi] inside it.
 * Each row is named in text (colour is never the only cue), with an optional note on its right
 * and an optional bracket over [from, to] (a spread, say ±1 std) labelled in words.
 * @param {object} o
 * @param {{ key: string, name: string, values: number[], lo?: number, hi?: number, note?: string,
 *   bracket?: { from: number, to: number, text: string } }[]} o.series
 * @param {number} o.lo
 * @param {number} o.hi
 * @param {number} [o.yMax]      the shared vertical scale; default: the largest bar of all rows
 * @param {number[]} [o.xTicks]
 */
export function sharedAxisBars({ series, lo, hi, yMax, xLabel, yLabel, title, label, xTicks, rowHeight = 86 }) {
  const HEADER = 16, GAP = 10;
  const height = TOP + series.length * (HEADER + rowHeight) + (series.length - 1) * GAP + BOTTOM;
  const root = frame(title, label, height);
  const max = yMax ?? Math.max(...series.flatMap((s) => s.values), 1e-12);
  const X = (x) => LEFT + ((x - lo) / (hi - lo)) * PLOT_W;
  series.forEach((s, row) => {
    const top = TOP + row * (HEADER + rowHeight + GAP), base = top + HEADER + rowHeight;
    const from = s.lo ?? lo, to = s.hi ?? hi;
    const width = (X(to) - X(from)) / s.values.length;
    const gap = width > 4 ? 0.5 : 0; // a hairline between wide bars; narrow ones touch
    const bars = svg('g', { class: `bars series-${s.key}`, dataset: { series: s.key } });
    s.values.forEach((v, k) => {
      const h = (Math.min(v, max) / max) * rowHeight;
      if (h > 0) bars.append(svg('rect', { x: X(from) + k * width + gap, y: base - h, width: Math.max(width - 2 * gap, 0.25), height: h }));
    });
    root.append(
      svg('text', { x: LEFT + 2, y: top + 11, fill: 'currentColor', 'font-weight': 700, class: 'series-name', text: s.name }),
      ...(s.note ? [svg('text', { x: LEFT + PLOT_W, y: top + 11, 'text-anchor': 'end', fill: 'currentColor', text: s.note })] : []),
      bars,
      svg('line', { x1: LEFT, y1: base, x2: LEFT + PLOT_W, y2: base, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
      svg('line', { x1: LEFT, y1: top + HEADER, x2: LEFT, y2: base, stroke: 'currentColor', 'stroke-opacity': 0.5 }));
    for (const f of [0, 1]) {
      const y = base - f * rowHeight;
      root.append(
        svg('line', { x1: LEFT - 3, x2: LEFT, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
        svg('text', { x: LEFT - 5, y: y + 3, 'text-anchor': 'end', fill: 'currentColor', text: tick(f * max) }));
    }
    if (s.bracket) {
      // |——| over the spread, its words to the right of it, in the header band above the bars.
      const a = X(s.bracket.from), b = X(s.bracket.to), y = top + 7;
      root.append(svg('path', { d: `M${a} ${y - 3}V${y + 3}M${a} ${y}H${b}M${b} ${y - 3}V${y + 3}`, stroke: 'currentColor', fill: 'none', class: 'bracket' }),
        svg('text', { x: b + 4, y: y + 3.5, fill: 'currentColor', text: s.bracket.text }));
    }
  });
  const base = height - BOTTOM;
  root.append(
    svg('text', { x: LEFT + PLOT_W / 2, y: height - 4, 'text-anchor': 'middle', fill: 'currentColor', text: xLabel }),
    svg('text', { x: 12, y: TOP + (base - TOP) / 2, 'text-anchor': 'middle', fill: 'currentColor', transform: `rotate(-90 12 ${TOP + (base - TOP) / 2})`, text: yLabel }));
  for (const x of xTicks ?? [lo, (lo + hi) / 2, hi]) {
    root.append(
      svg('line', { x1: X(x), x2: X(x), y1: base, y2: base + 3, stroke: 'currentColor', 'stroke-opacity': 0.5 }),
      svg('text', { x: X(x), y: base + 13, 'text-anchor': 'middle', fill: 'currentColor', text: tick(x) }));
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
    root.append(svg('line', { x1: X(a), y1: Y(at(a)), x2: X(b), y2: Y(at(b)), 'stroke-width': 2, 'stroke-dasharray': '5 3', class: 'fit' }));
  }
  for (const p of points) {
    root.append(svg('circle', { cx: X(Math.log10(p.x)), cy: Y(Math.log10(p.y)), r: 3.5, class: 'point' }, svg('title', { text: p.title ?? `${p.x}: ${p.y}` })));
  }
  return root;
}
