// The calculator's model: the state the learner edits and what the core makes of it, with no DOM,
// so Node can test it. It keeps one record of three states:
//   live       what is on screen as the learner types: { state, result, plotHull, error }
//   committed  the state as last committed (Enter, blur, paste, a pause in typing, any other
//              control): a keystroke is live at once but committed only when the grid says so
//   lastValid  the last committed state that computed with no wrong cell, { state, result,
//              plotHull } or null: it stays on screen, dimmed, while the input has a problem.
//              Typing 1e40 passes through 1e4, which is never committed, so never lastValid.
// One edit is one core call: attention() returns the steps, the checks, the verified badge (judged
// by the core) and, with hullAxes, the hull the plot draws.
import { coreInputs, coreMask, sizes } from './state.js';

// The API's own errors speak the learner's terms. An engine error (TypeError, a wasm trap…) is
// a fault of ours, and its text would mean nothing to the learner.
const ENGINE_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, WebAssembly.RuntimeError];
function messageOf(error) {
  const engine = !(error instanceof Error) || ENGINE_ERRORS.some((E) => error instanceof E);
  return engine || !error.message ? 'the calculator could not compute this input' : error.message;
}

// The columns of V the plot shows: both for d_v = 2, the one for d_v = 1 (on a line), else the
// learner's choice.
function plotAxes(state) {
  const { dv } = sizes(state);
  if (dv === 1) return [0, null];
  return dv === 2 ? [0, 1] : state.axes;
}

export class CalculatorModel {
  /**
   * @param {object} o
   * @param {import('../attention.js').Attention} o.attn   the loaded core
   * @param {object} o.state                               the starting state (state.js), committed
   */
  constructor({ attn, state }) {
    this.attn = attn;
    this.live = { state, result: null, plotHull: null, error: '' };
    this.committed = state;
    this.lastValid = null;
  }

  get state() {
    return this.live.state;
  }

  /** True while the live state is the committed one (no keystroke waiting for its commit). */
  get isCommitted() {
    return this.live.state === this.committed;
  }

  /**
   * The state is now `state`: one core call computes it. With commit (the default) it is also
   * committed, and becomes the last valid state if it computed and `cellsValid`.
   */
  set(state, { commit = true, cellsValid = true } = {}) {
    this.live = { state, ...this.#compute(state) };
    if (commit) this.commit({ cellsValid });
  }

  /**
   * Takes the state without computing it, for a widget that shows none of the calculator's
   * panels (a lab alone): set() computes it once one shows.
   */
  keep(state, { commit = true } = {}) {
    this.live = { state, result: null, plotHull: null, error: '' };
    if (commit) this.committed = state;
  }

  /** Commits the live state: Enter, blur, paste or a pause in typing. */
  commit({ cellsValid = true } = {}) {
    const { state, result, plotHull } = this.live;
    this.committed = state;
    if (result && cellsValid) this.lastValid = { state, result, plotHull };
  }

  /** What to show: the live state and its result, or, while `problem`, the last valid one (or null). */
  shown(problem = this.live.error) {
    if (problem) return this.lastValid;
    const { state, result, plotHull } = this.live;
    return result && { state, result, plotHull };
  }

  /**
   * Why each key is hidden from each query. The live result holds that grid; only when the input
   * cannot be computed does the core work it out from the mask alone.
   */
  maskReasons() {
    const { state, result } = this.live;
    return result ? result.hiddenBy : this.attn.maskReasons({ mask: coreMask(state), n: state.q.length });
  }

  #compute(state) {
    try {
      const result = this.attn.attention({ ...coreInputs(state), hullAxes: plotAxes(state) });
      // The plot's hull is the view's, kept beside the result: the result stays the core's for
      // coreInputs(state), as attention-change reports it.
      const { plotHull, ...checks } = result.checks;
      result.checks = checks;
      return { result, plotHull, error: '' };
    } catch (error) {
      return { result: null, plotHull: null, error: messageOf(error) };
    }
  }
}
