// Issue 27, first version: the GPT-2 panel (panels="gpt2") in headless Chromium under the strict
// CSP, on a generated GPT-2-family fixture (build-fixtures/gpt2/d64-f32: 3 layers of 4 heads,
// GPT-2's tokenizer; random weights in Hugging Face's layout). The same fixture is opened here in
// Node by the same core, and the panel must show exactly its numbers: heatmaps cell for cell,
// captions, the lesson's check, the next tokens. Loading from a picked file, a dropped file and
// gpt2-src on a local server that counts bytes; progress, Cancel, a bad file; keyboard; axe; 360 px.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { format } from '../../web/shared/format.js';
import { colour } from '../../web/shared/heatmap.js';
import { ROLES, ROLE_THRESHOLD } from '../../web/labs/head-views/learned-roles.js';
import { GPT2_SENTENCE, gpt2Label, gridText, lessonCheck, pytorchScript, strongestRole } from '../../web/labs/gpt2/gpt2-lesson.js';
import { axeViolations, noProblemsAfterEach, openPage } from './chromium.mjs';
import { coursePage, servedWeb } from './served.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const MODEL = `${FIXTURES}d64-f32/model.safetensors`;
const CONFIG = `${FIXTURES}d64-f32/config.json`;
const MODEL_BF16 = `${FIXTURES}d64-bf16/model.safetensors`; // the same model in bfloat16, half the bytes
const PANEL = 'Exercise 4: look inside GPT-2';
const LAST = 2; // the fixture has 3 layers: the panel starts at layer 5, or the last layer

// A server for build-fixtures/gpt2 on another origin, as a course's copy: Range requests, CORS,
// the bytes it sent counted, and an optional delay before each response (to catch a load midway).
function fixtureServer() {
  const s = { sent: 0, requests: 0, delay: 0 };
  s.server = createServer(async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'Range');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, Accept-Ranges');
    if (req.method === 'OPTIONS') { res.end(); return; }
    let path;
    try {
      path = `${FIXTURES}${decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '').replace(/\.\.+/g, '')}`;
      statSync(path);
    } catch {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    s.requests++;
    if (s.delay) await new Promise((r) => setTimeout(r, s.delay));
    const bytes = readFileSync(path);
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    let body = bytes;
    res.setHeader('Accept-Ranges', 'bytes');
    if (range) {
      const begin = Number(range[1]), end = range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
      body = bytes.subarray(begin, end + 1);
      res.statusCode = 206;
      res.setHeader('Content-Range', `bytes ${begin}-${end}/${bytes.length}`);
    }
    res.setHeader('Content-Length', body.length);
    s.sent += body.length;
    res.end(body);
  });
  return new Promise((resolve) => s.server.listen(0, '127.0.0.1', () => {
    s.url = `http://127.0.0.1:${s.server.address().port}/`;
    resolve(s);
  }));
}

describe('the GPT-2 panel (exercise 4)', () => {
  const env = servedWeb();
  noProblemsAfterEach(); // no console error or uncaught exception in any test's pages
  let page, problems, context, model, files;
  before(async () => {
    const attn = await loadAttention();
    model = await attn.openGpt2(new Uint8Array(readFileSync(MODEL)), { config: JSON.parse(readFileSync(CONFIG, 'utf8')) });
    files = await fixtureServer();
  });
  after(() => {
    model?.dispose();
    files?.server.close();
  });
  beforeEach(async () => {
    ({ page, problems, context } = await openPage(env.browser, {
      // Every value the progress bar shows, in order.
      initScript: () => {
        window.progressSeen = [];
        const value = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, 'value');
        Object.defineProperty(HTMLProgressElement.prototype, 'value', {
          get() { return value.get.call(this); },
          set(v) { value.set.call(this, v); window.progressSeen.push([v, this.max]); },
        });
      },
    }));
    files.sent = 0;
    files.requests = 0;
    files.delay = 0;
  });
  afterEach(async () => {
    await context.close();
  });

  const lab = (p = page) => p.getByRole('group', { name: PANEL });
  const map = (layer, head, p = page) => lab(p).getByRole('img', { name: `GPT-2 layer ${layer} head ${head}`, exact: true });
  const caption = (layer, head) => lab().locator('figure.learned-head').filter({ has: page.getByRole('img', { name: `GPT-2 layer ${layer} head ${head}`, exact: true }) }).locator('figcaption');
  // The course's copy: models/… on the page's origin (its strict CSP allows only 'self'), passed
  // on to the fixture server, which counts what it sends.
  const open = async (attrs = '', p = page, c = context) => {
    await c.route(`${env.url}models/**`, async (route) => {
      try {
        const response = await route.fetch({ url: route.request().url().replace(`${env.url}models/`, files.url) });
        await route.fulfill({ response });
      } catch {
        // The page went away (or Cancel aborted the request) while the fixture server answered.
      }
    });
    await p.goto(await coursePage(c, env.url, `<main><h1>A lesson</h1><attention-calc panels="gpt2"${attrs}></attention-calc></main>`));
    await p.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      await document.querySelector('attention-calc').ready;
    });
    await lab(p).waitFor();
  };
  const pick = () => lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
  // Waits for a layer's first map; should it not come, fails with what the panel says.
  const waitForHeads = (layer = LAST, p = page) => map(layer, 0, p).waitFor({ timeout: 30_000 }).catch(async (error) => {
    throw new Error(`${error.message}\nThe panel says: ${await lab(p).locator('.cell-message').textContent()}`);
  });
  // The accessible name of what has focus in the panel once it is `name`, or after 10 s whatever
  // has it then, for the assertion to show.
  const focusWhenSettled = async (name) => {
    await page.waitForFunction((n) => document.querySelector('attention-calc').shadowRoot.activeElement?.getAttribute('aria-label') === n, name, { timeout: 10_000 }).catch(() => {});
    return page.evaluate(() => document.querySelector('attention-calc').shadowRoot.activeElement?.getAttribute('aria-label') ?? null);
  };

  // Every head of a layer against run(): names, cells, captions; the check; the next tokens.
  async function assertLayer(run, layer) {
    const heads = run.layers[layer].heads;
    assert.equal(await lab().locator('figure.learned-head').count(), heads.length);
    for (const [i, d] of heads.entries()) {
      const m = map(layer, i);
      assert.equal(await m.count(), 1, `GPT-2 layer ${layer} head ${i}`);
      const n = run.tokens.length;
      const fills = await m.locator('rect').evaluateAll((rects, count) => rects.slice(0, count).map((r) => r.getAttribute('fill')), n * n);
      assert.deepEqual(fills, d.weights.flat().map(colour), `layer ${layer} head ${i}: cell colours`);
      const said = await caption(layer, i).textContent();
      for (const r of ROLES) {
        const earns = d[r.key] !== null && d[r.key] >= ROLE_THRESHOLD;
        assert.equal(said.includes(r.label), earns, `${layer}.${i} ${r.key} ${d[r.key]}: "${said}"`);
        if (d[r.key] !== null) assert.ok(said.includes(`${r.score} ${format(d[r.key], 3)}`), `${layer}.${i}: "${said}"`);
      }
    }
    assert.equal(await lab().locator('.gpt2-check').textContent(), lessonCheck(run, layer));
    const next = await lab().locator('.gpt2-next li').allTextContents();
    assert.deepEqual(next, run.next.map((t) => `${gpt2Label(t.token)} ${format(t.probability, 3)} (${format(t.probability * 100, 1)}%)`));
  }

  it('with nothing open: says what it needs and where to get it, offers the file button, the drop zone and the trained model\'s lab; loads nothing of GPT-2', async () => {
    const fetched = [];
    page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await open();
    const text = await lab().textContent();
    for (const words of ['Hugging Face', 'openai-community/gpt2', 'Files', 'model.safetensors', '548 MB', 'distilgpt2', 'gpt2-medium']) assert.ok(text.includes(words), words);
    assert.ok(await lab().getByRole('button', { name: 'Open GPT-2 weights (model.safetensors)' }).isVisible());
    assert.ok(await lab().locator('.gpt2-drop').isVisible());
    // No file: the trained-here model's lab opens in this element (no page of its own to link to).
    await lab().getByRole('button', { name: 'Look inside the small model trained here' }).click();
    await page.getByRole('group', { name: 'Look inside a trained model' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('attention-calc').getAttribute('panels'), 'gpt2 learned');
    // Shown, the panel starts its worker (to look for a stored model); GPT-2's wasm and tokenizer
    // wait for a model to open.
    assert.ok(!fetched.some((p) => /wasm\/gpt2|tokenizer/.test(p)), `no GPT-2 wasm or tokenizer before a file: ${fetched.join(' ')}`);
    assert.ok(fetched.includes('/labs/gpt2-worker.js'), 'the worker started');
    assert.deepEqual(problems, []);
  });

  it('a picked file (with its config.json): the last layer\'s heads equal run() cell for cell, captions and the lesson\'s check agree with the scores; tokens, next tokens, another layer, <|endoftext|>, repeating the text', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await open();
    await pick();
    await waitForHeads();
    assert.equal(await lab().getByLabel('Text GPT-2 reads').inputValue(), GPT2_SENTENCE);
    assert.equal(await lab().getByRole('combobox', { name: 'Layer' }).inputValue(), String(LAST));
    let run = model.run(GPT2_SENTENCE);
    assert.deepEqual(run.ids, [464, 3797, 3332, 319, 262, 2603, 780, 340, 373, 10032]);
    const chips = await lab().locator('.token-strip .token').allTextContents();
    assert.deepEqual(chips, run.tokens.map(gpt2Label));
    assert.equal(chips[1], '␣cat');
    assert.match(await lab().locator('.gpt2-count').textContent(), /^10 tokens of this model’s context of 64\./);
    assert.match(await lab().locator('.gpt2-model').textContent(), /3 layers of 4 heads, d_model 64/);
    await assertLayer(run, LAST);
    await page.screenshot({ path: 'test-results/gpt2-panel-1280.png', fullPage: true }).catch(() => {});

    await lab().getByRole('combobox', { name: 'Layer' }).selectOption('0');
    await waitForHeads(0);
    await assertLayer(run, 0);

    await lab().getByLabel('Start with <|endoftext|>').check();
    await lab().locator('.token-strip .token').first().filter({ hasText: '<|endoftext|>' }).waitFor();
    run = model.run(GPT2_SENTENCE, { endOfTextFirst: true });
    assert.equal(run.ids[0], 50256);
    await assertLayer(run, 0);

    await lab().getByRole('button', { name: 'Repeat the text' }).click();
    const repeated = `${GPT2_SENTENCE} ${GPT2_SENTENCE}`;
    assert.equal(await lab().getByLabel('Text GPT-2 reads').inputValue(), repeated);
    run = model.run(repeated, { endOfTextFirst: true });
    await page.waitForFunction((n) => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === n, run.tokens.length);
    await assertLayer(run, 0);
    assert.match(await lab().locator('.gpt2-check').textContent(), /induction/);
    assert.deepEqual(problems, []);
  });

  it('typing re-runs once typing pauses; an empty text is said in words and the last heads stay', async () => {
    await open();
    await pick();
    await waitForHeads();
    await lab().getByLabel('Text GPT-2 reads').fill('The dog ran');
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === 3);
    await assertLayer(model.run('The dog ran'), LAST);
    await lab().getByLabel('Text GPT-2 reads').fill('  ');
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    await lab().locator('.cell-message').filter({ hasText: /\S/ }).waitFor(); // the worker's answer
    assert.match(await lab().locator('.cell-message').textContent(), /^The text is empty.*The heads below are from the last text GPT-2 could read\.$/);
    assert.equal(await map(LAST, 0).count(), 1);
    assert.deepEqual(problems, []);
  });

  it('a dropped file opens; a bad file dropped next is said in the learner\'s words, and the previous model stays', async () => {
    await context.route(`${env.url}fixture/*`, (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      route.fulfill({ body: name === 'bad.safetensors' ? Buffer.from('this is not a model at all') : readFileSync(`${FIXTURES}d64-f32/${name}`) });
    });
    await open();
    const drop = (names) => lab().locator('.gpt2-drop').evaluate(async (zone, list) => {
      const dt = new DataTransfer();
      for (const name of list) dt.items.add(new File([await (await fetch(`fixture/${name}`)).blob()], name));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, names);
    await drop(['model.safetensors', 'config.json']);
    await waitForHeads();
    await assertLayer(model.run(GPT2_SENTENCE), LAST);
    const line = await lab().locator('.gpt2-model').textContent();

    await drop(['bad.safetensors']);
    await lab().locator('.cell-message').filter({ hasText: /\S/ }).waitFor();
    const said = await lab().locator('.cell-message').textContent();
    assert.match(said, /^This is not a safetensors file: .*Download model\.safetensors again from Hugging Face.* The model opened before \(model\.safetensors\) is still open\.$/);
    assert.equal(await lab().locator('.gpt2-model').textContent(), line);
    await lab().getByLabel('Text GPT-2 reads').fill('A cat');
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === 2);
    await assertLayer(model.run('A cat'), LAST);
  });

  it('gpt2-src on a local server that counts bytes: read by Range requests with its config.json, progress rises to its total; Cancel stops the reads', async () => {
    await open(` gpt2-src="${env.url}models/d64-f32/model.safetensors"`);
    await waitForHeads();
    await assertLayer(model.run(GPT2_SENTENCE), LAST);
    const size = statSync(MODEL).size;
    assert.ok(files.sent < size * 1.01, `${files.sent} bytes sent of a ${size}-byte file`);
    const seen = await page.evaluate(() => window.progressSeen);
    const values = seen.map(([v]) => v);
    assert.ok(values.length > 2, `progress: ${values}`);
    assert.deepEqual(values, [...values].sort((a, b) => a - b), 'progress only rises');
    assert.equal(values.at(-1), seen.at(-1)[1], 'progress ends at its total');
    assert.ok(await lab().locator('.gpt2-loading').isHidden());

    // A slow server: Cancel while it loads; no more requests after. Each request waits a second,
    // so that the seconds of requests left after the first progress outlast a slow click (at 250 ms
    // a request, the load could end under a busy machine's click).
    files.delay = 1000;
    await page.evaluate((url) => { document.querySelector('attention-calc').gpt2Src = url; }, `${env.url}models/d64-f32/model.safetensors?again`);
    await lab().getByRole('button', { name: 'Cancel' }).waitFor();
    await page.waitForFunction(() => window.progressSeen.length > 0 && window.progressSeen.at(-1)[0] > 0);
    assert.match(await lab().locator('.gpt2-progress-text').textContent(), /^[\d.]+ MB of [\d.]+ MB/);
    await lab().getByRole('button', { name: 'Cancel' }).click();
    await lab().locator('.cell-message').filter({ hasText: 'Loading stopped' }).waitFor();
    const requests = files.requests;
    await page.waitForTimeout(800);
    assert.ok(files.requests <= requests + 1, `${files.requests - requests} requests after Cancel`);
    assert.match(await lab().locator('.cell-message').textContent(), /The model opened before .* is still open\./);
    assert.equal(await map(LAST, 0).count(), 1, 'the previous model\'s heads stay');
  });

  it('a gpt2-src that is not there is said with what to do next', async () => {
    await open(` gpt2-src="${env.url}models/nothing/model.safetensors"`);
    await lab().locator('.cell-message').filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
    assert.match(await lab().locator('.cell-message').textContent(), /^GPT-2 could not (be opened|be downloaded).*(open it with the button above)\.$/);
    // The browser's own line for the 404, the one error this test provokes.
    assert.ok(problems.length > 0 && problems.every((p) => /status of 404/.test(p)), problems.join('\n'));
    problems.length = 0;
  });

  it('far down a page, the panel reads neither gpt2-src nor a stored model until it scrolls into view', async () => {
    await context.route(`${env.url}models/**`, async (route) => {
      await route.fulfill({ response: await route.fetch({ url: route.request().url().replace(`${env.url}models/`, files.url) }) });
    });
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(await coursePage(context, env.url, `<main><h1>A lesson</h1>${'<p>A long lesson’s paragraph.</p>'.repeat(150)}<attention-calc panels="gpt2" gpt2-src="${env.url}models/d64-f32/model.safetensors"></attention-calc></main>`));
    await page.evaluate(() => customElements.whenDefined('attention-calc'));
    await page.waitForTimeout(1500);
    assert.equal(files.requests, 0, 'nothing read before the panel is in view');
    assert.deepEqual(workers, [], 'no worker started');
    await page.locator('attention-calc').scrollIntoViewIfNeeded();
    await waitForHeads();
    assert.ok(files.requests > 0);
    assert.deepEqual(problems, []);
  });

  it('a download cut short and a server that refuses this page (CORS, or no answer) are said in the learner\'s words; the previous model stays usable', async () => {
    const src = `${env.url}models/d64-f32/model.safetensors`;
    await open(` gpt2-src="${src}"`);
    await waitForHeads();
    // The tensors' ranges come back with half their bytes; the header's request is answered whole.
    await context.route(`${src}?cut`, async (route) => {
      const range = route.request().headers().range ?? '';
      const response = await route.fetch({ url: src.replace(`${env.url}models/`, files.url) });
      const body = await response.body();
      const headers = { ...response.headers() };
      delete headers['content-length'];
      await route.fulfill({ status: response.status(), headers, body: range.startsWith('bytes=0-') ? body : body.subarray(0, body.length >> 1) });
    });
    await context.route(`${src}?refused`, (route) => route.abort('failed'));
    const message = lab().locator('.cell-message');
    for (const [query, said] of [
      ['cut', /^The download of GPT-2 from .*\?cut stopped before its end: the connection was cut, or the server sent less than it said \(.*the download ended at byte \d{1,3}(,\d{3})*, before byte \d{1,3}(,\d{3})*\)\. Try again, or download model\.safetensors yourself and open it with the button above\. The model opened before \(.*model\.safetensors\) is still open\.$/],
      ['refused', /^GPT-2 could not be downloaded from .*\?refused: the server did not answer, it does not let this page read the file \(CORS\), or this page’s Content-Security-Policy does not allow that address\. .* The model opened before \(.*model\.safetensors\) is still open\.$/],
    ]) {
      await page.evaluate((url) => { document.querySelector('attention-calc').gpt2Src = url; }, `${src}?${query}`);
      await message.filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
      assert.match(await message.textContent(), said, query);
      // The model opened before still runs.
      await lab().getByLabel('Text GPT-2 reads').fill('A cat');
      await lab().getByLabel('Text GPT-2 reads').press('Enter');
      await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === 2);
      await assertLayer(model.run('A cat'), LAST);
      await lab().getByLabel('Text GPT-2 reads').fill(GPT2_SENTENCE);
      await lab().getByLabel('Text GPT-2 reads').press('Enter');
      await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === 10);
    }
  });

  it('the open model is kept in the browser\'s storage: a reload opens it with no request and says so; Forget frees it', async () => {
    const src = `${env.url}models/d64-f32/model.safetensors`;
    await open(` gpt2-src="${src}"`);
    await waitForHeads();
    const store = lab().locator('.gpt2-store-text');
    await store.filter({ hasText: 'Kept in this browser’s storage' }).waitFor();
    const kept = await store.textContent();
    assert.match(kept, /^Kept in this browser’s storage \([\d.]+ MB\): a reload opens it again without the file or the network\.$/);
    assert.ok(files.requests > 0);

    files.requests = 0;
    await page.reload();
    await lab().waitFor();
    await waitForHeads();
    await assertLayer(model.run(GPT2_SENTENCE), LAST);
    assert.equal(files.requests, 0, 'a reload reads nothing from the server');
    assert.match(await store.textContent(), /^Opened from this browser’s storage, with no file and no download: .*model\.safetensors, kept on \d+ \w+ \d{4}, [\d.]+ MB\.$/);
    assert.ok(await lab().getByRole('button', { name: 'Forget the stored model' }).isVisible());
    assert.equal(await lab().getByRole('button', { name: 'Open GPT-2 weights (model.safetensors)' }).count(), 1, 'another file can still be opened');

    await lab().getByRole('button', { name: 'Forget the stored model' }).click();
    await store.filter({ hasText: 'Forgot the stored model' }).waitFor();
    assert.match(await store.textContent(), /^Forgot the stored model: [\d.]+ MB freed\. GPT-2 stays open in this tab until the page is reloaded\.$/);
    assert.ok(await lab().getByRole('button', { name: 'Forget the stored model' }).isHidden());
    assert.equal(await page.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('attention-calc-gpt2');
      const names = [];
      for await (const name of dir.keys()) names.push(name);
      return names.length;
    }), 0, 'nothing is left in storage');
    assert.equal(await map(LAST, 0).count(), 1, 'the open model stays');

    // A picked file is kept too; the page without gpt2-src opens it after a reload.
    await pick();
    await store.filter({ hasText: 'Kept in this browser’s storage' }).waitFor();
    files.requests = 0;
    await open();
    await waitForHeads();
    assert.match(await store.textContent(), /^Opened from this browser’s storage.*: model\.safetensors, kept/);
    assert.equal(files.requests, 0);
    assert.deepEqual(problems, []);
  });

  it('a picked file is copied into storage once its first heatmaps are up, not while it is read; the copy opens as the same model; a second file picked meanwhile is the one kept', async () => {
    // What the worker does, in order: the first run's heatmaps sent, storage written, the copy said kept.
    const watch = () => {
      self.order = [];
      const post = self.postMessage.bind(self);
      self.postMessage = (message, transfer) => {
        if (message?.value?.layer) self.order.push('heatmaps');
        if (message?.kept) self.order.push('kept');
        return post(message, transfer);
      };
      // Both ways of writing: a sync access handle's, and a writable stream's (the browser copies a File itself).
      for (const proto of [FileSystemSyncAccessHandle.prototype, FileSystemWritableFileStream.prototype]) {
        const write = proto.write;
        proto.write = function (...args) {
          if (self.order.at(-1) !== 'write') self.order.push('write');
          return write.apply(this, args);
        };
      }
    };
    const worker = new Promise((resolve) => page.once('worker', (w) => w.evaluate(watch).then(() => resolve(w))));
    await open();
    const w = await worker;
    await pick();
    await waitForHeads();
    const store = lab().locator('.gpt2-store-text');
    await store.filter({ hasText: 'Kept in this browser’s storage' }).waitFor();
    assert.deepEqual((await w.evaluate(() => self.order)).slice(0, 3), ['heatmaps', 'write', 'kept']);

    // The copy, read after a reload, is the same model.
    await open();
    await waitForHeads();
    assert.match(await store.textContent(), /^Opened from this browser’s storage.*: model\.safetensors, kept/);
    await assertLayer(model.run(GPT2_SENTENCE), LAST);

    // Two files picked one after the other, the second before the first is copied: the second is kept.
    await lab().getByRole('button', { name: 'Forget the stored model' }).click();
    await store.filter({ hasText: 'Forgot the stored model' }).waitFor();
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await lab().locator('input[type=file]').setInputFiles([MODEL_BF16, CONFIG]);
    // The first file's copy may be said kept before the second is open: wait for the second's.
    const storedNow = () => page.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('attention-calc-gpt2');
      const names = [];
      for await (const name of dir.keys()) names.push(name);
      // null while model.json is missing or being written (the page reads it beside the worker).
      const meta = await dir.getFileHandle('model.json').then((f) => f.getFile()).then((f) => f.text()).then((text) => JSON.parse(text)).catch(() => null);
      return { names: names.sort(), meta };
    });
    let stored;
    for (const started = Date.now(); Date.now() - started < 30_000; await page.waitForTimeout(100)) {
      stored = await storedNow();
      if (stored.meta?.size === statSync(MODEL_BF16).size && /^Kept in this browser’s storage/.test(await store.textContent())) break;
    }
    assert.equal(stored.meta?.size, statSync(MODEL_BF16).size, 'the bfloat16 file, picked second, is kept');
    assert.deepEqual(stored.names, [stored.meta.file, 'model.json'].sort(), 'one copy and its description, nothing half written');
    assert.deepEqual(problems, []);
  });

  it('where the browser cannot write a File itself (no createWritable), the copy is read back in slices and opens as the same model', async () => {
    const patched = new Promise((resolve) => page.once('worker', (worker) => resolve(worker.evaluate(() => { delete FileSystemFileHandle.prototype.createWritable; }))));
    await open();
    await patched;
    await pick();
    await waitForHeads();
    const store = lab().locator('.gpt2-store-text');
    await store.filter({ hasText: 'Kept in this browser’s storage' }).waitFor();
    await open();
    await waitForHeads();
    assert.match(await store.textContent(), /^Opened from this browser’s storage.*: model\.safetensors, kept/);
    await assertLayer(model.run(GPT2_SENTENCE), LAST);
    assert.deepEqual(problems, []);
  });

  it('storage that is full or refused, or a file that can no longer be read for its copy, is said, and the model stays open in the tab', async () => {
    for (const [label, patch, said] of [
      ['full', () => {
        FileSystemSyncAccessHandle.prototype.write = () => { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
        FileSystemWritableFileStream.prototype.write = () => Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
      },
        'Not kept in this browser’s storage: the browser’s storage is full. GPT-2 stays open in this tab; after a reload, open the file again.'],
      // The picked File no longer readable when the browser copies it, after the first heatmaps.
      ['unreadable', () => { FileSystemWritableFileStream.prototype.write = () => Promise.reject(new DOMException('The file could not be read.', 'NotReadableError')); },
        'Not kept in this browser’s storage: the file could not be read again to keep it (The file could not be read.). GPT-2 stays open in this tab; after a reload, open the file again.'],
      ['refused', () => { StorageManager.prototype.getDirectory = () => Promise.reject(new DOMException('Access denied.', 'SecurityError')); },
        'Not kept in this browser’s storage: this browser refused its storage (Access denied.); a private window refuses it. GPT-2 stays open in this tab; after a reload, open the file again.'],
    ]) {
      const patched = new Promise((resolve) => page.once('worker', (worker) => resolve(worker.evaluate(patch))));
      await open();
      await patched;
      await pick();
      await waitForHeads();
      await assertLayer(model.run(GPT2_SENTENCE), LAST);
      // A File's copy is written after the first heatmaps: what became of it is said a moment later.
      await lab().locator('.gpt2-store-text').filter({ hasText: /^Not kept/ }).waitFor({ timeout: 20_000 }).catch(() => {});
      assert.equal(await lab().locator('.gpt2-store-text').textContent(), said, label);
      assert.ok(await lab().getByRole('button', { name: 'Forget the stored model' }).isHidden(), label);
    }
  });

  it('by keyboard alone: text, <|endoftext|>, layer, a head\'s cells, following it', async () => {
    await open(` gpt2-src="${env.url}models/d64-f32/model.safetensors"`);
    await waitForHeads();
    await lab().getByLabel('Text GPT-2 reads').focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' again');
    await page.keyboard.press('Enter');
    const text = `${GPT2_SENTENCE} again`;
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.querySelector('attention-calc').shadowRoot.activeElement.type), 'checkbox');
    await page.keyboard.press('Space');
    await lab().locator('.token-strip .token').first().filter({ hasText: '<|endoftext|>' }).waitFor();
    await lab().getByRole('combobox', { name: 'Layer' }).focus();
    await page.keyboard.press('ArrowUp');
    await waitForHeads(1);
    const run = model.run(text, { endOfTextFirst: true });
    await assertLayer(run, 1);
    // The map's cursor starts on the last token's own cell; Home moves it to the first key.
    await map(1, 2).focus();
    await page.keyboard.press('Home');
    const last = run.tokens.length - 1;
    const readout = await lab().locator('figure.learned-head').nth(2).locator('.head-readout').textContent();
    assert.equal(readout, `Query “${gpt2Label(run.tokens[last])}” (position ${last}), key “<|endoftext|>” (position 0): weight ${format(run.layers[1].heads[2].weights[last][0], 3)}.`);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    assert.equal(await lab().getByRole('button', { name: 'Follow GPT-2 layer 1 head 2 in the text' }).getAttribute('aria-pressed'), 'true');
    assert.match(await lab().locator('.look-readout').textContent(), new RegExp(`^From “${gpt2Label(run.tokens[last - 1])}” at position ${last - 1}, GPT-2 layer 1 head 2`));
    // The token strip, by keyboard: the focused token moves, and the readout with it.
    await lab().getByRole('slider', { name: 'Focused token' }).focus();
    await page.keyboard.press('Home');
    assert.match(await lab().locator('.look-readout').textContent(), /^From “<\|endoftext\|>” at position 0, GPT-2 layer 1 head 2.*The first token can only see itself\.$/);
    assert.deepEqual(problems, []);
  });

  it('all heads at a glance: the layers × heads table agrees with every head\'s scores; a click, or Enter, opens that head', async () => {
    await open(` gpt2-src="${env.url}models/d64-f32/model.safetensors"`);
    await waitForHeads();
    const text = `${GPT2_SENTENCE} ${GPT2_SENTENCE}`;
    await lab().getByLabel('Text GPT-2 reads').fill(text);
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    const run = model.run(text);
    await page.waitForFunction((n) => document.querySelector('attention-calc').shadowRoot.querySelectorAll('.token-strip .token').length === n, run.tokens.length);
    const cells = await lab().locator('.gpt2-all-table button').evaluateAll((buttons) => buttons.map((b) => [Number(b.dataset.layer), Number(b.dataset.head), b.textContent, b.getAttribute('aria-label'), b.querySelector('.swatch').className]));
    assert.equal(cells.length, 3 * 4);
    for (const [l, i, said, name, swatch] of cells) {
      const d = run.layers[l].heads[i];
      const best = strongestRole(d);
      assert.equal(said, gridText(d), `${l}.${i}`);
      assert.equal(name, `GPT-2 head ${l}.${i}: ${best.earned ? best.role.label : 'no role'}, ${best.role.score} ${format(best.score, 2)}`);
      assert.equal(swatch, `swatch ${best.earned ? best.role.key : 'none'}`);
      // The strongest score, and earned exactly when it reaches the threshold.
      for (const r of ROLES) if (d[r.key] !== null) assert.ok(d[r.key] <= best.score);
      assert.equal(best.earned, best.score >= ROLE_THRESHOLD);
    }
    await lab().locator('.gpt2-all-table button[data-layer="0"][data-head="3"]').click();
    assert.equal(await lab().getByRole('combobox', { name: 'Layer' }).inputValue(), '0');
    // The map takes focus once the worker has sent the layer's weights, not at the click.
    assert.equal(await focusWhenSettled('GPT-2 layer 0 head 3'), 'GPT-2 layer 0 head 3');
    assert.equal(await lab().getByRole('button', { name: 'Follow GPT-2 layer 0 head 3 in the text' }).getAttribute('aria-pressed'), 'true');
    await assertLayer(run, 0);
    await lab().locator('.gpt2-all-table button[data-layer="1"][data-head="2"]').focus();
    await page.keyboard.press('Enter');
    await waitForHeads(1);
    assert.equal(await focusWhenSettled('GPT-2 layer 1 head 2'), 'GPT-2 layer 1 head 2');
    assert.deepEqual(problems, []);
  });

  it('"Copy as PyTorch" copies a transformers script for this text, layer and <|endoftext|> choice; the layer\'s heads save as one SVG', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
    await open(` gpt2-src="${env.url}models/d64-f32/model.safetensors"`);
    await waitForHeads();
    const text = 'He said "hi" \\ then left';
    await lab().getByLabel('Text GPT-2 reads').fill(text);
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    await lab().getByLabel('Start with <|endoftext|>').check();
    await lab().getByRole('combobox', { name: 'Layer' }).selectOption('1');
    await waitForHeads(1);
    await lab().getByRole('button', { name: 'Copy as PyTorch' }).click();
    await lab().getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    const script = await page.evaluate(() => navigator.clipboard.readText());
    const src = `${env.url}models/d64-f32/model.safetensors`;
    const top = model.run(text, { endOfTextFirst: true }).next[0];
    assert.equal(script, pytorchScript({ text, layer: 1, endOfTextFirst: true, model: { name: src, url: src, configGiven: true }, lens: true, attribute: { id: top.id, token: top.token } }));
    for (const part of ['attn_implementation="eager"', 'output_attentions=True', 'layer = 1', `text = ${JSON.stringify(text)}`, 'ids = [tokenizer.eos_token_id] + ids', 'outputs.attentions[layer][0]', 'plt.show()']) {
      assert.ok(script.includes(part), part);
    }
    // Valid Python, where a python3 is at hand to parse it (not run: no transformers here).
    try {
      execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: script });
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    const [download] = await Promise.all([page.waitForEvent('download'), lab().getByRole('button', { name: 'Save the layer’s heads as SVG' }).click()]);
    assert.equal(download.suggestedFilename(), 'gpt2-layer-1-heads.svg');
    const saved = readFileSync(await download.path(), 'utf8');
    assert.match(saved, /^<\?xml/);
    for (let i = 0; i < 4; i++) assert.ok(saved.includes(`aria-label="GPT-2 layer 1 head ${i}"`), `head ${i} in the SVG`);
    assert.ok(saved.includes('<title>GPT-2 layer 1: 4 heads on'));
    assert.deepEqual(problems, []);
  });

  it('no axe-core violations in light and dark; fits 360 px with no sideways page scroll', async () => {
    for (const theme of ['light', 'dark']) {
      const a = await openPage(env.browser, { bypassCSP: true });
      try {
        await a.page.setViewportSize({ width: 360, height: 800 });
        await open(` theme="${theme}" gpt2-src="${env.url}models/d64-f32/model.safetensors"`, a.page, a.context);
        await waitForHeads(LAST, a.page);
        assert.deepEqual((await axeViolations(a.page)).violations, [], theme);
        assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), 360, theme);
        await a.page.screenshot({ path: `test-results/gpt2-panel-360-${theme}.png`, fullPage: true }).catch(() => {});
        assert.deepEqual(a.problems, []);
      } finally {
        await a.context.close();
      }
    }
  });
});
