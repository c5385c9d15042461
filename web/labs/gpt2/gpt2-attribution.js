// Who wrote the answer (direct logit attribution): for a next token, each head's, each MLP's and
// the embeddings' direct contribution to its logit at the last position, as TransformerLens'
// apply_ln_to_stack computes it (the core's numbers). A layers × heads heatmap, bars for the MLPs,
// the embeddings and the biases, the three largest heads named (each opens its map), and a
// caption that adds the parts up to the logit.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { headName } from './gpt2-heads.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { gpt2Label } from './gpt2-lesson.js';

const signed = (x) => `${x < 0 ? '−' : '+'}${format(Math.abs(x), 2)}`;

/** The heads by the size of their contribution, largest first: [{ layer, head, value }]. */
export function largestHeads(heads, count = 3) {
  return heads.flatMap((row, layer) => row.map((value, head) => ({ layer, head, value })))
    .sort((a, b) => Math.abs(b.value) - Math.abs(a.value) || a.layer - b.layer || a.head - b.head).slice(0, count);
}

export class AttributionView {
  /**
   * @param {{ onChoose(text: string | null): void, onOpenHead(layer: number, head: number): void }} o
   *   onChoose: a token typed (its text), or null for the likeliest next token
   */
  constructor({ onChoose, onOpenHead }) {
    this.onOpenHead = onOpenHead;
    this.input = h('input', {
      type: 'text', class: 'gpt2-dla-token', spellcheck: 'false', autocomplete: 'off', placeholder: 'the likeliest next token',
      'aria-label': 'Token whose logit is explained (empty: the likeliest next token)',
      on: { change: () => onChoose(this.input.value === '' ? null : this.input.value) },
    });
    this.topButton = h('button', { type: 'button', text: 'The likeliest next token', on: { click: () => { this.input.value = ''; onChoose(null); } } });
    this.message = h('p', { class: 'gpt2-dla-message', role: 'alert' });
    this.caption = h('p', { class: 'gpt2-dla-caption', role: 'status' });
    this.named = h('p', { class: 'gpt2-dla-named' });
    this.map = h('div', { class: 'gpt2-dla-box' });
    this.bars = h('div', { class: 'gpt2-bars', role: 'list', 'aria-label': 'MLPs, embeddings and biases: their direct contributions' });
    this.element = h('div', { class: 'gpt2-dla' },
      h('div', { class: 'control-row' }, h('label', {}, 'Token ', this.input), ' ', this.topButton),
      h('p', { class: 'hint', text: 'Type one GPT-2 token, with its leading space if it has one (“ mat”), and press Enter.' }),
      this.message, this.caption, this.named, this.map,
      h('h4', { text: 'The MLPs, the embeddings and the biases' }), this.bars);
  }

  /** A refusal in words (a text that is not one token): the last attribution stays. */
  say(message) {
    this.message.textContent = message;
  }

  /** attribution: { id, heads, mlps, embeddings, biases, logit }; token: its text. */
  update(attribution, token) {
    const { heads, mlps, embeddings, biases, logit } = attribution;
    const largest = Math.max(1e-9, ...heads.flat().map(Math.abs), ...mlps.map(Math.abs), Math.abs(embeddings));
    const headsSum = heads.flat().reduce((a, b) => a + b, 0), mlpSum = mlps.reduce((a, b) => a + b, 0);
    const label = gpt2Label(token);
    this.caption.textContent = `The logit of “${label}” is ${format(logit, 3)}: the heads add ${signed(headsSum)}, the MLPs ${signed(mlpSum)}, `
      + `the embeddings ${signed(embeddings)} and the biases (with the final LayerNorm’s) ${signed(biases)}; together ${format(headsSum + mlpSum + embeddings + biases, 3)}. `
      + 'Each part is what it writes into the residual stream at the last token, centred, divided by the final LayerNorm’s scale there, and read against the token’s unembedding (TransformerLens’ apply_ln_to_stack).';
    const top = largestHeads(heads);
    this.named.replaceChildren('The largest heads (each opens its map): ', ...top.flatMap((t, k) => [k ? ', ' : '', h('button', {
      type: 'button', class: 'link-button', text: `${headName(t.layer, t.head)} (${signed(t.value)})`,
      title: `Open GPT-2 layer ${t.layer} head ${t.head}: ${signed(t.value)} to the logit of “${label}”`,
      on: { click: () => this.onOpenHead(t.layer, t.head) },
    })]), '.');
    const cell = (value, layer, head) => {
      const td = h('td', { class: value >= 0 ? 'pos' : 'neg', dataset: { layer, head, value }, text: format(value, 2), title: `${headName(layer, head)}: ${signed(value)}` });
      td.style.setProperty('--v', String(Math.min(1, Math.abs(value) / largest)));
      return td;
    };
    this.map.replaceChildren(scrollBox(h('table', { class: 'gpt2-dla-map' },
      h('caption', { class: 'sr-only', text: `Each head’s direct contribution to the logit of “${label}”, layers as rows, heads as columns` }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Layer' }), heads[0].map((_, i) => h('th', { scope: 'col', 'aria-label': `head ${i}`, text: `h${i}` })))),
      h('tbody', {}, heads.map((row, l) => h('tr', {}, h('th', { scope: 'row', text: String(l) }), row.map((v, i) => cell(v, l, i)))))),
    { label: 'Each head’s contribution', what: (a, b) => (a === b ? `head ${a}` : `heads ${a}–${b}`) }));
    const bar = (name, value) => {
      const fill = h('span', { class: value >= 0 ? 'pos' : 'neg' });
      const share = Math.min(1, Math.abs(value) / largest) * 50;
      fill.style.setProperty(value >= 0 ? 'left' : 'right', '50%');
      fill.style.setProperty('width', `${share}%`);
      // The list item names its number too: the bar and the number beside it are drawn for the eye.
      return [h('span', { role: 'listitem', 'aria-label': `${name}: ${signed(value)}`, text: name }), h('span', { class: 'gpt2-bar', 'aria-hidden': 'true' }, fill),
        h('span', { class: 'num', 'aria-hidden': 'true', dataset: { value }, text: signed(value) })];
    };
    this.bars.replaceChildren(...mlps.flatMap((v, l) => bar(`MLP ${l}`, v)), ...bar('Embeddings', embeddings), ...bar('Biases', biases));
  }
}
