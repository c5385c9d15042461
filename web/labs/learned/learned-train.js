// "Train in this browser", the training half of the learned-heads panel (learned.js):
// a fresh model trained from a seed in a module worker (learned-worker.js) through the same wasm
// core, with its loss curve on both copies of the repeated string, its heads handed to the panel
// every few hundred steps (onRun), stop, resume and reset, and a second model trained without the
// √d_k scale beside the first on request. The page's thread only draws: it never trains.
import { trainingWorker } from '../../assets.js';
import { h } from '../../shared/dom.js';
import { parseSeed, seedInput } from '../../shared/seed-input.js';
import { lossChart, swatch } from './learned-train-chart.js';
import { PROGRESS_EVERY } from './learned-train-goals.js';
import { comparisonText, describeModel, f2, goalRows, percent, seconds } from './learned-train-text.js';

const MODELS = {
  sqrt: { key: 'sqrt', scale: 'sqrt', name: 'with √d_k', choice: 'the scaled model (with √d_k)', dashed: false },
  none: { key: 'none', scale: 'none', name: 'no √d_k scaling', choice: 'the unscaled model (no √d_k scaling)', dashed: true },
};
// The head sizes the comparison offers. 16 is the shipped model (its default run, unchanged);
// the larger heads need a wider model, d_model = heads × d_k within the core's 128. Measured
// (seed 1, a shared 2-core machine): natively 110 steps/s at d_model 32 and 10 at 128
// (tools/train.cpp); in WebAssembly under Node, 24 steps/s at d_model 32 and 2.3 at 128.
export const HEAD_SIZES = Object.freeze({
  16: Object.freeze({ dk: 16, model: null, text: 'dₖ = 16 (2 heads, d_model 32: the shipped size)' }),
  64: Object.freeze({ dk: 64, model: Object.freeze({ heads: 2, dModel: 128 }), text: 'dₖ = 64 (2 heads, d_model 128, like GPT-2\'s heads)' }),
  128: Object.freeze({ dk: 128, model: Object.freeze({ heads: 1, dModel: 128 }), text: 'dₖ = 128 (1 head, d_model 128)' }),
});
const SIZE_COST = 'Larger heads cost time: at dₖ = 64 or 128 the model is 4 times as wide (d_model 128), and a step does about 10 times the work of dₖ = 16. '
  + 'On the 2-core machine this was built on, WebAssembly trained 24 steps per second at dₖ = 16 and 2.3 at dₖ = 64, so 1,000 steps of both models take about a quarter of an hour '
  + 'where dₖ = 16 takes about a minute. The progress line shows the rate measured here.';

// Redrawing the heads costs the page's thread tens of milliseconds (four heatmaps), enough to
// delay a keystroke past the 50 ms the calculator answers in. So a refresh waits until the
// learner's input has paused this long, and no longer than MAX_WAIT.
const INPUT_PAUSE_MS = 300, MAX_WAIT_MS = 3000;
const INPUT_EVENTS = ['keydown', 'pointerdown', 'input', 'wheel'];

export class TrainingPanel {
  /**
   * @param {{ attn: import('../../attention.js').Attention, text: () => string,
   *   onRun: (run: import('../../attention.js').LearnedRun, label: string) => void, onShipped: () => void,
   *   config?: () => ({ vocabulary: string, dModel: number, heads: number } | undefined) }} o
   *   config: the shipped model's, the size trained here, until the worker reports its own
   *   base: the base URL of the widget's files (an author's), or null: the bundled ones
   *   attn's learned heads' module must be loaded: the goals and the schedule are the core's
   */
  constructor({ attn, text, onRun = () => {}, onShipped = () => {}, config = () => undefined, base = null }) {
    this.attn = attn;
    // The goals, their evaluation set and the schedule, as the core defines them (goals.hpp).
    this.goals = attn.learnedGoals();
    const { thresholds, sequences, checkEvery, maxSteps } = this.goals;
    this.base = base;
    this.text = text;
    this.config = config;
    this.onRun = onRun;
    this.onShipped = onShipped;
    this.worker = null;
    this.state = 'idle'; // idle | starting | training | paused | done
    this.models = new Map();
    this.shownKey = 'sqrt';
    this.seed = 1;
    this.lastInput = -Infinity;
    this.pendingRun = null; // { run, label, since }: a refresh of the heads waiting for a pause
    this.frame = null;      // a redraw waiting for the next frame
    this.hiddenWhile = null; // the state training was in when the panel was hidden (shown(false))
    this.onInput = () => { this.lastInput = performance.now(); };

    const id = `learned-train-${++TrainingPanel.count}`;
    // The labs' seed box: whatever is typed becomes a whole number from 0 to 2^53 − 1, shown.
    this.seedInput = seedInput({ label: 'Seed', value: 1, onChange: () => {} });
    this.trainButton = h('button', { type: 'button', class: 'train-start', text: 'Train in this browser', on: { click: () => this.#start(['sqrt']) } });
    this.compareButton = h('button', { type: 'button', class: 'train-compare', text: 'Compare: no √d_k scaling', on: { click: () => this.#compare() } });
    this.headSize = 16; // of the models trained now
    this.sizeChoice = h('select', { class: 'train-head-size', id: `${id}-size`, 'aria-describedby': `${id}-size-cost` },
      ...Object.values(HEAD_SIZES).map((size) => h('option', { value: String(size.dk), text: size.text })));
    this.stopButton = h('button', { type: 'button', class: 'train-stop', text: 'Stop', on: { click: () => this.#pause() } });
    this.resumeButton = h('button', { type: 'button', class: 'train-resume', text: 'Resume', on: { click: () => this.#resume() } });
    this.resetButton = h('button', { type: 'button', class: 'train-reset', text: 'Reset', on: { click: () => this.reset() } });
    this.shownChoice = h('fieldset', { class: 'train-shown', hidden: true },
      h('legend', { text: 'Heads shown above' }),
      ...Object.values(MODELS).map((m) => h('label', {},
        h('input', { type: 'radio', name: `${id}-shown`, value: m.key, checked: m.key === 'sqrt', on: { change: () => this.#show(m.key) } }),
        ` ${m.choice}`)));
    this.progressLine = h('p', { class: 'train-progress' });
    this.chartBox = h('div', { class: 'train-chart-box' });
    this.legend = h('ul', { class: 'train-legend', 'aria-label': 'Lines of the chart' });
    this.summary = h('p', { class: 'train-summary', id: `${id}-summary` });
    this.goalsHead = h('tr');
    this.goalsBody = h('tbody');
    this.goalsTable = h('table', { class: 'train-goals' },
      h('caption', { text: `The goals, measured every ${checkEvery} steps on ${sequences} generated strings of distinct letters: other strings than the training batches whose loss the chart shows, so the two losses differ` }),
      h('thead', {}, this.goalsHead), this.goalsBody);
    this.goalsBox = h('div', { class: 'train-table-box train-goals-box', tabIndex: 0, role: 'region', 'aria-label': 'The goals', hidden: true }, this.goalsTable);
    this.compareResult = h('p', { class: 'train-compare-result', hidden: true });
    this.status = h('p', { class: 'train-status', role: 'status' });
    this.error = h('p', { class: 'train-error', role: 'alert' });
    this.table = h('tbody');
    this.tableHead = h('tr');
    this.figure = h('figure', { class: 'chart-figure train-figure', hidden: true },
      h('figcaption', { text: `Loss on the first and the second copy of the repeated string, per training step (the mean of every ${PROGRESS_EVERY} steps' batches)` }),
      this.chartBox, this.legend, this.summary,
      h('details', { class: 'train-values' },
        h('summary', { text: `The loss every ${checkEvery} steps, as a table` }),
        h('div', { class: 'train-table-box', tabIndex: 0, role: 'region', 'aria-label': `Loss every ${checkEvery} steps` },
          h('table', {}, h('thead', {}, this.tableHead), this.table))));

    this.element = h('section', { class: 'learned-train', 'aria-labelledby': `${id}-title`, part: 'learned-train' },
      h('h3', { id: `${id}-title`, text: 'Train in this browser' }),
      h('p', {},
        'Train a fresh model of the same size from random weights, here, in a background thread (a Web Worker) running the same WebAssembly core. ',
        'Watch the loss on the second copy of the repeated string: it stays with the first copy\'s until an induction head forms, then drops suddenly. That drop is the phase change.'),
      h('p', { class: 'hint' },
        `Training stops by itself once the goals hold on ${sequences} generated strings: a layer-1 previous-token score ≥ ${thresholds.previousToken}, `
        + `a layer-2 induction score ≥ ${thresholds.induction}, an attention-sink score ≥ ${thresholds.firstToken}, and the second copy's loss at most `
        + `${percent(thresholds.ratio)} of the first's. It gives up after ${maxSteps.toLocaleString('en-US')} steps.`),
      h('div', { class: 'train-controls' },
        h('label', { class: 'seed-box' }, 'Seed ', this.seedInput),
        this.trainButton,
        h('label', { class: 'train-size-box', for: `${id}-size` }, 'Head size for the comparison '), this.sizeChoice,
        this.compareButton, this.stopButton, this.resumeButton, this.resetButton),
      h('p', { class: 'hint train-size-cost', id: `${id}-size-cost`, text: SIZE_COST }),
      this.shownChoice, this.progressLine, this.status, this.error, this.compareResult,
      h('div', { class: 'train-results' }, this.figure, this.goalsBox));
    this.#render();
  }

  /** The learner's text changed (a valid one): the trained models' heads are shown on it. */
  textChanged(text) {
    this.worker?.postMessage({ type: 'text', text });
  }

  /** Stops training for good, and goes back to the shipped checkpoint's heads. */
  reset() {
    const hadFocus = this.element.contains(this.element.getRootNode().activeElement);
    this.#stopWorker();
    this.state = 'idle';
    this.models.clear();
    this.shownKey = 'sqrt';
    for (const radio of this.shownChoice.querySelectorAll('input')) radio.checked = radio.value === 'sqrt';
    this.status.textContent = '';
    this.error.textContent = '';
    this.#render();
    if (hadFocus) this.trainButton.focus();
    this.onShipped();
  }

  /**
   * The panel was hidden (false) or shown again (true). Hidden, it stops training; shown again, it
   * resumes if it was training when hidden (a run the learner stopped stays stopped).
   */
  shown(visible) {
    if (!visible) {
      if (this.hiddenWhile === null && ['starting', 'training'].includes(this.state)) {
        this.hiddenWhile = this.state;
        this.#pause();
        this.status.textContent = 'Stopped while the panel is hidden. It goes on when shown again.';
      }
    } else if (this.hiddenWhile !== null) {
      this.hiddenWhile = null;
      if (this.state === 'paused') this.#resume();
    }
  }

  /** Ends the worker and removes the listeners on the window; the panel is going away. */
  dispose() {
    this.#stopWorker();
    cancelAnimationFrame(this.frame);
    this.frame = null;
  }

  // Capture on the window: keys the widgets use stop at their element, after this has seen them.
  // Only while a worker may send heads, the one time a keystroke's moment matters here.
  #listen(on) {
    for (const type of INPUT_EVENTS) {
      if (on) window.addEventListener(type, this.onInput, { capture: true, passive: true });
      else window.removeEventListener(type, this.onInput, { capture: true });
    }
  }

  #stopWorker() {
    this.worker?.terminate();
    this.worker = null;
    this.#listen(false);
    this.hiddenWhile = null;
    this.#dropPendingRun();
  }

  #start(keys, dk = 16) {
    this.headSize = dk;
    const seed = parseSeed(this.seedInput.value);
    this.seedInput.value = String(seed); // the seed used, as the box's change event would show it
    this.seed = seed;
    this.error.textContent = '';
    for (const key of keys) this.models.set(key, this.#newModel(key));
    try {
      this.worker = trainingWorker(this.base);
    } catch (error) {
      this.#fail(`The training worker could not start: ${error.message}`);
      return;
    }
    // A worker ended by Reset may still have messages on their way: only the current one's count.
    const worker = this.worker;
    worker.onmessage = ({ data }) => {
      if (worker === this.worker) this.#receive(data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (worker === this.worker) this.#fail(`The training worker stopped: ${event.message || 'its script could not be loaded'}.`);
    };
    this.#listen(true);
    worker.postMessage({
      type: 'start', baseUrl: this.base ? new URL('wasm/', this.base).href : undefined, simd: this.attn && (this.attn.build === 'relaxed' ? 'relaxed' : this.attn.simd), seed,
      models: keys.map((key) => this.#modelMessage(key)), text: this.#text(),
    });
    this.state = 'starting';
    this.startedAt = performance.now();
    this.status.textContent = `Training from seed ${seed}${keys.includes('none') ? ', with and without the √d_k scale' : ''}${dk === 16 ? '' : `, with heads of d_k = ${dk}`}.`;
    this.#render(this.stopButton);
  }

  // The model a worker trains: the shipped size (createTrainer's defaults), or the chosen heads.
  #modelMessage(key) {
    return { key, scale: MODELS[key].scale, ...(HEAD_SIZES[this.headSize].model ?? {}) };
  }

  #compare() {
    const dk = Number(this.sizeChoice.value);
    if (this.state === 'idle' || (dk !== this.headSize && !this.models.has('none'))) {
      // Another head size needs both models from the start: the scaled one so far was 16's.
      if (this.state !== 'idle') {
        this.#stopWorker();
        this.models.clear();
      }
      this.#start(['sqrt', 'none'], dk);
      return;
    }
    if (this.models.has('none') || !this.worker) return;
    this.models.set('none', this.#newModel('none'));
    this.worker.postMessage({ type: 'add', model: this.#modelMessage('none') });
    if (this.state === 'done') this.state = 'training';
    this.status.textContent = `Training a second model from seed ${this.seed} without the √d_k scale, beside the first.`;
    this.#render(this.state === 'paused' ? this.resumeButton : this.stopButton);
  }

  #pause() {
    this.worker?.postMessage({ type: 'pause' });
    this.state = 'paused';
    this.status.textContent = 'Stopped. Resume goes on from here.';
    this.#render(this.resumeButton);
  }

  #resume() {
    this.worker?.postMessage({ type: 'resume' });
    this.state = 'training';
    this.status.textContent = 'Training again.';
    this.#render(this.stopButton);
  }

  #show(key) {
    this.shownKey = key;
    this.#dropPendingRun(); // a refresh still waiting is of the other model
    const last = this.models.get(key)?.lastRun;
    if (last) this.onRun(last.run, this.#label(key, last.step)); // the learner asked: at once
  }

  #newModel(key) {
    return { ...MODELS[key], points: [], rows: [], step: 0, stepsPerSecond: null, seconds: 0, goals: null, done: null, phase: null, lastRun: null, error: null };
  }

  #text() {
    try {
      return this.text() ?? '';
    } catch {
      return '';
    }
  }

  #label(key, step) {
    return `trained in this browser, seed ${this.seed}, step ${step}${this.headSize === 16 ? '' : `, d_k = ${this.headSize}`}${key === 'none' ? ', no √d_k scaling' : ''}`;
  }

  // Which model a message is about, when there are two.
  #which(m) {
    return this.models.size > 1 ? ` (${m.name})` : '';
  }

  #receive(message) {
    // A widget taken off the page stops training (its worker would otherwise run on unseen);
    // put back, it can resume.
    if (!this.element.isConnected && this.state === 'training') {
      this.#pause();
      this.status.textContent = 'Stopped: the panel left the page. Resume goes on from here.';
    }
    const m = message.key ? this.models.get(message.key) : null;
    switch (message.type) {
      case 'ready':
        if (this.state === 'starting') this.state = 'training';
        break;
      case 'progress':
        if (!m) return;
        m.step = message.step;
        m.stepsPerSecond = message.stepsPerSecond;
        m.seconds = message.seconds;
        m.points.push({ step: message.step, first: message.lossFirstCopy, second: message.lossSecondCopy });
        // The phase change: the first point where the second copy costs less than half the first.
        if (m.phase === null && message.lossSecondCopy < 0.5 * message.lossFirstCopy) {
          m.phase = message.step;
          this.status.textContent = `Phase change${this.#which(m)}: at step ${m.phase} the second copy's loss fell below half the first copy's.`;
        }
        break;
      case 'check':
        if (!m) return;
        m.goals = message.goals;
        m.checked = message.step;
        m.config = message.config;
        if (message.step > 0) {
          const last = m.points.at(-1);
          if (last) m.rows.push({ step: message.step, first: last.first, second: last.second });
        }
        break;
      case 'run':
        if (!m) return;
        m.lastRun = { run: message.run, step: message.step };
        if (message.key === this.shownKey) this.#refreshHeads(message.run, this.#label(message.key, message.step));
        return; // nothing of the panel's own changes
      case 'done':
        if (!m) return;
        m.done = { step: message.step, seconds: message.seconds, met: message.met };
        m.goals = message.goals ?? m.goals;
        this.status.textContent = message.met
          ? `Goals met${this.#which(m)} after ${message.step} steps, ${seconds(message.seconds)} of training. Training stopped by itself.`
          : `The goals did not hold${this.#which(m)} within ${message.step} steps; training stopped.`;
        if (this.#allEnded()) return;
        break;
      case 'paused':
        return;
      case 'error':
        if (m) {
          m.error = message.message;
          this.error.textContent = `Training ${m.name} failed: ${message.message}`;
          // Its heads no longer follow the text: the shipped checkpoint's are shown instead.
          if (m.key === this.shownKey) {
            this.#dropPendingRun();
            this.onShipped();
          }
          if (this.#allEnded()) return;
        } else {
          this.#fail(`Training could not run: ${message.message}`);
          return;
        }
        break;
      default:
        return;
    }
    this.#render(null, false);
  }

  // Once every model has finished or failed: the panel is done, and focus on Stop or Resume,
  // which hide, moves to Reset. Returns whether that was so.
  #allEnded() {
    if (![...this.models.values()].every((x) => x.done || x.error)) return false;
    const focused = this.element.getRootNode().activeElement;
    this.state = 'done';
    this.#render(focused === this.stopButton || focused === this.resumeButton ? this.resetButton : null);
    return true;
  }

  // A refresh of the heads still waiting for a pause in the input is dropped.
  #dropPendingRun() {
    clearTimeout(this.runTimer);
    this.pendingRun = null;
  }

  // Hands a run to the panel once the learner's input has paused (see INPUT_PAUSE_MS).
  #refreshHeads(run, label) {
    this.pendingRun = { run, label, since: this.pendingRun?.since ?? performance.now() };
    clearTimeout(this.runTimer);
    const now = performance.now();
    const wait = Math.min(this.lastInput + INPUT_PAUSE_MS - now, this.pendingRun.since + MAX_WAIT_MS - now);
    if (wait > 0) {
      this.runTimer = setTimeout(() => this.#refreshHeads(this.pendingRun.run, this.pendingRun.label), wait);
      return;
    }
    this.pendingRun = null;
    this.onRun(run, label);
  }

  #fail(text) {
    this.#stopWorker();
    this.error.textContent = text;
    this.state = 'done';
    this.#render(this.resetButton);
    this.onShipped(); // no trained heads will follow the text any more
  }

  // The configuration trained: reported by the worker, or the shipped model's until then.
  #config() {
    return [...this.models.values()].find((m) => m.config)?.config ?? this.config();
  }

  // The loss of a uniform guess over the model's output classes (its vocabulary and BOS), where
  // training starts; null until the configuration is known.
  #chance() {
    const config = this.#config();
    return config ? { classes: config.vocabulary.length + 1, loss: Math.log(config.vocabulary.length + 1) } : null;
  }

  // Shows the buttons of the current state; `focus`: where focus goes when a focused button hides.
  // The chart and the text redraw at once (now), or, for the worker's stream of progress, once per
  // frame at most: two models' messages arriving together cost one redraw.
  #render(focus = null, now = true) {
    const s = this.state;
    const focused = this.element.getRootNode().activeElement;
    this.trainButton.hidden = s !== 'idle';
    // A second model can join until the worker is gone (reset, or a failure).
    this.compareButton.hidden = this.models.has('none') || !(s === 'idle' || this.worker);
    this.stopButton.hidden = !['starting', 'training'].includes(s);
    this.resumeButton.hidden = s !== 'paused';
    this.resetButton.hidden = s === 'idle';
    this.seedInput.disabled = s !== 'idle';
    this.sizeChoice.disabled = this.models.has('none'); // the size compared stays until Reset
    this.shownChoice.hidden = !this.models.has('none');
    if (focus && focused && focused.hidden) focus.focus();
    if (now) {
      cancelAnimationFrame(this.frame);
      this.frame = null;
      this.#draw();
    } else {
      this.frame ??= requestAnimationFrame(() => {
        this.frame = null;
        this.#draw();
      });
    }
  }

  #draw() {
    const models = [...this.models.values()];
    this.figure.hidden = models.length === 0;
    this.progressLine.textContent = models.map((m) => {
      const rate = m.stepsPerSecond ? `, ${Math.round(m.stepsPerSecond)} steps/s` : '';
      const where = m.done ? (m.done.met ? `goals met at step ${m.done.step}` : `stopped at step ${m.done.step}`) : `step ${m.step}`;
      return `${models.length > 1 ? `${m.name}: ` : ''}${where}${m.done ? '' : rate}, ${seconds(m.done?.seconds ?? m.seconds)}`;
    }).join('; ');
    if (models.length === 0) {
      this.compareResult.hidden = true;
      return;
    }
    const series = models.flatMap((m) => [
      { name: `${m.name}: first copy`, className: 'loss-first', dashed: m.dashed, points: m.points.map((p) => ({ step: p.step, value: p.first })) },
      { name: `${m.name}: second copy`, className: 'loss-second', dashed: m.dashed, points: m.points.map((p) => ({ step: p.step, value: p.second })) },
    ]);
    const steps = Math.max(...models.map((m) => m.step));
    const markers = models.filter((m) => m.phase !== null).map((m) => ({ step: m.phase, text: models.length > 1 ? `${m.dashed ? 'no scaling' : '√d_k'}: drop at ${m.phase}` : `phase change, step ${m.phase}` }));
    const chance = this.#chance();
    if (chance) {
      this.chartBox.replaceChildren(lossChart({
        series, steps, chance: chance.loss, chanceText: `a uniform guess: ln ${chance.classes} ≈ ${f2(chance.loss)}`, markers,
        label: `Training loss against steps, ${series.map((s) => s.name).join(', ')}`,
      }));
      this.chartBox.firstChild.setAttribute('aria-describedby', this.summary.id);
    } else {
      this.chartBox.replaceChildren(); // drawn once the worker reports the model's size
    }
    this.legend.replaceChildren(...series.map((s) => h('li', {}, swatch(s), ` ${s.name}${s.dashed ? ' (dashed)' : ''}`)));
    this.summary.textContent = models.map((m) => describeModel(m, { several: this.models.size > 1, chance: this.#chance() })).join(' ');
    this.tableHead.replaceChildren(h('th', { scope: 'col', text: 'step' }),
      ...models.flatMap((m) => [h('th', { scope: 'col', text: `${m.name}: first copy` }), h('th', { scope: 'col', text: `${m.name}: second copy` })]));
    const steps250 = [...new Set(models.flatMap((m) => m.rows.map((r) => r.step)))].sort((a, b) => a - b);
    this.table.replaceChildren(...steps250.map((step) => h('tr', {}, h('th', { scope: 'row', text: String(step) }),
      ...models.flatMap((m) => {
        const r = m.rows.find((x) => x.step === step);
        return [h('td', { text: r ? f2(r.first) : '' }), h('td', { text: r ? f2(r.second) : '' })];
      }))));
    this.#drawGoals(models);
    const a = this.models.get('sqrt'), b = this.models.get('none');
    this.compareResult.hidden = !(a && b);
    // With both models: what was measured, whatever it shows, beside the lesson's claim.
    if (a && b) this.compareResult.textContent = comparisonText(a, b, { config: this.#config(), seed: this.seed, goals: this.goals });
  }

  // Each goal, its threshold, and each model's latest measurement against it.
  #drawGoals(models) {
    const measured = models.filter((m) => m.goals);
    this.goalsBox.hidden = measured.length === 0;
    if (measured.length === 0) return;
    this.goalsHead.replaceChildren(h('th', { scope: 'col', text: 'goal' }),
      ...measured.map((m) => h('th', { scope: 'col', text: `${measured.length > 1 ? `${m.name}, ` : ''}step ${m.checked}` })));
    const rows = goalRows(this.goals.thresholds);
    this.goalsBody.replaceChildren(...rows.map(([name, threshold, value]) => h('tr', {},
      h('th', { scope: 'row', text: `${name} ${threshold}` }),
      ...measured.map((m) => {
        const [text, met] = value(m.goals);
        return h('td', { class: met ? 'goal-met' : 'goal-unmet', text: `${text} ${met ? '✓ met' : '✗ not yet'}` });
      }))));
  }
}

TrainingPanel.count = 0;
