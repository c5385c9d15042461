// The kvcache lab's API (issue 40 §3) in both builds: a decode step is the last row of causal
// attention over the whole text, grouped heads share K/V heads as ⌊i / (h / h_kv)⌋, and a cache's
// bytes are 2 × layers × h_kv × d_head × tokens × bytes. References in float64, written here. The
// first test loads the labs' module (loadNextLabs) for the others: node --test runs them in order.
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { BUILDS } from './helpers.mjs';

// Causal attention in float64 (rows of numbers in, rows out), 1/√d_k.
function causalRef(q, k, v) {
  const dk = q[0].length;
  return q.map((qi, i) => {
    const s = k.slice(0, i + 1).map((kj) => kj.reduce((sum, x, t) => sum + x * qi[t], 0) / Math.sqrt(dk));
    const max = Math.max(...s), e = s.map((x) => Math.exp(x - max)), total = e.reduce((a, b) => a + b, 0);
    return v[0].map((_, c) => e.reduce((sum, w, j) => sum + (w / total) * v[j][c], 0));
  });
}

const f32 = (rows) => rows.map((r) => r.map(Math.fround));
const worst = (a, b) => Math.max(...a.flat().map((x, i) => Math.abs(x - b.flat()[i])));

for (const build of BUILDS) {
  describe(`the kvcache lab's API, ${build.name} build`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
    });

    it('needs its own module: before loadNextLabs() each method says so; the calculator\'s core does not load it', async () => {
      const fresh = await loadAttention({ simd: build.simd });
      assert.throws(() => fresh.kvCacheBytes({ layers: 1, kvHeads: 1, dHead: 1, tokens: 1, bytesPerValue: 4 }), /await loadNextLabs\(\) first/);
      assert.throws(() => fresh.decodeStep({ k: [], v: [], q: [1], kNew: [1], vNew: [1] }), /decodeStep needs the next labs' module/);
      await Promise.all([attn.loadNextLabs(), attn.loadNextLabs()]);
    });

    it('decodeStep: one new row of scores, the cache one row longer, the output the last row of a full causal pass', () => {
      for (const [n, dk, dv, seed] of [[1, 3, 2, 1], [5, 4, 4, 2], [9, 7, 3, 3]]) {
        const q = attn.normalMatrix({ rows: n, cols: dk, seed }), k = attn.normalMatrix({ rows: n, cols: dk, seed: seed + 10 });
        const v = attn.normalMatrix({ rows: n, cols: dv, seed: seed + 20 });
        const step = attn.decodeStep({ k: k.slice(0, n - 1), v: v.slice(0, n - 1), q: q[n - 1], kNew: k[n - 1], vNew: v[n - 1] });
        assert.equal(step.scores.length, n);
        assert.equal(step.weights.length, n);
        assert.deepEqual(step.k, k);
        assert.deepEqual(step.v, v);
        const want = causalRef(q, k, v).at(-1);
        assert.ok(worst([step.output], [want]) < 1e-6, `n ${n}: ${step.output} vs ${want}`);
        const full = attn.attention({ q, k, v, mask: 'causal' });
        assert.ok(worst([step.output], [full.output.at(-1)]) < 1e-6);
        assert.ok(Math.abs(step.weights.reduce((a, b) => a + b, 0) - 1) < 1e-6);
        step.scores.forEach((s, j) => assert.ok(Math.abs(s - k[j].reduce((sum, x, t) => sum + x * q[n - 1][t], 0)) < 1e-5));
      }
    });

    it('decodeStep refuses a cache whose K and V disagree, and lengths that do not fit, in words', () => {
      assert.throws(() => attn.decodeStep({ k: [[1, 0]], v: [], q: [1, 1], kNew: [1, 1], vNew: [3] }), /k has 1 row and v 0 rows/);
      assert.throws(() => attn.decodeStep({ k: [[1, 0]], v: [[1]], q: [1, 1, 1], kNew: [1, 1, 1], vNew: [3] }), /same d_k/);
      assert.throws(() => attn.decodeStep({ k: [], v: [], q: [1], kNew: [1, 2], vNew: [3] }), /kNew|k_new has 2 entries but must have 1/);
      assert.throws(() => attn.decodeStep({ k: [], v: [], q: [NaN], kNew: [1], vNew: [3] }), /q/);
    });

    it('groupedAttention: head i reads K/V head ⌊i / (h / h_kv)⌋; MHA, GQA and MQA against float64', () => {
      const n = 6, dk = 3, h = 4;
      const q = attn.normalMatrix({ rows: n, cols: h * dk, seed: 5 });
      for (const g of [4, 2, 1]) {
        const k = attn.normalMatrix({ rows: n, cols: g * dk, seed: 6 }), v = attn.normalMatrix({ rows: n, cols: g * dk, seed: 7 });
        const r = attn.groupedAttention(q, k, v, { heads: h, kvHeads: g, causal: true });
        assert.deepEqual(r.heads.map((head) => head.kvHead), [0, 1, 2, 3].map((i) => Math.floor(i / (h / g))));
        const d = h * dk;
        assert.equal(r.parameters, 2 * d * d + 2 * d * (d * g / h));
        assert.equal(r.cacheBytesPerToken, 2 * g * dk * 4);
        r.heads.forEach((head, i) => {
          const cols = (rows, first) => rows.map((row) => row.slice(first, first + dk));
          const want = causalRef(cols(q, i * dk), cols(k, head.kvHead * dk), cols(v, head.kvHead * dk));
          assert.ok(worst(head.output, want) < 1e-6, `h_kv ${g} head ${i}`);
          assert.ok(worst(r.output.map((row) => row.slice(i * dk, (i + 1) * dk)), f32(want)) < 1e-6);
        });
      }
      assert.throws(() => attn.groupedAttention(q, q.map((r) => r.slice(0, 9)), q.map((r) => r.slice(0, 9)), { heads: 4, kvHeads: 3 }),
        /3 K\/V heads do not divide 4 query heads/);
    });

    it('kvCacheBytes: the formula, exact, for the lab\'s real models', () => {
      assert.equal(attn.kvCacheBytes({ layers: 12, kvHeads: 12, dHead: 64, tokens: 1024, bytesPerValue: 2 }), 2 * 12 * 12 * 64 * 1024 * 2);
      assert.equal(attn.kvCacheBytes({ layers: 32, kvHeads: 32, dHead: 128, tokens: 8192, bytesPerValue: 2 }), 4294967296);
      assert.equal(attn.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, tokens: 131072, bytesPerValue: 2 }), 17179869184);
      assert.throws(() => attn.kvCacheBytes({ layers: 0, kvHeads: 8, dHead: 128, tokens: 1, bytesPerValue: 2 }), /layers must be a whole number from 1/);
      assert.throws(() => attn.kvCacheBytes({ layers: 1.5, kvHeads: 8, dHead: 128, tokens: 1, bytesPerValue: 2 }), /layers must be a whole number/);
    });
  });
}

// The flash lab's API: the tiled online softmax against the plain one, through the same module.
for (const build of BUILDS) {
  describe(`the flash lab's API, ${build.name} build`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
      await attn.loadNextLabs();
    });

    it('tiledAttention: Z after the last tile equals attention() within 1e-6 for every tile size; the steps and the floats held', () => {
      const n = 7, d = 5, dv = 3;
      const q = attn.normalMatrix({ rows: n, cols: d, seed: 31 }), k = attn.normalMatrix({ rows: n, cols: d, seed: 32 });
      const v = attn.normalMatrix({ rows: n, cols: dv, seed: 33 });
      for (const causal of [false, true]) {
        const full = attn.attention({ q, k, v, ...(causal ? { mask: 'causal' } : {}) }).output;
        for (let tile = 1; tile <= n; tile++) {
          const r = attn.tiledAttention(q, k, v, { tile, causal });
          assert.ok(worst(r.output, full) < 1e-6, `tile ${tile}, causal ${causal}`);
          const perRow = Math.ceil(n / tile);
          assert.equal(r.tiles.length + r.skipped, n * perRow);
          if (!causal) assert.equal(r.skipped, 0);
          assert.equal(r.peakFloats, tile + 2 * n + n * dv);
          assert.equal(r.fullPeakFloats, n * n + n * dv);
          const last = r.tiles.filter((t) => t.row === n - 1).at(-1);
          assert.deepEqual(last.output, r.output[n - 1]);
          assert.ok(r.tiles.every((t) => t.rescale >= 0 && t.rescale <= 1 && t.sum >= 1 - 1e-6));
        }
      }
      assert.throws(() => attn.tiledAttention(q, k, v, { tile: 0 }), /tile must be a whole number from 1 to 7 \(got 0\)/);
      assert.throws(() => attn.tiledAttention(q, k, v, { tile: 8 }), /tile must be a whole number from 1 to 7/);
    });

    it('attentionPeakFloats: the floats each path held, as tiledAttention counts them for the same shape; n past 4096 refused', () => {
      const q = attn.normalMatrix({ rows: 7, cols: 5, seed: 1 }), v = attn.normalMatrix({ rows: 7, cols: 3, seed: 2 });
      for (const causal of [false, true]) {
        for (const tile of [1, 3, 7]) {
          const { peakFloats, fullPeakFloats } = attn.tiledAttention(q, q, v, { tile, causal });
          assert.deepEqual(attn.attentionPeakFloats({ n: 7, d: 5, dV: 3, tile, causal }), { peakFloats, fullPeakFloats }, `tile ${tile}, causal ${causal}`);
        }
      }
      assert.throws(() => attn.attentionPeakFloats({ n: 65536, d: 64, tile: 64 }), /4,?096/);
    });
  });
}
