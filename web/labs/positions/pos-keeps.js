// What RoPE and ALiBi keep, from the core's numbers: RoPE's score of q at position i and k at
// position j depends only on i − j (slide both positions together and it stays), and ALiBi's bias
// grows with the distance between query and key.
import { h, svg } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { tex } from '../../shared/tex.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { numberTable } from '../next/number-table.js';
import { StepSlider } from '../next/step-slider.js';

const MAX_SHIFT = 12;
const QUERY = 2, KEY = 1; // "sat" looks at "cat": one position apart before the slide

export class KeepsView {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {string[]} o.tokens
   * @param {() => { q: number[][], k: number[][], v: number[][] }} o.inputs
   */
  constructor({ attn, tokens, inputs }) {
    Object.assign(this, { attn, tokens, inputs });
    this.shift = 0;
    this.slider = new StepSlider({ label: 'Shift both positions by', values: Array.from({ length: MAX_SHIFT + 1 }, (_, s) => s), value: 0,
      onChange: (s) => { this.shift = s; this.#drawRope(); } });
    this.rope = h('div', { class: 'pos-rope' });
    this.ropeVerdict = h('p', { class: 'lab-verdict pos-rope-verdict', 'aria-live': 'polite' });
    this.alibi = h('div', { class: 'pos-alibi' });
    this.element = h('section', { class: 'pos-part pos-keeps', role: 'group', 'aria-label': 'What RoPE and ALiBi keep' },
      h('h3', { text: 'What RoPE and ALiBi keep' }),
      h('section', { role: 'group', 'aria-label': 'RoPE: only the distance counts' },
        h('h4', { text: 'RoPE: only the distance counts' }),
        h('p', {}, `Put “${tokens[QUERY]}”’s query at position i and “${tokens[KEY]}”’s key at position j, then slide both along the sequence together. RoPE turns q by i·θ and k by j·θ, so their dot product sees only the difference: `,
          tex('(R_{i\\theta}\\,q)\\cdot(R_{j\\theta}\\,k) = q\\cdot R_{(j-i)\\theta}\\,k'), '.'),
        h('div', { class: 'control-row' }, this.slider.element),
        this.rope,
        this.ropeVerdict),
      h('section', { role: 'group', 'aria-label': 'ALiBi: a penalty growing with distance' },
        h('h4', { text: 'ALiBi: a penalty growing with distance' }),
        this.alibi));
    this.update();
  }

  update() {
    // The score at every shift depends on the inputs alone: computed once here, not per slide.
    this.ropeScores = Array.from({ length: MAX_SHIFT + 1 }, (_, s) => this.#ropeAt(s).score);
    this.#drawRope();
    this.#drawAlibi();
  }

  // The scaled score of q (token QUERY) at position i + s against k (token KEY) at j + s, and
  // q's first pair before and after its turn: the other rows are zeros, which change no score.
  #ropeAt(shift) {
    const { q, k } = this.inputs();
    const i = QUERY + shift, j = KEY + shift, rows = i + 1, d = q[0].length;
    const zeros = () => Array.from({ length: rows }, () => Array(d).fill(0));
    const Q = zeros(), K = zeros();
    Q[i] = q[QUERY];
    K[j] = k[KEY];
    const r = this.attn.positionalAttention({ q: Q, k: K, v: Q, scheme: 'rope' });
    return { i, j, score: r.scores[i][j], before: q[QUERY].slice(0, 2), after: r.q[i].slice(0, 2), key: r.k[j].slice(0, 2) };
  }

  #drawRope() {
    const now = this.#ropeAt(this.shift);
    const scores = this.ropeScores;
    const spread = Math.max(...scores) - Math.min(...scores);
    this.rope.replaceChildren(
      rotationSvg(now),
      h('ul', { class: 'pos-legend' },
        h('li', { class: 'q-before', text: 'q’s first pair as given' }),
        h('li', { class: 'q-after', text: `q turned by ${now.i}·θ (position ${now.i})` }),
        h('li', { class: 'k-after', text: `k turned by ${now.j}·θ (position ${now.j})` })),
      h('p', { class: 'pos-rope-score' }, `q at position ${now.i}, k at position ${now.j}: score `,
        h('strong', { dataset: { value: now.score }, text: format(now.score, 6) })));
    this.ropeVerdict.textContent = `Over every shift from 0 to ${MAX_SHIFT} the score stays ${format(scores[0], 6)}, within ${format(spread, 8)}: `
      + `RoPE’s score depends only on i − j = ${now.i - now.j}${spread < 1e-5 ? '' : ' (to float32 rounding of the turned vectors)'}.`;
    this.ropeVerdict.dataset.spread = String(spread);
  }

  #drawAlibi() {
    const { q, k, v } = this.inputs();
    const r = this.attn.positionalAttention({ q, k, v, scheme: 'alibi' });
    const n = r.bias.length;
    const last = r.bias[n - 1][0];
    const step = r.bias[1][0];
    const growing = r.bias[0].every((b, d) => d === 0 || b < r.bias[0][d - 1]);
    this.alibi.replaceChildren(
      h('p', {}, 'The bias ALiBi adds to each scaled score, query i against key j: ', tex('-m\\,|i-j|'), ', the same for every pair at the same distance.'),
      scrollBox(numberTable(r.bias, { name: 'ALiBi bias', rowLabels: this.tokens, colLabels: this.tokens, precision: 4,
        cellName: (i, j) => `Bias of ${this.tokens[i]} (position ${i}) against ${this.tokens[j]} (position ${j})` }),
      { label: 'ALiBi’s bias, scroll sideways', what: (first, last) => `keys ${first}–${last}` }),
      h('p', { class: 'lab-verdict pos-alibi-verdict' }, growing
        ? `The penalty grows with distance: ${format(step, 4)} one token away, ${format(last, 4)} at ${n - 1} tokens, ${format(last / step, 2)} times as much. Far keys lose weight, near ones keep it, and no vector was changed.`
        : 'The bias does not grow with distance here.'),
      this.#alibiHeads(q, k, v));
  }

  // ALiBi gives each of h heads its own slope, 2^(−8k/h) for head k: some heads see far, some near.
  #alibiHeads(q, k, v) {
    const heads = 8, far = this.tokens.length - 1;
    const rows = Array.from({ length: heads }, (_, i) => {
      const slope = 2 ** ((-8 * (i + 1)) / heads);
      const bias = this.attn.positionalAttention({ q, k, v, scheme: 'alibi', alibiSlope: slope }).bias;
      return [slope, bias[1][0], bias[far][0]];
    });
    return h('figure', { class: 'pos-figure' },
      h('figcaption', {}, `With h = ${heads} heads, ALiBi gives head k the slope `, tex('m_k = 2^{-8k/h}'), ': a head with a steep slope attends near, a gentle one far.'),
      scrollBox(numberTable(rows, { name: 'ALiBi heads', precision: 4, rowLabels: rows.map((_, i) => `head ${i + 1}`),
        colLabels: ['slope m', 'bias, 1 apart', `bias, ${far} apart`],
        cellName: (i, j) => `Head ${i + 1}, ${['slope', 'bias one token apart', `bias ${far} tokens apart`][j]}` }),
      { label: 'ALiBi’s heads, scroll sideways' }));
  }
}

// q's first pair (entries 1 and 2) before and after RoPE's turn, and k's after its own, as arrows
// from the centre of a circle: the angle between q and k is what the score keeps.
function rotationSvg({ before, after, key, i, j }) {
  const size = 150, c = size / 2;
  const radius = Math.max(Math.hypot(...before), Math.hypot(...key), 1e-9);
  const scale = (c - 14) / radius;
  const arrow = (p, cls, label) => svg('g', { class: cls },
    svg('line', { x1: c, y1: c, x2: c + p[0] * scale, y2: c - p[1] * scale, stroke: 'currentColor', 'stroke-width': 2.5, 'marker-end': 'url(#pos-rope-head)' }),
    svg('title', { text: label }));
  return svg('svg', { viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: 'img', class: 'pos-rotation',
    'aria-label': `q's first pair turned by ${i} steps of RoPE's angle, from (${format(before[0], 2)}, ${format(before[1], 2)}) to (${format(after[0], 2)}, ${format(after[1], 2)}); k's turned by ${j} steps to (${format(key[0], 2)}, ${format(key[1], 2)})` },
  svg('defs', {}, svg('marker', { id: 'pos-rope-head', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 5, markerHeight: 5, orient: 'auto' },
    svg('path', { d: 'M0,0 L8,4 L0,8 z', fill: 'currentColor' }))),
  svg('circle', { cx: c, cy: c, r: c - 14, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.25 }),
  arrow(before, 'q-before', 'q before the turn'),
  arrow(after, 'q-after', `q at position ${i}`),
  arrow(key, 'k-after', `k at position ${j}`));
}
