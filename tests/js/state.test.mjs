// The calculator's state (web/calc/state.js) under Node: what it hands the core, and links.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { coreInputs, coreMask, coreScale, defaultState, fromHash, toHash } from '../../web/calc/state.js';

it('the mask and the scale go to the core as the state has them, with no attention arithmetic', () => {
  const s = defaultState();
  assert.equal(coreMask(s), 'none');
  assert.equal(coreMask({ ...s, causal: true }), 'causal');
  const padded = { ...s, causal: true, padding: [false, false, true] };
  assert.deepEqual(coreMask(padded), { causal: true, keys: [false, false, true] });
  const byHand = { ...s, hidden: [[false, true, false], [false, false, false], [false, false, false]] };
  assert.deepEqual(coreMask(byHand), { hidden: byHand.hidden });
  assert.notEqual(coreMask(byHand).hidden, byHand.hidden, 'a copy, not the state itself');
  assert.equal(coreScale(s), undefined);
  assert.equal(coreScale({ ...s, pitfall: 'scale-dk' }), 'dk');
  assert.equal(coreScale({ ...s, pitfall: 'no-scale' }), 'none');
  assert.equal(coreScale({ ...s, pitfall: 'custom-scale', scale: 0.3 }), 0.3);
});

it('practice links keep their names (your-scaled, your-masked) while the steps take the result\'s', () => {
  const link = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&causal=1&practice=1'
    + '&your-scaled=0.707,,;,,;,,&your-masked=0.5,,;,,;,,&your-rowsum=2;;&revealed=scores,masked,rowSum';
  const { state, error } = fromHash(`#${link}`);
  assert.equal(error, undefined);
  assert.deepEqual(state.practice.answers.scaledBeforeMask[0], [0.707, null, null]);
  assert.deepEqual(state.practice.answers.scaled[0], [0.5, null, null]);
  assert.deepEqual(state.practice.answers.rowSum, [[2], [null], [null]]);
  assert.deepEqual(state.practice.revealed, ['scores', 'scaled', 'rowSum']);
  const again = toHash(state);
  assert.match(again, /&your-scaled=0\.707,,;,,;,,&your-masked=0\.5,,;,,;,,&your-rowsum=2;;/);
  assert.match(again, /&revealed=scores,masked,rowSum$/);
  assert.match(fromHash('#q=1;2&k=1;2&v=1;2&practice=1&revealed=scaledBeforeMask').error, /revealed step “scaledBeforeMask” is not one of scores, scaled, masked, exp, rowSum, weights, output/);
});

it('coreInputs is the one way from a state to the core\'s inputs, the pitfalls included', () => {
  const s = defaultState();
  assert.deepEqual(coreInputs(s), { q: s.q, k: s.k, v: s.v, mask: 'none', scale: null, maskAfterSoftmax: false });
  const wrong = { ...s, causal: true, pitfall: 'mask-after-softmax' };
  assert.deepEqual(coreInputs(wrong), { q: s.q, k: s.k, v: s.v, mask: 'causal', scale: null, maskAfterSoftmax: true });
  assert.equal(coreInputs({ ...s, pitfall: 'scale-dk' }).scale, 'dk');
  assert.equal(coreInputs({ ...s, pitfall: 'custom-scale', scale: 0.3 }).scale, 0.3);
  assert.equal(coreInputs({ ...s, pitfall: 'scale-dk' }).maskAfterSoftmax, false);
});

// That the calculator computes with coreInputs(state), and that attention-change reports those
// same inputs, for every pitfall, is tested on the element in tests/browser/element.test.mjs.
