// The JS API (web/attention.js) under Node, for both WebAssembly builds: PyTorch fixtures,
// the lesson's worked example, error messages, and a flat heap.
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';

import { loadAttention, wasmRelaxedSimdSupported, wasmSimdSupported } from '../../web/attention.js';
import { BUILDS, compareRows, maskFromFixture, readFixture } from './helpers.mjs';

const Q = [[1, 1], [0, 1], [-1, 0]];
const K = [[1, 0], [0, 1], [-1, 0]];
const V = [[1, 0], [0, 1], [1, 1]];

it('picks the best build the engine validates (relaxed SIMD, else SIMD), and shares one instance', async () => {
  assert.equal(wasmSimdSupported(), true); // Node 20's V8 supports it
  // Node 20 runs relaxed SIMD behind --experimental-wasm-relaxed-simd only (tools/test.sh gives it).
  const relaxed = process.execArgv.includes('--experimental-wasm-relaxed-simd');
  assert.equal(wasmRelaxedSimdSupported(), relaxed);
  const a = await loadAttention();
  assert.equal(a.simd, true);
  assert.equal(a.build, relaxed ? 'relaxed' : 'simd');
  assert.equal(a.arch, relaxed ? 'wasm-relaxed' : 'wasm');
  assert.equal(await loadAttention(), a);
  const simd = await loadAttention({ simd: true });
  assert.deepEqual([simd.build, simd.arch], ['simd', 'wasm']);
  const scalar = await loadAttention({ simd: false });
  assert.deepEqual([scalar.build, scalar.arch, scalar.simd], ['scalar', 'scalar', false]);
  await assert.rejects(loadAttention({ simd: 'fast' }), { message: /simd must be true, false or 'relaxed' \(got "fast"\)/ });
  if (!relaxed) await assert.rejects(loadAttention({ simd: 'relaxed' }), { message: /does not support WebAssembly relaxed SIMD/ });
});

for (const build of BUILDS) {
  describe(`${build.name} build`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
    });

    it('reproduces the worked example, with and without the causal mask, to 1e-5', () => {
      const spec = readFixture('worked-example.json');
      for (const [key, v, mask] of [
        ['no_mask', spec.V, 'none'],
        ['causal', spec.V, 'causal'],
        ['exercise_no_mask', spec.exercise_V, 'none'],
        ['exercise_causal', spec.exercise_V, 'causal'],
      ]) {
        const r = attn.attention({ q: spec.Q, k: spec.K, v, mask });
        const want = spec[key];
        const tol = { abs: 1e-5 };
        assert.equal(compareRows(r.scores, want.scores, tol, `${key} scores`), '');
        assert.equal(compareRows(r.scaled, want.scaled, tol, `${key} scaled`), '');
        assert.equal(compareRows(r.weights, want.weights, tol, `${key} weights`), '');
        assert.equal(compareRows(r.output, want.output, tol, `${key} output`), '');
      }
    });

    it('returns every intermediate step as plain arrays', () => {
      const r = attn.attention({ q: Q, k: K, v: V, mask: 'causal' });
      assert.ok(Math.abs(r.scale - Math.SQRT1_2) < 1e-7);
      assert.deepEqual(r.scaled[0].slice(1), [-Infinity, -Infinity]);
      assert.ok(Math.abs(r.scaledBeforeMask[0][1] - Math.SQRT1_2) < 1e-6);
      assert.deepEqual(r.hidden, [[false, true, true], [false, false, true], [false, false, false]]);
      assert.deepEqual(r.fullyMasked, [false, false, false]);
      assert.deepEqual(r.exp[0], [1, 0, 0]);
      assert.equal(r.rowSum[0], 1);
      assert.ok(Math.abs(r.rowMax[1] - Math.SQRT1_2) < 1e-6);
      for (const key of ['scores', 'scaled', 'exp', 'weights', 'output']) {
        assert.ok(Array.isArray(r[key]) && r[key].every(Array.isArray), key);
      }
      // Accepts { rows, cols, data } too, and gives the same numbers.
      const flat = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });
      assert.deepEqual(attn.attention({ q: flat(Q), k: flat(K), v: flat(V), mask: 'causal' }), r);
    });

    it('matches the PyTorch single-head fixtures', () => {
      const doc = readFixture('attention.json');
      assert.ok(doc.cases.length >= 15);
      for (const c of doc.cases) {
        const n = c.q.length, m = c.k.length;
        const r = attn.attention({
          q: c.q, k: c.k, v: c.v,
          mask: maskFromFixture(c.mask, n, m),
          scale: c.scale ?? undefined,
          maskAfterSoftmax: c.mask_after_softmax,
        });
        const e = c.expected;
        for (const key of ['scores', 'weights', 'output']) {
          assert.equal(compareRows(r[key], e[key], doc.tolerance, `${c.name}: ${key}`), '');
        }
        assert.equal(compareRows(r.scaled, e.masked, doc.tolerance, `${c.name}: scaled`), '');
        assert.deepEqual(r.fullyMasked, e.fully_masked, c.name);
      }
    });

    it('matches the PyTorch nn.MultiheadAttention fixtures', () => {
      const doc = readFixture('multihead.json');
      assert.ok(doc.cases.length >= 6);
      for (const c of doc.cases) {
        const n = c.x.length;
        const r = attn.multiHead({
          x: c.x, wq: c.wq, wk: c.wk, wv: c.wv, wo: c.wo,
          bq: c.bq, bk: c.bk, bv: c.bv, bo: c.bo,
          heads: c.heads, mask: maskFromFixture(c.mask, n, n),
        });
        const e = c.expected;
        for (const key of ['q', 'k', 'v', 'concat', 'output']) {
          assert.equal(compareRows(r[key], e[key], doc.tolerance, `${c.name}: ${key}`), '');
        }
        assert.equal(r.headWeights.length, c.heads);
        for (let h = 0; h < c.heads; h++) {
          assert.equal(compareRows(r.headWeights[h], e.head_weights[h], doc.tolerance, `${c.name}: head ${h + 1} weights`), '');
          assert.equal(compareRows(r.headOutputs[h], e.head_outputs[h], doc.tolerance, `${c.name}: head ${h + 1} output`), '');
        }
      }
    });

    it('counts parameters and cost as the lesson does', () => {
      assert.equal(attn.parameterCount({ dModel: 768, heads: 12 }), 2359296);
      assert.equal(attn.parameterCount({ dModel: 768, heads: 12, bias: true }), 2362368);
      assert.deepEqual(attn.cost({ n: 1024, dModel: 768, heads: 12 }), {
        projectionFlops: 2 * 768 * 768 * 3 * 1024,
        scoreFlops: 2 * 1024 * 1024 * 768,
        valueFlops: 2 * 1024 * 1024 * 768,
        outputFlops: 2 * 1024 * 768 * 768,
        attentionBytes: 4 * 12 * 1024 * 1024,
        crossoverN: 1536,
        dominant: 'projections',
      });
    });

    it('fits the slope of a log-log plot, and refuses points it cannot fit', () => {
      const x = [64, 128, 256, 512];
      const fit = attn.fitPowerLaw({ x, y: x.map((n) => 2e-6 * n * n) });
      assert.ok(Math.abs(fit.exponent - 2) < 1e-9, `exponent ${fit.exponent}`);
      assert.ok(Math.abs(fit.coefficient / 2e-6 - 1) < 1e-9, `coefficient ${fit.coefficient}`);
      assert.throws(() => attn.fitPowerLaw({ x: [1], y: [1] }), { message: 'a power-law fit needs at least two points' });
      assert.throws(() => attn.fitPowerLaw({ x: [1, 2], y: [1, -1] }), { message: /finite values above 0 \(point 2\)/ });
      assert.throws(() => attn.fitPowerLaw({ x: [1, 2], y: [1, '2'] }), { message: /y\[1\] is not a number/ });
      assert.throws(() => attn.fitPowerLaw({ x: 5, y: [1] }), { message: /x must be an array of numbers/ });
    });

    it('throws an Error that says what is wrong, for every kind of bad input', () => {
      const cases = [
        [{ q: [[1, 1]], k: [[1, 0, 0]], v: [[1]] }, 'K has 3 columns but Q has 2: queries and keys must have the same length d_k'],
        [{ q: Q, k: K, v: [[1], [2], [3], [4]] }, 'V has 4 rows but K has 3: every key needs exactly one value'],
        [{ q: [[1, 1], [NaN, 1]], k: K, v: V }, 'NaN at Q row 2 column 1'],
        [{ q: Q, k: K, v: [[1, 0], [0, Infinity], [1, 1]] }, '+Infinity at V row 2 column 2: inputs must be finite numbers'],
        [{ q: [], k: K, v: V }, 'Q is empty (0×0): it needs at least one row and one column'],
        [{ q: Q, k: K, v: [[], [], []] }, 'V is empty (3×0): it needs at least one row and one column'],
        [{ q: { rows: 1, cols: 5000, data: new Float32Array(5000) }, k: { rows: 1, cols: 5000, data: new Float32Array(5000) }, v: [[1]] }, 'Q has 5000 columns, over the limit of 4096'],
        [{ q: { rows: 3000, cols: 1, data: new Float32Array(3000) }, k: { rows: 3000, cols: 1, data: new Float32Array(3000) }, v: { rows: 3000, cols: 1, data: new Float32Array(3000) } },
          'Q has 3000 rows and K has 3000: the 3000×3000 attention matrix is over the limit of 4194304 entries (2048×2048)'],
        [{ q: [[1e20]], k: [[1e20]], v: [[1]] }, 'Scores row 1 column 1 overflows float32 (largest finite value ±3.4e38): Q and K are too large; use smaller numbers'],
        [{ q: [[1, 1], [0]], k: K, v: V }, 'Q row 2 has 1 entry but row 1 has 2: every row needs the same length'],
        [{ q: [[1, '1']], k: K, v: V }, 'Q row 1 column 2 is not a number (got "1")'],
        [{ q: [[1e39, 1]], k: K, v: V }, 'Q row 1 column 1 is 1e+39, outside the float32 range (±3.4e38)'],
        [{ q: 'oops', k: K, v: V }, 'Q must be an array of rows or { rows, cols, data } (got "oops")'],
        [{ q: Q, k: K, v: V, mask: { keys: [true, false] } }, 'mask.keys has 2 flags but K has 3 rows: key padding needs one flag per key'],
        [{ q: Q, k: K, v: V, mask: [[false]] }, 'mask has 1 row but Q has 3: a custom mask needs one row per query'],
        [{ q: Q, k: K, v: V, mask: 'diagonal' }, `mask must be 'none', 'causal', a boolean[][] grid or { causal?, keys?, hidden? } (got "diagonal")`],
        [{ q: Q, k: K, v: V, scale: 'sqrt2' }, `scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got "sqrt2")`],
        [{ q: Q, k: K, v: V, scale: 0 }, 'scale must be a finite number greater than 0 (got 0)'],
      ];
      for (const [input, message] of cases) {
        assert.throws(() => attn.attention(input), (e) => e instanceof Error && e.message === message, message);
      }
      const w = Array.from({ length: 10 }, () => Array(10).fill(0.1));
      assert.throws(() => attn.multiHead({ x: [Array(10).fill(1)], wq: w, wk: w, wv: w, wo: w, heads: 3 }),
        { message: 'd_model 10 is not divisible by 3 heads: each head needs d_k = d_model / h columns' });
      assert.throws(() => attn.parameterCount({ dModel: 10, heads: 3 }), { message: /d_model 10 is not divisible by 3 heads/ });
      assert.throws(() => attn.cost({ n: 2.5, dModel: 4 }), { message: 'n must be a whole number ≥ 1 (got 2.5)' });
      // The module stays usable after errors.
      assert.equal(attn.attention({ q: Q, k: K, v: V }).weights.length, 3);
    });

    it('keeps the wasm heap flat over 10,000 calls, errors included', () => {
      const call = (i) => {
        if (i % 10 === 9) {
          try { attn.attention({ q: [[NaN]], k: [[1]], v: [[1]] }); } catch { /* expected */ }
        } else {
          attn.attention({ q: Q, k: K, v: V, mask: i % 2 ? 'causal' : { keys: [false, i % 3 === 0, false] } });
        }
      };
      for (let i = 0; i < 100; i++) call(i); // warm up
      const before = attn.heapBytesInUse();
      for (let i = 0; i < 10_000; i++) call(i);
      assert.equal(attn.heapBytesInUse() - before, 0);
    });

    it('hands out copies: results survive later calls that grow the heap', () => {
      const small = attn.attention({ q: Q, k: K, v: V });
      const snapshot = JSON.stringify(small);
      const big = { rows: 1500, cols: 64, data: new Float32Array(1500 * 64).fill(0.01) };
      attn.attention({ q: big, k: big, v: big });
      assert.equal(JSON.stringify(small), snapshot);
    });
  });
}

it('the test comparator fails on data that differ', () => {
  assert.equal(compareRows([[1, 2]], [[1, 2]]), '');
  assert.notEqual(compareRows([[1, 2]], [[1, 2.1]], { abs: 0.05 }), '');
  assert.notEqual(compareRows([[1, 2]], [[1, null]], { abs: 1e9 }), '');
  assert.equal(compareRows([[-Infinity]], [[null]]), '');
  assert.notEqual(compareRows([[NaN]], [[1]], { abs: 1e9 }), '');
  assert.notEqual(compareRows([[1], [2]], [[1]]), '');
  assert.notEqual(compareRows([[1, 2]], [[1]]), '');
});

it('reports the lesson\'s checks and the convex hull from the core', async () => {
  const attn = await loadAttention();
  const good = attn.attention({ q: Q, k: K, v: V, mask: 'causal' });
  assert.deepEqual(good.checks.rowSumsToOne, [true, true, true]);
  assert.deepEqual(good.checks.outputInHull, [true, true, true]);
  assert.deepEqual(good.checks.hull, [1, 0, 2]);
  assert.equal(good.checks.hullExact, true);
  const wrong = attn.attention({ q: Q, k: K, v: V, mask: 'causal', maskAfterSoftmax: true });
  assert.ok(Math.abs(wrong.checks.rowSums[0] - 0.445808) < 1e-5);
  assert.deepEqual(wrong.checks.rowSumsToOne, [false, false, true]);
  assert.deepEqual(wrong.checks.outputInHull, [false, false, true]);
  assert.deepEqual(attn.convexHull([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]]), [0, 1, 2, 3]);
  assert.throws(() => attn.convexHull([[1, 2, 3]]), { message: 'convexHull needs points with 2 coordinates' });
});

describe('attentionOutput: the flat, streaming call', () => {
  const random = (length, seed) => {
    let s = seed;
    return Float32Array.from({ length }, () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 1073741824 - 1;
    });
  };

  for (const build of BUILDS) {
    it(`equals the explaining path, dense and causal (${build.name})`, async () => {
      const attn = await loadAttention({ simd: build.simd });
      for (const [n, m, d, dv] of [[1, 1, 1, 1], [3, 3, 2, 2], [5, 70, 3, 7], [65, 65, 64, 64], [100, 33, 17, 5]]) {
        for (const causal of [false, true]) {
          const q = random(n * d, n + d), k = random(m * d, m), v = random(m * dv, dv);
          const z = attn.attentionOutput({ q, k, v, n, m, d, dv, causal });
          assert.ok(z instanceof Float32Array && z.length === n * dv);
          const want = attn.attention({ q: { rows: n, cols: d, data: q }, k: { rows: m, cols: d, data: k }, v: { rows: m, cols: dv, data: v }, mask: causal ? 'causal' : 'none' }).output;
          const rows = Array.from({ length: n }, (_, i) => Array.from(z.subarray(i * dv, (i + 1) * dv)));
          assert.equal(compareRows(rows, want, { abs: 2e-5, rel: 2e-5 }, `n ${n} m ${m} d ${d} dv ${dv} causal ${causal}`), '');
        }
      }
    });
  }

  it('says what is wrong with its arguments', async () => {
    const attn = await loadAttention();
    const x = new Float32Array(6);
    assert.throws(() => attn.attentionOutput({ q: [1, 2], k: x, v: x, n: 1, d: 2 }), { message: 'q must be a Float32Array (got an array)' });
    assert.throws(() => attn.attentionOutput({ q: x, k: x, v: x, n: 2, d: 2 }), { message: 'q has 6 values but n×d = 4' });
    assert.throws(() => attn.attentionOutput({ q: x, k: x, v: x, n: 3, d: 0 }), { message: 'd must be a whole number from 1 to 4096 (got 0)' });
    const nan = Float32Array.of(1, 2, NaN, 4, 5, 6);
    assert.throws(() => attn.attentionOutput({ q: x, k: nan, v: x, n: 3, d: 2 }), { message: 'NaN at K row 2 column 1' });
  });

  it('runs 16,384 tokens (causal) with O(n·d) memory, where the explaining path refuses', async () => {
    const attn = await loadAttention();
    const n = 16384, d = 64;
    const q = random(n * d, 7);
    const before = attn.heapBytesInUse();
    const z = attn.attentionOutput({ q, k: q, v: q, n, d, causal: true });
    const grown = attn.heapBytesInUse() - before;
    const io = 4 * n * d * 4; // the q, k, v and output buffers the core keeps
    const extra = grown - io; // Kᵀ (n·d floats) and the block workspace: O(n·d), no n×n
    assert.ok(extra <= n * d * 4 + (1 << 20), `heap grew ${grown} bytes, ${extra} beyond the inputs and output`);
    assert.ok(extra < 16 * 2 ** 20);
    assert.deepEqual(Array.from(z.subarray(0, d)), Array.from(q.subarray(0, d))); // token 1 sees only itself
    assert.ok(z.every(Number.isFinite));
    assert.throws(() => attn.attention({ q: { rows: n, cols: d, data: q }, k: { rows: n, cols: d, data: q }, v: { rows: n, cols: d, data: q } }),
      { message: 'Q has 16384 rows and K has 16384: the 16384×16384 attention matrix is over the limit of 4194304 entries (2048×2048)' });
  });

  it('allocates nothing on repeated calls of one size', async () => {
    const attn = await loadAttention();
    const q = random(64 * 64, 3);
    attn.attentionOutput({ q, k: q, v: q, n: 64, d: 64 });
    const before = attn.heapBytesInUse();
    for (let i = 0; i < 2000; i++) attn.attentionOutput({ q, k: q, v: q, n: 64, d: 64, causal: i % 2 === 0 });
    assert.equal(attn.heapBytesInUse() - before, 0);
  });
});
