// Loading the core in real headless Chromium: the SIMD probe, the scalar fallback, a missing
// .wasm, and the JS module against the PyTorch fixtures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { compareRows, maskFromFixture, readFixture } from '../js/helpers.mjs';
import { noProblemsAfterEach, openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';


describe('the core in Chromium', () => {
  const env = servedWeb();
  noProblemsAfterEach(); // no console error or uncaught exception in any test's pages

  const cell = (page, name) => page.getByLabel(name, { exact: true }).textContent();

  it('falls back to the scalar build when WebAssembly SIMD does not validate', async () => {
    // Make every SIMD probe fail, as in a browser without WebAssembly SIMD.
    const initScript = () => {
      const validate = WebAssembly.validate.bind(WebAssembly);
      WebAssembly.validate = (bytes) => {
        const b = new Uint8Array(bytes.buffer ?? bytes);
        return b.includes(253) ? false : validate(bytes); // 0xfd prefixes every SIMD opcode
      };
    };
    const { page, problems, context } = await openPage(env.browser, { initScript });
    await page.goto(env.url);
    await page.waitForSelector('body[data-ready]');
    assert.equal(await page.getAttribute('body', 'data-ready'), 'scalar');
    assert.equal(await page.evaluate(async () => (await import('./attention.js').then((m) => m.loadAttention())).arch), 'scalar');
    assert.equal(await cell(page, 'Weights row 1 column 1'), '0.446');
    assert.match(await page.textContent('#build'), /scalar WebAssembly build/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('says so in place when the .wasm cannot be loaded', async () => {
    const { page, problems, context } = await openPage(env.browser);
    await page.route('**/*.wasm', (route) => route.fulfill({ status: 404, body: 'missing' }));
    await page.goto(env.url);
    await page.waitForSelector('body[data-ready]');
    assert.equal(await page.getAttribute('body', 'data-ready'), 'error');
    assert.match(await page.textContent('[role=alert]'), /could not start: attention-calc: could not load .*attention-relaxed\.wasm: HTTP 404/);
    // Provoked: the browser's line for each refused .wasm (two today) and no uncaught error;
    // emptied once asserted here, so noProblemsAfterEach checks only what was not expected.
    assert.ok(problems.length <= 2 && problems.every((p) => /^console: Failed to load resource: .* 404/.test(p)), problems.join(' | '));
    problems.length = 0;
    await context.close();
  });

  it('runs the JS module in the browser: the PyTorch fixtures and a thrown Error', async () => {
    const { page, problems, context } = await openPage(env.browser);
    await page.goto(env.url);
    await page.waitForSelector('body[data-ready]');
    const doc = readFixture('attention.json');
    const inputs = doc.cases.map((c) => ({
      q: c.q, k: c.k, v: c.v,
      mask: maskFromFixture(c.mask, c.q.length, c.k.length),
      scale: c.scale ?? undefined,
      maskAfterSoftmax: c.mask_after_softmax,
    }));
    const result = await page.evaluate(async (cases) => {
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention();
      const results = cases.map((c) => attn.attention(c));
      let message = '';
      try {
        attn.attention({ q: [[1, 1]], k: [[1, 0, 0]], v: [[1]] });
      } catch (e) {
        message = `${e instanceof Error} ${e.message}`;
      }
      // -Infinity does not survive the trip back to Node; null stands for it, as in the fixtures.
      const rows = (m) => m.map((r) => r.map((x) => (x === -Infinity ? null : x)));
      return { results: results.map((r) => ({ weights: rows(r.weights), output: rows(r.output), scaled: rows(r.scaled) })), message, simd: attn.simd };
    }, inputs);
    assert.equal(result.simd, true);
    doc.cases.forEach((c, i) => {
      const got = result.results[i];
      assert.equal(compareRows(got.weights, c.expected.weights, doc.tolerance, `${c.name}: weights`), '');
      assert.equal(compareRows(got.output, c.expected.output, doc.tolerance, `${c.name}: output`), '');
      assert.equal(compareRows(got.scaled.map((r) => r.map((x) => x ?? -Infinity)), c.expected.masked, doc.tolerance, `${c.name}: scaled`), '');
    });
    assert.equal(result.message, 'true K has 3 columns but Q has 2: queries and keys must have the same length d_k');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('streams 16,384 tokens in the browser with O(n·d) memory', async () => {
    const { page, problems, context } = await openPage(env.browser);
    await page.goto(env.url);
    await page.waitForSelector('body[data-ready]');
    const result = await page.evaluate(async () => {
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention();
      const n = 16384, d = 64;
      const q = Float32Array.from({ length: n * d }, (_, i) => Math.sin(i) / 2);
      const before = attn.heapBytesInUse();
      const z = attn.attentionOutput({ q, k: q, v: q, n, d, causal: true });
      return { grown: attn.heapBytesInUse() - before, finite: z.every(Number.isFinite), first: Array.from(z.subarray(0, 3)), q: Array.from(q.subarray(0, 3)) };
    });
    assert.equal(result.finite, true);
    assert.deepEqual(result.first, result.q); // token 1 attends only to itself
    // Beyond the q, k, v and output buffers (16 MiB): Kᵀ (4 MiB) and a few KiB of workspace.
    const extra = result.grown - 16 * 2 ** 20;
    assert.ok(extra < 16 * 2 ** 20 && extra <= 4 * 2 ** 20 + 2 ** 20, `heap grew ${result.grown} bytes`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
