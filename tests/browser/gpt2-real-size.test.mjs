// Issue 27 at GPT-2 small's real size: a GPT-2-small-shaped model.safetensors (548 MB of random
// weights in Hugging Face's layout, made here by tools/make_gpt2_fixtures.py --small-shaped and never
// committed) picked in the GPT-2 panel in headless Chromium. It reports the time to the first
// heatmaps, the tab's memory, the time from switching off each head of layer 5 to the sentence that
// says what moved, and 20 tokens generated with the KV cache; it checks that while the model
// loads, runs and generates in the panel's worker, a calculator on the same page answers
// keystrokes: 9 in 10 within 50 ms, as the learned panel's training test measures it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

import { largestRendererBytes } from '../../tools/bench/renderer-memory.mjs';
import { coursePage, servedPages } from './served.mjs';

const MODEL = fileURLToPath(new URL('../../build-fixtures/gpt2-small-shaped/model.safetensors', import.meta.url));
const LATENCY_BUDGET_MS = 50;

function smallShaped() {
  if (!existsSync(MODEL)) {
    // Debian's interpreter, with its torch and numpy (another python3 may come first on PATH).
    execFileSync('/usr/bin/python3', [fileURLToPath(new URL('../../tools/make_gpt2_fixtures.py', import.meta.url)), '--small-shaped', MODEL, '--no-reference'], { stdio: 'inherit' });
  }
  return MODEL;
}

describe('GPT-2 small\'s size in the panel', () => {
  const env = servedPages();

  it('a GPT-2-small-shaped file: time to the first heatmaps and the tab\'s memory; a calculator on the page answers keystrokes while it loads and runs', { timeout: 600_000 }, async () => {
    const { page, problems, context } = env;
    const path = smallShaped();
    await page.goto(await coursePage(context, env.url, '<attention-calc id="calc" panels="inputs,weights"></attention-calc><attention-calc id="gpt2" panels="gpt2"></attention-calc>'));
    await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      await Promise.all([...document.querySelectorAll('attention-calc')].map((e) => e.ready));
      // Keystroke (its event time) to the calculator's attention-change, on the page's main thread.
      const calc = document.getElementById('calc');
      window.latencies = [];
      let down = null;
      calc.addEventListener('keydown', (e) => { down = e.timeStamp; }, true);
      calc.addEventListener('attention-change', () => {
        if (down !== null) window.latencies.push(performance.now() - down);
        down = null;
      });
    });
    const lab = page.getByRole('group', { name: 'Exercise 4: look inside GPT-2' });
    const status = (selector) => page.evaluate((s) => document.getElementById('gpt2').shadowRoot.querySelector(s)?.textContent ?? '', selector);
    const before = largestRendererBytes();

    const started = Date.now();
    await lab.locator('input[type=file]').setInputFiles(path);
    const cell = page.getByLabel('Q row 1 column 1', { exact: true });
    await cell.focus();
    // Type at a person's pace while the weights load, then while the model runs on a new text.
    const type = async (keystrokes) => {
      for (let k = 0; k < keystrokes; k++) {
        await cell.press('Control+a');
        await page.keyboard.type(String((k % 9) - 4), { delay: 0 });
        await page.waitForTimeout(120);
      }
    };
    let typedWhileLoading = 0;
    while (await lab.getByRole('img', { name: 'GPT-2 layer 5 head 0', exact: true }).count() === 0) {
      assert.ok(Date.now() - started < 300_000, `no heatmaps after 5 minutes: ${await status('.cell-message')}`);
      await type(1);
      typedWhileLoading++;
    }
    const firstHeatmaps = (Date.now() - started) / 1000;
    assert.equal(await lab.getByRole('img', { name: /^GPT-2 layer 5 head \d+$/ }).count(), 12);
    const loadingLatencies = await page.evaluate(() => window.latencies.splice(0));

    // The model runs again on every pause in typing: type in the panel, then in the calculator.
    const text = lab.getByLabel('Text GPT-2 reads');
    const ran = [];
    for (const words of [' and slept', ' all day', ' on the mat']) {
      await text.press('End');
      await text.pressSequentially(words, { delay: 60 });
      await cell.focus();
      await type(4);
      ran.push(words);
    }
    await lab.locator('.token-strip .token').filter({ hasText: '␣mat' }).nth(1).waitFor({ timeout: 60_000 });
    const runLatencies = await page.evaluate(() => window.latencies.splice(0));

    // Each head of layer 5 switched off in turn, as a learner would: from the click to the line
    // that says what moved (the worker's run with the head off, the lens and the attribution,
    // and the page's redraw), then on again.
    const said = lab.locator('.gpt2-ablation-said[role=status]');
    const switchMs = [];
    for (let head = 0; head < 12; head++) {
      const box = lab.getByRole('checkbox', { name: `Switch off GPT-2 layer 5 head ${head}`, exact: true }).first();
      const clicked = Date.now();
      await box.click();
      await said.filter({ hasText: `Switching off 5.${head} ` }).waitFor({ timeout: 60_000 });
      switchMs.push(Date.now() - clicked);
      await box.click();
      await said.filter({ hasText: /\S/ }).waitFor({ state: 'detached', timeout: 60_000 });
    }

    // 20 tokens generated with the KV cache while the learner types in the calculator.
    await lab.getByLabel('New tokens', { exact: true }).fill('20');
    await lab.getByRole('button', { name: 'Generate', exact: true }).click();
    const generated = lab.locator('.gpt2-gen-said[role=status]');
    let typedWhileGenerating = 0;
    while (!/ms per token with the cache/.test(await generated.textContent())) {
      assert.ok(typedWhileGenerating < 400, `generation did not end: ${await generated.textContent()}`);
      await type(1);
      typedWhileGenerating++;
    }
    const generateLatencies = await page.evaluate(() => window.latencies.splice(0));
    const steps = await lab.getByRole('list', { name: 'Each new token, its probability, its time and the cache after it' }).locator('li').count();
    console.log(`switching off each head of layer 5, click to the sentence: ${[...switchMs].sort((a, b) => a - b).map(String).join(' ')} ms; `
      + `generating: ${await generated.textContent()}`);
    assert.equal(steps, 20, 'every token is listed as it comes');

    const modelLine = await status('.gpt2-model');
    const wasm = Number(/in ([\d.]+) MB of memory/.exec(modelLine)?.[1]);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const renderer = largestRendererBytes();
    console.log(`GPT-2-small-shaped (548 MB file), picked in Chromium: first heatmaps after ${firstHeatmaps.toFixed(1)} s; `
      + `the worker's wasm memory ${wasm} MB; the page's JS heap ${(metrics.JSHeapUsedSize / 1e6).toFixed(1)} MB; `
      + `the tab's renderer process ${(renderer / 1e6).toFixed(0)} MB resident (${(before / 1e6).toFixed(0)} MB before opening)`);
    console.log(`storage: ${await status('.gpt2-store-text')}`);
    assert.ok(wasm > 498 && wasm < 498 * 1.2, `the worker holds the weights: ${modelLine}`);
    assert.ok(metrics.JSHeapUsedSize < 100e6, `the page's own heap stays small: ${metrics.JSHeapUsedSize} bytes`);

    for (const [when, latencies, typed] of [['while it loads', loadingLatencies, typedWhileLoading], ['while it runs', runLatencies, ran.length * 4],
      ['while it generates', generateLatencies, typedWhileGenerating]]) {
      const sorted = [...latencies].sort((a, b) => a - b);
      console.log(`keystroke → attention-change ${when}: median ${sorted[sorted.length >> 1]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms over ${sorted.length}`);
      assert.ok(sorted.length >= typed, `${when}: ${sorted.length} updates for ${typed} keystrokes`);
      const within = sorted.filter((x) => x < LATENCY_BUDGET_MS).length;
      assert.ok(within >= 0.9 * sorted.length, `${when}: ${within} of ${sorted.length} within ${LATENCY_BUDGET_MS} ms: ${sorted.map((x) => x.toFixed(1)).join(' ')}`);
    }
    assert.ok(typedWhileLoading >= 3, `typed ${typedWhileLoading} times while the model loaded`);
    assert.deepEqual(problems, []);
  });
});
