// Decoding with a KV cache, one token at a time: each new token attends to the cached keys and
// values plus its own, so a step computes one row of scores, K and V gain one row each, and the
// new output row is the last row of the full causal attention over every token so far. Every
// number is the core's (decodeStep, attention); this module only draws them.
import { h, sub } from '../../shared/dom.js';
import { MatrixGrid } from '../../shared/grid.js';
import { LastValid, sentence } from '../../shared/last-valid.js';
import { seedInput } from '../../shared/seed-input.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { numberTable } from '../next/number-table.js';
import { seededRows } from '../next/seeded-rows.js';

const MAX_TOKENS = 16; // the cache this view draws: the prompt and the tokens appended to it
const MAX_PROMPT = 8, MAX_D = 8;
const PARTS = ['q', 'k', 'v'];

export class DecodeSteps {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} o.onError
   * @param {() => ({ q: number[][], k: number[][], v: number[][] } | null)} [o.calculator]
   *   the element's calculator Q, K and V (the prompt it starts from), when there is one
   */
  constructor({ attn, onError, calculator = null }) {
    this.attn = attn;
    this.calculator = calculator;
    const prompt = calculator?.();
    this.state = { source: prompt ? 'calculator' : 'seeded', n: 4, d: 4, seed: 1 };
    this.tokens = []; // { q, k, v } of every token in the cache: the prompt, then each one appended

    this.sourceButtons = [['calculator', 'The calculator’s Q, K, V'], ['seeded', 'Seeded random tokens']].map(([key, text]) =>
      h('button', { type: 'button', class: 'preset', dataset: { source: key }, text, hidden: key === 'calculator' && !calculator,
        on: { click: () => this.#setPrompt({ source: key }) } }));
    const select = (label, key, max) => h('label', { class: 'size' }, `${label} `, h('select', {
      'aria-label': label, dataset: { size: key },
      on: { change: (e) => this.#setPrompt({ [key]: Number(e.target.value) }) },
    }, Array.from({ length: max }, (_, t) => h('option', { value: t + 1, text: `${t + 1}` }))));
    this.sizeControls = h('div', { class: 'sizes' }, select('Prompt tokens', 'n', MAX_PROMPT), select('d_k = d_v', 'd', MAX_D));
    this.seedInput = seedInput({ label: 'Token seed', value: this.state.seed, onChange: (seed) => this.#setPrompt({ seed }) });
    this.sourceNote = h('p', { class: 'hint' });

    // The next token's q, k and v: seeded, and the learner may type over them.
    this.nextGrids = PARTS.map((part) => new MatrixGrid({
      name: `New token's ${part}`,
      caption: [h('strong', { text: part }), ' of the new token'],
      cellLabel: (i, j) => `New token's ${part}, entry ${j + 1}`,
      onCell: (i, j, value) => { this.next[part][j] = value; },
      onPaste: (rows) => this.#paste(part, rows),
      // A refused Append's message goes once the fields are all numbers again.
      onValidityChange: () => { if (this.refused && !this.nextGrids.some((g) => g.error)) this.#refuse(''); },
    }));
    this.appendButton = h('button', { type: 'button', class: 'kv-append', text: 'Append a token', on: { click: () => this.append() } });
    this.resetButton = h('button', { type: 'button', text: 'Reset', on: { click: () => this.#setPrompt({}) } });
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.status = h('p', { class: 'calc-status kv-step-status', role: 'status' });

    this.scores = h('div', { class: 'kv-scores' });
    this.cache = h('div', { class: 'matrices kv-cache' });
    this.compare = h('div', { class: 'kv-compare' });
    this.verdict = h('p', { class: 'lab-verdict kv-verdict' });
    this.work = h('p', { class: 'kv-work' });
    this.element = h('section', { class: 'kv-part kv-decode', role: 'group', 'aria-label': 'Decode step by step' },
      h('h3', { text: 'Decode step by step' }),
      h('p', {}, 'A decoder writes one token at a time. The new token’s query needs every key and value so far, but the earlier tokens’ keys and values never change, so they are kept: the ',
        h('strong', { text: 'KV cache' }), '. Each step adds one row to K and one to V, and computes one row of scores, not the whole n × n matrix again. Queries are not kept: each is used once, by its own step.'),
      h('div', { class: 'control-row kv-prompt', role: 'group', 'aria-label': 'The prompt' }, this.sourceButtons, this.sizeControls,
        h('span', { class: 'seed-box' }, 'seed ', this.seedInput)),
      this.sourceNote,
      h('div', { class: 'matrices kv-next' }, this.nextGrids.map((g) => g.element)),
      h('div', { class: 'control-row' }, this.appendButton, this.resetButton),
      this.message,
      this.status,
      h('div', { class: 'lab-results' }, this.scores, this.cache, this.compare, this.verdict, this.work));
    this.last = new LastValid({ what: 'cache', view: this.element, message: this.message, onError });
    this.#setPrompt({});
  }

  /** The last valid { tokens, steps, full }: the core's decode steps and the full recomputation. */
  get result() { return this.last.value; }

  /** Appends the new token (its q, k, v as the fields hold them); a refused one leaves the cache as it was. */
  append() {
    const problem = this.nextGrids.map((g) => g.error).find(Boolean);
    if (problem) {
      this.#refuse(`${sentence(problem)} Fix it to append the token.`);
      return;
    }
    this.#refuse('');
    if (this.tokens.length >= MAX_TOKENS) return;
    const tokens = [...this.tokens, structuredClone(this.next)];
    if (this.last.run(() => this.#decode(tokens))) this.tokens = tokens;
    this.#render();
  }

  // Append refused for a field that holds no number: said in place, the cache left as it was.
  #refuse(message) {
    this.refused = Boolean(message);
    this.message.textContent = message || (this.last.error ? this.message.textContent : '');
  }

  // The prompt: the calculator's Q, K and V, or seeded rows; then the next token's seeded draw.
  #setPrompt(change) {
    this.state = { ...this.state, ...change };
    const prompt = this.state.source === 'calculator' ? this.calculator?.() : null;
    if (prompt) {
      this.tokens = prompt.q.map((q, t) => ({ q: [...q], k: [...prompt.k[t]], v: [...prompt.v[t]] }));
    } else {
      this.state.source = 'seeded';
      this.tokens = Array.from({ length: this.state.n }, (_, t) => this.#draw(t, this.state.d, this.state.d));
    }
    for (const g of this.nextGrids) g.reset();
    this.#refuse('');
    this.last.run(() => this.#decode(this.tokens));
    this.#render();
  }

  // Token t's q, k and v: row t of one seeded draw, so a token's numbers do not depend on how
  // many came before it.
  #draw(t, dk, dv) {
    const row = seededRows(this.state.seed, MAX_TOKENS, 2 * dk + dv)[t];
    return { q: row.slice(0, dk), k: row.slice(dk, 2 * dk), v: row.slice(2 * dk) };
  }

  // Every token through decodeStep, from an empty cache (the prompt too: a prefill computes the
  // same rows at once), and the full causal attention over all of them to compare with.
  #decode(tokens) {
    const steps = [];
    let k = [], v = [];
    for (const token of tokens) {
      const step = this.attn.decodeStep({ k, v, q: token.q, kNew: token.k, vNew: token.v });
      steps.push(step);
      ({ k, v } = step);
    }
    const full = this.attn.attention({ q: tokens.map((t) => t.q), k: tokens.map((t) => t.k), v: tokens.map((t) => t.v), mask: 'causal' });
    return { tokens, steps, full };
  }

  #paste(part, rows) {
    const grid = this.nextGrids[PARTS.indexOf(part)];
    const length = this.next[part].length;
    if (rows.length !== 1 || rows[0].length !== length) {
      grid.notify(`Could not paste into the new token's ${part}: it takes one row of ${length} numbers; the pasted matrix is ${rows.length}×${rows[0].length}.`);
      return;
    }
    this.next[part] = rows[0];
    grid.update([this.next[part]]);
  }

  #render() {
    const s = this.state;
    for (const b of this.sourceButtons) b.setAttribute('aria-pressed', String(b.dataset.source === s.source));
    this.sizeControls.hidden = s.source !== 'seeded';
    for (const sel of this.sizeControls.querySelectorAll('select')) sel.value = String(s[sel.dataset.size]);
    this.seedInput.value = String(s.seed);
    const r = this.result;
    if (!r) {
      this.last.show();
      return;
    }
    const dk = r.tokens[0].q.length, dv = r.tokens[0].v.length;
    const prompt = s.source === 'calculator' ? this.calculator?.() : null;
    const promptLength = prompt ? prompt.q.length : s.n;
    this.sourceNote.textContent = (s.source === 'calculator'
      ? `The prompt is the calculator’s ${promptLength} token${promptLength > 1 ? 's' : ''} (its Q, K and V rows, d_k = ${dk}, d_v = ${dv}); Reset reads them again. Decoding is causal, so the calculator’s mask and pitfalls are not used here.`
      : `The prompt is ${promptLength} token${promptLength > 1 ? 's' : ''} with d_k = d_v = ${dk}, seeded with ${s.seed}.`)
      + ' Each new token’s q, k and v come from the same seed; type over them to choose your own.';

    // The next token: the seeded draw for its position, unless the learner is typing in it.
    const t = r.tokens.length;
    if (t < MAX_TOKENS && !this.nextGrids.some((g) => g.error || g.typingIn)) {
      this.next = this.#draw(t, dk, dv);
    }
    const full = t >= MAX_TOKENS;
    PARTS.forEach((part, i) => {
      if (this.next) this.nextGrids[i].update([this.next[part]], { rowLabels: [`${part}${sub(t + 1)}`] });
    });
    this.appendButton.disabled = full;
    if (this.last.show()) return;
    this.#show(r, full);
  }

  #show(r, full) {
    const step = r.steps.at(-1), t = r.tokens.length, m = t - 1;
    const keys = step.scores.map((_, j) => `k${sub(j + 1)}`);
    const promptStep = t <= (this.state.source === 'calculator' ? this.calculator?.()?.q.length ?? 0 : this.state.n);
    this.status.textContent = `Token ${t}${promptStep ? ' (the prompt’s last)' : ''} attends to ${m} cached token${m === 1 ? '' : 's'} and itself: one row of ${step.scores.length} scores.`
      + (full ? ` The view holds ${MAX_TOKENS} tokens: Reset to start again.` : '');

    // This step's one row: scores, then weights.
    const figure = (caption, table, label) => h('figure', { class: 'matrix lab-figure' }, h('figcaption', {}, h('span', {}, ...caption)), scrollBox(table, { label }));
    this.scores.replaceChildren(figure(
      [h('strong', { text: 'This step' }), `: q${sub(t)}·kⱼ for the ${step.scores.length} keys, then the softmax of the scores · 1/√d_k`],
      numberTable([step.scores, step.weights], {
        name: 'step', rowLabels: ['scores', 'weights'], colLabels: keys,
        cellName: (i, j) => (i === 0 ? `Score of q${sub(t)} with key ${j + 1}` : `Weight of key ${j + 1}`),
      }), 'This step’s scores, scrolls sideways'));

    // The cache as the core returned it: one row more than before this step, the newest marked.
    const cacheTable = (name, rows) => figure(
      [h('strong', { text: `${name} cache` }), `: ${rows.length} × ${rows[0].length}, row ${rows.length} new`],
      numberTable(rows, {
        name: `${name} cache`, newest: rows.length - 1,
        rowLabels: rows.map((_, i) => `${name.toLowerCase()}${sub(i + 1)}${i === rows.length - 1 ? ' new' : ''}`),
        cellName: (i, j) => `${name} cache row ${i + 1}${i === rows.length - 1 ? ' (new)' : ''}, column ${j + 1}`,
      }), `${name} cache, scrolls sideways`);
    this.cache.replaceChildren(cacheTable('K', step.k), cacheTable('V', step.v));

    // The new output row beside the last row of the full causal recomputation.
    const last = r.full.output.at(-1);
    const difference = Math.max(...step.output.map((x, j) => Math.abs(x - last[j])));
    this.compare.replaceChildren(figure(
      [h('strong', { text: `The new output row z${sub(t)}` }), ' against a full recomputation'],
      numberTable([step.output, last], {
        name: 'compare', rowLabels: ['decode step', `full causal, row ${t}`], colLabels: step.output.map((_, j) => `${j + 1}`),
        cellName: (i, j) => (i === 0 ? `Decode step output, column ${j + 1}` : `Full causal recomputation, row ${t}, column ${j + 1}`),
      }), 'The two output rows, scroll sideways'));
    const all = r.full.scores.length * r.full.scores[0].length;
    const visible = r.full.hidden.flat().filter((hidden) => !hidden).length;
    this.verdict.replaceChildren(
      'Largest difference: ', h('strong', { class: 'kv-difference', dataset: { value: difference }, text: difference === 0 ? '0' : difference.toExponential(1).replace('-', '−') }),
      difference === 0 ? ': the same numbers.' : ': float32 rounding, the same row.');
    this.work.textContent = `Recomputing everything took ${all.toLocaleString('en-US')} scores (${t} × ${t}, ${visible.toLocaleString('en-US')} of them visible under the causal mask) to get this row; the step computed ${step.scores.length}.`;
  }
}

export { MAX_TOKENS as DECODE_MAX_TOKENS };
