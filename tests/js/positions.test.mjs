// The positions lab's API (issue 40 §1) in both builds: without positions, shuffling the tokens
// moves Z's rows with them; each scheme breaks that; RoPE's scores depend only on i − j; ALiBi's
// bias is −m·|i − j|. References in float64, written here. Also: loadAttention's nextLabs loads one
// module that serves the calculator and these labs.
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { BUILDS } from './helpers.mjs';

const worst = (a, b) => Math.max(...a.flat().map((x, i) => Math.abs(x - b.flat()[i])));

// sin(p / 10000^(2i/d)) at column 2i, cos at 2i + 1, in float64.
const sinusoid = (p, d) => Array.from({ length: d }, (_, c) => {
  const angle = p / 10000 ** ((c - (c % 2)) / d);
  return c % 2 ? Math.cos(angle) : Math.sin(angle);
});

for (const build of BUILDS) {
  describe(`the positions lab's API, ${build.name} build`, () => {
    let attn, q, k, v;
    const n = 6, d = 4, dv = 3;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
      await attn.loadNextLabs();
      q = attn.normalMatrix({ rows: n, cols: d, seed: 41 });
      k = attn.normalMatrix({ rows: n, cols: d, seed: 42 });
      v = attn.normalMatrix({ rows: n, cols: dv, seed: 43 });
    });

    it('without positions, a shuffle moves Z\'s rows with the tokens; with each scheme it does not', () => {
      const order = [3, 0, 5, 1, 4, 2];
      const plain = attn.positionalAttention({ q, k, v });
      assert.ok(worst(plain.output, attn.attention({ q, k, v }).output) < 1e-6, 'scheme none is the calculator\'s attention');
      const shuffled = attn.positionalAttention({ q, k, v, order });
      assert.ok(worst(shuffled.output, order.map((t) => plain.output[t])) < 1e-6, 'Z permutes exactly');
      assert.ok(worst(shuffled.weights, order.map((i) => order.map((j) => plain.weights[i][j]))) < 1e-6, 'the weights\' rows and columns move too');
      for (const scheme of ['sinusoidal', 'learned', 'rope', 'alibi']) {
        const a = attn.positionalAttention({ q, k, v, scheme });
        const b = attn.positionalAttention({ q, k, v, scheme, order });
        assert.ok(worst(b.output, order.map((t) => a.output[t])) > 1e-3, `${scheme}: the shuffle changes more than the rows' order`);
      }
    });

    it('sinusoidal adds sin/cos of the position to q, k and v; learned adds a seeded table', () => {
      const r = attn.positionalAttention({ q, k, v, scheme: 'sinusoidal' });
      assert.ok(worst(r.q, q.map((row, p) => row.map((x, c) => x + sinusoid(p, d)[c]))) < 1e-6);
      assert.ok(worst(r.v, v.map((row, p) => row.map((x, c) => x + sinusoid(p, dv)[c]))) < 1e-6);
      const l1 = attn.positionalAttention({ q, k, v, scheme: 'learned', seed: 5 }), l2 = attn.positionalAttention({ q, k, v, scheme: 'learned', seed: 5 });
      assert.deepEqual(l1, l2);
      assert.notDeepEqual(l1.q, attn.positionalAttention({ q, k, v, scheme: 'learned', seed: 6 }).q);
    });

    it('RoPE: the score of q at i and k at j depends only on i − j (to 1e-5), and rotation keeps lengths', () => {
      const qi = [[0.3, -1.2, 0.8, 0.5]], kj = [[1.1, 0.4, -0.6, 0.9]];
      const score = (i, j) => {
        // q's row at position i, k's at position j: the other rows are zero.
        const rows = Math.max(i, j) + 1, zero = Array(d).fill(0);
        const Q = Array.from({ length: rows }, (_, p) => (p === i ? qi[0] : zero));
        const K = Array.from({ length: rows }, (_, p) => (p === j ? kj[0] : zero));
        return attn.positionalAttention({ q: Q, k: K, v: Q, scheme: 'rope' }).scores[i][j];
      };
      for (const gap of [0, 1, 3]) {
        const s0 = score(gap, 0);
        for (const shift of [1, 4, 9]) assert.ok(Math.abs(score(gap + shift, shift) - s0) < 1e-5, `gap ${gap}, shift ${shift}`);
      }
      const r = attn.positionalAttention({ q, k, v, scheme: 'rope' });
      const norm = (row) => Math.hypot(...row);
      r.q.forEach((row, p) => assert.ok(Math.abs(norm(row) - norm(q[p])) < 1e-5));
      assert.deepEqual(r.v, v.map((row) => row.map(Math.fround)));
    });

    it('ALiBi: the bias is −m·|i − j| with m = 2⁻⁸ by default, added to the scaled scores before the softmax', () => {
      for (const alibiSlope of [undefined, 0.5]) {
        const m = alibiSlope ?? 2 ** -8;
        const plain = attn.positionalAttention({ q, k, v, causal: true });
        const r = attn.positionalAttention({ q, k, v, scheme: 'alibi', causal: true, ...(alibiSlope ? { alibiSlope } : {}) });
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            assert.ok(Math.abs(r.bias[i][j] + m * Math.abs(i - j)) < 1e-7, `bias ${i} ${j}`);
            if (j > i) assert.ok(r.scores[i][j] === -Infinity && r.weights[i][j] === 0);
            else assert.ok(Math.abs(r.scores[i][j] - plain.scores[i][j] - r.bias[i][j]) < 1e-5);
          }
          const e = r.scores[i].slice(0, i + 1).map((s) => Math.exp(s - Math.max(...r.scores[i].slice(0, i + 1))));
          const total = e.reduce((a, b) => a + b, 0);
          e.forEach((x, j) => assert.ok(Math.abs(r.weights[i][j] - x / total) < 1e-6));
        }
      }
    });

    it('refuses in words an order that is not a permutation, an unknown scheme, a bad slope, and mismatched shapes', () => {
      assert.throws(() => attn.positionalAttention({ q, k, v, order: [0, 1, 2] }), /order has 3 entries but there are 6 tokens/);
      assert.throws(() => attn.positionalAttention({ q, k, v, order: [0, 1, 2, 3, 4, 4] }), /order is not a permutation of 0 to 5: entry 6 \(4\) is a token already placed/);
      assert.throws(() => attn.positionalAttention({ q, k, v, order: [0, 1, 2, 3, 4, -5] }), /order's entry 6 must be a whole number \(got -5\)/);
      assert.throws(() => attn.positionalAttention({ q, k, v, order: 'abc' }), /order must be a list of token indices/);
      assert.throws(() => attn.positionalAttention({ q, k, v, scheme: 'xpos' }), /scheme must be 'none', 'sinusoidal', 'learned', 'rope' or 'alibi' \(got "xpos"\)/);
      assert.throws(() => attn.positionalAttention({ q, k, v, scheme: 'alibi', alibiSlope: 0 }), /alibiSlope must be a finite number greater than 0/);
      assert.throws(() => attn.positionalAttention({ q, k: k.slice(1), v }), /k is 5×4 but must be the shape of q, 6×4/);
      assert.throws(() => attn.positionalAttention({ q, k, v: v.slice(1) }), /v has 5 rows but q has 6/);
    });
  });
}

describe('loadAttention({ labs: false, nextLabs: true }): one module for the calculator and the labs past the lesson', () => {
  it('serves attention() and the next labs without loading a second module', async () => {
    const attn = await loadAttention({ labs: false, nextLabs: true, simd: false });
    const q = [[1, 0], [0, 1]];
    await attn.loadNextLabs();
    assert.deepEqual(attn.positionalAttention({ q, k: q, v: q }).output, attn.attention({ q, k: q, v: q }).output);
    assert.equal(await loadAttention({ labs: false, simd: false }), attn, 'a calculator-only page shares it');
    assert.throws(() => attn.multiHead({ q, k: q, v: q, heads: 1 }), /./, 'the lesson\'s labs are not in it');
    await assert.rejects(loadAttention({ nextLabs: 'yes' }), /nextLabs must be true or false \(got "yes"\)/);
  });
});
