// Where the time goes when a learner opens GPT-2 small's model.safetensors in the browser (issue 39
// §3): Debian's Chromium with a persistent profile (launchPersistentContext, so the Origin Private
// File System is a real one on disk), GPT-2 small's shape (build-fixtures/gpt2-small-shaped, 548 MB),
// each part timed on its own in a module worker (tools/bench/gpt2-open-worker.js), as the panel's
// worker runs it, then the panel itself: picking the file to its first heatmaps, and a reload.
//   node tools/bench-gpt2-open.mjs [--rounds 3]
// The file is read from the operating system's page cache after the first round: "the disk" here
// is the fastest it can be. It prints figures; it is not a test.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { startServer } from './serve.mjs';
import { describeProcessor, processorRecord } from './bench/processor.mjs';
import { largestRenderer } from './bench/renderer-memory.mjs';
import { median } from './bench/turns.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODEL = join(ROOT, 'build-fixtures', 'gpt2-small-shaped', 'model.safetensors');
const at = process.argv.indexOf('--rounds');
const ROUNDS = at > 0 ? Number(process.argv[at + 1]) : 3;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const PROBE_PAGE = `<!doctype html><meta charset="utf-8"><title>open</title><input type="file">
<script type="module">
  const worker = new Worker('/tools/bench/gpt2-open-worker.js', { type: 'module' });
  const input = document.querySelector('input');
  const { bestBuild } = await import('/web/api/wasm-features.js');
  const ask = (target, step) => new Promise((resolve, reject) => {
    target.onmessage = ({ data }) => (data.ok ? resolve(data) : reject(new Error(data.error)));
    target.postMessage({ step, file: input.files[0], build: bestBuild() });
  });
  window.step = (step) => ask(worker, step);
  // A step in a new worker, ended after: its module's heap has never been touched.
  window.freshStep = async (step) => {
    const fresh = new Worker('/tools/bench/gpt2-open-worker.js', { type: 'module' });
    try {
      return await ask(fresh, step);
    } finally {
      fresh.terminate();
    }
  };
  window.build = bestBuild();
</script>`;

const PANEL_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title>
<script type="module" src="/web/attention-calc.js"></script></head><body><attention-calc panels="gpt2"></attention-calc></body></html>`;

async function main() {
  if (!existsSync(MODEL)) throw new Error(`${MODEL} is missing: node tools/bench-gpt2.mjs makes it`);
  const size = statSync(MODEL).size;
  const { server, url } = await startServer({ root: ROOT });
  const profile = mkdtempSync(join(tmpdir(), 'attn-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    console.log(`opening GPT-2 small's shape (${(size / 1e6).toFixed(0)} MB, float32) in Chromium ${context.browser()?.version() ?? ''} with a persistent profile`);
    console.log(`processor: ${describeProcessor(processorRecord())}; ${ROUNDS} rounds, medians (lowest–highest)\n`);
    const page = await context.newPage();
    await page.route(`${url}open.html`, (route) => route.fulfill({ contentType: 'text/html', body: PROBE_PAGE }));
    await page.goto(`${url}open.html`);
    await page.waitForFunction(() => typeof window.step === 'function');
    await page.setInputFiles('input', MODEL);
    const build = await page.evaluate(() => window.build);
    const step = (name) => page.evaluate((n) => (n === 'openFresh' ? window.freshStep(n) : window.step(n)), name);
    const load = await step('load');
    console.log(`GPT-2's module (${build} build) and tokenizer loaded in the worker: ${load.ms.toFixed(0)} ms`);
    const parts = ['plain', 'read', 'readCopy', 'stream', 'open', 'openFresh', 'firstRun', 'store', 'openWriting', 'openKeep', 'openStoredFile', 'openStored'];
    const figures = Object.fromEntries(parts.map((p) => [p, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const part of parts) figures[part].push(await step(part));
      await step('forget');
    }
    const show = (list, key = 'ms') => {
      const xs = list.map((f) => f[key]);
      return `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    };
    const rate = (list) => `${(size / 1e6 / (median(list.map((f) => f.ms)) / 1000)).toFixed(0)} MB/s`;
    const rows = [
      ['the limit: the whole File into one ArrayBuffer (File.arrayBuffer())', show(figures.plain), rate(figures.plain)],
      ['read the File in 32 MiB slices, one asked for ahead (the panel before), nothing else', show(figures.read), rate(figures.read)],
      ['… and copy each slice into the wasm heap', show(figures.readCopy), rate(figures.readCopy)],
      ['read the File through its byte stream into one reused buffer (the panel now), nothing else', show(figures.stream), rate(figures.stream)],
      ['openFlatGpt2 (read, stage, convert into the weights), on a heap used before', show(figures.open), rate(figures.open)],
      ['openFlatGpt2 in a new worker, its heap touched for the first time (as in the panel)', show(figures.openFresh), rate(figures.openFresh)],
      ['the first run of the sentence', show(figures.firstRun), ''],
      ['the stored copy alone (OPFS, sync access handle)', show(figures.store), `written ${show(figures.store, 'written')}, flushed ${show(figures.store, 'finish')}`],
      ['open, writing the copy as the File is read (the panel before)', show(figures.openWriting), `opened ${show(figures.openWriting, 'opened')}`],
      ['open, then copy the File into storage (the panel now: the copy after the first heatmaps)', show(figures.openKeep), `opened ${show(figures.openKeep, 'opened')}`],
      ['open the stored copy as a File (a reload, before)', show(figures.openStoredFile), rate(figures.openStoredFile)],
      ['open the stored copy through its sync access handle (a reload, now)', show(figures.openStored), rate(figures.openStored)],
    ];
    console.log('\n| part | time | |\n|---|---|---|');
    for (const [what, time, extra] of rows) console.log(`| ${what} | ${time} | ${extra} |`);
    const errors = figures.store.concat(figures.openKeep, figures.openWriting).map((f) => f.error).filter(Boolean);
    if (errors.length) console.log(`storage errors: ${[...new Set(errors)].join('; ')}`);
    // The panel, as a learner meets it: the file picked, then a reload that opens the stored copy.
    await step('forget');
    const panel = page;
    await panel.route(`${url}lesson.html`, (route) => route.fulfill({ contentType: 'text/html', body: PANEL_PAGE }));
    // The moments the panel says the model is open (its line "GPT-2 open, from …", between the open
    // and the first run) and shows its first heatmap, taken in the page at every frame with Date.now(),
    // the clock this process reads too. Playwright's own waits poll further apart the longer they
    // wait (up to 500 ms apart): in a trace of two picks they saw the heatmap 0.29 and 0.37 s after
    // the page had it.
    const milestones = () => panel.evaluate(() => new Promise((resolve, reject) => {
      const at = {};
      const late = setTimeout(() => reject(new Error('no heatmap within 120 s')), 120_000);
      const look = () => {
        const root = document.querySelector('attention-calc')?.shadowRoot;
        if (root && at.open === undefined && /GPT-2 open, from/.test(root.textContent)) at.open = Date.now();
        const map = root?.querySelector('[role="img"][aria-label="GPT-2 layer 5 head 0"]');
        if (map?.getClientRects().length) {
          clearTimeout(late);
          resolve({ open: at.open ?? Date.now(), map: Date.now() });
        } else {
          requestAnimationFrame(look);
        }
      };
      look();
    }));
    const picked = [], reloaded = [], pickedOpen = [], reloadedOpen = [], memory = [], before = [], settled = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Nothing stored, so the panel waits for the file (a stored copy opens by itself).
      await panel.goto(`${url}open.html`);
      await panel.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {}));
      await panel.goto(`${url}lesson.html`);
      const input = panel.locator('attention-calc').locator('input[type=file]');
      await input.waitFor({ state: 'attached', timeout: 30_000 });
      before.push(largestRenderer());
      const watched = milestones();
      let t = Date.now();
      await input.setInputFiles(MODEL);
      let at = await watched;
      pickedOpen.push(at.open - t);
      picked.push(at.map - t);
      memory.push(largestRenderer());
      // The copy is written once the model opened; wait for the panel to say it is kept.
      await panel.waitForFunction(() => /Kept in this browser/.test(document.querySelector('attention-calc').shadowRoot.textContent), null, { timeout: 120_000 });
      await panel.waitForTimeout(1000);
      settled.push(largestRenderer());
      t = Date.now();
      await panel.reload({ waitUntil: 'commit' });
      at = await milestones();
      reloadedOpen.push(at.open - t);
      reloaded.push(at.map - t);
    }
    const ms = (xs) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
    console.log(`\nthe panel: the file picked to the first heatmaps ${ms(picked)} (to "GPT-2 open" ${ms(pickedOpen)});`
      + ` a reload to the first heatmaps ${ms(reloaded)} (to "GPT-2 open" ${ms(reloadedOpen)})`);
    const weights = 124_439_808 * 4; // GPT-2 small's float32 parameters
    const mb = (xs) => `${(median(xs) / 1e6).toFixed(0)} MB`;
    const over = (xs) => `${(100 * (median(xs) / weights - 1)).toFixed(0)} %`;
    // Both measures of the renderer (bench/renderer-memory.mjs): its resident set, Chromium's
    // shared code and fonts included, and its private footprint, the task manager's "Memory footprint".
    for (const [kind, words] of [['resident', "resident set (VmRSS)"], ['private', 'private footprint (RssAnon + VmSwap, Chromium\'s "Memory footprint")']]) {
      const of = (xs) => xs.map((x) => x[kind]);
      console.log(`the tab's memory, its renderer's ${words}, against the ${(weights / 1e6).toFixed(0)} MB of weights (goal: at most 25 % over):`
        + ` ${mb(of(before))} before the file was picked (the page, the calculator and the panel); ${mb(of(memory))} at the first heatmaps (${over(of(memory))} over);`
        + ` ${mb(of(settled))} a second after the copy was kept (${over(of(settled))} over)`);
    }
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
