// Issue 14, training live in the browser: "Train in this browser" in the learned-heads panel, in
// headless Chromium under the strict CSP. A model trained from seed 1 in the module worker reaches
// the goals (the default recipe: no smaller configuration was needed), beside a second one without
// the √d_k scale, while a calculator on the same page answers keystrokes within 50 ms; stop,
// resume and reset from the keyboard; axe-core in both themes; 360 px and a 320 px column; and
// dist/ embedded alone. Measured figures (steps, seconds, latency) are printed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';

import { startServer } from '../../tools/serve.mjs';
import { axeViolations, launchChromium, openPage } from './chromium.mjs';
import { coursePage, servedPages, servedWeb } from './served.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const PANEL = 'Look inside a trained model';
const LATENCY_BUDGET_MS = 50; // input → update, per the issue

const lab = (page) => page.getByRole('group', { name: PANEL });
const training = (page) => lab(page).getByRole('region', { name: 'Train in this browser' });
// The panel's own elements, read in its shadow root (the learned panel is the last widget).
const read = (page, selector) => page.evaluate((s) => [...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.querySelector(s)?.textContent ?? null, selector);
const progressStep = async (page) => Number((await read(page, '.train-progress'))?.match(/step (\d+)/)?.[1] ?? 0);

async function openPanel(page, context, url, body = '<attention-calc panels="learned"></attention-calc>', options = {}) {
  await page.goto(await coursePage(context, url, body, options));
  await page.evaluate(async () => {
    await customElements.whenDefined('attention-calc');
    await Promise.all([...document.querySelectorAll('attention-calc')].map((e) => e.ready));
  });
  await training(page).getByRole('button', { name: 'Train in this browser' }).waitFor({ timeout: 30_000 });
}

describe('train in this browser', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  it('trains from seed 1 in a worker to the goals, beside a model with no √d_k scaling, while a calculator on the page answers keystrokes within 50 ms', async () => {
    await openPanel(page, context, env.url, '<attention-calc id="calc" panels="inputs,weights"></attention-calc><attention-calc panels="learned"></attention-calc>');
    // Keystroke (its event time) to the calculator's attention-change, on the page's main thread.
    await page.evaluate(() => {
      const calc = document.getElementById('calc');
      window.latencies = [];
      window.longTasks = []; // main-thread tasks over 50 ms, for the record
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
      let down = null;
      calc.addEventListener('keydown', (e) => { down = e.timeStamp; }, true);
      calc.addEventListener('attention-change', () => {
        if (down !== null) window.latencies.push(performance.now() - down);
        down = null;
      });
    });
    const started = Date.now();
    await training(page).getByRole('button', { name: 'Compare: no √d_k scaling' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.querySelector('.train-progress')?.textContent.includes('steps/s'));
    // The worker blocks for its steps; the page must not: type while it trains.
    const cell = page.getByLabel('Q row 1 column 1', { exact: true });
    await cell.focus();
    const typed = [];
    for (let k = 0; k < 24; k++) {
      await cell.press('Control+a');
      await page.keyboard.type(String((k % 9) - 4), { delay: 0 });
      typed.push(k);
      await page.waitForTimeout(120);
    }
    const latencies = await page.evaluate(() => window.latencies);
    const stepDuringTyping = await progressStep(page);
    assert.ok(latencies.length >= typed.length, `${latencies.length} updates for ${typed.length} keystrokes`);
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(`keystroke → attention-change while training (step ${stepDuringTyping}): median ${sorted[sorted.length >> 1].toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms over ${sorted.length}`);
    assert.ok(stepDuringTyping > 0, 'training went on while the learner typed');
    // Nine in ten within the budget: on a loaded 2-core machine the calculator's own update (a
    // task that starts at the keystroke) has taken 70 ms once in a while, training or not. Training
    // on the page's thread would hold most keystrokes for a chunk of steps (50–150 ms).
    const within = sorted.filter((x) => x < LATENCY_BUDGET_MS).length;
    assert.ok(within >= 0.9 * sorted.length, `${within} of ${sorted.length} updates within ${LATENCY_BUDGET_MS} ms: ${sorted.map((x) => x.toFixed(1)).join(' ')}`);

    // Both stop by themselves once the goals hold (or at 6,000 steps); the panel says after how many.
    await page.waitForFunction(() => !/has not met them yet/.test([...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.querySelector('.train-compare-result')?.textContent ?? 'has not met them yet'),
      null, { timeout: 150_000, polling: 500 });
    const compare = await read(page, '.train-compare-result');
    console.log(`measured in ${((Date.now() - started) / 1000).toFixed(0)} s of wall time: ${compare}`);
    const longTasks = await page.evaluate(() => window.longTasks);
    console.log(`main-thread tasks over 50 ms during training: ${longTasks.length ? longTasks.map((d) => d.toFixed(0)).join(', ') : 'none'}`);
    const scaled = compare.match(/the model with √d_k met the goals after (\d+) steps \(([\d.]+) s\)/);
    assert.ok(scaled, `the scaled model met the goals: ${compare}`);
    assert.equal(Number(scaled[1]) % 250, 0, 'the goals are measured every 250 steps');
    assert.match(compare, /the model with no scaling (met the goals after \d+ steps \([\d.]+ s\)|did not meet them within \d+ steps)/);
    assert.match(compare, /The lesson says: forgetting the scale with large d_k makes training sluggish, because the softmax saturates\./);
    // The phase change comes before the goals: the second copy's loss fell below half the first's.
    const summary = await read(page, '.train-summary');
    const phase = summary.match(/The scaled model \(with √d_k\): .*?fell below half the first copy's at step (\d+)\./);
    assert.ok(phase && Number(phase[1]) < Number(scaled[1]), summary);
    // One chart, four named lines: both copies of both models.
    const chart = training(page).getByRole('img', { name: /^Training loss against steps/ });
    assert.equal(await chart.locator('path.loss-line').count(), 4);
    assert.equal(await chart.locator('path.loss-line[stroke-dasharray]').count(), 2, 'the unscaled model\'s lines are dashed');
    assert.deepEqual(await training(page).getByRole('list', { name: 'Lines of the chart' }).getByRole('listitem').allTextContents(),
      [' with √d_k: first copy', ' with √d_k: second copy', ' no √d_k scaling: first copy (dashed)', ' no √d_k scaling: second copy (dashed)']);
    // The heads above show the scaled model as trained, and can show the unscaled one.
    assert.match(await read(page, '.learned-source'), new RegExp(`trained in this browser, seed 1, step ${scaled[1]}\\b`));
    await training(page).getByRole('radio', { name: 'the unscaled model (no √d_k scaling)' }).check();
    assert.match(await read(page, '.learned-source'), /trained in this browser, seed 1, step \d+, no √d_k scaling/);
    assert.deepEqual(problems, []);
  });

  it('stop, resume and reset from the keyboard: stop holds the step, resume goes on, reset ends the worker and shows the shipped checkpoint again', async () => {
    await openPanel(page, context, env.url);
    const workers = [];
    page.on('worker', (w) => workers.push(w));
    const seed = training(page).getByLabel('Seed');
    await seed.focus();
    await seed.fill('3');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => [...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.activeElement?.textContent), 'Train in this browser');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /step ([1-9]\d{2,})/.test([...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
    // Focus went to Stop, which replaced the button that was pressed.
    assert.equal(await page.evaluate(() => document.querySelector('attention-calc').shadowRoot.activeElement?.textContent), 'Stop');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(1000); // a chunk of steps already under way finishes
    const held = await progressStep(page);
    await page.waitForTimeout(1500);
    assert.equal(await progressStep(page), held, 'no step while stopped');
    assert.equal(await page.evaluate(() => document.querySelector('attention-calc').shadowRoot.activeElement?.textContent), 'Resume');
    await page.keyboard.press('Enter');
    await page.waitForFunction((h) => Number([...document.querySelectorAll('attention-calc')].at(-1).shadowRoot.querySelector('.train-progress')?.textContent.match(/step (\d+)/)?.[1]) > h, held, { timeout: 30_000 });
    assert.match(await read(page, '.learned-source'), /trained in this browser, seed 3, step \d+/);
    assert.equal(workers.length, 1);
    const ended = new Promise((resolve) => workers[0].once('close', resolve));
    await training(page).getByRole('button', { name: 'Reset' }).focus();
    await page.keyboard.press('Enter');
    await ended; // the worker was terminated
    assert.match(await read(page, '.learned-source'), /^Heads of the shipped checkpoint/);
    assert.equal(await page.evaluate(() => document.querySelector('attention-calc').shadowRoot.activeElement?.textContent), 'Train in this browser');
    assert.equal(await read(page, '.train-progress'), '');
    assert.equal(await training(page).getByRole('img', { name: /^Training loss/ }).count(), 0);
    assert.deepEqual(problems, []);
  });

  it('a widget taken off the page ends its training worker; put back, its panel is built again, ready to train', async () => {
    await openPanel(page, context, env.url);
    const workers = [];
    page.on('worker', (w) => workers.push(w));
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    await page.waitForFunction(() => /step [1-9]\d{2}/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
    assert.equal(workers.length, 1);
    const ended = new Promise((resolve, reject) => {
      workers[0].once('close', resolve);
      setTimeout(() => reject(new Error('the worker of a widget off the page still runs')), 10_000);
    });
    await page.evaluate(() => { window.removed = document.querySelector('attention-calc'); window.removed.remove(); });
    await ended; // the lab was disposed of: its worker was terminated
    // Put back, the widget builds its labs again.
    await page.evaluate(() => document.body.append(window.removed));
    await training(page).getByRole('button', { name: 'Train in this browser' }).waitFor({ timeout: 30_000 });
    assert.equal(await read(page, '.train-progress'), '');
    assert.match(await read(page, '.learned-source'), /^Heads of the shipped checkpoint/);
    assert.equal(workers.length, 1, 'no worker until Train is pressed');
    assert.deepEqual(problems, []);
  });

  it('a typed seed becomes the whole number from 0 to 2^53 − 1 it means, shown in the box and used: 12.9 trains from seed 12, −5 from seed 0', async () => {
    await openPanel(page, context, env.url);
    const seed = training(page).getByLabel('Seed');
    for (const [typed, used] of [['12.9', 12], ['-5', 0]]) {
      await seed.fill(typed);
      await training(page).getByRole('button', { name: 'Train in this browser' }).click();
      assert.equal(await seed.inputValue(), String(used), typed);
      await page.waitForFunction((u) => new RegExp(`trained in this browser, seed ${u}, step 0`)
        .test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source')?.textContent), used, { timeout: 60_000 });
      assert.equal(await read(page, '.train-status'), `Training from seed ${used}.`);
      await training(page).getByRole('button', { name: 'Reset' }).click();
    }
    assert.deepEqual(problems, []);
  });

  it('while training: axe-core finds nothing in light and dark; the section fits 360 px and a 320 px column', async () => {
    const a = await openPage(env.browser, { bypassCSP: true });
    try {
      for (const [width, theme] of [[360, 'light'], [360, 'dark']]) {
        await a.page.setViewportSize({ width, height: 800 });
        await openPanel(a.page, a.context, env.url, `<main><h1>A lesson</h1><attention-calc panels="learned" theme="${theme}"></attention-calc></main>`);
        await training(a.page).getByRole('button', { name: 'Compare: no √d_k scaling' }).click();
        await a.page.waitForFunction(() => /step [1-9]\d{2}/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
        await training(a.page).getByRole('button', { name: 'Stop' }).click();
        await a.page.evaluate(() => { document.querySelector('attention-calc').shadowRoot.querySelector('.train-values').open = true; });
        assert.deepEqual((await axeViolations(a.page)).violations, [], theme);
        assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), 360, `${theme}: no sideways scroll at 360 px`);
        await training(a.page).screenshot({ path: `test-results/learned-train-360-${theme}.png` }).catch(() => {});
      }
      assert.deepEqual(a.problems, []);
    } finally {
      await a.context.close();
    }
    // A 320 px column on a wide screen (set by an inline style: this page has no CSP): nothing
    // of the section sticks out of it.
    await page.setViewportSize({ width: 1280, height: 800 });
    await openPanel(page, context, env.url, '<div style="width:320px"><attention-calc panels="learned"></attention-calc></div>', { csp: false });
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    await page.waitForFunction(() => /step [1-9]\d{2}/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
    const out = await page.locator('attention-calc').evaluate((e) => {
      const right = e.getBoundingClientRect().right;
      const section = e.shadowRoot.querySelector('.learned-train');
      return [section, ...section.querySelectorAll('*')].filter((el) => !el.ownerSVGElement && el.getBoundingClientRect().right > right + 1)
        .filter((el) => !el.closest('.train-table-box')?.contains(el) || el.classList.contains('train-table-box'))
        .map((el) => `${el.localName}.${el.className?.baseVal ?? el.className}`);
    });
    assert.deepEqual(out, []);
    assert.deepEqual(problems, []);
  });

  it('the first rate after Resume counts the time spent training, not the time stopped', async () => {
    await openPanel(page, context, env.url);
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    const rate = async () => Number((await read(page, '.train-progress'))?.match(/(\d+) steps\/s/)?.[1] ?? NaN);
    await page.waitForFunction(() => /step [1-9]\d{2}/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
    const before = await rate();
    await training(page).getByRole('button', { name: 'Stop' }).click();
    await page.waitForTimeout(500); // a chunk under way ends
    const held = await progressStep(page);
    await page.waitForTimeout(3000);
    await training(page).getByRole('button', { name: 'Resume' }).click();
    await page.waitForFunction((h) => Number(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress').textContent.match(/step (\d+)/)[1]) > h, held, { timeout: 30_000 });
    const after = await rate();
    console.log(`steps/s before Stop ${before}, at the first point after Resume (3 s stopped) ${after}`);
    assert.ok(after > before * 0.4, `${after} steps/s after Resume against ${before} before`);
    assert.deepEqual(problems, []);
  });
});

describe('train in this browser from dist/, embedded alone', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  let server, url, browser;
  before(async () => {
    ({ server, url } = await startServer({ root: DIST }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('<attention-calc panels="learned"> from dist/ starts its worker (labs/learned-worker.js) under the strict CSP and trains, with no console error', async () => {
    const { page, context, problems } = await openPage(browser);
    try {
      const workers = [];
      page.on('worker', (w) => workers.push(new URL(w.url()).pathname));
      await openPanel(page, context, url);
      await training(page).getByRole('button', { name: 'Train in this browser' }).click();
      await page.waitForFunction(() => /step [1-9]\d{2}/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.train-progress')?.textContent), null, { timeout: 60_000 });
      assert.deepEqual(workers, ['/labs/learned-worker.js']);
      await page.waitForFunction(() => /trained in this browser, seed 1, step \d+/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source')?.textContent), null, { timeout: 30_000 });
      assert.equal(await training(page).getByRole('img', { name: /^Training loss against steps/ }).count(), 1);
      // The section's stylesheet was applied (it loads beside the element's files).
      assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('attention-calc').shadowRoot.querySelector('.train-controls')).display), 'flex');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});

// A stand-in for the training worker, installed before the page's scripts run: the test plays the
// worker's part (its messages, a late one from a worker already ended, an error), and counts the
// panel's capture listeners on the window (one per input type; 'wheel' stands for them all).
function fakeWorker() {
  window.fakeWorkers = [];
  window.Worker = class {
    constructor(url) {
      this.url = url;
      this.posted = [];
      this.terminated = false;
      window.fakeWorkers.push(this);
    }
    postMessage(message) { this.posted.push(message); }
    terminate() { this.terminated = true; }
  };
  window.wheelListeners = new Set();
  const add = window.addEventListener, remove = window.removeEventListener;
  window.addEventListener = function (type, listener, options) {
    if (type === 'wheel') window.wheelListeners.add(listener);
    return add.call(this, type, listener, options);
  };
  window.removeEventListener = function (type, listener, options) {
    if (type === 'wheel') window.wheelListeners.delete(listener);
    return remove.call(this, type, listener, options);
  };
}

describe('the training panel against a stand-in worker', () => {
  const env = servedWeb();
  let page, problems, context;
  beforeEach(async () => {
    ({ page, problems, context } = await openPage(env.browser, { initScript: fakeWorker }));
  });
  afterEach(async () => {
    await context.close();
  });

  const root = 'document.querySelector("attention-calc").shadowRoot';
  // The shipped model's run of the panel's text, standing for a trained model's.
  const runMessage = (step) => page.evaluate(async (s) => {
    const { loadAttention } = await import(new URL('attention.js', location.href).href);
    window.testAttn ??= await loadAttention();
    const model = await window.testAttn.learnedModel();
    const text = document.querySelector('attention-calc').shadowRoot.querySelector('.learned-text').value;
    return { type: 'run', key: 'sqrt', step: s, run: model.run(text) };
  }, step);
  const deliver = (i, data) => page.evaluate(([k, d]) => window.fakeWorkers[k].onmessage({ data: d }), [i, data]);
  const source = () => read(page, '.learned-source');
  const focused = () => page.evaluate((r) => eval(r).activeElement?.textContent ?? null, root);

  it('a late message from a worker ended by Reset reaches nothing; a failure shows the shipped heads again and gives focus to Reset', async () => {
    await openPanel(page, context, env.url);
    const start = training(page).getByRole('button', { name: 'Train in this browser' });
    await start.click();
    await deliver(0, { type: 'ready' });
    await deliver(0, await runMessage(250));
    await page.waitForFunction(() => /^Heads of the model trained in this browser, seed 1, step 250/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source').textContent));
    await training(page).getByRole('button', { name: 'Reset' }).click();
    assert.equal(await page.evaluate(() => window.fakeWorkers[0].terminated), true);
    await start.click();
    await deliver(1, { type: 'ready' });
    // The ended worker's messages, still on their way: a run and an error about no model.
    await deliver(0, await runMessage(500));
    await deliver(0, { type: 'error', message: 'late' });
    await page.waitForTimeout(600); // longer than a refresh of the heads waits for the input to pause
    assert.match(await source(), /^Heads of the shipped checkpoint/);
    assert.equal(await read(page, '.train-error'), '');
    assert.equal(await training(page).getByRole('button', { name: 'Stop' }).isVisible(), true, 'the new run goes on');

    // The shown model fails while its heads are shown, with Stop focused.
    await deliver(1, await runMessage(250));
    await page.waitForFunction(() => /^Heads of the model trained in this browser/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source').textContent));
    await training(page).getByRole('button', { name: 'Stop' }).focus();
    await deliver(1, { type: 'error', key: 'sqrt', message: 'the loss is not finite' });
    assert.match(await source(), /^Heads of the shipped checkpoint/);
    assert.equal(await focused(), 'Reset');
    assert.match(await read(page, '.train-error'), /failed: the loss is not finite/);

    // The worker itself stops (its script fails) while trained heads are shown: the shipped
    // checkpoint's heads come back, and follow new text.
    await training(page).getByRole('button', { name: 'Reset' }).click();
    await start.click();
    await deliver(2, { type: 'ready' });
    await deliver(2, await runMessage(250));
    await page.waitForFunction(() => /^Heads of the model trained in this browser/.test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source').textContent));
    await page.evaluate(() => window.fakeWorkers[2].onerror({ message: 'boom', preventDefault() {} }));
    assert.match(await read(page, '.train-error'), /The training worker stopped: boom/);
    await lab(page).getByLabel('Text the model reads').fill('abc abc');
    await lab(page).getByLabel('Text the model reads').press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source').textContent.startsWith('Heads of the shipped checkpoint'));
    assert.doesNotMatch(await source(), /until it has run on the new one/);
    assert.deepEqual(problems, []);
  });

  it('the comparison says what was measured, including when only the scaled model met the goals; d_k and the uniform guess come from the model trained', async () => {
    await openPanel(page, context, env.url);
    const compare = training(page).getByRole('button', { name: 'Compare: no √d_k scaling' });
    // A configuration unlike the shipped one: 9 letters (10 classes with BOS), d_k = 48 / 2 = 24.
    const config = { layers: 2, heads: 2, dModel: 48, context: 33, vocabulary: 'abcdefgh ', scale: 'sqrt', seed: 1, steps: 0 };
    const goals = { previousToken: 0.9, induction: 0.9, firstToken: 0.5, ratio: 0.05 };
    const finish = async (worker, sqrt, none) => {
      await deliver(worker, { type: 'ready' });
      for (const key of ['sqrt', 'none']) await deliver(worker, { type: 'check', key, step: 0, goals, met: false, config });
      await deliver(worker, { type: 'done', key: 'sqrt', ...sqrt, goals });
      await deliver(worker, { type: 'done', key: 'none', ...none, goals });
    };
    await compare.click();
    await finish(0, { step: 2500, seconds: 40, met: true }, { step: 1750, seconds: 30, met: true });
    assert.match(await read(page, '.train-compare-result'), /Here the unscaled model met them first\. At this size d_k = 24, so unscaled scores are only √24 ≈ 4\.9 times larger/);
    assert.match(await read(page, '.train-chart-box'), /a uniform guess: ln 10 ≈ 2\.30/);
    await training(page).getByRole('button', { name: 'Reset' }).click();
    await compare.click();
    await finish(1, { step: 2500, seconds: 40, met: true }, { step: 6000, seconds: 90, met: false });
    assert.match(await read(page, '.train-compare-result'), /the model with no scaling did not meet them within 6000 steps.*Here only the scaled model met them within 6,000 steps: without the scale, training was too sluggish, as the lesson says\./);
    assert.deepEqual(problems, []);
  });

  // Issue 25 §3: the head size of the comparison is the learner's choice; 16 stays the shipped model.
  it('the comparison trains both models at the chosen head size (d_k = 64: 2 heads of d_model 128), says what that costs, and keeps the default run the shipped size', async () => {
    await openPanel(page, context, env.url);
    const size = training(page).getByLabel('Head size for the comparison');
    assert.deepEqual(await size.locator('option').allTextContents(), [
      'dₖ = 16 (2 heads, d_model 32: the shipped size)', 'dₖ = 64 (2 heads, d_model 128, like GPT-2\'s heads)', 'dₖ = 128 (1 head, d_model 128)']);
    assert.match(await read(page, '.train-size-cost'), /Larger heads cost time: .*10 times the work/);
    // The default run: the shipped size, as createTrainer's defaults (no sizes sent).
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    const start = () => page.evaluate((k) => window.fakeWorkers[k].posted.find((m) => m.type === 'start'), 0);
    assert.deepEqual((await start()).models, [{ key: 'sqrt', scale: 'sqrt' }]);
    // Choosing 64 while it trains, then Compare: both models start again at that size.
    await size.selectOption('64');
    await training(page).getByRole('button', { name: 'Compare: no √d_k scaling' }).click();
    assert.equal(await page.evaluate(() => window.fakeWorkers[0].terminated), true);
    const second = await page.evaluate(() => window.fakeWorkers[1].posted.find((m) => m.type === 'start'));
    assert.deepEqual(second.models, [{ key: 'sqrt', scale: 'sqrt', heads: 2, dModel: 128 }, { key: 'none', scale: 'none', heads: 2, dModel: 128 }]);
    assert.match(await read(page, '.train-status'), /with and without the √d_k scale, with heads of d_k = 64/);
    assert.equal(await size.isDisabled(), true, 'the size compared stays until Reset');
    await training(page).getByRole('button', { name: 'Reset' }).click();
    assert.equal(await size.isDisabled(), false);
    // From idle at 128: one head of d_model 128.
    await size.selectOption('128');
    await training(page).getByRole('button', { name: 'Compare: no √d_k scaling' }).click();
    const third = await page.evaluate(() => window.fakeWorkers[2].posted.find((m) => m.type === 'start'));
    assert.deepEqual(third.models.map((m) => [m.heads, m.dModel]), [[1, 128], [1, 128]]);
    assert.deepEqual(problems, []);
  });

  // Issue 25 §5: the summary's losses and the goals' ratio came from different strings, unsaid.
  it('the summary says its losses are the training batches\', and the goals row shows the two losses its ratio divides, on the goals\' strings', async () => {
    await openPanel(page, context, env.url);
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    await deliver(0, { type: 'ready' });
    await deliver(0, { type: 'progress', key: 'sqrt', step: 250, loss: 2, lossFirstCopy: 3.39, lossSecondCopy: 0.53, stepsPerSecond: 100, seconds: 2.5 });
    const goals = { previousToken: 0.9, induction: 0.9, firstToken: 0.5, ratio: 0.1, lossFirstCopy: 3.3, lossSecondCopy: 0.33 };
    await deliver(0, { type: 'check', key: 'sqrt', step: 250, goals, met: true, config: { layers: 2, heads: 2, dModel: 32, context: 33, vocabulary: 'abcdefghijklmnopqrstuvwxyz ' } });
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelector('.train-goals tbody')?.children.length === 4);
    assert.match(await read(page, '.train-summary'), /on its training batches \(the mean of the last 50 steps'\), first copy 3\.39 nats, second copy 0\.53 nats/);
    assert.match(await read(page, '.train-goals caption'), /on 256 generated strings of distinct letters: other strings than the training batches/);
    assert.match(await read(page, '.train-goals tbody tr:last-child'), /on these strings.*10 % \(0\.33 \/ 3\.30 nats\) ✓ met/);
    assert.deepEqual(problems, []);
  });

  it('the phase-change labels sit above the curves and cross none of them', async () => {
    await openPanel(page, context, env.url);
    await training(page).getByRole('button', { name: 'Compare: no √d_k scaling' }).click();
    await deliver(0, { type: 'ready' });
    const config = { layers: 2, heads: 2, dModel: 32, context: 33, vocabulary: 'abcdefghijklmnopqrstuvwxyz ' };
    for (const key of ['sqrt', 'none']) await deliver(0, { type: 'check', key, step: 0, goals: { previousToken: 0, induction: 0, firstToken: 0, ratio: 1 }, met: false, config });
    // The curves of the run the issue saw: drops at 650 and 800, the second copy then low.
    for (let step = 50; step <= 2500; step += 50) {
      for (const [key, drop] of [['none', 650], ['sqrt', 800]]) {
        const second = step < drop ? 3.3 : 0.5 + 2 * Math.exp(-(step - drop) / 200);
        await deliver(0, { type: 'progress', key, step, loss: 2, lossFirstCopy: 3.35, lossSecondCopy: second, stepsPerSecond: 100, seconds: step / 100 });
      }
    }
    const chart = training(page).getByRole('img', { name: /^Training loss against steps/ });
    await chart.locator('.chart-label', { hasText: 'drop at 800' }).waitFor();
    const crossings = await chart.evaluate((svg) => {
      const labels = [...svg.querySelectorAll('.chart-label')].filter((t) => /drop at/.test(t.textContent)).map((t) => ({ text: t.textContent, box: t.getBBox() }));
      const found = [];
      for (const path of svg.querySelectorAll('path.loss-line')) {
        const length = path.getTotalLength();
        for (let at = 0; at <= length; at += 1) {
          const p = path.getPointAtLength(at);
          for (const { text, box } of labels) {
            if (p.x >= box.x && p.x <= box.x + box.width && p.y >= box.y && p.y <= box.y + box.height) found.push(`${text} at ${p.x.toFixed(0)},${p.y.toFixed(0)}`);
          }
        }
      }
      return { labels: labels.length, found: [...new Set(found.map((f) => f.split(' at ')[0]))] };
    });
    assert.equal(crossings.labels, 2);
    assert.deepEqual(crossings.found, []);
    assert.deepEqual(problems, []);
  });

  it('a learned panel hidden by `panels` stops training, and goes on when shown again', async () => {
    await openPanel(page, context, env.url);
    await training(page).getByRole('button', { name: 'Train in this browser' }).click();
    const posted = () => page.evaluate(() => window.fakeWorkers[0].posted.map((m) => m.type));
    const panels = (value) => page.evaluate(async (v) => {
      const calc = document.querySelector('attention-calc');
      calc.setAttribute('panels', v);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await calc.ready;
    }, value);
    await panels('inputs');
    assert.deepEqual(await posted(), ['start', 'pause']);
    await panels('learned');
    assert.deepEqual(await posted(), ['start', 'pause', 'resume']);
    assert.equal(await training(page).getByRole('button', { name: 'Stop' }).isVisible(), true);
    assert.deepEqual(problems, []);
  });

  it('LearnedLab.shown(false) stops training and shown(true) resumes it (not a run the learner stopped); dispose() ends the worker and the window listeners', async () => {
    await openPanel(page, context, env.url);
    const lab = await page.evaluateHandle(async () => {
      const { loadAttention } = await import(new URL('attention.js', location.href).href);
      const { LearnedLab } = await import(new URL('labs/learned/learned.js', location.href).href);
      const made = new LearnedLab({ attn: await loadAttention() });
      document.body.append(made.element);
      await made.ready;
      return made;
    });
    await page.waitForFunction((l) => l.training, lab);
    const listeners = () => page.evaluate(() => window.wheelListeners.size);
    const idle = await listeners();
    const posted = () => page.evaluate(() => window.fakeWorkers.at(-1).posted.map((m) => m.type));
    await page.evaluate((l) => l.element.querySelector('.train-start').click(), lab);
    assert.equal(await listeners(), idle + 1, 'listening while a worker may send heads');
    await page.evaluate((l) => l.shown(false), lab);
    assert.deepEqual(await posted(), ['start', 'pause']);
    await page.evaluate((l) => l.shown(false), lab);
    await page.evaluate((l) => l.shown(true), lab);
    assert.deepEqual(await posted(), ['start', 'pause', 'resume']);
    assert.equal(await page.evaluate((l) => l.element.querySelector('.train-stop').hidden, lab), false);
    // Stopped by the learner, then hidden and shown: it stays stopped.
    await page.evaluate((l) => l.element.querySelector('.train-stop').click(), lab);
    await page.evaluate((l) => { l.shown(false); l.shown(true); }, lab);
    assert.deepEqual(await posted(), ['start', 'pause', 'resume', 'pause']);
    await page.evaluate((l) => l.dispose(), lab);
    assert.equal(await page.evaluate(() => window.fakeWorkers.at(-1).terminated), true);
    assert.equal(await listeners(), idle, 'no listener left on the window');
    assert.deepEqual(problems, []);
  });
});

