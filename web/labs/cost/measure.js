// The cost lab's "Measured in your browser": times the explaining path and the fused streaming
// kernel in the core at n = 32, 64, … within a budget, fits the larger sizes of each on log-log
// axes and tabulates them. Loaded with the first click on the lab's Measure button (cost.js).
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { logLogChart } from '../widgets/log-log-chart.js';
import { bytes, MEASURE } from './cost.js';

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

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

export class CostMeasurement {
  /** @param {import('./cost.js').CostLab} lab its core, its error callback and the elements the measurement fills */
  constructor({ attn, onError, measureButton, progress, measureStatus, plotBox, timings }) {
    Object.assign(this, { attn, onError, measureButton, progress, measureStatus, plotBox, timings });
    this.measuring = false;
    this.spent = 0;
  }

  /** Starts a measurement, or stops the one running after the size it is timing. */
  async toggle() {
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
      const clock = `This browser's clock ticks every ${duration(tick)}, so each size was timed over at least ${MEASURE.clockTicks} ticks (${duration(MEASURE.clockTicks * tick)}).`;
      for (let n = 32; n <= MEASURE.maxN && this.measuring; n *= 2) {
        // Doubling n about quadruples a call; a size takes about four calls, or six timings of
        // MEASURE.clockTicks ticks while calls are short.
        const last = points.at(-1);
        const guess = last ? last.seconds * 4 : 1e-4, streamingGuess = last ? last.streaming.seconds * 4 : 1e-4;
        if (this.spent + Math.max(4 * (guess + streamingGuess), 12 * MEASURE.clockTicks * tick) > MEASURE.budgetSeconds && points.length >= 4) break;
        this.measureStatus.textContent = `Timing n = ${n}…`;
        const point = await this.#timeSize(n, tick, guess, 'explaining');
        const streaming = point && await this.#timeSize(n, tick, streamingGuess, 'streaming');
        if (!streaming) break;
        points.push({ ...point, streaming });
        this.progress.value = Math.min(1, Math.max(this.spent / MEASURE.budgetSeconds, Math.log2(n / 16) / Math.log2(MEASURE.maxN / 16)));
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

  /** One timeAttention call of `repeats` runs of `path`, timed by this page's clock (and added to `spent`). */
  #timedCall(n, repeats, path) {
    const started = performance.now();
    const { seconds, iterations, attentionBytes } = this.attn.timeAttention({ n, d: MEASURE.d, repeats, path });
    const elapsed = (performance.now() - started) / 1000;
    this.spent += elapsed;
    return { elapsed, seconds, run: seconds * iterations, iterations, attentionBytes };
  }

  /**
   * Seconds per call of `path` at size n, or null if stopped. The core ends a timed run once its clock has
   * moved 1 ms, which a clock of whole milliseconds does after anything from 0 to 2 ms, so its own
   * figure is rounding noise while a run lasts only a few ticks. Then this page times calls of one
   * run and of 1 + k runs: for the same calls per run (`iterations`, which the core calibrates
   * afresh each call) they differ by exactly k runs, whatever the core spends on its inputs and
   * its calibration, and k grows until that difference spans MEASURE.clockTicks ticks. The fastest of
   * each kind is kept, as the core keeps its fastest run: the first call at a new size also pays
   * for growing the wasm heap, and other programs may take the processor at any time.
   */
  async #timeSize(n, tick, guess, path) {
    const enough = MEASURE.clockTicks * tick;
    if (guess >= 2 * enough) {
      // One call should last many ticks: then the core's own timing is good enough. The fastest
      // of 3 calls, one at a time, so that the page can paint and respond between them.
      let best = null;
      for (let c = 0; c < 3 && this.measuring; c++) {
        await nextTask();
        const t = this.#timedCall(n, 1, path);
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
      const single = this.#timedCall(n, 1, path);
      k ||= Math.min(maxExtra, Math.max(1, Math.ceil(enough / single.run)));
      const longer = this.#timedCall(n, 1 + k, path);
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
        const settled = (g.single.length >= 3 && g.longer.length >= 3) || attempt >= 6 || performance.now() - started > MEASURE.sizeSeconds * 1000;
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
    // Only sizes timed over MEASURE.clockTicks ticks are fitted: below that the rounding shows.
    const ms = (t) => (t.seconds * 1000).toPrecision(3);
    const line = (key, name, of) => {
      const resolved = points.filter((p) => of(p).resolved);
      // The upper half, and at least three sizes where there are: two alone fit any noise (a
      // loaded machine once gave −0.36 from two).
      const upper = resolved.slice(Math.max(0, Math.min(Math.floor(resolved.length / 2), resolved.length - 3)));
      const fit = upper.length >= 2 ? this.attn.fitPowerLaw({ x: upper.map((p) => p.n), y: upper.map((p) => of(p).seconds * 1000) }) : null;
      return {
        key, name, fit: fit && { ...fit, from: upper[0].n, to: upper.at(-1).n },
        points: points.map((p) => ({ x: p.n, y: of(p).seconds * 1000, title: `n = ${p.n}, ${name}: ${ms(of(p))} ms` })),
      };
    };
    const series = [line('explaining', 'explaining', (p) => p), line('streaming', 'streaming', (p) => p.streaming)];
    const slopes = series.filter((s) => s.fit);
    const slopeText = slopes.map((s) => `${format(s.fit.exponent, 2)} (${s.name})`).join(' and ');
    const label = `Time of one attention call against n on log-log axes, ${points.length} sizes, the explaining path and the streaming kernel`
      + (slopes.length ? `, fitted slopes over the larger sizes ${slopeText}` : '');
    const last = points.at(-1);
    const unfitted = points.some((p) => !p.resolved || !p.streaming.resolved);
    this.plotBox.replaceChildren(h('figure', { class: 'chart-figure' },
      h('figcaption', {}, 'time per call (ms) against n',
        ...(slopes.length ? [': slopes ', ...slopes.flatMap((s, k) => [k ? ' and ' : '', h('strong', { class: `slope slope-${s.key}`, text: format(s.fit.exponent, 2) }), ` (${s.name})`]), ' over the larger sizes'] : [])),
      logLogChart({ series, xLabel: 'n (tokens, log scale)', yLabel: 'ms per call (log scale)', title: 'Measured time against n', label }),
      h('p', { class: 'hint', text: 'A slope of 2 means the time grows as n²: the attention matrices dominate once n is large. At small n, fixed costs flatten the curve.'
        + ` Both paths do the same arithmetic, so both grow as n². At n = ${last.n.toLocaleString('en-US')} the explaining path held ${bytes(last.attentionBytes)} of scores and the streaming kernel ${bytes(last.streaming.attentionBytes)}: its tiles save memory, not arithmetic. It is faster here too: it never writes the n×n matrices out and reads them back, which the explaining path does to show every step.`
        + (unfitted ? ` Sizes timed over fewer than ${MEASURE.clockTicks} ticks of the ${duration(tick)} clock are not fitted.` : '') })));
    this.timings.hidden = false;
    const ticks = (t) => `${Math.round(t.ticks)}${t.resolved ? '' : ', too few: not fitted'}`;
    this.timings.replaceChildren(
      h('thead', {}, h('tr', {}, h('th', { text: 'n' }), h('th', { text: 'explaining, ms per call' }), h('th', { text: 'streaming, ms per call' }),
        h('th', { text: 'scores held, explaining' }), h('th', { text: 'scores held, streaming' }), h('th', { text: 'timed over (clock ticks)' }))),
      h('tbody', {}, points.map((p) => h('tr', { dataset: { resolved: p.resolved && p.streaming.resolved } },
        h('td', { class: 'num', text: p.n.toLocaleString('en-US') }),
        h('td', { class: 'num', text: ms(p) }),
        h('td', { class: 'num', text: ms(p.streaming) }),
        h('td', { class: 'num', text: bytes(p.attentionBytes) }),
        h('td', { class: 'num', text: bytes(p.streaming.attentionBytes) }),
        h('td', { text: `${ticks(p)}; ${ticks(p.streaming)}` })))));
  }
}
