// The lesson's √d_k experiment: the core samples 10,000 pairs of standard-normal vectors of
// length d_k and reports the spread of q·k before and after dividing by √d_k, then sends a row
// of 64 such scores through the softmax with and without the scale.
import { h } from '../calc/dom.js';
import { format } from '../calc/format.js';
import { seedInput } from '../calc/seed-input.js';
import { tex } from '../calc/tex.js';
import { sharedAxisBars } from './chart.js';
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
    this.seedInput = seedInput({ label: 'Sampling seed', value: this.seed, onChange: (seed) => { this.seed = seed; this.update(); } });
    this.stats = h('div', { class: 'stat-cards' });
    this.histograms = h('div');
    this.softmaxes = h('div');
    this.verdict = h('p', { class: 'lab-verdict', role: 'status' });
    this.element = h('section', { class: 'lab scaling-lab', role: 'group', 'aria-label': 'The √d_k experiment', part: 'scaling' },
      h('h2', { text: 'Why divide by √d_k? The experiment' }),
      h('p', {}, 'If the entries of q and k are independent with mean 0 and variance 1, then ',
        tex('q\\cdot k = \\textstyle\\sum_{i=1}^{d_k} q_i k_i'),
        ' is a sum of d_k terms of variance 1, so its variance is d_k and its standard deviation √d_k. Dividing by ',
        tex('\\sqrt{d_k}'), ' brings it back to 1, whatever d_k is. Pick d_k and let the core sample.'),
      h('div', { class: 'control-row' }, this.slider.element, h('label', { class: 'seed-box' }, 'seed ', this.seedInput)),
      this.stats,
      // Side by side where there is room: the spread of the scores, then what it does to a softmax.
      h('div', { class: 'chart-row' },
        h('div', { class: 'chart-column' },
          h('h3', { text: `q·k for ${PAIRS.toLocaleString('en-US')} pairs` }),
          this.histograms),
        h('div', { class: 'chart-column' },
          h('h3', { text: `A row of ${ROW} scores through the softmax` }),
          h('p', { class: 'hint', text: 'Entropy measures how spread out the weights are: ln 64 ≈ 4.16 nats when every key gets the same weight, 0 when one key takes it all.' }),
          this.softmaxes)),
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

    // Both histograms on one axis: the scaled one is the same bell, √d_k times narrower.
    const { unscaled, scaled } = r;
    const lo = Math.min(unscaled.histogram.lo, scaled.histogram.lo), hi = Math.max(unscaled.histogram.hi, scaled.histogram.hi);
    const spread = (sample) => ({ from: sample.mean - sample.std, to: sample.mean + sample.std, text: `±1 std = ${format(sample.std, sample.std < 10 ? 2 : 1)}` });
    const bins = (sample, key, name) => ({ key, name, values: sample.histogram.counts, lo: sample.histogram.lo, hi: sample.histogram.hi, bracket: spread(sample) });
    const outside = (sample) => sample.histogram.below + sample.histogram.above;
    this.histograms.replaceChildren(h('figure', { class: 'chart-figure shared-axis', dataset: { chart: 'histograms' } },
      h('figcaption', { text: 'q·k before and after scaling, on one axis' }),
      sharedAxisBars({
        series: [bins(unscaled, 'unscaled', 'before: q·k'), bins(scaled, 'scaled', 'after: q·k / √d_k')],
        lo, hi, xTicks: [lo, lo / 2, 0, hi / 2, hi], xLabel: 'score', yLabel: 'pairs per bin',
        title: 'q·k before and after scaling',
        label: `Histograms of ${r.pairs} dot products on one axis from ${format(lo, 1)} to ${format(hi, 1)}: before scaling, standard deviation ${format(unscaled.std, 3)}; `
          + `after dividing by √${r.dk}, standard deviation ${format(scaled.std, 3)}, ${format(r.expectedStd, 1)} times narrower.`,
      }),
      h('p', { class: 'hint', text: `The same ${r.pairs.toLocaleString('en-US')} pairs, ${BINS} bins each over ±4 expected std. Dividing by √${r.dk} = ${format(r.expectedStd, 3)} keeps the shape and shrinks the width ${format(r.expectedStd, 1)} times.`
        + (outside(unscaled) + outside(scaled) ? ` Outside the range shown: ${outside(unscaled)} before, ${outside(scaled)} after.` : '') })));

    // Both softmax rows on the same axes: a one-hot spike against a spread-out row.
    const { softmax } = r;
    const largest = (w) => Math.max(...w.weights);
    const legend = (w, key, name) => h('p', { class: 'series-legend', dataset: { softmax: key } },
      h('span', { class: `swatch series-${key}`, 'aria-hidden': 'true' }), `${name}: entropy `, h('strong', { class: 'entropy', text: `${format(w.entropy, 3)} nats` }));
    this.softmaxes.replaceChildren(h('figure', { class: 'chart-figure shared-axis', dataset: { chart: 'softmax' } },
      h('figcaption', {}, legend(softmax.unscaled, 'unscaled', 'without scaling'), legend(softmax.scaled, 'scaled', 'scaled by 1/√d_k')),
      sharedAxisBars({
        series: [
          { key: 'unscaled', name: 'without scaling', values: softmax.unscaled.weights, note: `largest ${format(largest(softmax.unscaled), 3)}` },
          { key: 'scaled', name: 'scaled by 1/√d_k', values: softmax.scaled.weights, note: `largest ${format(largest(softmax.scaled), 3)}` }],
        lo: 0, hi: ROW, yMax: 1, xTicks: [0, ROW / 2, ROW], xLabel: `key (${ROW} scores)`, yLabel: 'weight',
        title: 'softmax weights with and without the scale',
        label: `Softmax weights of ${ROW} keys on the same axes: without scaling, largest ${format(largest(softmax.unscaled), 3)}, entropy ${format(softmax.unscaled.entropy, 3)} nats; `
          + `scaled by 1/√d_k, largest ${format(largest(softmax.scaled), 3)}, entropy ${format(softmax.scaled.entropy, 3)} nats.`,
      })));

    const top = largest(softmax.unscaled);
    this.verdict.textContent = softmax.unscaled.entropy < 0.5
      ? `Unscaled, one key takes ${format(top * 100, 1)} % of the weight: the softmax is nearly one-hot (entropy ${format(softmax.unscaled.entropy, 2)} nats), so its gradients almost vanish. Scaled, the entropy is ${format(softmax.scaled.entropy, 2)} nats.`
      : `At d_k = ${r.dk} the unscaled scores are still moderate (entropy ${format(softmax.unscaled.entropy, 2)} of at most ${format(softmax.maxEntropy, 2)} nats). Raise d_k to watch the unscaled softmax saturate.`;
  }
}
