// One query row through FlashAttention's online softmax, a tile of B keys per step: the scores of
// the tile being read, the running max m, sum ℓ and output O after it, the rescale e^(m_old − m_new)
// that corrects what was summed under the old max, and O against the row of Z once the last tile
// is in. Every number is the core's (tiledAttention, attention); this module only draws them.
import { h, sub } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { LastValid } from '../../shared/last-valid.js';
import { tex } from '../../shared/tex.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { BlockPart, keysText } from './flash-block.js';
import { MemoryPart, SizesPart, small } from './flash-sizes.js';
import { numberTable } from '../next/number-table.js';
import { seededRows } from '../next/seeded-rows.js';
import { StepSlider } from '../next/step-slider.js';

const PLAY_EVERY_MS = 1200;
const SEEDED = { n: 8, d: 4, seed: 7 }; // enough keys for several tiles, few enough to read


// Seeded Q, K and V (next/seeded-rows.js, as the calculator's random preset draws them): inputs
// only, every number computed from them is the core's.
const seededInputs = ({ n, d, seed }) => ({ q: seededRows(seed, n, d), k: seededRows(seed + 1, n, d), v: seededRows(seed + 2, n, d), causal: false });

/** 1 … n: the tile sizes, the query rows. */
const upTo = (n) => Array.from({ length: n }, (_, i) => i + 1);

/** A key's score in the strip: the core's number in data-value, its tile's state as a class. */
const scoreCell = (x, name, className) => h('td', { class: className || null, 'aria-label': `${name}: ${format(x)}`, dataset: { value: x }, text: format(x) });

export class TileSteps {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} o.onError
   * @param {() => ({ q: number[][], k: number[][], v: number[][], causal: boolean } | null)} [o.calculator]
   */
  constructor({ attn, onError, calculator = null }) {
    this.attn = attn;
    this.calculator = calculator;
    this.state = { source: calculator?.() ? 'calculator' : 'seeded', tile: 2, row: 0, causal: false, block: false, step: 1 };
    this.timer = null;

    this.sourceButtons = [['calculator', 'The calculator’s Q, K, V'], ['seeded', `${SEEDED.n} seeded tokens`]].map(([key, text]) =>
      h('button', { type: 'button', class: 'preset', dataset: { source: key }, text, hidden: key === 'calculator' && !calculator,
        on: { click: () => this.#setSource(key) } }));
    this.sourceNote = h('p', { class: 'hint' });
    this.sliders = h('div', { class: 'control-row sliders' });
    this.causalBox = h('input', { type: 'checkbox', on: { change: () => this.#setCausal(this.causalBox.checked) } });
    // The block of B rows around the row, stepped together (the step stays the row's).
    this.blockBox = h('input', { type: 'checkbox', on: { change: () => {
      this.state.block = this.blockBox.checked;
      this.#render();
    } } });
    this.block = new BlockPart();
    const stepButton = (text, action) => h('button', { type: 'button', text, on: { click: () => {
      if (this.#stepButtonOff(text)) return;
      this.#pause();
      action();
    } } });
    this.previousButton = stepButton('Previous tile', () => this.#go(this.state.step - 1));
    this.nextButton = stepButton('Next tile', () => this.#go(this.state.step + 1));
    this.restartButton = stepButton('Restart', () => this.#go(1));
    this.playButton = h('button', { type: 'button', class: 'flash-play', text: 'Play', on: { click: () => this.#togglePlay() } });
    this.status = h('p', { class: 'calc-status flash-step-status', role: 'status', 'aria-live': 'polite' });
    this.message = h('p', { class: 'cell-message', role: 'alert' });

    this.keys = h('div', { class: 'flash-keys-box' });
    this.cards = h('div', { class: 'stat-cards flash-now' });
    this.explain = h('p', { class: 'flash-explain' });
    this.compare = h('div', { class: 'flash-compare' });
    this.verdict = h('p', { class: 'lab-verdict flash-verdict' });
    this.ledger = h('div', { class: 'flash-ledger' });
    this.skippedNote = h('p', { class: 'flash-skipped' });

    // A formula wider than a phone scrolls in its own box (a keyboard stop only when it overflows).
    const rule = (expression, words) => h('li', {}, scrollBox(tex(expression), { label: `The rule for ${words}, scrolls sideways` }), words);
    this.element = h('section', { class: 'flash-part flash-tiles', role: 'group', 'aria-label': 'Tiles, one step at a time' },
      h('h3', { text: 'One query row, one tile of keys at a time' }),
      h('p', {}, 'The plain path computes all n × n scores, keeps them, and only then takes each row’s softmax. FlashAttention reads K and V in tiles of B keys and keeps, for each query row, just three things: the largest score so far m, the sum so far ℓ, and the output so far O. A tile with a larger score changes the max, so what was summed under the old max is scaled down by e^(m_old − m_new) before the tile’s own terms join it. (FlashAttention’s kernel reads each tile once for a block of query rows: “Show the row block” shows the block of B rows around this one at each step.) For the scores s_j of a tile’s keys:'),
      h('ul', { class: 'flash-rules' },
        rule('m_{\\text{new}} = \\max\\bigl(m_{\\text{old}},\\ \\max_j s_j\\bigr)', 'the running max m'),
        rule('\\ell_{\\text{new}} = e^{m_{\\text{old}} - m_{\\text{new}}}\\,\\ell_{\\text{old}} + \\textstyle\\sum_j e^{s_j - m_{\\text{new}}}', 'the running sum ℓ'),
        rule('O_{\\text{new}} = \\bigl(e^{m_{\\text{old}} - m_{\\text{new}}}\\,\\ell_{\\text{old}}\\,O_{\\text{old}} + \\textstyle\\sum_j e^{s_j - m_{\\text{new}}}\\,v_j\\bigr) / \\ell_{\\text{new}}', 'the output so far O, a weighted mix of the values read')),
      h('div', { class: 'control-row', role: 'group', 'aria-label': 'Q, K and V' }, this.sourceButtons),
      this.sourceNote,
      h('div', { class: 'control-row' }, this.sliders, h('label', { class: 'toggle' }, this.causalBox, 'Causal tiles'),
        h('label', { class: 'toggle' }, this.blockBox, 'Show the row block')),
      h('div', { class: 'flash-steps', role: 'group', 'aria-label': 'Step through the tiles' },
        this.previousButton, this.nextButton, this.restartButton, this.playButton),
      this.status,
      this.message,
      h('div', { class: 'lab-results' }, this.keys, this.block.element, this.skippedNote, this.cards, this.explain, this.compare, this.verdict, this.ledger));
    this.sizes = new SizesPart();
    this.memory = new MemoryPart();
    /** The three parts, in the order the lab shows them. */
    this.elements = [this.element, this.sizes.element, this.memory.element];
    this.last = new LastValid({ what: 'tiles', dimmed: true, view: this.element, message: this.message, onError });
    this.#setSource(this.state.source);
  }

  /** The last valid { inputs, tile, causal, run, z, sizes }: the core's answers for what is drawn. */
  get result() { return this.last.value; }

  // Q, K and V from the calculator (read again each time it is chosen) or seeded; the causal box
  // starts as the calculator's mask.
  #setSource(source) {
    const fromCalculator = source === 'calculator' ? this.calculator?.() : null;
    this.inputs = fromCalculator ?? seededInputs(SEEDED);
    const n = this.inputs.q.length, m = this.inputs.k.length;
    this.state = { ...this.state, source: fromCalculator ? 'calculator' : 'seeded', causal: this.inputs.causal,
      tile: Math.min(m, m > 4 ? 3 : 2), row: n - 1, step: 1 };
    this.tileSlider = new StepSlider({ label: 'Tile size B', values: upTo(m), value: this.state.tile, exact: true,
      format: (x) => `${x} key${x > 1 ? 's' : ''}`, onChange: (tile) => this.#set({ tile }) });
    this.rowSlider = new StepSlider({ label: 'Query row', values: upTo(n), value: this.state.row + 1,
      format: (x) => `row ${x}`, onChange: (row) => this.#set({ row: row - 1 }, { compute: false }) });
    this.sliders.replaceChildren(this.tileSlider.element, this.rowSlider.element);
    this.#pause();
    this.#compute();
    this.#render();
  }

  #setCausal(causal) { this.#set({ causal }); }

  // A new B, row or mask starts the row again from its first tile.
  #set(change, { compute = true } = {}) {
    this.#pause();
    this.state = { ...this.state, ...change, step: 1 };
    if (compute) this.#compute();
    this.#render();
  }

  #compute() {
    const { tile, causal } = this.state;
    const { q, k, v } = this.inputs;
    const inputs = this.inputs;
    this.last.run(() => {
      const z = this.attn.attention({ q, k, v, mask: causal ? 'causal' : 'none' }).output;
      const run = this.attn.tiledAttention(q, k, v, { tile, causal });
      // Every tile size's Z against attention()'s: only when the inputs or the mask changed.
      const previous = this.result;
      const sizes = previous && previous.inputs === inputs && previous.causal === causal ? previous.sizes
        : SizesPart.measure(this.attn, inputs, causal, z);
      return { inputs, tile, causal, run, z, sizes };
    });
  }

  /** The current row's tiles, in the order the core read them. */
  #rowTiles() {
    return this.result.run.tiles.filter((t) => t.row === this.state.row);
  }

  #go(step) {
    this.state.step = Math.max(1, Math.min(step, this.#rowTiles().length));
    this.#render();
  }

  // Previous and Restart do nothing at the first tile, Next at the last: aria-disabled, so a
  // button keeps the focus the keyboard gave it.
  #stepButtonOff(text) {
    const b = { 'Previous tile': this.previousButton, 'Next tile': this.nextButton, Restart: this.restartButton }[text];
    return b.getAttribute('aria-disabled') === 'true';
  }

  #togglePlay() {
    if (this.timer) {
      this.#pause();
      return;
    }
    if (this.state.step >= this.#rowTiles().length) this.#go(1);
    this.playButton.textContent = 'Pause';
    this.timer = setInterval(() => {
      if (!this.element.isConnected || this.state.step >= this.#rowTiles().length) this.#pause();
      else this.#go(this.state.step + 1);
      if (this.state.step >= this.#rowTiles().length) this.#pause();
    }, PLAY_EVERY_MS);
  }

  #pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = 'Play';
  }

  #render() {
    const s = this.state;
    for (const b of this.sourceButtons) b.setAttribute('aria-pressed', String(b.dataset.source === s.source));
    this.causalBox.checked = s.causal;
    this.blockBox.checked = s.block;
    const { q, k, v } = this.inputs;
    this.tileSlider.show(upTo(k.length), s.tile);
    this.rowSlider.show(upTo(q.length), s.row + 1);
    this.sourceNote.textContent = `${s.source === 'calculator' ? 'The calculator’s' : `Seeded (${SEEDED.seed})`} Q, K and V: n = ${q.length} tokens, d_k = ${k[0].length}, d_v = ${v[0].length}.`
      + (s.source === 'calculator' ? ' Choose this again to read them after a change in the calculator. Its pitfalls, padding and hand-set masks are not used here: the tiles scale by 1/√d_k, and mask only when “Causal tiles” is ticked.' : '');
    if (this.last.show() || !this.result) return;
    const r = this.result;
    const tiles = this.#rowTiles(), count = tiles.length;
    const step = Math.min(s.step, count), tile = tiles[step - 1], before = tiles[step - 2] ?? null;
    for (const [b, off] of [[this.previousButton, step === 1], [this.restartButton, step === 1], [this.nextButton, step === count]]) {
      b.setAttribute('aria-disabled', String(off));
    }
    this.status.textContent = `Tile ${step} of ${count}: ${keysText(tile.start, tile.end)}.`;
    this.#drawKeys(tiles, step, k.length);
    this.block.element.hidden = !s.block;
    if (s.block) this.block.show(r.run, { row: s.row, tile: s.tile, n: q.length, start: tile.start, end: tile.end, step });
    this.#drawNow(tile, before, step);
    this.#drawCompare(tiles, step, r.z[s.row]);
    this.#drawLedger(tiles, step);
    this.#drawSkipped(r.run.skipped, count, q.length);
    this.sizes.show(r.sizes, s.tile);
    this.memory.show(r.run, { n: q.length, dv: v[0].length, tile: s.tile });
  }

  // The row's n keys: tile by tile, each key's scaled score once its tile is read (this step's
  // framed), "·" until then; under the causal mask the keys after the row are −∞ in a tile that
  // is read, and the tiles holding only such keys are never read.
  #drawKeys(tiles, step, m) {
    const row = this.state.row;
    const state = (i) => (i < step - 1 ? 'read' : i === step - 1 ? 'current' : 'unread');
    const heads = [h('td', { class: 'corner' })], names = [h('td', { class: 'corner' })], cells = [h('th', { scope: 'row', text: 'score' })];
    tiles.forEach((t, i) => {
      heads.push(h('th', { scope: 'colgroup', colspan: t.end - t.start, class: `tile-head tile-start ${state(i)}`, text: `tile ${i + 1}` }));
      for (let j = t.start; j < t.end; j++) {
        const first = j === t.start ? 'tile-start' : '';
        names.push(h('th', { scope: 'col', class: first || null, text: `k${sub(j + 1)}` }));
        const score = t.scores[j - t.start];
        if (score === undefined) {
          cells.push(h('td', { class: `masked ${first}`, 'aria-label': `Key ${j + 1}: after row ${row + 1}, masked`, text: '−∞' }));
        } else if (i < step) {
          cells.push(scoreCell(score, `Key ${j + 1}, tile ${i + 1}${i === step - 1 ? ' (this step)' : ''}`, `${state(i)} ${first}`.trim()));
        } else {
          cells.push(h('td', { class: `unread ${first}`, 'aria-label': `Key ${j + 1}: not read yet`, text: '·' }));
        }
      }
    });
    const end = tiles.at(-1).end;
    if (end < m) {
      heads.push(h('th', { scope: 'colgroup', colspan: m - end, class: 'tile-head tile-start', text: 'never read' }));
      for (let j = end; j < m; j++) {
        const first = j === end ? 'tile-start' : '';
        names.push(h('th', { scope: 'col', class: first || null, text: `k${sub(j + 1)}` }));
        cells.push(h('td', { class: `skipped ${first}`, 'aria-label': `Key ${j + 1}: after row ${row + 1}, its tile skipped`, text: '' }));
      }
    }
    const table = h('table', { class: 'grid computed lab-matrix flash-keys', dataset: { matrix: 'keys' } },
      h('thead', {}, h('tr', {}, heads), h('tr', {}, names)), h('tbody', {}, h('tr', {}, cells)));
    this.keys.replaceChildren(h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: `Row ${row + 1}’s scores` }), `, q${sub(row + 1)}·kⱼ/√d_k, as the tiles reveal them`)),
      scrollBox(table, { label: `Row ${row + 1}’s scores, scrolls sideways` }),
      h('p', { class: 'flash-legend', text: 'Framed: the tile this step reads. Tinted: tiles already read. ·: not read yet.' + (this.state.causal ? ' −∞: after the row, masked. Hatched: never read.' : '') })));
  }

  // This step's m, ℓ and rescale, and why the rescale is what it is.
  #drawNow(tile, before, step) {
    const card = (key, title, value, note) => h('div', { class: 'stat-card', dataset: { stat: key } },
      h('span', { class: 'stat-title' }, title), h('strong', { class: 'stat-value', dataset: { value }, text: format(value) }), h('span', { class: 'stat-expected', text: note }));
    const read = tile.start + tile.scores.length;
    this.cards.replaceChildren(
      card('max', [tex('m'), ', the running max'], tile.max, before ? (tile.max === before.max ? `unchanged since tile ${step - 1}` : `up from ${format(before.max)}`) : 'tile 1’s largest score'),
      card('rescale', [tex('e^{m_{\\text{old}} - m_{\\text{new}}}'), ', the rescale'], tile.rescale,
        before ? `e^(${format(before.max)} − ${format(tile.max)})` : 'nothing before tile 1: e^(−∞) = 0'),
      card('sum', [tex('\\ell'), ', the running sum'], tile.sum, `Σ e^(s − m) over ${keysText(0, read)}`));
    this.explain.textContent = !before
      ? `Tile 1 sets m to its largest score, ${format(tile.max)}; ℓ and O start from this tile alone.`
      : tile.max === before.max
        ? `No score in tile ${step} is above m = ${format(before.max)}: the rescale is e⁰ = 1, and this tile’s terms are added as they are.`
        : `Tile ${step} holds a score above m = ${format(before.max)}: m rises to ${format(tile.max)}, so ℓ and O, summed under the old max, are scaled by e^(${format(before.max)} − ${format(tile.max)}) = ${format(tile.rescale)} before this tile’s terms join them.`;
  }

  // O after this tile beside row i of Z from attention(); at the last tile they are the same row.
  #drawCompare(tiles, step, zRow) {
    const row = this.state.row, tile = tiles[step - 1], last = step === tiles.length;
    const difference = Math.max(...tile.output.map((x, j) => Math.abs(x - zRow[j])));
    this.compare.replaceChildren(h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: `O after tile ${step}` }), ` against row ${row + 1} of Z from attention()`)),
      scrollBox(numberTable([tile.output, zRow], {
        name: 'output', rowLabels: [`O, tile ${step}`, `Z row ${row + 1}`], colLabels: zRow.map((_, j) => `${j + 1}`),
        cellName: (i, j) => (i === 0 ? `O after tile ${step}, column ${j + 1}` : `Z row ${row + 1}, column ${j + 1}`),
      }), { label: 'O and Z’s row, scroll sideways' })));
    const shown = h('strong', { class: 'flash-difference', dataset: { value: difference }, text: small(difference) });
    this.verdict.replaceChildren(...(last
      ? ['After the last tile O is row ', `${row + 1}`, ' of Z: largest difference ', shown,
        difference < 1e-6 ? ', under 1e−6, float32 rounding. The n × n scores were never held.' : ', above 1e−6.']
      : ['O so far is the softmax over the keys read so far, not yet Z’s row: largest difference ', shown, '. The last tile brings it to Z.']));
  }

  // Every tile read so far, one row each: the state the row carries from tile to tile.
  #drawLedger(tiles, step) {
    const seen = tiles.slice(0, step);
    const dv = seen[0].output.length;
    this.ledger.replaceChildren(h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: 'What the row carries' }), ': m, the rescale, ℓ and O after each tile read')),
      scrollBox(numberTable(seen.map((t) => [t.max, t.rescale, t.sum, ...t.output]), {
        name: 'ledger', newest: step - 1,
        rowLabels: seen.map((t, i) => `tile ${i + 1}: ${keysText(t.start, t.end)}`),
        colLabels: ['m', 'rescale', 'ℓ', ...Array.from({ length: dv }, (_, j) => `O${sub(j + 1)}`)],
        cellName: (i, j) => `Tile ${i + 1}, ${j === 0 ? 'running max m' : j === 1 ? 'rescale' : j === 2 ? 'running sum ℓ' : `O column ${j - 2}`}`,
      }), { label: 'The running state, scrolls sideways' })));
  }

  #drawSkipped(skipped, count, n) {
    const value = h('strong', { class: 'flash-skipped-count', dataset: { value: skipped }, text: `${skipped}` });
    this.skippedNote.replaceChildren(...(this.state.causal
      ? ['Causal mask: the core skipped ', value, ` tile${skipped === 1 ? '' : 's'} over the ${n} rows, tiles whose keys all come after their row, never read. Row ${this.state.row + 1} reads ${count}.`]
      : ['No mask: every row reads all its tiles, ', value, ' skipped. Tick “Causal tiles” to skip the tiles after each row.']));
  }
}
