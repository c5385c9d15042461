// What attention costs: live FLOP and memory counts from the core's cost model for n, d and h,
// and a measurement in the learner's own browser of how the time grows with n.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { LastValid } from '../../shared/last-valid.js';
import { tex } from '../../shared/tex.js';
import { logLogChart } from '../widgets/chart.js';
import { logSteps, Slider } from '../widgets/slider.js';

const D_MODELS = [16, 32, 64, 128, 256, 384, 512, 768, 1024, 1280, 1536, 2048, 2560, 4096, 5120, 8192, 12288];
const HEADS = [1, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 64, 96];
const MEASURE_D = 64;           // one head of GPT-2's size
const MEASURE_MAX_N = 2048;     // the explaining path's limit
const BUDGET_SECONDS = 3;
const CLOCK_TICKS = 20;         // each size is timed over at least this many ticks of the clock
const SIZE_SECONDS = 0.4;       // a short size repeats its timings for at most this long once one is long enough

/** 1234567 → "1.23 M", with a unit: FLOP, B. */
function human(x, unit) {
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let k = 0;
  while (Math.abs(x) >= 1000 && k < prefixes.length - 1) { x /= 1000; k++; }
  return `${k === 0 ? x : x.toPrecision(3)} ${prefixes[k]}${unit}`;
}

/** Bytes in binary units: 4 MiB. */
function bytes(x) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let k = 0;
  while (x >= 1024 && k < units.length - 1) { x /= 1024; k++; }
  return `${k === 0 ? x : +x.toPrecision(3)} ${units[k]}`;
}

/** 0.001 → "1 ms", 5e-6 → "5 µs". */
function duration(seconds) {
  const s = +seconds.toPrecision(3); // clocks' steps are floats: 0.99999… ms is 1 ms
  return s >= 1e-3 ? `${+(s * 1e3).toPrecision(3)} ms` : `${+(s * 1e6).toPrecision(3)} µs`;
}

/**
 * The step of performance.now() here, in seconds. Browsers round it against timing attacks
 * (Firefox and Safari to whole milliseconds, Chromium to 0.1 ms or finer). The smallest step
 * between distinct readings: rounded readings are whole multiples of the tick, so no step is
 * shorter than one, while a busy machine that misses a reading only makes steps longer (a
 * median read 2 ms for a 1 ms clock under load).
 */
function clockResolution() {
  let smallest = Infinity;
  let steps = 0;
  const giveUp = Date.now() + 200;
  let last = performance.now();
  while (steps < 25 && Date.now() < giveUp) {
    const now = performance.now();
    if (now !== last) {
      smallest = Math.min(smallest, now - last);
      steps += 1;
    }
    last = now;
  }
  if (!steps) return 0.2; // no step in 200 ms: at least that coarse
  return smallest / 1000;
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

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

export class CostLab {
  /** @param {{ attn: import('../../attention.js').Attention, onError: (message: string) => void }} o */
  constructor({ attn, onError = () => {} }) {
    this.attn = attn;
    this.onError = onError;
    this.sizes = { n: 1024, d: 768, h: 12 };
    this.measuring = false;
    this.spent = 0;
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
      h('p', { class: 'hint', text: `Times the core's explaining attention (one head, d_k = ${MEASURE_D}, the n×n matrices kept) for n = 32, 64, … while it stays within about ${BUDGET_SECONDS} seconds. Browsers round their clock, some to whole milliseconds, so each size is timed over at least ${CLOCK_TICKS} of its ticks.` }),
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

  async #toggleMeasure() {
    if (this.measuring) {
      this.measuring = false; // the loop stops after the size it is timing
      return;
    }
    this.measuring = true;
    this.measureButton.textContent = 'Stop measuring';
    this.progress.hidden = false;
    this.progress.value = 0;
    const points = [];
    this.spent = 0; // seconds inside the core's timing calls: the budget, however long the page waits between them
    try {
      const tick = clockResolution();
      const clock = `This browser's clock ticks every ${duration(tick)}, so each size was timed over at least ${CLOCK_TICKS} ticks (${duration(CLOCK_TICKS * tick)}).`;
      for (let n = 32; n <= MEASURE_MAX_N && this.measuring; n *= 2) {
        // Doubling n about quadruples a call; a size takes about four calls, or six timings of
        // CLOCK_TICKS ticks while calls are short.
        const last = points.at(-1);
        const guess = last ? last.seconds * 4 : 1e-4;
        if (this.spent + Math.max(4 * guess, 6 * CLOCK_TICKS * tick) > BUDGET_SECONDS && points.length >= 4) break;
        this.measureStatus.textContent = `Timing n = ${n}…`;
        const point = await this.#timeSize(n, tick, guess);
        if (!point) break;
        points.push(point);
        this.progress.value = Math.min(1, Math.max(this.spent / BUDGET_SECONDS, Math.log2(n / 16) / Math.log2(MEASURE_MAX_N / 16)));
        this.#showTimings(points, tick);
      }
      this.measureStatus.textContent = points.length
        ? `Measured ${points.length} sizes in ${format(this.spent, 1)} s. ${clock}`
        : 'Stopped before the first size finished.';
    } catch (error) {
      this.measureStatus.textContent = `The measurement stopped: ${error.message}`;
      this.onError(error.message);
    } finally {
      this.measuring = false;
      this.measureButton.textContent = 'Measure in this browser';
      this.progress.value = 1;
      this.progress.hidden = true;
    }
  }

  /** One timeAttention call of `repeats` runs, timed by this page's clock (and added to `spent`). */
  #timedCall(n, repeats) {
    const started = performance.now();
    const { seconds, iterations, attentionBytes } = this.attn.timeAttention({ n, d: MEASURE_D, repeats });
    const elapsed = (performance.now() - started) / 1000;
    this.spent += elapsed;
    return { elapsed, seconds, run: seconds * iterations, iterations, attentionBytes };
  }

  /**
   * Seconds per call at size n, or null if stopped. The core ends a timed run once its clock has
   * moved 1 ms, which a clock of whole milliseconds does after anything from 0 to 2 ms, so its own
   * figure is rounding noise while a run lasts only a few ticks. Then this page times calls of one
   * run and of 1 + k runs: for the same calls per run (`iterations`, which the core calibrates
   * afresh each call) they differ by exactly k runs, whatever the core spends on its inputs and
   * its calibration, and k grows until that difference spans CLOCK_TICKS ticks. The fastest of
   * each kind is kept, as the core keeps its fastest run: the first call at a new size also pays
   * for growing the wasm heap, and other programs may take the processor at any time.
   */
  async #timeSize(n, tick, guess) {
    const enough = CLOCK_TICKS * tick;
    if (guess >= 2 * enough) {
      // One call should last many ticks: then the core's own timing is good enough. The fastest
      // of 3 calls, one at a time, so that the page can paint and respond between them.
      let best = null;
      for (let c = 0; c < 3 && this.measuring; c++) {
        await nextTask();
        const t = this.#timedCall(n, 1);
        if (!best || t.seconds < best.seconds) best = t;
      }
      if (best?.run >= enough) return { n, seconds: best.seconds, attentionBytes: best.attentionBytes, ticks: best.run / tick, resolved: true };
      if (!this.measuring) return null;
    }
    const maxExtra = this.attn.limits().maxTimingRepeats - 1;
    const started = performance.now();
    let k = 0, groups = new Map(), point = null;
    for (let attempt = 0; attempt < 12 && this.measuring; attempt++) {
      await nextTask();
      const single = this.#timedCall(n, 1);
      k ||= Math.min(maxExtra, Math.max(1, Math.ceil(enough / single.run)));
      const longer = this.#timedCall(n, 1 + k);
      for (const [call, kind] of [[single, 'single'], [longer, 'longer']]) {
        if (!groups.has(call.iterations)) groups.set(call.iterations, { single: [], longer: [] });
        groups.get(call.iterations)[kind].push(call.elapsed);
      }
      const [iterations, g] = [...groups].filter(([, e]) => e.single.length && e.longer.length)
        .sort(([, a], [, b]) => b.single.length + b.longer.length - a.single.length - a.longer.length)[0] ?? [];
      if (g) {
        const span = Math.min(...g.longer) - Math.min(...g.single);
        if (span > 0 && !(point?.resolved && span < enough)) {
          point = { n, seconds: span / (k * iterations), attentionBytes: longer.attentionBytes, ticks: span / tick, resolved: span >= enough };
        }
        const settled = (g.single.length >= 3 && g.longer.length >= 3) || attempt >= 6 || performance.now() - started > SIZE_SECONDS * 1000;
        if (point?.resolved && settled) break;
      }
      // Too short: more runs (at most four times as many at once), and start afresh, as timings
      // with another k do not compare. Judged by the longer call alone, which its fixed costs
      // lengthen by about one run, or by a group whose difference stays short.
      const short = longer.elapsed < 1.5 * enough || (g && attempt >= 2 && !point?.resolved);
      if (short && k < maxExtra) {
        k = Math.min(maxExtra, Math.ceil(k * Math.min(4, Math.max(2, (2 * enough) / longer.elapsed))));
        groups = new Map();
      }
    }
    return point;
  }

  #showTimings(points, tick) {
    // Only sizes timed over CLOCK_TICKS ticks are fitted: below that the rounding shows.
    const resolved = points.filter((p) => p.resolved);
    const upper = resolved.slice(Math.floor(resolved.length / 2));
    let fit = null;
    if (upper.length >= 2) fit = this.attn.fitPowerLaw({ x: upper.map((p) => p.n), y: upper.map((p) => p.seconds * 1000) });
    const label = `Time of one attention call against n on log-log axes, ${points.length} points`
      + (fit ? `, fitted slope ${format(fit.exponent, 2)} over the upper half` : '');
    this.plotBox.replaceChildren(h('figure', { class: 'chart-figure' },
      h('figcaption', {}, 'time per call (ms) against n', fit ? h('span', {}, ': slope ', h('strong', { class: 'slope', text: format(fit.exponent, 2) }), ' over the upper half') : null),
      logLogChart({
        points: points.map((p) => ({ x: p.n, y: p.seconds * 1000, title: `n = ${p.n}: ${(p.seconds * 1000).toPrecision(3)} ms` })),
        fit: fit && { ...fit, from: upper[0].n, to: upper.at(-1).n },
        xLabel: 'n (tokens, log scale)', yLabel: 'ms per call (log scale)', title: 'Measured time against n', label,
      }),
      h('p', { class: 'hint', text: 'A slope of 2 means the time grows as n²: the attention matrices dominate once n is large. At small n, fixed costs flatten the curve.'
        + (resolved.length < points.length ? ` Sizes timed over fewer than ${CLOCK_TICKS} ticks of the ${duration(tick)} clock are not fitted.` : '') })));
    this.timings.hidden = false;
    this.timings.replaceChildren(
      h('thead', {}, h('tr', {}, h('th', { text: 'n' }), h('th', { text: 'ms per call' }), h('th', { text: 'attention matrix' }), h('th', { text: 'timed over' }))),
      h('tbody', {}, points.map((p) => h('tr', { dataset: { resolved: p.resolved } },
        h('td', { class: 'num', text: p.n.toLocaleString('en-US') }),
        h('td', { class: 'num', text: (p.seconds * 1000).toPrecision(3) }),
        h('td', { class: 'num', text: bytes(p.attentionBytes) }),
        h('td', { text: `${Math.round(p.ticks)} clock ticks${p.resolved ? '' : ', too few: not fitted'}` })))));
  }
}
