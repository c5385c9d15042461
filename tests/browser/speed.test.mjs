// What the page's speed work must not break, in headless Chromium: the URL follows the state
// once typing pauses (not on every keystroke), the page preloads only what it loads, and the
// "verified" badge judges float32 against float64 relative to the values' scale.
// No test here asserts a time: `npm run bench:page` measures speed.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';

import { openPage } from './chromium.mjs';
import { coursePage, servedWeb } from './served.mjs';

// Counts history.replaceState calls, before any of the page's scripts run.
const COUNT_REPLACE_STATE = () => {
  const replace = history.replaceState.bind(history);
  window.replaceStateCalls = 0;
  history.replaceState = (...args) => {
    window.replaceStateCalls++;
    return replace(...args);
  };
};

describe('speed work: what it must keep', () => {
  const env = servedWeb();
  let page, problems, context;
  beforeEach(async () => {
    ({ page, problems, context } = await openPage(env.browser, { initScript: COUNT_REPLACE_STATE }));
  });
  afterEach(async () => {
    await context.close();
  });

  it('the URL is written once typing pauses, not on every keystroke', async () => {
    await page.goto(`${env.url}index.html`);
    await page.waitForSelector('body[data-ready]');
    const before = await page.evaluate(() => ({ hash: location.hash, calls: window.replaceStateCalls }));
    const cell = page.getByLabel('Q row 1 column 1', { exact: true });
    await cell.focus();
    await cell.press('Control+a');
    await page.keyboard.type('0.123456'); // eight keystrokes, each an update of every number
    // Until the URL holds the last keystroke's state: on a busy machine a pause between two keys
    // may let one earlier state through first, which is still not a write per keystroke.
    await page.waitForFunction(() => location.hash === `#${document.getElementById('calculator').hash}` && location.hash.includes('0.123456'));
    const after = await page.evaluate(() => ({ hash: location.hash, calls: window.replaceStateCalls }));
    const calc = await page.evaluate(() => document.getElementById('calculator').hash);
    assert.equal(after.hash, `#${calc}`, 'the URL holds the state on screen');
    assert.ok(after.calls - before.calls <= 2, `replaceState ran ${after.calls - before.calls} times for 8 keystrokes`);
    assert.deepEqual(problems, []);
  });

  it('index.html preloads only files the page loads, each fetched once', async () => {
    await page.goto(`${env.url}index.html`);
    await page.waitForSelector('body[data-ready]');
    const { preloaded, fetched } = await page.evaluate(() => ({
      preloaded: [...document.querySelectorAll('link[rel=modulepreload], link[rel=preload]')].map((l) => l.href),
      fetched: performance.getEntriesByType('resource').map((e) => e.name),
    }));
    assert.ok(preloaded.length > 0);
    for (const href of preloaded) {
      assert.equal(fetched.filter((name) => name === href).length, 1, `${href} is fetched exactly once`);
    }
    // Every file preloaded is one the page loads without the preloads: none is wasted bytes.
    await page.route(`${env.url}index.html`, async (route) => {
      const response = await route.fetch();
      route.fulfill({ response, body: (await response.text()).replace(/<script type="module" async src="core-preload.js"><\/script>/, '') });
    });
    await page.goto(`${env.url}index.html`);
    await page.waitForSelector('body[data-ready]');
    const unpreloaded = await page.evaluate(() => ({
      links: document.querySelectorAll('link[rel=modulepreload], link[rel=preload]').length,
      fetched: performance.getEntriesByType('resource').map((e) => e.name),
    }));
    assert.equal(unpreloaded.links, 0);
    for (const href of preloaded) assert.ok(unpreloaded.fetched.includes(href), `${href} is loaded by the page itself`);
    assert.deepEqual(problems, []);
  });

  it('the verified badge is relative to max |V|: |V| ≈ 1e7 is verified, not “⚠ check”', async () => {
    await page.goto(await coursePage(context, env.url, '<attention-calc></attention-calc>'));
    await page.evaluate(async () => { await document.querySelector('attention-calc').ready; });
    const badge = page.locator('attention-calc .verified');
    // The worked example's Q and K over values of about 1e7: float32 rounds the outputs by
    // about 0.45, some 5e-8 of the values, which is float32's own precision.
    for (const [cell, value] of [['V row 1 column 1', '10000000'], ['V row 2 column 2', '10000000'], ['V row 3 column 1', '10000000'], ['V row 3 column 2', '10000000']]) {
      await page.getByLabel(cell, { exact: true }).fill(value);
    }
    const text = await badge.textContent();
    const title = await badge.getAttribute('title');
    const absolute = parseFloat(title.match(/Here max \|f32 − float64\| = ([^ ]+) and max \|V\| = 1\.0e\+7\.$/)[1].replace('−', '-'));
    assert.ok(absolute > 1e-5, `${title}: the absolute difference is above 1e-5, so this input tests the relative rule`);
    assert.match(text, /^✓ verified: max \|f32 − float64\| \/ max \|V\| = \d\.\de−\d+$/, 'the relative difference, the one judged');
    assert.equal(await badge.evaluate((b) => b.classList.contains('fail')), false);
    assert.deepEqual(problems, []);
  });
});
