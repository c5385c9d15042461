// The calculator's model (web/calc/model.js) under Node, with the real core: one core call per
// edit, one record of the live, committed and last valid states, and the verified badge judged
// by the core.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { CalculatorModel } from '../../web/calc/model.js';
import { coreInputs, defaultState, resize } from '../../web/calc/state.js';

const attn = await loadAttention();

// The core with every call counted, by method.
function counted() {
  const calls = {};
  const core = new Proxy(attn, {
    get(target, name) {
      const value = target[name];
      if (typeof value !== 'function') return value;
      return (...args) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { core, calls, total: () => Object.values(calls).reduce((a, b) => a + b, 0), reset: () => { for (const k of Object.keys(calls)) delete calls[k]; } };
}

const edited = (state, change) => {
  const next = structuredClone(state);
  change(next);
  return next;
};

describe('the calculator model', () => {
  it('computes an edit with one core call: the steps, the checks, the verdict, the plot hull and the mask reasons', () => {
    const { core, calls, total, reset } = counted();
    const model = new CalculatorModel({ attn: core, state: defaultState() });
    model.set(model.state);
    reset();
    // A keystroke in a Q cell.
    model.set(edited(model.state, (s) => { s.q[0][1] = 2; }), { commit: false });
    assert.deepEqual(calls, { attention: 1 });
    // What the view asks for next costs nothing more.
    const reasons = model.maskReasons();
    const shown = model.shown();
    assert.equal(total(), 1);
    assert.equal(shown.result, model.live.result);
    assert.deepEqual(reasons, attn.maskReasons({ mask: 'none', n: 3 }));
    // The plot's hull came with it (d_v = 2: the values' own hull).
    assert.deepEqual(shown.plotHull, attn.convexHull(model.state.v));
    // Each later edit, a mask, V, a mode: one call each.
    for (const change of [(s) => { s.causal = true; }, (s) => { s.v[1][0] = 3; }, (s) => { s.pitfall = 'scale-dk'; }, (s) => { s.padding[2] = true; }]) {
      reset();
      model.set(edited(model.state, change));
      model.maskReasons();
      assert.deepEqual(calls, { attention: 1 });
    }
  });

  it('the result is the core\'s for coreInputs(state), as attention-change reports it; the plot hull is kept beside it', () => {
    const { core } = counted();
    // d_v = 3, plotted on columns 3 and 1: the hull of those coordinates.
    const state = { ...resize(defaultState(), { n: 3, dk: 2, dv: 3 }), axes: [2, 0] };
    state.v = [[1, 5, 0], [0, 5, 1], [1, 5, 1]];
    const model = new CalculatorModel({ attn: core, state });
    model.set(state);
    const { result, plotHull } = model.shown();
    assert.deepEqual(result, attn.attention(coreInputs(state)));
    assert.equal('plotHull' in result.checks, false);
    assert.deepEqual(plotHull, attn.convexHull(state.v.map((row) => [row[2], row[0]])));
    // d_v = 1: the values on a line.
    const line = resize(defaultState(), { n: 3, dk: 2, dv: 1 });
    line.v = [[3], [-1], [2]];
    model.set(line);
    assert.deepEqual(model.shown().plotHull, attn.convexHull(line.v.map((row) => [row[0], 0])));
  });

  it('keeps one record of live, committed and last valid, and a bad input keeps the last valid state', () => {
    const { core, calls, reset } = counted();
    const start = defaultState();
    const model = new CalculatorModel({ attn: core, state: start });
    model.set(start);
    assert.equal(model.committed, start);
    assert.equal(model.lastValid.state, start);
    assert.equal(model.isCommitted, true);

    // Typing 1e40 passes through 1e4: live at once, never committed, so never the last valid state.
    const passing = edited(start, (s) => { s.v[0][0] = 1e4; });
    model.set(passing, { commit: false });
    assert.equal(model.live.state, passing);
    assert.equal(model.isCommitted, false);
    assert.equal(model.committed, start);
    assert.equal(model.lastValid.state, start);
    assert.equal(model.shown().state, passing);

    reset();
    const tooLarge = edited(start, (s) => { s.v[0][0] = 1e40; });
    model.set(tooLarge, { commit: false });
    assert.deepEqual(calls, { attention: 1 });
    assert.equal(model.live.result, null);
    assert.match(model.live.error, /1e\+40|float32|finite|large/i);
    // The input has a problem: what shows is the last valid state, and committing does not change it.
    assert.equal(model.shown().state, start);
    model.commit();
    assert.equal(model.committed, tooLarge);
    assert.equal(model.lastValid.state, start);
    assert.equal(model.shown().state, start);
    // The masks still say why: the core works that out from the mask alone, the one extra call.
    reset();
    assert.deepEqual(model.maskReasons(), attn.maskReasons({ mask: 'none', n: 3 }));
    assert.deepEqual(calls, { maskReasons: 1 });

    // A wrong cell elsewhere (the grid's problem): computed and committed, but not the last valid.
    const other = edited(start, (s) => { s.k[0][0] = 7; });
    model.set(other, { cellsValid: false });
    assert.ok(model.live.result);
    assert.equal(model.lastValid.state, start);
    assert.equal(model.shown('K row 1 column 1: “x” is not a number').state, start);
    assert.equal(model.shown().state, other);

    // A good committed edit becomes the last valid state.
    model.set(other);
    assert.equal(model.lastValid.state, other);
    assert.equal(model.lastValid.result, model.live.result);
  });

  it('the verified badge comes judged from the core, with its tolerance relative to max(1, max |V|)', () => {
    const model = new CalculatorModel({ attn, state: defaultState() });
    model.set(model.state);
    const { checks } = model.shown().result;
    assert.equal(checks.verified, true);
    assert.equal(checks.valueScale, 1);
    assert.equal(checks.verifiedTolerance, 1e-5);
    assert.ok(checks.float64MaxAbsDiff <= checks.verifiedTolerance);
    model.set(edited(model.state, (s) => { s.v[1][1] = -2e6; }));
    const big = model.shown().result.checks;
    assert.equal(big.valueScale, 2e6);
    assert.equal(big.verifiedTolerance, 20);
    assert.equal(big.verified, true);
    // A wrong result is not verified: the core's native tests corrupt a result (test_checks.cpp);
    // here every pitfall is compared with itself and passes, so the badge does not mistake a
    // pitfall for rounding.
    for (const pitfall of ['mask-after-softmax', 'scale-dk', 'no-scale']) {
      model.set(edited(model.state, (s) => { s.pitfall = pitfall; s.causal = true; }));
      assert.equal(model.shown().result.checks.verified, true, pitfall);
    }
  });

  it('hullAxes is checked like any other option', () => {
    const q = [[1, 0]], k = [[1, 0], [0, 1]], v = [[1, 2, 3], [4, 5, 6]];
    assert.deepEqual(attn.attention({ q, k, v, hullAxes: [0, 2] }).checks.plotHull, [0, 1]);
    assert.equal('plotHull' in attn.attention({ q, k, v }).checks, false);
    assert.throws(() => attn.attention({ q, k, v, hullAxes: [0, 3] }), { message: "the plot's y column must be a whole number from 0 to 2 (got 3)" });
    assert.throws(() => attn.attention({ q, k, v, hullAxes: 1 }), { message: /hullAxes must be \[x, y\] or \[x, null\]/ });
  });
});
