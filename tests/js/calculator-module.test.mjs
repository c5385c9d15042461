// Issue 25 §6: the calculator's module alone (loadAttention's labs: false, calculator-{simd,scalar}),
// what an embed without a lab loads. It computes what the calculator shows exactly as the full core
// does; a lab's method says where it is instead of failing obscurely; a full core loaded or loading
// already is shared rather than loading a second module.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { BUILDS } from './helpers.mjs';

const Q = [[1, 1], [0, 1], [-1, 0]];
const K = [[1, 0], [0, 1], [1, 1]];
const V = [[1, 2], [3, 0], [0, 1]];

for (const build of BUILDS) {
  describe(`the calculator's module, ${build.name} build`, () => {
    it('computes what the full core computes, refuses lab calls by name, and gives way to a loaded full core', async () => {
      const calculator = await loadAttention({ simd: build.simd, labs: false });
      assert.equal(calculator.arch, { relaxed: 'wasm-relaxed', true: 'wasm', false: 'scalar' }[build.simd]);
      const small = calculator.attention({ q: Q, k: K, v: V, mask: 'causal' });
      assert.deepEqual(calculator.convexHull([[0, 0], [1, 0], [0, 1], [0.2, 0.2]]), [0, 1, 2]);
      assert.ok(calculator.cost({ n: 8, dModel: 4, heads: 1 }).scoreFlops > 0);
      for (const [call, name] of [
        [() => calculator.multiHead({ x: Q, wq: K, wk: K, wv: K, wo: K, heads: 1 }), 'multiHead'],
        [() => calculator.scalingRowStudy({ dk: 4 }), 'scalingRowStudy'],
        [() => calculator.timeAttention({ n: 8 }), 'timeAttention'],
        [() => calculator.constructedHead({ kind: 'previous-token' }), 'constructedHead'],
      ]) {
        assert.throws(call, { message: new RegExp(`${name} is in the labs' part of the core, which this page did not load`) });
      }
      // The full core is a module of its own; the same numbers come out of it.
      const full = await loadAttention({ simd: build.simd });
      assert.notEqual(full, calculator);
      assert.deepEqual(full.attention({ q: Q, k: K, v: V, mask: 'causal' }), small);
      assert.ok(full.scalingRowStudy({ dk: 4 }).gradient.scaled.median > 0);
      // Once the full core is there, asking for the calculator's alone shares it.
      assert.equal(await loadAttention({ simd: build.simd, labs: false }), full);
      await assert.rejects(loadAttention({ simd: build.simd, labs: 'no' }), { message: /labs must be/ });
    });
  });
}
