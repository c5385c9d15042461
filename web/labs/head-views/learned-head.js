// One learned head on one text: its attention weights as a heatmap named "Layer L head H" with the
// tokens as labels, a caption with its three measured scores and the role labels they earn, a
// readout of the cell under the pointer or the keyboard cursor, and a text alternative (the top
// weights of each query). Clicking the heatmap, or Enter on it, follows this head in the text.
import { h, svg } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { colour, heatmapSvg } from '../../shared/heatmap.js';
import { ROLES, earns, roleLabels, tokenLabel, topKeys } from './learned-roles.js';
import { scrollBox } from '../widgets/scroll-cue.js';

const CELL = 12; // 33 tokens in about 400 px: wider than a phone, so the map scrolls there
const TOP_KEYS = 3;
let heads = 0; // ids for aria-describedby, unique in the shadow root

export class HeadView {
  /**
   * @param {object} o
   * @param {number} o.layer   0-based
   * @param {number} o.head    0-based
   * @param {(query: number | null) => void} o.onSelect   follow this head (from query, when given)
   * @param {string} [o.name]   its accessible name; default "Layer L head H", counted from 1
   * @param {(token: string) => string} [o.label]   a token as a label; default tokenLabel
   */
  constructor({ layer, head, onSelect, name = `Layer ${layer + 1} head ${head + 1}`, label = tokenLabel }) {
    this.name = name;
    this.label = label;
    this.onSelect = onSelect;
    this.cursor = null; // { i, j } of the keyboard cursor, kept across texts where it fits
    const id = `learned-head-${++heads}`;
    this.captionId = `${id}-caption`;
    this.title = h('strong', { class: 'head-name', text: this.name });
    this.roles = h('span', { class: 'head-roles' });
    this.scores = h('span', { class: 'head-scores' });
    this.caption = h('figcaption', { id: this.captionId }, this.title, this.roles, this.scores);
    this.mapBox = h('div', { class: 'head-map-box' });
    this.readout = h('p', { class: 'head-readout', role: 'status' });
    this.followButton = h('button', {
      type: 'button', class: 'follow', 'aria-pressed': 'false', text: `Follow ${this.name.replace(/^Layer /, 'layer ')} in the text`,
      on: { click: () => this.onSelect(null) },
    });
    this.table = h('div', { class: 'top-weights' });
    this.details = h('details', { class: 'head-details', on: { toggle: () => { if (this.details.open && !this.tableDrawn) this.#table(); } } },
      h('summary', { text: `${this.name}: top weights of each token (text)` }), this.table);
    this.element = h('figure', { class: 'learned-head', dataset: { layer: layer + 1, head: head + 1 } },
      this.caption, this.mapBox, this.readout, this.followButton, this.details);
  }

  /**
   * A new run (a new text or model): draws the heatmap again.
   * @param {object} o
   * @param {string[]} o.tokens          the run's tokens, "<bos>" first
   * @param {import('../../attention.js').LearnedHead} o.data
   */
  update({ tokens, data }) {
    // The same tokens (a model in training, re-run every few hundred steps): recolour the cells
    // in place, which keeps the main thread free, instead of drawing the map again.
    const same = this.map && this.tokens.length === tokens.length && this.tokens.every((t, k) => t === tokens[k]);
    this.tokens = tokens;
    this.data = data;
    const labels = tokens.map(this.label);
    this.labels = labels;
    const n = tokens.length;
    const roles = roleLabels(data);
    this.element.classList.toggle('has-role', roles.length > 0);
    this.roles.textContent = roles.length ? `: ${roles.join(', ')}` : ': no role above the threshold';
    // The separators are for a screen reader, which reads the caption as one line.
    this.scores.replaceChildren(...ROLES.flatMap((r, k) => [
      h('span', { class: 'sr-only', text: k === 0 ? '. Scores: ' : ', ' }),
      h('span', {
        class: earns(data, r) ? 'score passes' : 'score',
        dataset: { role: r.key },
        text: `${r.score} ${data[r.key] === null ? 'n/a (no repeated token)' : format(data[r.key], 3)}`,
      })]));

    this.tableDrawn = false;
    if (this.details.open) this.#table();
    if (same) {
      this.#recolour(data.weights);
      if (this.shownAt) this.#show(this.shownAt, this.cursorMark.getAttribute('visibility') === 'visible');
      return;
    }

    // The causal mask's cells are shaded by one staircase drawn here, not marked cell by cell: a
    // hatch stroke in each of 31 × 31 maps' 465 hidden cells drowned the weights in lines, and one
    // flat grey region reads at a glance as "not there" (weight 0 reads white). One path also
    // draws in a fraction of the time of one per cell.
    const visible = data.weights.map((row) => row.map(() => false));
    const map = heatmapSvg(data.weights, visible, { title: this.name, cell: CELL, values: false, rowLabels: labels, colLabels: labels });
    // The name outside checks use is exactly "Layer L head H"; the caption (role, scores) describes it.
    map.setAttribute('aria-label', this.name);
    map.setAttribute('aria-describedby', this.captionId);
    map.setAttribute('tabindex', '0');
    map.classList.add('learned-map');
    const cells = [...map.querySelectorAll('rect')].slice(0, n * n);
    this.geometry = { left: Number(cells[0].getAttribute('x')) - 1, top: Number(cells[0].getAttribute('y')) - 1, n };
    this.cells = cells;
    const { left, top } = this.geometry;
    let steps = '';
    for (let i = 0; i < n - 1; i++) steps += `V${top + (i + 1) * CELL}H${left + (i + 2) * CELL}`;
    if (n > 1) {
      map.append(svg('path', {
        class: 'masked', d: `M${left + CELL} ${top}${steps}V${top}Z`,
        fill: '#9aa4b0', 'fill-opacity': 0.45, stroke: 'none',
      }));
    }
    // The focused query's row, on every head: where the text's highlight reads from.

    this.focusRow = svg('rect', { class: 'focus-row', x: left, width: n * CELL, height: CELL, fill: 'none', rx: 2 });
    map.append(this.focusRow);
    this.cursorMark = svg('rect', { class: 'cell-cursor', width: CELL, height: CELL, fill: 'none', rx: 2, visibility: 'hidden' });
    map.append(this.cursorMark);
    map.addEventListener('pointermove', (e) => this.#point(e));
    map.addEventListener('pointerleave', () => this.#show(this.cursor));
    map.addEventListener('click', (e) => {
      const at = this.#cellAt(e);
      if (at) this.cursor = at;
      this.onSelect(at ? at.i : null);
    });
    map.addEventListener('keydown', (e) => this.#key(e));
    map.addEventListener('focus', () => { this.cursor ??= { i: this.focus, j: this.focus }; this.#show(this.cursor); });
    map.addEventListener('blur', () => { this.cursorMark.setAttribute('visibility', 'hidden'); });
    if (this.cursor && (this.cursor.i >= n || this.cursor.j >= n)) this.cursor = null;
    this.map = map;
    this.mapBox.replaceChildren(scrollBox(map, { label: `${this.name}, scrolls sideways` }));
    this.readout.textContent = '';
  }

  #recolour(weights) {
    const n = weights.length;
    this.cells.forEach((rect, k) => {
      const w = weights[Math.floor(k / n)][k % n];
      rect.setAttribute('fill', colour(w));
      const title = rect.querySelector('title');
      if (title) title.textContent = title.textContent.replace(/[^ ]+$/, format(w, 3));
    });
  }

  /** Whether the text follows this head, and the focused query (outlined as a row). */
  mark({ selected, focus }) {
    this.focus = focus;
    this.element.classList.toggle('selected', selected);
    this.followButton.setAttribute('aria-pressed', String(selected));
    this.focusRow.setAttribute('y', this.geometry.top + focus * CELL);
  }

  // Drawn when first opened, and again on a new run only while open.
  #table() {
    this.tableDrawn = true;
    const { weights } = this.data;
    const labels = this.labels;
    this.table.replaceChildren(h('table', { class: 'top-weights-table' },
      h('caption', { class: 'sr-only', text: `${this.name}: the ${TOP_KEYS} largest weights of each token` }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'From token' }), h('th', { scope: 'col', text: `Looks most at (weight), top ${TOP_KEYS}` }))),
      h('tbody', {}, weights.map((_, i) => h('tr', {},
        h('th', { scope: 'row', text: `${i} ${labels[i]}` }),
        h('td', { text: topKeys(weights, i, TOP_KEYS).map(({ key, weight }) => `${key} ${labels[key]} (${format(weight, 2)})`).join(', ') }))))));
  }

  // The cell under the pointer, from its position in the SVG's own units.
  #cellAt(e) {
    const ctm = this.map.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    const { left, top, n } = this.geometry;
    const i = Math.floor((p.y - top) / CELL), j = Math.floor((p.x - left) / CELL);
    return i >= 0 && j >= 0 && i < n && j < n ? { i, j } : null;
  }

  #point(e) {
    const at = this.#cellAt(e);
    this.#show(at ?? this.cursor, Boolean(at));
  }

  // The query, the key and the weight of a cell, in words, with a frame on the cell.
  #show(at, pointer = false) {
    this.shownAt = at;
    if (!at) {
      this.cursorMark.setAttribute('visibility', 'hidden');
      this.readout.textContent = '';
      return;
    }
    const { i, j } = at;
    const { left, top } = this.geometry;
    this.cursorMark.setAttribute('x', left + j * CELL);
    this.cursorMark.setAttribute('y', top + i * CELL);
    this.cursorMark.setAttribute('visibility', pointer || this.map === this.map.getRootNode().activeElement ? 'visible' : 'hidden');
    const q = `“${this.labels[i]}” (position ${i})`, k = `“${this.labels[j]}” (position ${j})`;
    this.readout.textContent = j > i
      ? `Query ${q}, key ${k}: hidden by the causal mask (a token sees only itself and earlier ones), weight 0.`
      : `Query ${q}, key ${k}: weight ${format(this.data.weights[i][j], 3)}.`;
  }

  // Arrow keys move a cursor over the cells; Enter or Space follows the head from its row.
  #key(e) {
    const n = this.geometry.n;
    const c = this.cursor ?? { i: 0, j: 0 };
    const moves = {
      ArrowUp: { i: c.i - 1, j: c.j }, ArrowDown: { i: c.i + 1, j: c.j },
      ArrowLeft: { i: c.i, j: c.j - 1 }, ArrowRight: { i: c.i, j: c.j + 1 },
      Home: { i: c.i, j: 0 }, End: { i: c.i, j: c.i },
    };
    if (moves[e.key]) {
      const next = moves[e.key];
      this.cursor = { i: Math.min(n - 1, Math.max(0, next.i)), j: Math.min(n - 1, Math.max(0, next.j)) };
      this.#show(this.cursor);
      // On a phone the map scrolls in its box: keep the cursor in sight.
      this.cursorMark.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.onSelect(this.cursor ? this.cursor.i : null);
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation(); // the widget's keys, not a slide deck's
  }
}
