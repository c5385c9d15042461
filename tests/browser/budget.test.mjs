// issue 11, "every byte a page downloads": what one embed really transfers (JS, wasm, CSS,
// fonts), from dist/ under a server that gzips as a static host does, against the budgets.
// Counted on the wire, as Chromium receives it (issue 25): each response's status line and
// headers as well as its gzip body, for every response after the page's own HTML.
// Needs dist/: `bash tools/build.sh dist` (npm test builds it first).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CSP, startServer } from '../../tools/serve.mjs';
import { launchChromium, openPage } from './chromium.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const KB = 1000;

/**
 * Loads `url` (or a course page holding `body`), waits until the element shows what the selector
 * `shows` finds (by default its weights), its fonts are in and the network is quiet, and returns { total, headers, files: [[path, bytes,
 * headerBytes]] }: for every response but the page's own HTML, the bytes Chromium received for it
 * (the DevTools protocol's encodedDataLength: status line, headers and the compressed body).
 */
async function transferred(env, { body, path, shows = 'td[data-step="weights"]', quiet = true }) {
  const { context, page, problems } = await openPage(env.browser);
  try {
    const url = new URL(path ?? 'lesson.html', env.url).href;
    if (body) {
      await context.route(url, (route) => route.fulfill({
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': CSP },
        body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title>'
          + `<script type="module" src="attention-calc.js"></script></head><body>${body}</body></html>`,
      }));
    }
    const cdp = await context.newCDPSession(page);
    const responses = new Map(); // requestId → { url, headerBytes, bytes }
    const failed = [];
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      // Before any body byte arrives, what was received is the status line and the headers.
      responses.set(requestId, { url: response.url, status: response.status, headerBytes: response.encodedDataLength, bytes: null });
    });
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      if (responses.has(requestId)) responses.get(requestId).bytes = encodedDataLength;
    });
    const requested = new Map(); // requestId → url
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => requested.set(requestId, request.url));
    // The page's icon is the browser's to fetch (headless Chromium probes /favicon.ico where a
    // page names none, and fetched index.html's favicon.svg twice here): not the embed's bytes.
    const BROWSERS_OWN = /\/favicon\.(ico|svg)$/;
    cdp.on('Network.loadingFailed', ({ requestId, errorText }) => {
      if (!BROWSERS_OWN.test(requested.get(requestId))) failed.push(`${requested.get(requestId)}: ${errorText}`);
    });
    await cdp.send('Network.enable');
    await page.goto(url);
    // Shown: the loading notice gone and `shows` drawn (the weights, or a lab's section).
    await page.waitForFunction((selector) => {
      const root = document.querySelector('attention-calc')?.shadowRoot;
      return Boolean(root) && root.querySelector('.calc-loading') === null && root.querySelector(selector) !== null;
    }, shows, { timeout: 20_000 });
    await page.evaluate(async () => {
      await document.querySelector('attention-calc').ready;
      await document.fonts.ready;
    });
    await page.waitForLoadState('networkidle');
    const files = [...responses.values()].filter((r) => r.url !== url && !BROWSERS_OWN.test(r.url)).map((r) => {
      assert.equal(r.status, 200, `${r.url} answered ${r.status}`);
      // index.html (not quiet) may still be receiving a lab's files: those count as far as they came.
      if (quiet || r.bytes !== null) assert.ok(r.bytes > r.headerBytes && r.headerBytes > 0, `${r.url}: ${r.bytes} bytes in all, ${r.headerBytes} of headers`);
      return [new URL(r.url).pathname, r.bytes ?? r.headerBytes, r.headerBytes];
    });
    assert.deepEqual(failed, [], 'no request failed');
    assert.deepEqual(problems, [], 'no console error or uncaught exception');
    // One build, never two: Chromium runs relaxed SIMD, so every module's .wasm is its relaxed
    // build and every glue file the SIMD build's, which the relaxed build shares.
    for (const [p] of files) {
      const [, variant, ext] = /^\/wasm\/[\w-]+?-(relaxed|simd|scalar)\.(wasm|mjs)$/.exec(p) ?? [];
      if (ext) assert.equal(variant, ext === 'wasm' ? 'relaxed' : 'simd', `${p}: the relaxed-SIMD build's files only`);
    }
    const sum = (i) => files.reduce((total, file) => total + file[i], 0);
    return { total: sum(1), headers: sum(2), files };
  } finally {
    await context.close();
  }
}

const report = ({ total, headers, files }) =>
  `${(total / KB).toFixed(1)} KB on the wire (${(headers / KB).toFixed(1)} KB of it status lines and headers) in ${files.length} responses:\n`
  + files.map(([p, b, hb]) => `  ${p} ${(b / KB).toFixed(1)} KB (headers ${hb} B)`).join('\n');

describe('every byte one embed transfers, gzip-compressed and with its headers, within the budget', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  const env = { browser: null, url: null, server: null };
  before(async () => {
    ({ server: env.server, url: env.url } = await startServer({ root: DIST, gzip: true }));
    env.browser = await launchChromium();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.close();
  });

  // The plot's, the exporters' and the labs' files, which load only with their panels.
  const OPTIONAL = /\/(plot|export|labs)\b/; // labs\b: labs/ and labs-styles-*.js

  test('the full calculator (default panels) transfers ≤ 150 KB on the wire, KaTeX, CSS and fonts included', async () => {
    const sizes = await transferred(env, { body: '<attention-calc></attention-calc>' });
    console.log(`full calculator: ${report(sizes)}`);
    assert.ok(sizes.files.some(([p]) => p.endsWith('.wasm')), 'the wasm was counted');
    // What the next test must not find is found here, so a renamed chunk cannot pass it unseen.
    const paths = sizes.files.map(([p]) => p);
    assert.ok(paths.some((p) => /^\/plot\b/.test(p)) && paths.some((p) => /^\/export\b/.test(p)), `the plot's and the exporters' chunks are recognised: ${paths.join(' ')}`);
    assert.ok(!sizes.files.some(([p]) => /katex|woff2/i.test(p)), 'no TeX engine or font is downloaded');
    assert.ok(sizes.total <= 150 * KB, `the full calculator transfers ${report(sizes)}`);
  });

  // The cost lab's measurement and its log-log chart come with the first click on Measure.
  test('panels="cost" fetches the cost lab, not its measurement', async () => {
    const sizes = await transferred(env, { body: '<attention-calc panels="cost"></attention-calc>', shows: '.cost-lab .cost-table tbody tr' });
    const paths = sizes.files.map(([p]) => p);
    assert.ok(paths.some((p) => /^\/cost-/.test(p)), `the cost lab's chunk is recognised: ${paths.join(' ')}`);
    assert.ok(!paths.some((p) => /^\/measure-/.test(p)), `the measurement is not fetched: ${paths.join(' ')}`);
  });

  // The plot, the exporters and the labs' code and stylesheet load only with their panels.
  test('panels="weights" fetches no plot, exporter or lab', async () => {
    const sizes = await transferred(env, { body: '<attention-calc panels="weights"></attention-calc>' });
    console.log(`panels="weights": ${report(sizes)}`);
    assert.ok(!sizes.files.some(([p]) => OPTIONAL.test(p)), `no plot, exporter or lab is fetched: ${sizes.files.map(([p]) => p).join(' ')}`);
  });

  // Issue 25: measured on the wire, headers included. The element is one file (Rollup keeps what
  // it imports statically together; esbuild had cut it into 9 chunks, 3.8 KB of headers), and an
  // embed without a lab loads the calculator's half of the core (calculator-relaxed.wasm in Chromium, 38 KB gzip
  // against the full core's 69).
  test('panels="weights" transfers ≤ 110 KB on the wire, headers included', async () => {
    const sizes = await transferred(env, { body: '<attention-calc panels="weights"></attention-calc>' });
    console.log(`panels="weights" on the wire: ${report(sizes)}`);
    const paths = sizes.files.map(([p]) => p);
    assert.ok(paths.includes('/wasm/calculator-relaxed.wasm') && !paths.some((p) => /^\/wasm\/attention-/.test(p)), `the calculator's module, not the full core: ${paths.join(' ')}`);
    assert.ok(sizes.total <= 110 * KB, `panels="weights" transfers ${report(sizes)}`);
  });

  // Issue 14: the learned-heads panel's chunk, its training chunk and worker, its wasm module and
  // the checkpoint are fetched only by a widget that shows the panel, and the worker only once
  // "Train in this browser" is pressed.
  const LEARNED = /\/learned[-.]|\/learned-worker\.js$/;
  test('without panels="learned" no learned-heads file is fetched (chunk, worker, wasm, checkpoint)', async () => {
    for (const [body, shows] of [['<attention-calc></attention-calc>'], ['<attention-calc panels="weights"></attention-calc>'], ['<attention-calc panels="heads,cost,scaling,construct,kvcache"></attention-calc>', '.construct-lab']]) {
      const sizes = await transferred(env, { body, shows });
      assert.deepEqual(sizes.files.filter(([p]) => LEARNED.test(p)), [], `${body} fetched: ${sizes.files.map(([p]) => p).join(' ')}`);
    }
  });

  test('panels="learned" fetches its chunk, the learned wasm and the checkpoint, and the worker only when training starts', async () => {
    const { context, page, problems } = await openPage(env.browser);
    try {
      const url = new URL('lesson.html', env.url).href;
      await context.route(url, (route) => route.fulfill({
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': CSP },
        body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title>'
          + '<script type="module" src="attention-calc.js"></script></head><body><attention-calc panels="learned"></attention-calc></body></html>',
      }));
      const requests = [];
      page.on('requestfinished', (request) => requests.push(request));
      const fetched = async () => Promise.all(requests.filter((r) => LEARNED.test(new URL(r.url()).pathname))
        .map(async (r) => [new URL(r.url()).pathname, (await r.sizes()).responseBodySize]));
      await page.goto(url);
      const train = page.getByRole('button', { name: 'Train in this browser' });
      await train.waitFor({ timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      const shown = await fetched();
      console.log(`panels="learned", shown: ${shown.map(([p, b]) => `${p} ${(b / KB).toFixed(1)} KB`).join(', ')}`);
      const paths = shown.map(([p]) => p);
      assert.ok(paths.some((p) => /^\/learned-(?!train-)[\w-]+\.js$/.test(p)), `the panel's chunk: ${paths}`);
      assert.ok(paths.some((p) => /^\/wasm\/learned-relaxed\.wasm$/.test(p)), `the learned wasm: ${paths}`);
      assert.ok(paths.includes('/learned-heads.bin'), `the checkpoint: ${paths}`);
      assert.ok(!paths.includes('/labs/learned-worker.js'), 'no worker before training starts');
      await train.click();
      await page.waitForFunction(() => /step [1-9]/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
      const training = await fetched();
      const worker = training.find(([p]) => p === '/labs/learned-worker.js');
      assert.ok(worker, `the worker, once training starts: ${training.map(([p]) => p)}`);
      // A worker's own request reports no body size here: its file, as gzip sends it.
      console.log(`panels="learned", training: the worker ${(gzipSync(readFileSync(join(DIST, 'labs/learned-worker.js'))).length / KB).toFixed(1)} KB gzip`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  // Issue 27: nothing of GPT-2 (its panel's chunk, its worker, its wasm, its tokenizer) is fetched
  // by a widget that does not show panels="gpt2"; one that shows it fetches its chunk and worker,
  // and GPT-2's module and tokenizer only once a model is opened. Its own bytes: at most 450 KB gzip.
  const GPT2 = /\/gpt2[-.]/;
  test('without panels="gpt2" no GPT-2 file is fetched; with it, the panel\'s chunk and worker, and no wasm or tokenizer before a model is opened', async () => {
    for (const [body, shows] of [['<attention-calc></attention-calc>'], ['<attention-calc panels="weights"></attention-calc>'], ['<attention-calc panels="heads,cost,scaling,construct,learned,kvcache"></attention-calc>', '.construct-lab']]) {
      const sizes = await transferred(env, { body, shows });
      assert.deepEqual(sizes.files.filter(([p]) => GPT2.test(p)), [], `${body} fetched: ${sizes.files.map(([p]) => p).join(' ')}`);
    }
    const shown = await transferred(env, { body: '<attention-calc panels="gpt2"></attention-calc>', shows: '.gpt2-lab' });
    const paths = shown.files.map(([p]) => p).filter((p) => GPT2.test(p));
    assert.ok(paths.some((p) => /^\/gpt2-panel-[\w-]+\.js$/.test(p)), `the panel's chunk: ${paths}`);
    assert.deepEqual(paths.filter((p) => /wasm|tokenizer/.test(p)), [], 'no GPT-2 wasm or tokenizer before a model is opened');
    // What the panel fetched (its chunk), its worker (fetched by the worker's own context, not
    // seen here), then what opening a model fetches.
    const own = [...new Set([...paths.map((p) => p.slice(1)), 'labs/gpt2-worker.js']), 'wasm/gpt2-relaxed.wasm', 'wasm/gpt2-simd.mjs', 'wasm/gpt2-tokenizer.bin'];
    const gzip = own.reduce((sum, n) => sum + gzipSync(readFileSync(join(DIST, n))).length, 0);
    console.log(`panels="gpt2": ${own.join(', ')}: ${(gzip / KB).toFixed(1)} KB gzip (limit 450 KB)`);
    assert.ok(gzip <= 450 * KB, `${(gzip / KB).toFixed(1)} KB gzip`);
  });

  // Issue 40: each lab past the lesson embedded alone runs on the next labs' module, which holds the
  // calculator's functions too (loadAttention's nextLabs): one module, no calculator's, no full
  // core, within the labs' 150 KB.
  for (const [panel, shows] of [['kvcache', '.kvcache-lab .kv-models'], ['positions', '.positions-lab table[data-matrix="Z"]'], ['flash', '.flash-lab .stat-card']]) {
    test(`panels="${panel}" alone transfers ≤ 150 KB on the wire: one module, the next labs', no calculator's, no full core`, async () => {
      const sizes = await transferred(env, { body: `<attention-calc panels="${panel}"></attention-calc>`, shows });
      console.log(`panels="${panel}": ${report(sizes)}`);
      const paths = sizes.files.map(([p]) => p);
      const modules = paths.filter((p) => /^\/wasm\/.*\.wasm$/.test(p));
      assert.equal(modules.length, 1, `one module: ${paths.join(' ')}`);
      assert.match(modules[0], /^\/wasm\/next-labs-relaxed\.wasm$/, `the next labs' module: ${paths.join(' ')}`);
      assert.ok(sizes.total <= 150 * KB, `panels="${panel}" transfers ${report(sizes)}`);
    });
  }

  // Its size is for information; what it must keep: every file fetched once, none refused.
  test('the calculator page (index.html) fetches each file once, none refused, one core, and logs no console error', async () => {
    const sizes = await transferred(env, { path: 'index.html', quiet: false });
    console.log(`index.html: ${report(sizes)}`);
    const paths = sizes.files.map(([p]) => p);
    assert.deepEqual(paths.filter((p, i) => paths.indexOf(p) !== i), [], 'no file fetched twice');
    assert.ok(paths.some((p) => /^\/wasm\/attention-relaxed\.wasm$/.test(p)), `the full core, for the labs: ${paths.join(' ')}`);
    // The page's elements share that one core: the calculator's half is not fetched beside it.
    assert.ok(!paths.some((p) => /^\/wasm\/calculator-/.test(p)), `one core for the page: ${paths.join(' ')}`);
  });
});
