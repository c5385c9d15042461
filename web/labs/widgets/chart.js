// Small SVG charts for the labs: rows of bars on one shared axis (histograms, softmax weights)
// here, and a log-log scatter with fitted lines (log-log-chart.js, which the cost lab's
// measurement loads with itself), on the frame and axes defined here. Axes are labelled with units; text uses currentColor
// so the charts follow the theme. Marks carry classes (series-…, point, fit) that labs-styles.js
// colours per theme from the Okabe–Ito palette, which stays distinct under the common
// colour-vision deficiencies, at 3:1 or more against the chart's background.
import { svg } from '../../shared/dom.js';

const W = 360, H = 200, RIGHT = 12, BOTTOM = 40;
export const LEFT = 48, TOP = 14;
export const PLOT_W = W - LEFT - RIGHT, PLOT_H = H - TOP - BOTTOM;

/** A short number for an axis tick: 1200 → 1.2k, 0.25 → 0.25. */
export function tick(x) {
  const a = Math.abs(x);
  if (a >= 1e6) return `${+(x / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(x / 1e3).toPrecision(3)}k`;
  if (a === 0) return '0';
  if (Number.isInteger(x)) return String(x).replace('-', '−');
  return `${+x.toPrecision(3)}`.replace('-', '−');
}

export function frame(title, label, height = H) {
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} ${height}`, width: W, height,
    role: 'img', 'aria-label': label, class: 'chart', 'font-family': 'system-ui, sans-serif', 'font-size': 10,
  });
  root.append(svg('title', { text: title }));
  return root;
}

export function axes(root, { xLabel, yLabel }) {
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
