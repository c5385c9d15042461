// Multi-head attention, live: X through W_Q, W_K, W_V; the projections cut into h column blocks
// (the heads are a reshape, not a loop); one weight heatmap per head; the concatenation and the
// output through W_O; and the parameter count with the lesson's pitfall beside it.
import { MatrixGrid } from '../../shared/grid.js';
import { heatmapSvg } from '../../shared/heatmap.js';
import { h, sub } from '../../shared/dom.js';
import { LastValid, sentence } from '../../shared/last-valid.js';
import { seedInput } from '../../shared/seed-input.js';
import { tex } from '../../shared/tex.js';
import { identity } from '../widgets/matrix.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { valueTable } from '../widgets/table.js';

const MAX_TOKENS = 8, MAX_D = 16;
const GPT2 = { d: 768, h: 12 };

export class HeadsLab {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError = () => {} }) {
    this.attn = attn;
    this.onError = onError;
    this.state = { n: 4, d: 8, h: 2, weights: 'seeded', seed: 1, causal: false };
    this.state.x = this.#seededX(this.state.n, this.state.d);

    const select = (label, key, max) => h('label', { class: 'size' }, `${label} `, h('select', {
      'aria-label': label, dataset: { size: key },
      on: { change: (e) => this.#resize(key, Number(e.target.value)) },
    }, Array.from({ length: max }, (_, t) => h('option', { value: t + 1, text: `${t + 1}` }))));
    this.sizeControls = h('div', { class: 'sizes' }, select('Number of tokens', 'n', MAX_TOKENS), select('d_model', 'd', MAX_D), select('Heads h', 'h', MAX_D));
    this.weightButtons = [['seeded', 'Seeded random weights'], ['identity', 'Identity weights']].map(([key, text]) =>
      h('button', { type: 'button', class: 'preset', dataset: { weights: key }, text, on: { click: () => this.#set({ weights: key }) } }));
    this.seedInput = seedInput({ label: 'Weight seed', value: this.state.seed, onChange: (seed) => this.#set({ seed }) });
    this.causalBox = h('input', { type: 'checkbox', on: { change: () => this.#set({ causal: this.causalBox.checked }) } });
    this.xGrid = new MatrixGrid({
      name: 'X',
      caption: [h('strong', { text: 'X' }), ' token vectors, n × d_model'],
      onCell: (i, j, value) => { const x = structuredClone(this.state.x); x[i][j] = value; this.#set({ x }); },
      onPaste: (rows) => this.#paste(rows),
      onValidityChange: () => this.#render(),
    });
    this.status = h('p', { class: 'calc-status', role: 'status' });
    this.weightNote = h('p', { class: 'hint' });
    this.reshape = h('div', { class: 'matrices' });
    this.headMaps = h('div', { class: 'chart-row head-maps' });
    this.outputs = h('div', { class: 'matrices' });
    this.results = h('div', { class: 'lab-results' },
      h('h3', { text: 'The heads are a reshape, not a loop' }),
      h('p', { class: 'hint', text: 'Q = X·W_Q is one n × d_model product for all heads. Head i simply takes columns i·d_k … (i+1)·d_k − 1, so every head sees every token, each through its own d_k-dimensional slice.' }),
      this.reshape,
      h('h3', { text: 'Each head’s attention weights' }),
      this.headMaps,
      h('h3', { text: 'Concatenate, then mix through W_O' }),
      this.outputs);

    this.params = new ParameterCounter({ attn, onError });
    this.element = h('section', { class: 'lab heads-lab', role: 'group', 'aria-label': 'Multi-head attention', part: 'heads' },
      h('h2', { text: 'Multi-head attention' }),
      scrollBox(tex('\\operatorname{MultiHead}(X) = \\operatorname{Concat}(\\text{head}_1,\\dots,\\text{head}_h)\\,W^O,\\quad \\text{head}_i = \\operatorname{Attention}(Q_i, K_i, V_i)', {
        display: true, label: 'MultiHead of X equals the concatenation of head 1 to head h, times W O, where head i is attention of Q i, K i, V i',
      }), { label: 'The multi-head formula, scrolls sideways' }),
      h('div', { class: 'control-row' }, this.sizeControls, h('label', { class: 'toggle' }, this.causalBox, 'Causal (no token sees a later one)')),
      h('div', { class: 'control-row presets', role: 'group', 'aria-label': 'Weight presets' }, this.weightButtons,
        h('span', { class: 'seed-box' }, 'seed ', this.seedInput)),
      this.weightNote,
      h('div', { class: 'matrices' }, this.xGrid.element),
      this.status,
      this.results,
      this.params.element);
    this.lastResult = new LastValid({ what: 'result', dimmed: true, view: this.element, message: this.status, onError });
    this.#compute();
    this.#render();
  }

  // Small round numbers are easier to read and edit than raw samples.
  #seededX(n, d) {
    return this.attn.normalMatrix({ rows: n, cols: d, seed: 1000 + n * 31 + d }).map((row) => row.map((x) => Math.round(x * 10) / 10));
  }

  #weights() {
    const { d, weights, seed } = this.state;
    if (weights === 'identity') return { wq: identity(d), wk: identity(d), wv: identity(d), wo: identity(d) };
    // One seeded draw of the four matrices, scaled 1/√d like a standard initialisation.
    const all = this.attn.normalMatrix({ rows: 4 * d, cols: d, seed, std: 1 / Math.sqrt(d) });
    return { wq: all.slice(0, d), wk: all.slice(d, 2 * d), wv: all.slice(2 * d, 3 * d), wo: all.slice(3 * d) };
  }

  #set(change) {
    this.state = { ...this.state, ...change };
    this.#compute();
    this.#render();
  }

  #resize(key, value) {
    const next = { ...this.state, [key]: value };
    if (key !== 'h') {
      // Keep what the learner typed where it still fits; new cells come from the seeded draw.
      const fresh = this.#seededX(next.n, next.d);
      next.x = fresh.map((row, i) => row.map((x, j) => this.state.x[i]?.[j] ?? x));
      this.xGrid.invalid.clear();
    }
    this.#set(next);
  }

  #paste(rows) {
    if (rows.length > MAX_TOKENS || rows[0].length > MAX_D) {
      this.xGrid.notify(`Could not paste into X: this view shows at most ${MAX_TOKENS} tokens and d_model ${MAX_D}; the pasted matrix is ${rows.length}×${rows[0].length}.`);
      return;
    }
    this.#set({ x: rows, n: rows.length, d: rows[0].length });
  }

  #compute() {
    const { x, h: heads, causal } = this.state;
    this.lastResult.run(() => this.attn.multiHead({ x, ...this.#weights(), heads, mask: causal ? 'causal' : 'none' }));
  }

  /** The last valid multi-head result (null before the first). */
  get result() { return this.lastResult.value; }

  #render() {
    const s = this.state;
    for (const sel of this.sizeControls.querySelectorAll('select')) sel.value = String(s[sel.dataset.size]);
    for (const b of this.weightButtons) b.setAttribute('aria-pressed', String(b.dataset.weights === s.weights));
    this.seedInput.value = String(s.seed);
    this.seedInput.parentElement.hidden = s.weights !== 'seeded';
    this.causalBox.checked = s.causal;
    this.weightNote.textContent = s.weights === 'seeded'
      ? `W_Q, W_K, W_V and W_O: ${s.d}×${s.d} each, drawn from a normal distribution with standard deviation 1/√d_model by the core's generator with seed ${s.seed}.`
      : 'W_Q, W_K, W_V and W_O are identity matrices: each head attends with its own slice of the raw token vectors.';
    this.xGrid.update(s.x);
    this.params.follow(s.d, s.h);

    if (this.lastResult.show(this.xGrid.error || this.lastResult.error) || !this.result) return;

    const r = this.result;
    const heads = s.h, dk = s.d / heads;
    const group = (j) => Math.floor(j / dk);
    const tokens = r.q.map((_, i) => `x${sub(i + 1)}`);
    const headLabels = (name) => Array.from({ length: s.d }, (_, j) => `${name}${sub(group(j) + 1)}·${j % dk + 1}`);
    // On a phone these tables scroll sideways; the cue under each names the heads out of sight.
    const headsOf = (a, b) => (group(a) === group(b) ? `head ${group(a) + 1}` : `heads ${group(a) + 1}–${group(b) + 1}`);
    const figure = (title, rows, name, labels) => h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, title),
      scrollBox(valueTable(rows, { name, group, rowLabels: tokens, colLabels: labels }), {
        label: `${name}, scrolls sideways`, what: labels && heads > 1 ? headsOf : () => 'more columns',
      }));
    this.reshape.replaceChildren(
      figure([h('strong', { text: 'Q' }), ` = X·W_Q, cut into ${heads} head${heads > 1 ? 's' : ''} of d_k = ${dk}`], r.q, 'Q', headLabels('h')),
      figure([h('strong', { text: 'K' }), ' = X·W_K'], r.k, 'K', headLabels('h')),
      figure([h('strong', { text: 'V' }), ' = X·W_V'], r.v, 'V', headLabels('h')));
    const hidden = r.heads[0].hidden;
    this.headMaps.replaceChildren(...r.headWeights.map((weights, i) => h('figure', { class: `chart-figure head-map group-${i % 8}`, dataset: { head: i + 1 } },
      h('figcaption', { text: `head ${i + 1}: columns ${i * dk + 1}–${(i + 1) * dk}` }),
      heatmapSvg(weights, hidden, { title: `Head ${i + 1} attention weights`, cell: s.n > 5 ? 30 : 40, values: s.n <= 5 }))));
    this.outputs.replaceChildren(
      figure([h('strong', { text: 'Concat' }), '(head₁ … head_h): the head outputs side by side'], r.concat, 'Concat', headLabels('h')),
      figure([h('strong', { text: 'Output' }), ' = Concat·W_O: W_O mixes the heads'], r.output, 'Output', null));
  }
}

/**
 * 4d² (+4d with biases) for any d and h, with the GPT-2 preset and the h × 4d² pitfall. The count
 * follows the boxes as the learner types; an entry that gives no count is marked where it is
 * typed, and the count of the last valid sizes stays.
 */
class ParameterCounter {
  constructor({ attn, onError }) {
    this.attn = attn;
    this.onError = onError;
    this.manual = false; // once the learner picks sizes here, they stop following the view's
    this.sizes = { d: 8, h: 2, bias: false };
    const number = (label) => h('input', {
      type: 'number', min: 1, step: 1, class: 'count-input', 'aria-label': label,
      on: { input: (e) => this.#typed(e.target) },
    });
    this.dInput = number('Parameter counter d_model');
    this.hInput = number('Parameter counter heads');
    this.biasBox = h('input', { type: 'checkbox', on: { change: () => this.#set({ bias: this.biasBox.checked }) } });
    this.formula = h('p', { class: 'param-formula' });
    this.count = h('p', { class: 'param-count', role: 'status' });
    this.wrong = h('p', { class: 'param-wrong' });
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.element = h('section', { class: 'param-counter', role: 'group', 'aria-label': 'Parameter counter' },
      h('h3', { text: 'How many parameters?' }),
      h('div', { class: 'control-row' },
        h('label', {}, 'd_model ', this.dInput), h('label', {}, 'heads ', this.hInput),
        h('label', { class: 'toggle' }, this.biasBox, 'with biases'),
        h('button', { type: 'button', text: 'GPT-2 small (d = 768, h = 12)', on: { click: () => this.#set({ ...GPT2 }) } })),
      this.message, this.formula, this.count, this.wrong);
  }

  /** Follows the multi-head view's sizes until the learner sets sizes here. */
  follow(d, heads) {
    if (this.manual) return;
    // Shown as the view has them even when they give no count, so a message names what is seen.
    this.dInput.value = String(d);
    this.hInput.value = String(heads);
    this.#set({ d, h: heads }, { manual: false });
  }

  // A keystroke in a box: the count for both boxes as they stand, or the first box that gives
  // none marked in place. An empty box or a fraction reads as '' here (type=number).
  #typed(input) {
    for (const box of [input, input === this.dInput ? this.hInput : this.dInput]) {
      const value = box.value === '' ? NaN : Number(box.value);
      const max = box === this.hInput ? this.attn.limits().maxHeads : Infinity;
      if (!Number.isInteger(value) || value < 1 || value > max) {
        this.#refuse(box, `${box === this.dInput ? 'd_model' : 'heads'} must be a whole number ${max === Infinity ? 'of at least 1' : `from 1 to ${max}`}`);
        return;
      }
    }
    this.#set({ d: Number(this.dInput.value), h: Number(this.hInput.value) }, { from: input });
  }

  #set(change, { manual = true, from = null } = {}) {
    const sizes = { ...this.sizes, ...change };
    let count, weightsOnly;
    try {
      count = this.attn.parameterCount({ dModel: sizes.d, heads: sizes.h, bias: sizes.bias });
      weightsOnly = this.attn.parameterCount({ dModel: sizes.d, heads: sizes.h });
    } catch (error) {
      this.#refuse(from ?? this.hInput, error.message);
      this.onError(error.message);
      return;
    }
    this.manual ||= manual;
    this.sizes = sizes;
    this.message.textContent = '';
    for (const input of [this.dInput, this.hInput]) {
      input.removeAttribute('aria-invalid');
      // Never rewrite the box being typed in: its caret and its text are the learner's.
      if (input !== from) input.value = String(input === this.dInput ? sizes.d : sizes.h);
    }
    this.biasBox.checked = sizes.bias;
    const { d, h: heads, bias } = sizes;
    const fmt = (x) => x.toLocaleString('en-US');
    this.formula.replaceChildren(tex(bias ? '4d^2 + 4d' : '4d^2'), ` = ${bias ? `4 × ${fmt(d)}² + 4 × ${fmt(d)}` : `4 × ${fmt(d)}²`}`);
    this.count.replaceChildren(h('strong', { class: 'param-total', text: fmt(count) }), ` parameters for W_Q, W_K, W_V and W_O, whatever the number of heads (h = ${heads} splits d = ${fmt(d)} into ${heads} × ${fmt(d / heads)}).`);
    this.wrong.replaceChildren(h('span', { class: 'pitfall-mark', text: '✗ ' }),
      `Not h × 4d² = ${fmt(heads)} × ${fmt(weightsOnly)} = ${fmt(heads * weightsOnly)}: that would give every head its own full d × d projections. The heads share the d-dimensional budget, so the total stays about 4d².`);
  }

  // The entry stays as typed and is marked; the count shown is still the last valid one's.
  #refuse(input, message) {
    this.dInput.removeAttribute('aria-invalid');
    this.hInput.removeAttribute('aria-invalid');
    input.setAttribute('aria-invalid', 'true');
    this.message.textContent = `${sentence(message)} The count below is for d_model = ${this.sizes.d.toLocaleString('en-US')}, h = ${this.sizes.h}.`;
  }
}
