// The weights as an SVG heatmap with a 0-to-1 legend. Viridis: perceptually uniform, readable
// with the common colour-vision deficiencies and in greyscale. Presentation attributes only, so
// the SVG also stands alone when saved.
import { svg, sub } from './dom.js';
import { format } from './format.js';

// Viridis sampled at 0, 1/8, …, 1.
const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];

function hex(c) {
  return [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
}

/** Colour of a weight in [0, 1] (clamped). */
export function colour(w) {
  const t = Math.min(1, Math.max(0, w)) * (VIRIDIS.length - 1);
  const k = Math.min(Math.floor(t), VIRIDIS.length - 2);
  const a = hex(VIRIDIS[k]), b = hex(VIRIDIS[k + 1]);
  const mix = a.map((x, c) => Math.round(x + (b[c] - x) * (t - k)));
  return `rgb(${mix.join(',')})`;
}

// Readable text on a cell: dark on the light (yellow-green) end, light elsewhere.
const ink = (w) => (w > 0.6 ? '#1b1f24' : '#ffffff');

const DEFAULT_CELL = 44, LEGEND = 56;
let gradients = 0; // each heatmap's gradient needs its own id

/**
 * weights: n×m numbers; hidden: n×m booleans. Returns an <svg> element.
 * Options: the title; the cell size; labels for the rows (queries) and columns (keys), such as
 * tokens (default q₁…, k₁…); whether the cells show their values.
 */
export function heatmapSvg(weights, hidden, { title = 'Attention weights A', cell: CELL = DEFAULT_CELL, rowLabels, colLabels, values = true } = {}) {
  const n = weights.length, m = weights[0].length;
  const rows = rowLabels ?? weights.map((_, i) => `q${sub(i + 1)}`);
  const cols = colLabels ?? weights[0].map((_, j) => `k${sub(j + 1)}`);
  // Room for the longest label (under 7 px a character at 11 px).
  const LEFT = Math.max(34, 12 + 7 * Math.max(...rows.map((t) => t.length)));
  const TOP = colLabels ? Math.max(24, 10 + 7 * Math.max(...cols.map((t) => t.length))) : 24;
  const width = LEFT + m * CELL + LEGEND, height = TOP + n * CELL + 8;
  const root = svg('svg', {
    xmlns: 'http://www.w3.org/2000/svg',
    viewBox: `0 0 ${width} ${height}`,
    width, height,
    role: 'img',
    'aria-label': `${title}: heatmap, ${n} queries by ${m} keys, colour from 0 to 1`,
    'font-family': 'system-ui, sans-serif',
    'font-size': 11,
    class: 'heatmap',
  });
  root.append(svg('title', { text: title }));
  for (let j = 0; j < m; j++) {
    const x = LEFT + j * CELL + CELL / 2;
    // Long labels (tokens) stand upright above their column.
    root.append(colLabels
      ? svg('text', { x: x + 4, y: TOP - 6, transform: `rotate(-90 ${x + 4} ${TOP - 6})`, fill: 'currentColor', text: cols[j] })
      : svg('text', { x, y: TOP - 8, 'text-anchor': 'middle', fill: 'currentColor', text: cols[j] }));
  }
  weights.forEach((row, i) => {
    root.append(svg('text', { x: LEFT - 8, y: TOP + i * CELL + CELL / 2 + 4, 'text-anchor': 'end', fill: 'currentColor', text: rows[i] }));
    row.forEach((w, j) => {
      const x = LEFT + j * CELL, y = TOP + i * CELL;
      const rect = svg('rect', { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 3, fill: colour(w) });
      root.append(rect);
      if (hidden[i][j]) {
        // Hatched: hidden keys are not just small weights, they are removed.
        root.append(svg('path', { d: `M${x + 6} ${y + CELL - 6} L${x + CELL - 6} ${y + 6}`, stroke: '#9aa4b0', 'stroke-width': 1.5 }));
      }
      if (values) root.append(svg('text', { x: x + CELL / 2, y: y + CELL / 2 + 4, 'text-anchor': 'middle', fill: ink(w), text: format(w, 2) }));
      else rect.append(svg('title', { text: `${rows[i]} → ${cols[j]}: ${format(w, 3)}` }));
    });
  });
  // Legend: a vertical 0-to-1 gradient.
  const lx = LEFT + m * CELL + 16, ly = TOP, lh = Math.max(n * CELL, 88);
  const id = `viridis-${++gradients}`;
  const gradient = svg('linearGradient', { id, x1: 0, y1: 1, x2: 0, y2: 0 });
  VIRIDIS.forEach((c, k) => gradient.append(svg('stop', { offset: k / (VIRIDIS.length - 1), 'stop-color': c })));
  root.append(svg('defs', {}, gradient));
  root.setAttribute('height', Math.max(height, TOP + lh + 8));
  root.setAttribute('viewBox', `0 0 ${width} ${Math.max(height, TOP + lh + 8)}`);
  root.append(svg('rect', { x: lx, y: ly, width: 12, height: lh, fill: `url(#${id})`, rx: 2 }));
  root.append(svg('text', { x: lx + 16, y: ly + 8, fill: 'currentColor', text: '1' }));
  root.append(svg('text', { x: lx + 16, y: ly + lh / 2 + 4, fill: 'currentColor', text: '0.5' }));
  root.append(svg('text', { x: lx + 16, y: ly + lh, fill: 'currentColor', text: '0' }));
  return root;
}
