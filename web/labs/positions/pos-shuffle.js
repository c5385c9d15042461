// Shuffle the tokens, with and without positions: attention alone is permutation-equivariant, so
// reordering the tokens only reorders Z's rows (and the weights' rows and columns); once positions
// are injected the same shuffle changes the numbers themselves. Every number is the core's
// (positionalAttention); this module compares and draws them.
import { h, svg } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { heatmapSvg } from '../../shared/heatmap.js';
import { LastValid } from '../../shared/last-valid.js';
import { mulberry32 } from '../../shared/random.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { numberTable } from '../next/number-table.js';

// Float32 rounding: without positions the shuffled numbers equal the moved ones to this.
export const SAME = 1e-6;

export const SCHEMES = [
  ['none', 'None', 'No positions: attention sees a set of tokens, not a sequence.'],
  ['sinusoidal', 'Sinusoidal', 'The original Transformer adds sin and cos of the position, at wavelengths from 2π to 10000·2π, to X before the projections. Here Q, K and V are given, so the position’s vector is added to each of their rows, as if the projections were the identity.'],
  ['learned', 'Learned', 'A trained model learns one vector per position; a seeded random table stands in for it here, added to the rows of Q, K and V.'],
  ['rope', 'RoPE', 'Rotary embeddings turn each pair of q’s and k’s entries by an angle proportional to the position (V is left as it is), so a score depends on how far apart the two tokens are.'],
  ['alibi', 'ALiBi', 'ALiBi adds nothing to Q, K or V: it adds −m·|i − j| to each scaled score, a penalty growing with the distance between query and key (m = 1/256, the slope ALiBi gives a single head).'],
];

export class ShuffleView {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {string[]} o.tokens
   * @param {() => { q: number[][], k: number[][], v: number[][] }} o.inputs
   * @param {(message: string) => void} o.onError
   */
  constructor({ attn, tokens, inputs, onError }) {
    Object.assign(this, { attn, tokens, inputs });
    this.state = { scheme: 'none', order: [2, 0, 1, 5, 3, 4] };
    this.shuffles = 0; // each press of Shuffle draws the next permutation of one seeded sequence
    this.random = mulberry32(40);

    const group = `positions-scheme-${++ShuffleView.count}`; // one radio group per lab on the page
    this.schemeInputs = SCHEMES.map(([value, label]) => h('label', { class: 'scheme' },
      h('input', { type: 'radio', name: group, value, checked: value === 'none',
        on: { change: () => this.#set({ scheme: value }) } }), ` ${label}`));
    this.schemeNote = h('p', { class: 'hint pos-scheme-note' });
    this.orderInput = h('input', { type: 'text', class: 'pos-order', spellcheck: 'false', autocomplete: 'off', inputmode: 'numeric',
      'aria-label': 'Order: the token at each position, 0 to 5',
      on: { change: () => this.#typedOrder(), keydown: (e) => { if (e.key === 'Enter') this.#typedOrder(); } } });
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.arrows = h('div', { class: 'pos-arrows' });
    this.verdict = h('p', { class: 'lab-verdict pos-verdict' });
    this.results = h('div', { class: 'lab-results pos-results' });
    this.element = h('section', { class: 'pos-part pos-shuffle', role: 'group', 'aria-label': 'Shuffle the tokens' },
      h('h3', { text: 'Shuffle the tokens' }),
      h('p', {}, 'Attention compares every query with every key, whatever their places. Reorder the tokens (the rows of Q, K and V together) and see what happens to Z: first with no positions, then with each way of injecting them.'),
      h('fieldset', { class: 'pos-schemes' }, h('legend', { text: 'Positions' }), this.schemeInputs),
      this.schemeNote,
      h('div', { class: 'control-row' },
        h('label', { class: 'pos-order-label' }, 'Order ', this.orderInput),
        h('button', { type: 'button', text: 'Shuffle', on: { click: () => this.#shuffle() } }),
        h('button', { type: 'button', text: 'In order', on: { click: () => this.#set({ order: tokens.map((_, i) => i) }) } })),
      h('p', { class: 'hint', text: 'The order lists, for positions 0 to 5, which token stands there: "2 0 1 5 3 4" puts “sat” first.' }),
      this.message,
      this.arrows,
      this.verdict,
      this.results);
    this.last = new LastValid({ what: 'shuffle', view: this.element, field: this.orderInput, message: this.message, onError });
    this.update();
  }

  /** Recomputes from the current inputs (after a new seed) and draws. */
  update() {
    this.#set({});
  }

  #set(change) {
    const state = { ...this.state, ...change };
    this.orderInput.value = state.order.join(' ');
    if (this.last.run(() => this.#compute(state))) this.state = state;
    this.last.show();
    if (this.last.value) this.#draw(this.last.value);
  }

  #typedOrder() {
    const text = this.orderInput.value.trim();
    const parts = text ? text.split(/[\s,]+/) : [];
    const bad = parts.find((p) => !/^\d+$/.test(p));
    if (bad !== undefined || !parts.length) {
      this.last.error = parts.length ? `“${bad.slice(0, 12)}” is not a position: the order lists whole numbers from 0 to 5` : 'the order is empty: list the token at each position, such as 2 0 1 5 3 4';
      this.last.onError(this.last.error);
      this.last.show();
      return;
    }
    const order = parts.map(Number);
    if (this.last.run(() => this.#compute({ ...this.state, order }))) this.state = { ...this.state, order };
    this.last.show();
    this.#draw(this.last.value);
  }

  #shuffle() {
    // Fisher–Yates from a seeded generator: the same presses give the same orders on every machine.
    const order = this.tokens.map((_, i) => i);
    do {
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
    } while (order.every((t, i) => t === this.state.order[i]));
    this.#set({ order });
  }

  // The core's numbers in order and shuffled, and what moved. Throws the core's message for an
  // order that is not a permutation.
  #compute({ scheme, order }) {
    const { q, k, v } = this.inputs();
    const shuffled = this.attn.positionalAttention({ q, k, v, scheme, order });
    const inOrder = this.attn.positionalAttention({ q, k, v, scheme });
    // Where the shuffled numbers would be, were attention blind to order: the unshuffled ones moved.
    const movedZ = order.map((t) => inOrder.output[t]);
    const movedScores = order.map((i) => order.map((j) => inOrder.scores[i][j]));
    let zChange = 0;
    shuffled.output.forEach((row, i) => row.forEach((x, c) => { zChange = Math.max(zChange, Math.abs(x - movedZ[i][c])); }));
    const scoreMoved = shuffled.scores.map((row, i) => row.map((x, j) => Math.abs(x - movedScores[i][j]) > SAME));
    return { scheme, order, shuffled, inOrder, zChange, scoreMoved, movedCount: scoreMoved.flat().filter(Boolean).length };
  }

  #draw({ scheme, order, shuffled, inOrder, zChange, scoreMoved, movedCount }) {
    const name = SCHEMES.find(([s]) => s === scheme);
    this.schemeNote.textContent = name[2];
    for (const label of this.schemeInputs) {
      const input = label.querySelector('input');
      input.checked = input.value === scheme;
    }
    const identity = order.every((t, i) => t === i);
    this.arrows.replaceChildren(scrollBox(arrowsSvg(this.tokens, order), { label: 'The shuffle, scroll sideways' }));
    const at = order.map((t) => this.tokens[t]);
    const cells = order.length ** 2;
    const none = shuffled.weights.map((r) => r.map(() => false));
    if (identity) {
      this.verdict.textContent = 'The tokens are in their own order: press Shuffle, or type an order, to move them.';
    } else if (zChange <= SAME) {
      this.verdict.replaceChildren('Z’s rows moved with the tokens: attention alone cannot tell order. ',
        h('span', { class: 'pos-detail', text: `Each row of the shuffled Z is the unshuffled row of the same token (largest difference ${format(zChange, 8)}, float32 rounding)${scheme === 'none' ? '' : `, and none of the ${cells} scores changed`}.` }));
    } else {
      this.verdict.replaceChildren(`With ${name[1]} positions the same shuffle changes Z itself: by up to `, h('strong', { class: 'pos-z-change', dataset: { value: zChange }, text: format(zChange, 3) }),
        `, and ${movedCount} of the ${cells} scores moved (marked below). Attention now sees where each token stands.`);
    }
    const scores = numberTable(shuffled.scores, {
      name: 'Scores', rowLabels: at, colLabels: at, precision: 2,
      cellName: (i, j) => `Score of ${at[i]} (position ${i}) against ${at[j]} (position ${j})${scoreMoved[i][j] ? ', moved' : ''}`,
    });
    scores.querySelectorAll('tbody tr').forEach((tr, i) => tr.querySelectorAll('td').forEach((td, j) => td.classList.toggle('moved', scoreMoved[i][j])));
    this.results.replaceChildren(
      h('figure', { class: 'pos-figure' }, h('figcaption', { text: 'Scores, the tokens in their new order (scaled; ALiBi’s bias included)' }),
        scrollBox(scores, { label: 'Scores, scroll sideways', what: (first, last) => `keys ${first}–${last}` })),
      h('figure', { class: 'pos-figure heatmap-box pos-weights' },
        heatmapSvg(inOrder.weights, none, { title: 'Attention weights, the tokens in their own order', rowLabels: this.tokens, colLabels: this.tokens, cell: 30, values: false }),
        heatmapSvg(shuffled.weights, none, { title: 'Attention weights, shuffled', rowLabels: at, colLabels: at, cell: 30, values: false }),
        h('figcaption', { text: 'The weights in the tokens’ own order, then shuffled: without positions each row and column moves with its token.' })),
      h('figure', { class: 'pos-figure' }, h('figcaption', { text: 'Z, one row per position' }), scrollBox(numberTable(shuffled.output, {
        name: 'Z', rowLabels: at, colLabels: shuffled.output[0].map((_, c) => `z${c + 1}`),
        cellName: (i, c) => `Z row of ${at[i]} (position ${i}), entry ${c + 1}`,
      }), { label: 'Z, scroll sideways' })));
  }
}
ShuffleView.count = 0;

// The tokens in their own order above, at their new positions below, an arrow for each.
function arrowsSvg(tokens, order) {
  const W = 64, width = tokens.length * W, height = 92;
  const x = (i) => i * W + W / 2;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'pos-arrows-svg', role: 'img',
    'aria-label': `The shuffle: ${order.map((t, i) => `position ${i} gets ${tokens[t]}`).join(', ')}`, 'font-size': 13, 'font-family': 'system-ui, sans-serif' });
  tokens.forEach((t, i) => root.append(svg('text', { x: x(i), y: 14, 'text-anchor': 'middle', fill: 'currentColor', text: t })));
  order.forEach((t, i) => {
    root.append(
      svg('line', { x1: x(t), y1: 22, x2: x(i), y2: 66, stroke: 'currentColor', 'stroke-width': 1.5, 'marker-end': 'url(#pos-head)', class: t === i ? 'stays' : 'moves' }),
      svg('text', { x: x(i), y: 84, 'text-anchor': 'middle', fill: 'currentColor', 'font-weight': 600, text: tokens[t] }));
  });
  root.prepend(svg('defs', {}, svg('marker', { id: 'pos-head', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: 'auto' },
    svg('path', { d: 'M0,0 L8,4 L0,8 z', fill: 'currentColor' }))));
  return root;
}
