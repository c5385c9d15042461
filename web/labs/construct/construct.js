// Construct a head: tokens of a sentence as one-hot position and token features, W_Q and W_K set
// by a preset (and editable), and the causal attention pattern they produce: the patterns of the
// lesson's "look inside GPT-2" exercise, built on purpose. The weights here are constructed by
// hand, not learned, and the panel says so; the learned panel shows heads a model learned.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { COMMIT_MS, MatrixGrid } from '../../shared/grid.js';
import { heatmapSvg } from '../../shared/heatmap.js';
import { LastValid } from '../../shared/last-valid.js';
import { identity } from '../widgets/matrix.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { valueTable } from '../widgets/table.js';

const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired';

export const HEAD_KINDS = {
  'previous-token': {
    label: 'Previous-token head',
    how: 'W_Q copies each token’s position i to slot i, and W_K moves position j to slot j + 1, so q_i·k_j is large exactly when j = i − 1.',
    why: 'Heads like this appear early in trained models. Paired with a later head that looks for “the token after an earlier copy of me”, they form induction heads, which continue patterns seen before in the context: the basis of in-context learning.',
  },
  'first-token': {
    label: 'First-token head (attention sink)',
    how: 'W_Q sends every position to the slot of position 1, and W_K keeps positions as they are, so every query matches the first key.',
    why: 'Trained models park attention on the first token when a head has nothing useful to attend to: the weights must sum to 1, and the first token is always visible. Such “attention sinks” are why streaming models keep the first tokens in their cache.',
  },
  'same-token': {
    label: 'Same-token head',
    how: 'W_Q and W_K both keep the token-identity features, so q_i·k_j is large when tokens i and j are the same word; the causal mask lets each token see only itself and earlier copies.',
    why: 'Duplicate-token heads notice that a word has been seen before. They feed the circuits that track repeated names and, with previous-token heads, the induction mechanism.',
  },
};


export class ConstructLab {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError = () => {} }) {
    this.attn = attn;
    this.onError = onError;
    this.sentenceInput = h('input', {
      type: 'text', value: DEFAULT_SENTENCE, class: 'sentence', 'aria-label': 'Sentence', spellcheck: 'false', maxLength: 200,
      // Applied once typing pauses, as the calculator's cells are; at once on Enter or leaving.
      on: { input: () => this.#typing(), change: () => this.#applySentence() },
    });
    this.sentenceMessage = h('p', { class: 'cell-message', role: 'alert' });
    this.kindButtons = Object.entries(HEAD_KINDS).map(([key, kind]) =>
      h('button', { type: 'button', class: 'preset', dataset: { kind: key }, text: kind.label, on: { click: () => this.#load(key, this.sentence) } }));
    const grid = (name, role) => {
      const key = name === 'W_Q' ? 'wq' : 'wk';
      const g = new MatrixGrid({
        name,
        caption: [h('strong', { text: name }), ` ${role}`],
        // Not "W_Q row 1 column 1": that name would contain the calculator's "Q row 1 column 1".
        cellLabel: (i, j, row, col) => `${name}: ${row} → ${col}`,
        onCell: (i, j, value) => { this[key][i][j] = value; this.edited = true; this.#compute(); },
        onPaste: (rows) => {
          const d = this.head.x[0].length;
          if (rows.length !== d || rows[0].length !== d) {
            g.notify(`Could not paste into ${name}: it is ${d}×${d} for this sentence; the pasted matrix is ${rows.length}×${rows[0].length}.`);
            return;
          }
          this[key] = rows.map((r) => [...r]);
          this.edited = true;
          this.#compute();
        },
        onValidityChange: () => this.#render(),
      });
      return g;
    };
    this.wqGrid = grid('W_Q', 'what each token looks for');
    this.wkGrid = grid('W_K', 'what each token offers');
    this.features = h('div');
    this.heatmap = h('div', { class: 'heatmap-box' });
    this.verdict = h('p', { class: 'lab-verdict', role: 'status' });
    this.how = h('p');
    this.why = h('p');
    this.element = h('section', { class: 'lab construct-lab', role: 'group', 'aria-label': 'Construct a head', part: 'construct' },
      h('h2', { text: 'Construct a head' }),
      h('p', { class: 'note', text: 'The lesson asks you to look inside GPT-2. Here you build such heads yourself: the weights below are constructed by hand to produce each pattern, not learned. Heads that a model learned in training are in the panel “Look inside a trained model” (a small model trained by this project, not GPT-2). Trained heads are messier, but these are the patterns researchers find in them.' }),
      h('label', { class: 'sentence-box' }, 'Sentence ', this.sentenceInput),
      this.sentenceMessage,
      h('div', { class: 'control-row presets', role: 'group', 'aria-label': 'Head presets' }, this.kindButtons),
      h('div', { class: 'head-explain' }, this.how, this.why),
      h('h3', { text: 'The pattern (causal mask)' }),
      this.heatmap,
      this.verdict,
      h('h3', { text: 'Token features X: one-hot position, then one-hot token' }),
      this.features,
      h('h3', { text: 'Weights (edit any cell)' }),
      h('p', { class: 'hint', text: 'q = x·W_Q and k = x·W_K: row r of a matrix says where feature r of a token is sent. The score q_i·k_j is then scaled by 1/√d and softmaxed over the keys each token may see.' }),
      h('div', { class: 'matrix-scroll' }, this.wqGrid.element),
      h('div', { class: 'matrix-scroll' }, this.wkGrid.element));
    // A refused sentence is marked where it is typed; the pattern of the last valid one stays, as
    // it does (dimmed) while a weight cell is refused.
    this.lastSentence = new LastValid({ what: 'sentence', field: this.sentenceInput, message: this.sentenceMessage, onError });
    this.lastPattern = new LastValid({ what: 'pattern', dimmed: true, view: this.element, message: this.verdict, onError });
    this.#load('previous-token', DEFAULT_SENTENCE);
  }

  get sentence() { return this.head?.sentence ?? DEFAULT_SENTENCE; }

  #typing() {
    clearTimeout(this.typingPause);
    this.typingPause = setTimeout(() => this.#applySentence(), COMMIT_MS);
  }

  #applySentence() {
    clearTimeout(this.typingPause);
    this.#load(this.kind, this.sentenceInput.value, { keepEdits: true });
  }

  // A preset for a sentence: the core builds the features and the weights.
  // keepEdits: a sentence with the same tokens (a space typed, say) keeps the learner's W_Q, W_K.
  #load(kind, sentence, { keepEdits = false } = {}) {
    this.lastSentence.run(() => this.attn.constructedHead({ kind, sentence }));
    if (this.lastSentence.show()) return;
    const head = this.lastSentence.value;
    if (keepEdits && kind === this.kind && head.tokens.join(' ') === this.head.tokens.join(' ')) {
      this.head.sentence = sentence;
      return;
    }
    // Per sentence: the token labels, the feature table and W_V = W_O = identity.
    this.head = { ...head, sentence, labels: head.tokens.map((t, i) => `${i + 1} ${t}`), identity: identity(head.x[0].length) };
    this.features.replaceChildren(scrollBox(valueTable(head.x, { name: 'X', precision: 0, rowLabels: this.head.labels, colLabels: head.features }), {
      label: 'Token features X, scrolls sideways', what: (a, b) => (a === b ? `feature ${head.features[a]}` : `features ${head.features[a]} to ${head.features[b]}`),
    }));
    this.kind = kind;
    this.wq = structuredClone(head.wq);
    this.wk = structuredClone(head.wk);
    this.edited = false;
    this.wqGrid.invalid.clear();
    this.wkGrid.invalid.clear();
    this.#compute();
  }

  #compute() {
    const { x, identity: I } = this.head;
    this.lastPattern.run(() => {
      const r = this.attn.multiHead({ x, wq: this.wq, wk: this.wk, wv: I, wo: I, heads: 1, mask: 'causal' });
      return { weights: r.headWeights[0], hidden: r.heads[0].hidden };
    });
    this.#render();
  }

  #render() {
    const { tokens, features, expected, labels: rowLabels } = this.head;
    const kind = HEAD_KINDS[this.kind];
    for (const b of this.kindButtons) b.setAttribute('aria-pressed', String(b.dataset.kind === this.kind && !this.edited));
    this.how.replaceChildren(h('strong', { text: `${kind.label}${this.edited ? ' (edited)' : ''}. ` }), kind.how);
    this.why.textContent = kind.why;
    this.wqGrid.update(this.wq, { rowLabels: features, colLabels: features });
    this.wkGrid.update(this.wk, { rowLabels: features, colLabels: features });

    if (this.lastPattern.show(this.wqGrid.error || this.wkGrid.error || this.lastPattern.error)) return;
    const { weights, hidden } = this.lastPattern.value;
    this.heatmap.replaceChildren(heatmapSvg(weights, hidden, {
      title: `${kind.label}: attention weights over the sentence`, cell: 30, values: false, rowLabels, colLabels: rowLabels,
    }));
    // A query follows the pattern when more than half of its weight lands on the keys the
    // pattern intends (a tie between an intended key and another does not count).
    const share = weights.map((row, i) => expected[i].reduce((sum, j) => sum + row[j], 0));
    const hits = share.filter((w) => w > 0.5).length;
    this.verdict.textContent = `${hits} of ${tokens.length} tokens put most of their weight where a ${kind.label.toLowerCase()} should`
      + ` (the least of them ${format(Math.min(...share), 3)}).`
      + (this.edited && hits < tokens.length ? ' Your edit changed the pattern; pick the preset again to restore it.' : '');
  }
}
