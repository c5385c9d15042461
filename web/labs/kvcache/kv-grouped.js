// Grouped K/V heads: h query heads share h_kv K/V heads (MHA h_kv = h, GQA in between, MQA
// h_kv = 1). One heatmap per query head, grouped by the K/V head it reads; the projections'
// parameters and the cache's bytes per token, all from the core (groupedAttention, for these
// heads and for MHA's to compare).
import { h, sub } from '../../shared/dom.js';
import { heatmapSvg } from '../../shared/heatmap.js';
import { LastValid } from '../../shared/last-valid.js';
import { seedInput } from '../../shared/seed-input.js';
import { tex } from '../../shared/tex.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { numberTable } from '../next/number-table.js';
import { seededRows } from '../next/seeded-rows.js';
import { StepSlider } from '../next/step-slider.js';

const D_MODELS = [4, 8, 12, 16, 24];
const MAX_TOKENS = 8, MAX_SHOWN_HEADS = 12;

const divisors = (x, max = x) => Array.from({ length: Math.min(x, max) }, (_, i) => i + 1).filter((k) => x % k === 0);
const fmt = (x) => x.toLocaleString('en-US');

/** MHA, GQA or MQA, in words, for h query heads and h_kv K/V heads. */
export function attentionKind(heads, kvHeads) {
  if (heads === 1) return { kind: 'MHA', words: 'one head: its own K and V' };
  if (kvHeads === heads) return { kind: 'MHA', words: `multi-head attention: each of the ${heads} query heads has its own K/V head` };
  if (kvHeads === 1) return { kind: 'MQA', words: `multi-query attention: all ${heads} query heads share one K/V head` };
  return { kind: 'GQA', words: `grouped-query attention: ${kvHeads} groups of ${heads / kvHeads} query heads, each group sharing one K/V head` };
}

export class GroupedHeads {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError }) {
    this.attn = attn;
    this.state = { n: 5, d: 16, h: 4, kvHeads: 2, seed: 2, causal: true };
    const maxHeads = attn.limits().maxHeads;
    this.headValues = (d) => divisors(d, Math.min(maxHeads, MAX_SHOWN_HEADS));
    this.heads = new StepSlider({ label: 'h (query heads)', values: this.headValues(this.state.d), value: this.state.h, onChange: (x) => this.#setHeads(x) });
    // The exact box takes any whole number up to h, so an h_kv that does not divide h reaches the
    // core, which refuses it in words.
    this.kvHeads = new StepSlider({ label: 'h_kv (K/V heads)', values: divisors(this.state.h), value: this.state.kvHeads, exact: true, onChange: (x) => this.#set({ kvHeads: x }) });
    const select = (label, key, values) => h('label', { class: 'size' }, `${label} `, h('select', {
      'aria-label': label, dataset: { size: key },
      on: { change: (e) => this.#setModel(key, Number(e.target.value)) },
    }, values.map((x) => h('option', { value: x, text: `${x}` }))));
    this.sizeControls = h('div', { class: 'sizes' },
      select('Tokens', 'n', Array.from({ length: MAX_TOKENS }, (_, t) => t + 1)), select('d_model', 'd', D_MODELS));
    this.causalBox = h('input', { type: 'checkbox', checked: true, on: { change: () => this.#set({ causal: this.causalBox.checked }) } });
    this.seedInput = seedInput({ label: 'Grouped heads seed', value: this.state.seed, onChange: (seed) => this.#set({ seed }) });

    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.kind = h('p', { class: 'lab-verdict kv-kind', role: 'status' });
    this.kvTables = h('div', { class: 'matrices' });
    this.maps = h('div', { class: 'kv-groups' });
    this.counts = h('div', { class: 'stat-cards kv-counts' });
    this.element = h('section', { class: 'kv-part kv-grouped', role: 'group', 'aria-label': 'Grouped heads' },
      h('h3', { text: 'Grouped heads: fewer K/V heads, a smaller cache' }),
      h('p', {}, 'The cache holds K and V for every layer and every K/V head. Grouped-query attention (Llama 2 70B, Llama 3) lets several query heads read the same K/V head, so there are fewer to store; multi-query attention keeps only one. Query head i reads K/V head ⌊i / (h / h_kv)⌋.'),
      h('div', { class: 'control-row' }, this.sizeControls, h('label', { class: 'toggle' }, this.causalBox, 'Causal'),
        h('span', { class: 'seed-box' }, 'seed ', this.seedInput)),
      h('div', { class: 'control-row sliders' }, this.heads.element, this.kvHeads.element),
      this.message,
      this.kind,
      h('div', { class: 'lab-results' }, this.kvTables, this.maps),
      this.counts);
    this.last = new LastValid({ what: 'heads', dimmed: true, view: this.element, message: this.message, onError });
    this.#compute();
    this.#render();
  }

  /** The last valid groupedAttention result and its sizes. */
  get result() { return this.last.value; }

  #set(change) {
    this.state = { ...this.state, ...change };
    this.#compute();
    this.#render();
  }

  // A new h: h_kv keeps its kind (MHA stays MHA, MQA stays MQA, GQA the nearest grouping).
  #setHeads(heads) {
    const { h: old, kvHeads } = this.state;
    const allowed = divisors(heads), grouped = allowed.filter((x) => x > 1 && x < heads);
    const nearest = (values) => values.reduce((a, b) => (Math.abs(b - kvHeads) < Math.abs(a - kvHeads) ? b : a));
    const next = kvHeads === old ? heads : kvHeads === 1 ? 1 : nearest(grouped.length ? grouped : allowed);
    this.#set({ h: heads, kvHeads: next });
  }

  // A new n or d_model; h moves to the nearest divisor of d_model (within what is drawn).
  #setModel(key, value) {
    const change = { [key]: value };
    if (key === 'd') {
      const allowed = this.headValues(value);
      if (!allowed.includes(this.state.h)) {
        const heads = allowed.reduce((a, b) => (Math.abs(b - this.state.h) < Math.abs(a - this.state.h) ? b : a));
        change.h = heads;
        change.kvHeads = divisors(heads).includes(this.state.kvHeads) ? this.state.kvHeads : 1;
      }
    }
    this.#set(change);
  }

  #compute() {
    const { n, d, h: heads, kvHeads, seed, causal } = this.state;
    this.last.run(() => {
      // One draw for Q, K and V; K and V keep their first d·h_kv/h columns, so K/V head j holds
      // the same numbers whatever h_kv is (and with h_kv = h this is plain multi-head attention).
      const all = seededRows(seed, 3 * n, d);
      const q = all.slice(0, n), kFull = all.slice(n, 2 * n), vFull = all.slice(2 * n);
      const cut = (rows) => rows.map((row) => row.slice(0, kvHeads * (d / heads)));
      const k = cut(kFull), v = cut(vFull);
      const grouped = this.attn.groupedAttention(q, k, v, { heads, kvHeads, causal });
      // Multi-head attention's counts, to compare: the same heads, each with its own K/V head.
      const mha = kvHeads === heads ? grouped : this.attn.groupedAttention(q, kFull, vFull, { heads, kvHeads: heads, causal });
      const dHead = d / heads;
      return { sizes: { n, d, heads, kvHeads, dHead }, k, v, grouped, mha: { parameters: mha.parameters, cacheBytes: mha.cacheBytesPerToken } };
    });
  }

  #render() {
    const s = this.state;
    for (const sel of this.sizeControls.querySelectorAll('select')) sel.value = String(s[sel.dataset.size]);
    this.causalBox.checked = s.causal;
    this.seedInput.value = String(s.seed);
    this.heads.show(this.headValues(s.d), s.h);
    this.kvHeads.show(divisors(s.h), s.kvHeads);
    if (this.last.show() || !this.result) return;

    const { sizes, k, v, grouped, mha } = this.result;
    const { n, d, heads, kvHeads, dHead } = sizes;
    const { kind, words } = attentionKind(heads, kvHeads);
    this.kind.replaceChildren(h('span', { class: 'kv-kind-name', text: kind }), `: ${words}.`);
    this.element.dataset.kind = kind;

    const tokens = Array.from({ length: n }, (_, i) => `x${sub(i + 1)}`);
    const group = (j) => Math.floor(j / dHead);
    const labels = (name) => Array.from({ length: k[0].length }, (_, j) => `${name}${sub(group(j) + 1)}·${(j % dHead) + 1}`);
    const headsOf = (a, b) => (group(a) === group(b) ? `K/V head ${group(a) + 1}` : `K/V heads ${group(a) + 1}–${group(b) + 1}`);
    const figure = (name, rows) => h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: name }), `: n × (h_kv · d_head) = ${n} × ${kvHeads * dHead}, one block of ${dHead} column${dHead > 1 ? 's' : ''} per K/V head`)),
      scrollBox(numberTable(rows, { name, group, precision: 2, rowLabels: tokens, colLabels: labels('kv'), cellName: (i, j) => `${name} at token ${i + 1}, column ${j + 1}` }),
        { label: `${name}, scrolls sideways`, what: headsOf }));
    this.kvTables.replaceChildren(figure('K', k), figure('V', v));

    // One box per K/V head, holding the maps of the query heads that read it.
    this.maps.replaceChildren(...Array.from({ length: kvHeads }, (_, g) => {
      const readers = grouped.heads.map((head, i) => [head, i]).filter(([head]) => head.kvHead === g);
      const names = readers.map(([, i]) => i + 1);
      return h('section', { class: `kv-group group-${g % 8}`, role: 'group', 'aria-label': `K/V head ${g + 1}`, dataset: { kvHead: g + 1 } },
        h('h4', { text: `K/V head ${g + 1}, read by query head${names.length > 1 ? 's' : ''} ${names.join(', ')}` }),
        h('div', { class: 'chart-row' }, readers.map(([head, i]) => h('figure', { class: 'chart-figure head-map', dataset: { head: i + 1, kvHead: head.kvHead + 1 } },
          h('figcaption', { text: `query head ${i + 1} → K/V head ${head.kvHead + 1}` }),
          heatmapSvg(head.weights, head.hidden, { title: `Query head ${i + 1} (reads K/V head ${head.kvHead + 1}) attention weights`, cell: n > 5 ? 22 : 28, values: false })))));
    }));

    const saved = (part, whole) => (part === whole ? 'the same as MHA' : `${fmt(Math.round((100 * (whole - part)) / whole))} % less than MHA’s ${fmt(whole)}`);
    const card = (key, title, value, note) => h('div', { class: 'stat-card', dataset: { stat: key } },
      h('span', { class: 'stat-title' }, title), h('strong', { class: 'stat-value', dataset: { value }, text: fmt(value) }), h('span', { class: 'stat-expected', text: note }));
    this.counts.replaceChildren(
      card('parameters', ['Parameters of W_Q, W_K, W_V, W_O: ', tex('2d^2 + 2d\\cdot\\frac{d\\,h_{kv}}{h}')], grouped.parameters,
        `d = ${d}, h = ${heads}, h_kv = ${kvHeads}: ${saved(grouped.parameters, mha.parameters)} (4d²)`),
      card('cache', ['Cache per token, one layer, float32: ', tex('2 \\times h_{kv} \\times d_{head} \\times 4')], grouped.cacheBytesPerToken,
        `bytes: 2 × ${kvHeads} × ${dHead} × 4; ${saved(grouped.cacheBytesPerToken, mha.cacheBytes)}`));
  }
}
