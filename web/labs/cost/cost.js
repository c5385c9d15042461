// What attention costs: live FLOP and memory counts from the core's cost model for n, d and h,
// and a measurement in the learner's own browser of how the time grows with n, for the
// explaining path (every n×n matrix kept) and the fused streaming kernel (one tile of scores):
// measure.js, loaded with the first click on Measure.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { LastValid } from '../../shared/last-valid.js';
import { tex } from '../../shared/tex.js';
import { logSteps, Slider } from '../widgets/slider.js';

const D_MODELS = [16, 32, 64, 128, 256, 384, 512, 768, 1024, 1280, 1536, 2048, 2560, 4096, 5120, 8192, 12288];
const HEADS = [1, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 64, 96];
// The measurement (measure.js, loaded with the first click), stated in the lab's words here.
export const MEASURE = {
  d: 64,              // one head of GPT-2's size
  maxN: 2048,         // the explaining path's limit
  budgetSeconds: 5,   // both paths' timings together
  clockTicks: 20,     // each size is timed over at least this many ticks of the clock
  sizeSeconds: 0.4,   // a short size repeats its timings for at most this long once one is long enough
};

/** 1234567 → "1.23 M", with a unit: FLOP, B. */
function human(x, unit) {
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let k = 0;
  while (Math.abs(x) >= 1000 && k < prefixes.length - 1) { x /= 1000; k++; }
  return `${k === 0 ? x : x.toPrecision(3)} ${prefixes[k]}${unit}`;
}

/** Bytes in binary units: 4 MiB. */
export function bytes(x) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let k = 0;
  while (x >= 1024 && k < units.length - 1) { x /= 1024; k++; }
  return `${k === 0 ? x : +x.toPrecision(3)} ${units[k]}`;
}

// Within this ratio the larger side only "costs a little more": it does not dominate.
const NEAR_TIE = 1.1;

/**
 * Which side costs more at n tokens and d_model d, in words that stay true at and near the
 * crossing n = 2d, where the two are equal and their rounded counts can read the same.
 */
function costSummary(c, n, d) {
  const attention = c.scoreFlops + c.valueFlops, projections = c.projectionFlops + c.outputFlops;
  const cross = `n = 2d = ${c.crossoverN.toLocaleString('en-US')} tokens for d = ${d}`;
  const sides = 'below it the projections cost more, above it the n² terms take over';
  if (attention === projections) {
    return `The attention terms (n²d) and the projections (nd²) cost the same here, ${human(attention, 'FLOP')} each: `
      + `this n is where they cross, ${cross}; ${sides}.`;
  }
  const [more, less] = c.dominant === 'attention'
    ? [['attention terms (n²d)', attention], ['projections', projections]]
    : [['projections (nd²)', projections], ['attention terms', attention]];
  const ratio = more[1] / less[1];
  const lead = ratio < NEAR_TIE
    ? `The ${more[0]} cost a little more, ${+((ratio - 1) * 100).toPrecision(2)} % more`
    : `The ${more[0]} dominate`;
  return `${lead}: ${human(more[1], 'FLOP')} against ${human(less[1], 'FLOP')} for the ${less[0]}. They cross at ${cross}: ${sides}.`;
}

export class CostLab {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError = () => {} }) {
    this.attn = attn;
    this.onError = onError;
    this.sizes = { n: 1024, d: 768, h: 12 };
    const slider = (label, key, values, exact) => new Slider({
      label, values, value: this.sizes[key], exact, onChange: (x) => { this.sizes[key] = x; this.update(); },
    });
    this.sliders = [slider('n (tokens)', 'n', logSteps(1, 131072, 2), true), slider('d (d_model)', 'd', D_MODELS), slider('h (heads)', 'h', HEADS)];
    this.message = h('p', { class: 'cell-message', role: 'alert' });
    this.table = h('table', { class: 'cost-table' });
    this.summary = h('p', { class: 'lab-verdict', role: 'status' });

    this.measureButton = h('button', { type: 'button', text: 'Measure in this browser', on: { click: () => this.#toggleMeasure() } });
    this.progress = h('progress', { max: 1, value: 0, 'aria-label': 'Measurement progress', hidden: true });
    this.measureStatus = h('p', { class: 'hint', role: 'status' });
    this.plotBox = h('div', { class: 'chart-row' });
    this.timings = h('table', { class: 'cost-table timings', hidden: true });

    this.element = h('section', { class: 'lab cost-lab', role: 'group', 'aria-label': 'Cost', part: 'cost' },
      h('h2', { text: 'What attention costs' }),
      h('p', {}, 'Each head multiplies an n×d/h matrix by a d/h×n one, so the scores of all heads take ',
        tex('2n^2d'), ' FLOPs and as much again for A·V, and the h attention matrices hold ', tex('h\\,n^2'),
        ' numbers. The four projections cost ', tex('8nd^2'), '. Doubling the context quadruples the attention terms.'),
      h('div', { class: 'control-row sliders' }, this.sliders.map((s) => s.element)),
      this.message,
      h('div', { class: 'matrix-scroll' }, this.table),
      this.summary,
      h('h3', { text: 'Measured in your browser' }),
      h('p', { class: 'hint', text: `Times two of the core's paths for one head (d_k = ${MEASURE.d}) at n = 32, 64, … while they stay within about ${MEASURE.budgetSeconds} seconds: the explaining attention, which keeps the n×n matrices, and the fused streaming kernel, FlashAttention's online softmax, which holds one tile of scores. Browsers round their clock, some to whole milliseconds, so each size is timed over at least ${MEASURE.clockTicks} of its ticks.` }),
      h('div', { class: 'control-row' }, this.measureButton, this.progress),
      this.measureStatus,
      this.plotBox,
      h('div', { class: 'matrix-scroll' }, this.timings));
    this.lastCost = new LastValid({ what: 'sizes', view: this.element, message: this.message, onError });
    this.update();
  }

  update() {
    const { n, d, h: heads } = this.sizes;
    this.lastCost.run(() => this.attn.cost({ n, dModel: d, heads }));
    if (this.lastCost.show()) return;
    const c = this.lastCost.value;
    const total = c.scoreFlops + c.valueFlops + c.projectionFlops + c.outputFlops;
    const row = (name, formula, value, key) => h('tr', { dataset: { term: key } },
      h('th', { scope: 'row', text: name }), h('td', {}, tex(formula)), h('td', { class: 'num', text: human(value, 'FLOP') }),
      h('td', { class: 'share-cell' }, h('meter', { min: 0, max: 1, value: value / total, 'aria-hidden': 'true' }), ` ${format((100 * value) / total, 1)} %`));
    this.table.replaceChildren(
      h('thead', {}, h('tr', {}, h('th', { text: 'term' }), h('th', { text: 'formula' }), h('th', { text: 'FLOPs' }), h('th', { text: 'share' }))),
      h('tbody', {},
        row('scores QKᵀ, all heads', '2n^2d', c.scoreFlops, 'scores'),
        row('A·V, all heads', '2n^2d', c.valueFlops, 'values'),
        row('projections Q, K, V', '6nd^2', c.projectionFlops, 'projections'),
        row('output W_O', '2nd^2', c.outputFlops, 'output'),
        h('tr', { class: 'total' }, h('th', { scope: 'row', text: 'total' }), h('td'), h('td', { class: 'num', text: human(total, 'FLOP') }), h('td')),
        h('tr', { dataset: { term: 'memory' } }, h('th', { scope: 'row', text: 'attention matrices' }), h('td', {}, tex('h\\,n^2 \\times 4\\,\\text{B}')),
          h('td', { class: 'num', text: bytes(c.attentionBytes) }), h('td', { text: `${(c.attentionBytes / 4).toLocaleString('en-US')} floats` }))));
    this.summary.textContent = costSummary(c, n, d);
  }

  /** The measurement's code loads with the first click: an embed that never measures never fetches it. */
  async #toggleMeasure() {
    try {
      this.measurement ??= import('./measure.js').then(({ CostMeasurement }) => new CostMeasurement(this));
      (await this.measurement).toggle();
    } catch (error) {
      this.measurement = null; // a later click tries again
      this.measureStatus.textContent = `The measurement could not start: ${error.message}`;
      this.onError(error.message);
    }
  }
}
