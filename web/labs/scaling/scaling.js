// The lesson's √d_k experiment: the core samples 10,000 pairs of standard-normal vectors of
// length d_k and reports the spread of q·k before and after dividing by √d_k, then sends a row
// of 64 such scores through the softmax with and without the scale. Then the lesson's *why*, over
// 1,000 rows of 64 scores per d_k (the core's scalingRowStudy): the entropy of the rows, and the
// size of the softmax's Jacobian, the gradient a row passes back to its scores, from d_k = 1 to
// 1024. Medians and quartiles, never a mean alone: a few rows whose two largest scores happen to
// be close dominate the mean.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { seedInput } from '../../shared/seed-input.js';
import { tex } from '../../shared/tex.js';
import { sharedAxisBars } from '../widgets/chart.js';
import { FLOOR, gradientChart, gradientSwatch } from './gradient-chart.js';
import { logSteps, Slider } from '../widgets/slider.js';

const PAIRS = 10000, ROW = 64, BINS = 40, ROWS = 1000, THRESHOLD = 0.01;
const SWEEP = Array.from({ length: 11 }, (_, e) => 2 ** e); // d_k = 1, 2, 4, … 1024
const GPT2_HEAD = 64; // GPT-2's head size, the lesson's reference point

const share = (x) => (x === 0 ? '0 %' : `${format(x * 100, 1)} %`);
// A gradient norm, readable from 0.3 down to 1e-8: three significant digits, exponent past 1e-4.
const norm = (x) => (x === 0 ? '0' : x < 1e-4 ? x.toExponential(1).replace('e-', '·10⁻').replace(/(\d+)$/, (d) => [...d].map((c) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[c]).join('')) : String(+x.toPrecision(2)));

export class ScalingLab {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
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
    this.rowEntropy = h('p', { class: 'row-entropy' });
    this.gradients = h('div', { class: 'gradient-box' });
    this.gradientTable = h('tbody');
    this.verdict = h('p', { class: 'lab-verdict', role: 'status' });
    this.sweep = null; // { seed, points }: the row study at every d_k of SWEEP, for this seed
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
          h('p', { class: 'hint', text: 'Entropy measures how spread out the weights are: ln 64 ≈ 4.16 nats when every key gets the same weight, 0 when one key takes it all. One row can mislead, so below it: the entropy over many rows.' }),
          this.softmaxes,
          this.rowEntropy)),
      h('h3', { text: 'Why it matters: the gradient the softmax passes back' }),
      h('p', {}, 'Training moves the scores s by the gradient that flows back through the softmax. How much flows is the size of its Jacobian, per row of p = softmax(s): ',
        tex('\\lVert \\partial p/\\partial s \\rVert_F = \\sqrt{\\textstyle\\sum_{i,j} \\big(p_i(\\delta_{ij} - p_j)\\big)^2}'),
        `. A row of equal weights gives √63/64 ≈ 0.12; a one-hot row gives 0, and learns nothing. The core samples ${ROWS.toLocaleString('en-US')} rows of ${ROW} scores at each d_k, unscaled and scaled, for this seed.`),
      h('div', { class: 'chart-row' },
        h('div', { class: 'chart-column' }, this.gradients),
        h('div', { class: 'chart-column gradient-table-box', tabIndex: 0, role: 'region', 'aria-label': 'The gradient per d_k, as a table' },
          h('table', { class: 'cost-table gradient-table' },
            h('caption', { text: `‖∂softmax/∂s‖ over ${ROWS.toLocaleString('en-US')} rows: median [first–third quartile], and the share of rows below ${THRESHOLD}` }),
            h('thead', {}, h('tr', {},
              h('th', { scope: 'col', text: 'dₖ' }),
              h('th', { scope: 'col', text: 'unscaled' }), h('th', { scope: 'col', class: 'num', text: `< ${THRESHOLD}` }),
              h('th', { scope: 'col', text: 'scaled by 1/√dₖ' }), h('th', { scope: 'col', class: 'num', text: `< ${THRESHOLD}` }))),
            this.gradientTable))),
      this.verdict);
    this.update();
  }

  update() {
    let r, study;
    try {
      r = this.attn.scalingExperiment({ dk: this.dk, pairs: PAIRS, seed: this.seed, bins: BINS, row: ROW });
      study = this.#study(this.dk);
      if (this.sweep?.seed !== this.seed) this.sweep = { seed: this.seed, points: SWEEP.map((dk) => this.#study(dk)) };
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

    this.#drawEntropy(study);
    this.#drawGradients(study);
  }

  #study(dk) {
    return this.attn.scalingRowStudy({ dk, rows: ROWS, row: ROW, seed: this.seed, threshold: THRESHOLD });
  }

  // The entropy over the rows at the learner's d_k: what one sampled row cannot say.
  #drawEntropy(study) {
    const { unscaled, scaled, max } = study.entropy;
    const spread = (e) => `mean ${format(e.mean, 2)} nats, middle half ${format(e.q1, 2)} to ${format(e.q3, 2)}`;
    this.rowEntropy.replaceChildren(
      h('strong', { text: `Over ${study.rows.toLocaleString('en-US')} rows of ${study.row} scores at d_k = ${study.dk}` }),
      ` (each row's entropy, then averaged): without scaling ${spread(unscaled)}; scaled ${spread(scaled)}. At most ln ${study.row} ≈ ${format(max, 2)}.`);
    this.rowEntropy.dataset.unscaledMean = String(unscaled.mean);
    this.rowEntropy.dataset.scaledMean = String(scaled.mean);
  }

  #drawGradients(study) {
    const points = this.sweep.points;
    const series = (key) => points.map((p) => ({ dk: p.dk, ...p.gradient[key] }));
    const at = (dk) => points.find((p) => p.dk === dk);
    const last = points.at(-1), gpt2 = at(GPT2_HEAD);
    const scaledMedians = points.map((p) => p.gradient.scaled.median);
    const row = (p) => h('tr', { class: p.dk === study.dk ? 'current' : undefined, dataset: { dk: p.dk } },
      h('th', { scope: 'row', class: 'num', text: String(p.dk) }),
      ...['unscaled', 'scaled'].flatMap((key) => {
        const g = p.gradient[key];
        return [h('td', { dataset: { median: g.median }, text: `${norm(g.median)} [${norm(g.q1)}–${norm(g.q3)}]` }),
          h('td', { class: 'num', dataset: { share: g.shareBelow }, text: share(g.shareBelow) })];
      }));
    this.gradientTable.replaceChildren(...points.map(row), ...(SWEEP.includes(study.dk) ? [] : [row(study)]));
    const describe = (g) => `median ${norm(g.median)}, middle half ${norm(g.q1)} to ${norm(g.q3)}, ${share(g.shareBelow)} of rows below ${THRESHOLD}`;
    this.gradients.replaceChildren(h('figure', { class: 'chart-figure', dataset: { chart: 'gradient' } },
      h('figcaption', {},
        h('span', { class: 'series-legend' }, gradientSwatch({ key: 'unscaled', dashed: true }), ' without scaling (dashed)'), ' ',
        h('span', { class: 'series-legend' }, gradientSwatch({ key: 'scaled' }), ' scaled by 1/√dₖ'), ' ',
        h('span', { class: 'hint', text: `lines: medians; bands: the middle half of the rows. Values below ${norm(FLOOR)} sit on the floor.` })),
      gradientChart({
        series: [{ key: 'unscaled', dashed: true, points: series('unscaled') }, { key: 'scaled', points: series('scaled') }],
        threshold: THRESHOLD, mark: study.dk,
        label: `The softmax's gradient per row against d_k from 1 to 1024, log scales. Scaled: medians from ${norm(Math.min(...scaledMedians))} to ${norm(Math.max(...scaledMedians))}. `
          + `Unscaled at d_k = ${GPT2_HEAD}: ${describe(gpt2.gradient.unscaled)}; at 1024: ${describe(last.gradient.unscaled)}.`,
      })));

    // The reading, from these numbers: where unscaled rows pass more than scaled ones, where the
    // collapse shows, how far it goes, and the learner's own d_k.
    const larger = points.filter((p) => p.dk > 1 && p.gradient.unscaled.median > p.gradient.scaled.median).map((p) => p.dk);
    const below = points.find((p) => p.dk > 1 && p.gradient.unscaled.median < p.gradient.scaled.median);
    const g = study.gradient;
    this.verdict.textContent = [
      `Scaled by 1/√d_k, the median row passes ${norm(Math.min(...scaledMedians))} to ${norm(Math.max(...scaledMedians))} at every d_k from 1 to 1024.`,
      larger.length
        ? `Unscaled, a partly saturated softmax still passes gradient: at d_k = ${larger[0]} to ${larger.at(-1)} the unscaled median is even larger than the scaled one.`
        : '',
      `The collapse the lesson describes sets in around GPT-2's head size: at d_k = ${GPT2_HEAD}, ${share(gpt2.gradient.unscaled.shareBelow)} of unscaled rows already pass less than ${THRESHOLD}`
        + `${below ? `, the median falls below the scaled one from d_k = ${below.dk}` : ''},`
        + ` and at 1024 ${share(last.gradient.unscaled.shareBelow)} of rows are below ${THRESHOLD} with a median of ${norm(last.gradient.unscaled.median)}.`,
      `At your d_k = ${study.dk}: unscaled median ${norm(g.unscaled.median)} (${share(g.unscaled.shareBelow)} below ${THRESHOLD}), scaled ${norm(g.scaled.median)}.`,
    ].filter(Boolean).join(' ');
  }
}
