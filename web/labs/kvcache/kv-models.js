// Real models' KV caches: GPT-2 small, Llama-2-7B and Llama-3-8B as their own config.json files
// give them, and one model the learner describes, at 1k, 8k and 128k tokens in fp16. Every size
// is the core's kvCacheBytes; this module converts bytes to MiB to draw them.
import { h } from '../../shared/dom.js';
import { sentence } from '../../shared/last-valid.js';
import { tex } from '../../shared/tex.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { attentionKind } from './kv-grouped.js';

const FP16 = 2; // bytes per value
const MIB = 2 ** 20;
export const CONTEXTS = [1024, 8192, 131072];

/**
 * Each model's numbers, from its config.json on Hugging Face (d_head = hidden size / heads);
 * context is the longest input it was trained for (n_positions, max_position_embeddings).
 */
export const MODELS = [
  {
    key: 'gpt2', name: 'GPT-2 small', layers: 12, heads: 12, kvHeads: 12, dHead: 64, context: 1024,
    source: 'https://huggingface.co/openai-community/gpt2/blob/main/config.json', file: 'openai-community/gpt2',
    fields: 'n_layer 12, n_head 12, n_embd 768 (no K/V heads of its own: MHA), n_positions 1024',
  },
  {
    key: 'llama2', name: 'Llama-2-7B', layers: 32, heads: 32, kvHeads: 32, dHead: 128, context: 4096,
    source: 'https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json', file: 'meta-llama/Llama-2-7b-hf',
    fields: 'num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 32, hidden_size 4096, max_position_embeddings 4096',
  },
  {
    key: 'llama3', name: 'Llama-3-8B', layers: 32, heads: 32, kvHeads: 8, dHead: 128, context: 8192,
    source: 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json', file: 'meta-llama/Meta-Llama-3-8B',
    fields: 'num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, hidden_size 4096, max_position_embeddings 8192',
  },
];

const FIELDS = [['layers', 'Layers'], ['heads', 'Heads'], ['kvHeads', 'K/V heads'], ['dHead', 'd_head']];
const fmt = (x) => x.toLocaleString('en-US');
/** Bytes as MiB, to one decimal where they are not whole. */
const mib = (bytes) => (bytes / MIB).toLocaleString('en-US', { maximumFractionDigits: 1 });

export class ModelTable {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError }) {
    this.attn = attn;
    this.onError = onError;
    // The learner's model starts as GPT-2 small with one K/V head: what MQA would save it.
    this.yours = { layers: 12, heads: 12, kvHeads: 1, dHead: 64 };
    this.inputs = Object.fromEntries(FIELDS.map(([key, label]) => [key, h('input', {
      type: 'number', min: 1, step: 1, class: 'count-input', 'aria-label': `Your model: ${label}`, value: String(this.yours[key]),
      on: { input: (e) => this.#typed(e.target) },
    })]));
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.table = h('table', { class: 'cost-table kv-models', dataset: { table: 'models' } });
    this.note = h('p', { class: 'hint' });
    this.element = h('section', { class: 'kv-part kv-real', role: 'group', 'aria-label': 'Real models’ KV caches' },
      h('h3', { text: 'Real models’ numbers' }),
      h('p', {}, 'A model keeps K and V for every layer, K/V head and token: ',
        tex('2 \\times \\text{layers} \\times h_{kv} \\times d_{head} \\times \\text{tokens} \\times \\text{bytes}'),
        '. In fp16 (2 bytes a value), in MiB (2²⁰ = 1,048,576 bytes; in MB of 10⁶ bytes each number is 4.9 % larger):'),
      scrollBox(this.table, { label: 'The models’ KV caches, scroll sideways', what: () => 'more columns' }),
      this.message,
      h('fieldset', { class: 'kv-yours' }, h('legend', { text: 'Your model' }),
        h('div', { class: 'control-row' }, FIELDS.map(([key, label]) => h('label', {}, `${label} `, this.inputs[key])))),
      this.note,
      h('details', { class: 'kv-sources' }, h('summary', { text: 'Where these configurations come from' }),
        h('ul', {}, MODELS.map((m) => h('li', {}, `${m.name}: `, h('a', { href: m.source, text: `${m.file}, config.json` }), ` (${m.fields})`)))));
    this.#render();
  }

  /** The rows drawn, as numbers: { key, bytesPerToken, bytes: [at 1k, 8k, 128k] } for each model. */
  get rows() { return this.shown; }

  // A keystroke in a box: the learner's row for all four boxes as they stand, or the first box
  // that gives none marked in place, the row drawn for the last valid model kept.
  #typed(input) {
    const values = {};
    for (const [key, label] of FIELDS) {
      const box = this.inputs[key];
      const value = box.value === '' ? NaN : Number(box.value);
      if (!Number.isInteger(value) || value < 1) return this.#refuse(box, `${label} must be a whole number of at least 1`);
      values[key] = value;
    }
    if (values.heads % values.kvHeads !== 0) {
      return this.#refuse(this.inputs.kvHeads, `${values.kvHeads} K/V heads do not divide ${values.heads} heads: each K/V head serves a whole group of query heads`);
    }
    this.#render(input, values);
  }

  #refuse(input, message) {
    for (const box of Object.values(this.inputs)) box.removeAttribute('aria-invalid');
    input.setAttribute('aria-invalid', 'true');
    const { layers, heads, kvHeads, dHead } = this.yours;
    this.message.textContent = `${sentence(message)} Your row shows the last valid model: ${layers} layers, ${heads} heads, ${kvHeads} K/V heads, d_head ${dHead}.`;
    this.onError(message);
    return false;
  }

  // The table for the learner's model `yours`, every size from kvCacheBytes; false (and the
  // message, the last valid model kept) if the core refuses it.
  #render(from = null, yours = this.yours) {
    const models = [...MODELS, { key: 'yours', name: 'Your model', ...yours }];
    let rows;
    try {
      rows = models.map((m) => ({
        key: m.key,
        bytesPerToken: this.attn.kvCacheBytes({ layers: m.layers, kvHeads: m.kvHeads, dHead: m.dHead, tokens: 1, bytesPerValue: FP16 }),
        bytes: CONTEXTS.map((tokens) => this.attn.kvCacheBytes({ layers: m.layers, kvHeads: m.kvHeads, dHead: m.dHead, tokens, bytesPerValue: FP16 })),
      }));
    } catch (error) {
      return this.#refuse(from ?? this.inputs.layers, error.message);
    }
    this.shown = rows;
    this.yours = yours;
    this.message.textContent = '';
    for (const box of Object.values(this.inputs)) box.removeAttribute('aria-invalid');
    const head = (text) => h('th', { scope: 'col', text });
    // The sizes first, so that on a phone they are what shows before the table scrolls.
    this.table.replaceChildren(
      h('thead', {}, h('tr', {}, head('model'), CONTEXTS.map((tokens) => head(`${fmt(tokens / 1024)}k tokens (${fmt(tokens)})`)),
        head('per token'), head('layers'), head('heads'), head('K/V heads'), head('d_head'))),
      h('tbody', {}, models.map((m, i) => {
        const row = rows[i];
        const beyond = (tokens) => m.context && tokens > m.context;
        return h('tr', { dataset: { model: m.key } },
          h('th', { scope: 'row' }, m.name, h('span', { class: 'kv-model-kind', text: ` ${attentionKind(m.heads, m.kvHeads).kind}` })),
          row.bytes.map((bytes, j) => h('td', { class: beyond(CONTEXTS[j]) ? 'num beyond' : 'num', dataset: { bytes, tokens: CONTEXTS[j] } },
            `${mib(bytes)} MiB`, beyond(CONTEXTS[j])
              ? [h('span', { class: 'beyond-mark', 'aria-hidden': 'true', text: ' *' }), h('span', { class: 'sr-only', text: ` (beyond its ${fmt(m.context)}-token context)` })]
              : null)),
          h('td', { class: 'num', dataset: { bytes: row.bytesPerToken }, text: `${(row.bytesPerToken / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB` }),
          [m.layers, m.heads, m.kvHeads, m.dHead].map((x) => h('td', { class: 'num', text: fmt(x) })));
      })));
    this.note.textContent = `* Beyond the model’s context (GPT-2 small reads at most ${fmt(MODELS[0].context)} tokens, Llama-2-7B ${fmt(MODELS[1].context)}, Llama-3-8B ${fmt(MODELS[2].context)}): what its cache would hold, were it to read that many. `
      + 'Llama-3-8B has as many layers and query heads as Llama-2-7B, but 8 K/V heads instead of 32: its cache is a quarter the size.';
    return true;
  }
}
