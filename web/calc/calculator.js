// The calculator: inputs, masks and mode in; every step, the heatmap, the hull plot, the checks
// and the explanations out. It owns no math: each number comes from the core (attn).
// It renders into any container: the page, or the shadow root of <attention-calc>.
import { h } from '../shared/dom.js';
import { explain } from './steps/explain.js';
import { saveSvg } from '../shared/files.js';
import { MatrixGrid } from '../shared/grid.js';
import { lastValidMessage, sentence } from '../shared/last-valid.js';
import { MaskControls } from './masks.js';
import { CalculatorModel } from './model.js';
import { parseNumber } from '../shared/parse.js';
import { answerShape, coreMask, emptyPractice, MAX_DIM, MAX_TOKENS, PITFALLS, PRESETS, resize, sizes } from './state.js';
import { RESULT_STEPS, StepsView } from './steps/steps.js';
import { tex } from '../shared/tex.js';
import { Controls, nextSeed } from './controls.js';
import { resizeNotice } from './resize-notice.js';
import { SharePanel } from './share.js';
import { showVerified, verifiedBadge } from './verified.js';

const HINT = 'Focus, hover or tap any computed number to see where it comes from.';

/** The calculator's panels, in page order: the default. The `panels` option picks a subset. */
export const PANELS = ['formula', 'controls', 'inputs', 'masks', 'steps', 'weights', 'explain', 'plot', 'checks', 'share'];

export class Calculator {
  /**
   * @param {object} o
   * @param {import('../attention.js').Attention} o.attn   the loaded core
   * @param {object} o.state                               the starting state (state.js)
   * @param {(state: object, result: object, o: { committed: boolean, again?: boolean }) => void} [o.onChange]
   *   after every update of what is shown, and once more (again) when a keystroke's state is committed
   * @param {(message: string) => void} [o.onError]        when the input cannot be computed
   * @param {(state: object) => string} [o.link]            the shareable URL of a state
   * @param {boolean} [o.readonly]                          show the inputs without letting them change
   * @param {number} [o.precision]                          decimals shown (0 to 8)
   * @param {string[]} [o.panels]                           which panels show (PANELS)
   */
  constructor({ attn, state, onChange = () => {}, onError = () => {}, link = () => location.href, readonly = false, precision = 3, panels = PANELS }) {
    this.attn = attn;
    this.model = new CalculatorModel({ attn, state });
    this.onChange = onChange;
    this.onError = onError;
    this.link = link;
    this.options = { readonly, precision, panels };
    // The live, committed and last valid states are the model's (model.js).
    this.drawn = null;     // the result the steps, plot and checks show
    this.toldCommitted = true; // what the last change event said
    this.problem = '';     // an input problem reported from outside (an attribute), until the next state
    this.viewProblem = ''; // a problem with how to show it (panels, precision, theme): the numbers stand
    this.viewProblemShown = ''; // the same as the learner reads it: one sentence per problem
    this.explained = null; // { step, i, j } of the cell being explained
    this.inputStart = null;
    // The parts loaded the first time a panel needs them (see #loadOnce): their Promises.
    this.plotReady = null;
    this.checksReady = null;
    this.stashedPractice = null; // the practice attempt put aside while exploring
    this.practice = null;  // practice mode's view and marking, loaded the first time it is used
    this.practiceReady = null;
    this.grids = null;     // the calculator's own parts, built the first time a panel needs them
    this.status = h('p', { class: 'calc-status', role: 'status', part: 'status' });
    this.element = h('div', { class: 'calc' }, this.status);
    this.#render();
  }

  /** Resolves once every part that `panels` names is built and drawn: the plot, the checks, practice. */
  get settled() {
    return Promise.all([this.plotReady, this.checksReady, this.practiceReady]);
  }

  /** The state on screen as the learner types it. */
  get state() {
    return this.model.state;
  }

  /** What the steps, plot, checks and exports show: the live input, or the last valid one. */
  get shown() {
    return this.model.shown(this.#problem());
  }

  /** Replaces the state (from a preset, a link, an attribute) and updates everything. */
  setState(state) {
    this.problem = '';
    for (const grid of this.grids ?? []) grid.reset();
    this.practice?.reset();
    if (this.grids) this.#notice('');
    this.#apply(state);
  }

  /**
   * 'practice': the learner computes the steps and each entry is checked; 'explore' (the
   * default): the calculator shows them. An attempt put aside by exploring comes back.
   */
  setMode(mode) {
    const practicing = Boolean(this.state.practice);
    if ((mode === 'practice') === practicing) return;
    const next = structuredClone(this.state);
    if (practicing) this.stashedPractice = next.practice;
    next.practice = practicing ? null : this.stashedPractice ?? emptyPractice();
    this.#apply(next);
  }

  /**
   * Shows a problem found outside (a bad attribute). An input problem keeps the last good
   * result, dimmed; a view problem ({ view: true }) is only said: the numbers on screen are right.
   */
  report(message, { view = false, shown = sentence(message) } = {}) {
    if (view) {
      this.viewProblem = message;
      this.viewProblemShown = message ? shown : '';
    } else this.problem = message;
    this.#render();
  }

  /** Changes how the calculator shows things: { readonly, precision, panels }. */
  configure(options) {
    Object.assign(this.options, options);
    this.drawn = null; // redraw even the last valid result: the precision or panels changed
    this.#render();
  }

  // --- layout -------------------------------------------------------------------------------

  #build() {
    const grid = (name, role) => new MatrixGrid({
      name,
      caption: [h('strong', { text: name }), ` ${role}`],
      onCell: (i, j, value) => this.#edit(name, (s) => { s[name.toLowerCase()][i][j] = value; }, { commit: false }),
      onPaste: (rows) => this.#paste(name, rows),
      onValidityChange: (i, j) => this.#revert(name, i, j),
      onCommit: () => this.#commit(),
    });
    this.grids = [grid('Q', 'queries'), grid('K', 'keys'), grid('V', 'values')];
    const [gq, gk, gv] = this.grids;

    this.controls = new Controls({
      onMode: (mode) => this.setMode(mode),
      onResize: (key, value) => this.#resize(key, value),
      onPreset: (key, seed) => this.#preset(key, seed),
      onNewSeed: () => this.#preset('random', nextSeed(this.state.seed)),
      onPitfall: (pitfall) => this.#edit('mode', (s) => { s.pitfall = pitfall; }),
    });
    this.practiceSlot = h('p', { class: 'practice-slot', text: 'Loading practice mode…' });

    this.masks = new MaskControls({
      onCausal: (on) => this.#edit('mask', (s) => { s.causal = on; }),
      onPadding: (j, on) => this.#edit('mask', (s) => { s.padding[j] = on; }),
      onCell: (i, j) => this.#toggleMask(i, j),
    });
    this.steps = new StepsView({
      onExplain: (step, i, j) => { this.explained = { step, i, j }; this.#renderExplanation(); },
      onSaveHeatmap: (svg) => saveSvg(svg, 'attention-weights.svg'),
    });
    this.plot = null; // built once its module, loaded where the plot panel shows, arrives
    this.plotSlot = h('div', { part: 'plot', dataset: { panel: 'plot' } });
    this.checks = null; // built once its module, loaded where the checks panel shows, arrives
    this.checksSlot = h('div', { class: 'checks-box', part: 'checks', dataset: { panel: 'checks' } });

    // A note, not a landmark: several widgets on one page must not repeat landmarks.
    this.explanation = h('div', { class: 'explain', role: 'note', 'aria-live': 'polite', 'aria-label': 'Explanation', part: 'explain', dataset: { panel: 'explain' } });
    this.share = new SharePanel({
      link: (state) => this.link(state),
      shown: () => this.shown,
      problem: () => this.#problem(),
      precision: () => this.options.precision,
    });
    // Says what a paste did to the other matrices, next to them.
    this.inputsNotice = h('p', { class: 'inputs-notice', role: 'status' });

    // The lesson's NumPy-vs-PyTorch check, live: the f32 core against float64 on the same input.
    this.verified = verifiedBadge();
    // The weights and the output, beside the inputs where there is room: what the lesson is about
    // is on the first screen, and an edit visibly changes it. The five steps that lead there follow.
    this.resultPanel = h('section', { class: 'result practice-off', role: 'group', 'aria-label': 'Result', part: 'result' },
      h('div', { class: 'results-header', dataset: { panel: 'steps' } }, h('h2', { text: 'Result' }), this.verified),
      this.steps.resultElement, this.explanation);
    this.results = h('section', { class: 'results practice-off', role: 'group', 'aria-label': 'Steps', part: 'steps', dataset: { panel: 'steps' } },
      h('div', { class: 'results-header' }, h('h2', { text: 'Step by step' }), this.steps.stepper.element),
      this.steps.element);
    this.element.prepend(
      h('header', { class: 'calc-header', part: 'formula', dataset: { panel: 'formula' } },
        tex('\\operatorname{Attention}(Q,K,V) = \\operatorname{softmax}\\!\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V', {
          display: true, label: 'Attention of Q, K, V equals softmax of Q K transpose over the square root of d k, times V',
        })),
      this.controls.element,
      this.controls.warning,
      h('div', { class: 'workbench' },
        h('div', { class: 'work-inputs' },
          h('section', { class: 'inputs', role: 'group', 'aria-label': 'Inputs', part: 'inputs', dataset: { panel: 'inputs' } },
            h('h2', { text: 'Inputs' }),
            h('p', { class: 'hint', text: 'Type numbers and move with the arrow keys or Enter; Tab goes on to the next matrix. Paste a matrix such as 1 1; 0 1; -1 0.' }),
            h('div', { class: 'matrices' }, gq.element, gk.element, gv.element),
            this.inputsNotice),
          h('section', { class: 'mask-panel', role: 'group', 'aria-label': 'Masks', part: 'masks', dataset: { panel: 'masks' } }, this.masks.element),
          this.status),
        this.resultPanel,
        this.practiceSlot),
      this.results,
      h('section', { class: 'insight practice-off', role: 'group', 'aria-label': 'Plot and checks' },
        this.plotSlot,
        this.checksSlot),
      this.share.element);
    // For the benchmark and the curious: time from an input event to everything updated.
    this.element.addEventListener('input', (e) => { this.inputStart = e.timeStamp; }, true);
  }

  // --- edits ----------------------------------------------------------------------------------

  // Applies `change` to a copy of the state, then recomputes. Changing a number leaves the
  // preset; changing the mask, the mode or the plot axes does not. A keystroke in a cell is
  // shown at once but committed only when the grid says so.
  #edit(what, change, { commit = true } = {}) {
    if (this.options.readonly) return;
    const next = structuredClone(this.state);
    change(next);
    if (['Q', 'K', 'V', 'plot'].includes(what)) next.preset = 'custom';
    this.problem = ''; // the learner's edit replaces whatever an attribute asked for
    this.#apply(next, { commit });
  }

  // The state is now `state`: compute it, remember it as committed (and as the last valid
  // state, when it computes and no cell is wrong), and show it.
  #apply(state, { commit = true } = {}) {
    this.#compute(state, { commit });
    this.#render();
  }

  // The live state is committed (a cell's Enter, blur, paste or pause). Listeners that heard it
  // uncommitted hear it again, committed: the page writes its URL then, not on every key.
  #commit() {
    this.model.commit({ cellsValid: !this.grids?.some((g) => g.error) });
    const shown = this.shown;
    if (this.toldCommitted || !shown) return;
    this.toldCommitted = true;
    this.onChange(shown.state, shown.result, { committed: true, again: true });
  }

  // A cell's text stopped being a number (or is unfinished, like '-'): until it is fixed, the
  // calculation uses the number committed there before.
  #revert(name, i, j) {
    const grid = this.grids.find((g) => g.name === name);
    if (!grid.invalid.has(`${i},${j}`)) return; // valid again: onCell brought its number
    const key = name.toLowerCase();
    const next = structuredClone(this.state);
    const committed = this.model.committed;
    next[key][i][j] = committed[key]?.[i]?.[j] ?? next[key][i][j];
    if (['q', 'k', 'v'].every((m) => JSON.stringify(next[m]) === JSON.stringify(committed[m]))) next.preset = committed.preset;
    this.#compute(next, { commit: false });
    this.#render();
  }

  #resize(key, value) {
    if (this.options.readonly) return;
    for (const grid of this.grids) grid.reset();
    this.#notice('');
    this.problem = '';
    this.#apply(resize(this.state, { ...sizes(this.state), [key]: value }));
  }

  #paste(name, rows) {
    if (this.options.readonly) return;
    const grid = this.grids.find((g) => g.name === name);
    if (rows.length > MAX_TOKENS || rows[0].length > MAX_DIM) {
      grid.notify(`Could not paste into ${name}: the calculator shows at most ${MAX_TOKENS} tokens and ${MAX_DIM} columns; the pasted matrix is ${rows.length}×${rows[0].length}.`);
      return;
    }
    const before = sizes(this.state);
    // Rows set the number of tokens for all three; columns set d_k (Q, K) or d_v (V).
    const after = { n: rows.length, dk: name === 'V' ? before.dk : rows[0].length, dv: name === 'V' ? rows[0].length : before.dv };
    const next = structuredClone(resize(this.state, after));
    next[name.toLowerCase()] = rows.map((r) => [...r]);
    this.#notice(resizeNotice(name, before, after));
    this.problem = '';
    this.#apply(next);
  }

  // The note under the grids; the live region stays in place, so its text is announced.
  #notice(text) {
    this.inputsNotice.textContent = text;
    this.inputsNotice.classList.toggle('note', Boolean(text));
  }

  #preset(key, seed) {
    if (this.options.readonly) return;
    const make = PRESETS[key].make;
    const next = key === 'random' ? make(seed ?? nextSeed(this.state.seed), sizes(this.state)) : make();
    if (this.state.practice) next.practice = emptyPractice(); // a new exercise, in the same mode
    this.setState(next);
  }

  #toggleMask(i, j) {
    const why = this.model.maskReasons()[i][j];
    // A cell the learner hid can always be shown again; one hidden only by a rule is explained.
    if (!why.includes('custom') && why.length) {
      this.explanation.replaceChildren(h('p', { text: why[0] === 'causal'
        ? `Key ${j + 1} is hidden from query ${i + 1} by the causal mask; untick “Causal mask” to change it.`
        : `Token ${j + 1} is padding, hidden from every query; untick its padding box to change it.` }));
      return;
    }
    this.#edit('mask', (s) => { s.hidden[i][j] = !s.hidden[i][j]; });
  }

  #moveValue(j, x, y) {
    const [ax, ay] = this.state.axes;
    this.#edit('plot', (s) => {
      s.v[j][ax] = x;
      if (s.v[0].length > 1) s.v[j][ay] = y;
    });
  }

  // --- computing and showing ------------------------------------------------------------------

  // One core call (model.js). A lab-only widget computes nothing of the calculator's: the state
  // is kept, and computed once a calculator panel shows.
  #compute(state, { commit }) {
    if (!this.grids) this.model.keep(state, { commit });
    else this.model.set(state, { commit, cellsValid: !this.grids.some((g) => g.error) });
  }

  // Listeners (the page's URL, the frame's parent) hear what is on screen, and whether it is
  // committed: a keystroke's state is not until the grid commits it (#commit tells them then).
  #tellChange(state, result) {
    const committed = this.model.isCommitted;
    this.toldCommitted = committed;
    this.onChange(state, result, { committed });
  }

  // The input's problem, if any: a wrong cell, an input the core refuses, a bad attribute.
  #problem() {
    return this.grids?.map((g) => g.error).find(Boolean) || this.model.live.error || this.problem;
  }

  #shows(panel) {
    const { panels } = this.options;
    return panels.includes(panel) || (panel === 'weights' && panels.includes('steps'));
  }

  #render() {
    if (!this.grids && this.options.panels.some((p) => PANELS.includes(p))) {
      this.#build();
      this.model.set(this.model.state);
    }
    if (!this.grids) {
      const said = [this.problem && sentence(this.problem), this.viewProblemShown].filter(Boolean).join(' ');
      this.status.classList.toggle('error', Boolean(said));
      this.status.textContent = said;
      return;
    }
    const s = this.state;
    const { readonly, precision } = this.options;
    for (const el of this.element.querySelectorAll('[data-panel]')) el.hidden = !this.#shows(el.dataset.panel);
    this.resultPanel.hidden = !this.#shows('steps') && !this.#shows('weights');
    // Practice mode: the learner's grids instead of the computed steps and result, the plot, the
    // checks, the pitfalls, the presets and the exporters (the stylesheet hides .practice-off).
    const practicing = Boolean(s.practice) && this.#shows('steps');
    this.element.classList.toggle('practicing', practicing);
    this.practiceSlot.hidden = !practicing;
    if (practicing && !this.practice) this.#loadPractice();
    if (this.#shows('share')) this.share.loadExporters().catch(() => {}); // tried again on a click
    this.element.classList.toggle('readonly', readonly);

    this.controls.update(s, { readonly });
    this.grids[0].update(s.q, { readonly });
    this.grids[1].update(s.k, { readonly });
    this.grids[2].update(s.v, { readonly });
    this.masks.update(s, this.model.maskReasons(), { readonly });
    this.element.classList.toggle('pitfall', PITFALLS[s.pitfall].wrong && !practicing);

    const problem = this.#problem();
    const stale = Boolean(problem);
    this.element.classList.toggle('stale', stale);
    this.status.classList.toggle('error', stale || Boolean(this.viewProblem));
    this.status.textContent = [
      stale ? lastValidMessage(problem, 'result', { dimmed: true, kept: Boolean(this.model.lastValid) }) : '',
      this.viewProblem ? this.viewProblemShown : '',
    ].filter(Boolean).join(' ');
    const shown = this.shown;
    if (practicing && this.practice) this.practice.update({ state: this.state, shown: shown?.state ?? null, precision, readonly });
    // The element's error event follows any change event for the same render, so that a
    // listener hears "back to the last valid state", then why.
    const tell = () => { if (stale && problem !== this.problem) this.onError(problem); };
    // The last valid result is drawn once; a live one on every update (the mode, the panels
    // or the precision may have changed).
    if (!shown || (stale && this.drawn === shown.result)) {
      tell();
      return;
    }
    this.drawn = shown.result;
    const { state, result, plotHull } = shown;

    // Hidden panels are not drawn: a heatmap-only widget does the heatmap's work alone.
    if (practicing) {
      this.#tellChange(state, result);
      tell();
      return;
    }
    if (this.#shows('steps') || this.#shows('weights')) this.steps.update(result, state, precision, { onlyWeights: !this.#shows('steps') });
    if (this.#shows('plot')) {
      if (this.plot) this.plot.update(state, result, plotHull, precision);
      else this.#loadPlot();
    }
    this.plot?.setReadonly(readonly);
    if (this.#shows('checks')) {
      if (this.checks) this.checks.update(state, result, precision);
      else this.#loadChecks();
    }
    showVerified(this.verified, this.drawn.checks);
    if (this.#shows('explain')) this.#renderExplanation();
    // Listeners (the page's URL, the frame's parent) hear what is on screen: the live state,
    // or, once the input goes wrong, the last valid one again, never a passing keystroke.
    this.#tellChange(state, result);
    tell();
    if (stale) return;
    if (this.inputStart !== null) {
      performance.measure('attention-calc update', { start: this.inputStart, end: performance.now() });
      this.inputStart = null;
    }
  }

  // A part whose module is fetched the first time it is needed, so an embed that never needs it
  // (panels="weights") does not download it: `build` runs once, with the module, or `failed` with
  // the error. Every call returns the first call's Promise, kept in this[ready] (see `settled`).
  #loadOnce(ready, load, build, failed) {
    this[ready] ??= load().then(build, failed);
    return this[ready];
  }

  // The checks' panel. It shows what is on screen when it arrives.
  #loadChecks() {
    return this.#loadOnce('checksReady', () => import('./checks.js'), ({ ChecksView }) => {
      this.checks = new ChecksView();
      this.checksSlot.append(this.checks.element);
      const shown = this.shown;
      if (shown) this.checks.update(shown.state, shown.result, this.options.precision);
    }, (error) => {
      this.checksSlot.append(h('p', { class: 'calc-status error', role: 'alert', text: `The checks could not load: ${error.message}` }));
    });
  }

  // Practice mode's view and marking, the first time the learner practises.
  #loadPractice() {
    return this.#loadOnce('practiceReady', () => import('./practice/practice.js'), ({ PracticeView }) => {
      this.practice = new PracticeView({
        attn: this.attn, MatrixGrid, tex, parseNumber, presets: PRESETS, coreMask, answerShape, emptyPractice,
        // The learner's entries count in readonly too: the author fixed the exercise, the
        // learner answers it.
        apply: (next) => this.#apply(next),
        setState: (next) => this.setState(next),
      });
      this.practiceSlot.replaceWith(this.practice.element);
      this.practiceSlot = this.practice.element;
      this.#render();
    }, (error) => {
      this.practiceSlot.textContent = `Practice mode could not load: ${error.message}`;
      this.practiceSlot.className = 'calc-status error';
      this.practiceSlot.setAttribute('role', 'alert');
    });
  }

  // The hull plot. It draws what is on screen when it arrives.
  #loadPlot() {
    return this.#loadOnce('plotReady', () => import('./plot/plot.js'), ({ HullPlot }) => {
      this.plot = new HullPlot({
        onMove: (j, x, y) => this.#moveValue(j, x, y),
        onAxes: (axes) => this.#edit('axes', (s) => { s.axes = axes; }),
        onSave: (svg) => saveSvg(svg, 'attention-hull.svg'),
      });
      this.plotSlot.append(this.plot.element);
      const shown = this.shown;
      if (shown) this.plot.update(shown.state, shown.result, shown.plotHull, this.options.precision);
      this.plot.setReadonly(this.options.readonly);
    }, (error) => {
      this.plotSlot.append(h('p', { class: 'calc-status error', role: 'alert', text: `The plot could not load: ${error.message}` }));
    });
  }

  #renderExplanation() {
    const { state, result: r } = this.shown ?? {};
    if (!r) return;
    const e = this.explained;
    const n = r.weights.length, m = r.weights[0].length;
    const valid = e && e.i < n && (e.step === 'rowSum' || e.j < (e.step === 'output' ? r.output[0].length : m));
    for (const g of this.grids) g.highlightRow(-1);
    // Under the cell it explains: the result's, or the steps'.
    const slot = valid && !RESULT_STEPS.has(e.step) ? this.results : this.resultPanel;
    if (this.explanation.parentNode !== slot) slot.append(this.explanation);
    if (!valid) {
      this.explanation.replaceChildren(h('p', { class: 'hint', text: HINT }));
      return;
    }
    const { title, lines, related } = explain(state, r, e.step, e.i, e.j, this.options.precision);
    if (related.q !== undefined) this.grids[0].highlightRow(related.q);
    if (related.k !== undefined) this.grids[1].highlightRow(related.k);
    this.explanation.replaceChildren(h('h3', { text: title }), ...lines.map((text) => h('p', { class: 'derivation', text })));
  }
}
