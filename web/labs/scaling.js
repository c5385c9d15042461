// The lesson's √d_k experiment: the core samples 10,000 pairs of standard-normal vectors of
// length d_k and reports the spread of q·k before and after dividing by √d_k, then sends a row
// of 64 such scores through the softmax with and without the scale.
import { h } from '../calc/dom.js';
import { format } from '../calc/format.js';
import { tex } from '../calc/tex.js';
import { barChart, OKABE_ITO } from './chart.js';
import { logSteps, Slider } from './slider.js';

const PAIRS = 10000, ROW = 64, BINS = 40;

export class ScalingLab {
  /** @param {{ attn: import('../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError = () => {} }) {
    this.attn = attn;
    this.onError = onError;
    this.dk = 64;
    this.seed = 0;
    this.slider = new Slider({ label: 'dₖ (length of q and k)', values: logSteps(1, 1024, 4), value: this.dk, exact: true, onChange: (dk) => { this.dk = dk; this.update(); } });
    this.seedInput = h('input', {
      type: 'number', min: 0, step: 1, value: '0', class: 'seed', 'aria-label': 'Sampling seed',
      on: { change: () => { this.seed = Math.max(0, Math.floor(Number(this.seedInput.value)) || 0); this.update(); } },
    });
    this.stats = h('div', { class: 'stat-cards' });
    this.histograms = h('div', { class: 'chart-row' });
    this.softmaxes = h('div', { class: 'chart-row' });
    this.verdict = h('p', { class: 'lab-verdict', role: 'status' });
    this.element = h('section', { class: 'lab scaling-lab', role: 'group', 'aria-label': 'The √d_k experiment', part: 'scaling' },
      h('h2', { text: 'Why divide by √d_k? The experiment' }),
      h('p', {}, 'If the entries of q and k are independent with mean 0 and variance 1, then ',
        tex('q\\cdot k = \\textstyle\\sum_{i=1}^{d_k} q_i k_i'),
        ' is a sum of d_k terms of variance 1, so its variance is d_k and its standard deviation √d_k. Dividing by ',
        tex('\\sqrt{d_k}'), ' brings it back to 1, whatever d_k is. Pick d_k and let the core sample.'),
      h('div', { class: 'control-row' }, this.slider.element, h('label', { class: 'seed-box' }, 'seed ', this.seedInput)),
      this.stats,
      this.histograms,
      h('h3', { text: `A row of ${ROW} scores through the softmax` }),
      h('p', { class: 'hint', text: 'Entropy measures how spread out the weights are: ln 64 ≈ 4.16 nats when every key gets the same weight, 0 when one key takes it all.' }),
      this.softmaxes,
      this.verdict);
    this.update();
  }

  update() {
    let r;
    try {
      r = this.attn.scalingExperiment({ dk: this.dk, pairs: PAIRS, seed: this.seed, bins: BINS, row: ROW });
    } catch (error) {
      this.verdict.textContent = error.message;
      this.onError(error.message);
      return;
    }
    const card = (title, value, expected, key) => h('div', { class: 'stat-card', dataset: { stat: key } },
      h('span', { class: 'stat-title', text: title }),
      h('strong', { class: 'stat-value', text: value }),
      h('span', { class: 'stat-expected', text: expected }));
    this.stats.replaceChildren(
      card('std of q·k, unscaled', format(r.unscaled.std, 3), `expected √${r.dk} = ${format(r.expectedStd, 3)}`, 'unscaled'),
      card('std of q·k / √d_k', format(r.scaled.std, 3), 'expected 1', 'scaled'),
      card('pairs sampled', r.pairs.toLocaleString('en-US'), `seed ${r.seed}, standard normal entries`, 'pairs'));

    const histogram = (hist, title, xLabel, colour) => {
      const outside = hist.below + hist.above;
      return h('figure', { class: 'chart-figure' },
        h('figcaption', { text: title }),
        barChart({
          values: hist.counts, lo: hist.lo, hi: hist.hi, xLabel, yLabel: 'pairs', colour, title,
          label: `${title}: histogram of ${r.pairs} dot products from ${format(hist.lo, 1)} to ${format(hist.hi, 1)}`,
        }),
        outside ? h('p', { class: 'hint', text: `${outside} outside the range shown` }) : null);
    };
    this.histograms.replaceChildren(
      histogram(r.unscaled.histogram, 'q·k before scaling', 'q·k', OKABE_ITO[5]),
      histogram(r.scaled.histogram, 'q·k / √d_k after scaling', 'q·k / √d_k', OKABE_ITO[0]));

    const { softmax } = r;
    const weights = (w, title, colour) => h('figure', { class: 'chart-figure', dataset: { softmax: title.startsWith('without') ? 'unscaled' : 'scaled' } },
      h('figcaption', {}, title, ': entropy ', h('strong', { class: 'entropy', text: `${format(w.entropy, 3)} nats` })),
      barChart({
        values: w.weights, xLabel: 'key (64 scores)', yLabel: 'weight', yMax: 1, colour, title, xTicks: [0, 32, 64],
        label: `${title}: softmax weights of ${ROW} keys, largest ${format(Math.max(...w.weights), 3)}, entropy ${format(w.entropy, 3)} nats`,
      }));
    this.softmaxes.replaceChildren(
      weights(softmax.unscaled, 'without scaling', OKABE_ITO[5]),
      weights(softmax.scaled, 'scaled by 1/√d_k', OKABE_ITO[0]));

    const top = Math.max(...softmax.unscaled.weights);
    this.verdict.textContent = softmax.unscaled.entropy < 0.5
      ? `Unscaled, one key takes ${format(top * 100, 1)} % of the weight: the softmax is nearly one-hot (entropy ${format(softmax.unscaled.entropy, 2)} nats), so its gradients almost vanish. Scaled, the entropy is ${format(softmax.scaled.entropy, 2)} nats.`
      : `At d_k = ${r.dk} the unscaled scores are still moderate (entropy ${format(softmax.unscaled.entropy, 2)} of at most ${format(softmax.maxEntropy, 2)} nats). Raise d_k to watch the unscaled softmax saturate.`;
  }
}
