// Issue 25 #5: the calculator's layout as a learner sees it. A typing error does not move the
// result at 1280 × 800; a phone's first screen (390 × 844) shows the weights; the causal hint
// sits on its checkbox's line; no empty gap under Q and K on a phone.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { axeViolations, noProblemsAfterEach, openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';

const ARTIFACTS = fileURLToPath(new URL('../../test-results/', import.meta.url));

describe('the first screen', () => {
  const env = servedWeb();
  noProblemsAfterEach(); // no console error or uncaught exception in any test's pages
  let context = null;
  afterEach(async () => { await context?.close(); context = null; });

  async function open(width, height, { bypassCSP = false } = {}) {
    let page, problems;
    ({ context, page, problems } = await openPage(env.browser, { bypassCSP }));
    await page.setViewportSize({ width, height });
    await page.goto(`${env.url}index.html`);
    await page.waitForSelector('body[data-ready]');
    return { page, problems, calc: page.locator('#calculator') };
  }
  const box = (locator) => locator.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right };
  });
  const cell = (calc, name) => calc.getByLabel(name, { exact: true });

  it('at 1280 × 800, "abc" typed into a cell leaves the result where it was, beside the inputs, on the first screen', async () => {
    const { page, problems, calc } = await open(1280, 800);
    const result = calc.getByRole('group', { name: 'Result', exact: true });
    const before = await box(result);
    const inputs = await box(calc.getByRole('group', { name: 'Inputs', exact: true }));
    assert.ok(before.left > inputs.right, 'the result is beside the inputs');
    await cell(calc, 'Q row 1 column 1').click();
    await page.keyboard.type('abc', { delay: 80 });
    await page.waitForTimeout(500);
    assert.match(await calc.getByRole('status').filter({ hasText: 'last valid' }).textContent(), /“abc” is not a number/);
    assert.deepEqual(await box(result), before, 'the result did not move');
    assert.ok((await box(cell(calc, 'Output row 3 column 2'))).bottom < 800, 'the dimmed result is on the first screen');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}first-screen-1280-abc.png` });
    assert.deepEqual(problems, []);
  });

  it('at 390 × 844 the weights are on the first screen, after Q and K, with V and the masks below', async () => {
    const { page, problems, calc } = await open(390, 844);
    const a33 = await box(cell(calc, 'Weights row 3 column 3'));
    assert.ok(a33.bottom <= 844, `the weights end ${a33.bottom} px down, below the first screen`);
    const k = await box(cell(calc, 'K row 3 column 2'));
    const v = await box(cell(calc, 'V row 1 column 1'));
    const resultHeading = await box(calc.getByRole('heading', { name: 'Result' }));
    // No empty room under Q and K: the result's heading follows them.
    assert.ok(resultHeading.top - k.bottom < 50, `${resultHeading.top - k.bottom} px between K and the result`);
    assert.ok(v.top > a33.bottom, 'V follows the result');
    assert.ok((await box(calc.getByLabel('Causal mask'))).top > v.bottom, 'the masks follow V');
    // The groups keep their names; editing still works from the keyboard.
    assert.equal(await calc.getByRole('group', { name: 'Inputs', exact: true }).count(), 1);
    await cell(calc, 'Q row 1 column 1').click();
    await page.keyboard.type('2', { delay: 80 });
    await page.keyboard.press('Enter');
    assert.notEqual(await cell(calc, 'Weights row 1 column 1').textContent(), '0.446');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}first-screen-390.png` });
    // Nothing wider than the screen, apart from the preset row, which scrolls on its own.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    assert.deepEqual(problems, []);
  });

  it('at 390 px a practice answer such as -0.707 shows whole in its cell', async () => {
    const { page, problems, calc } = await open(390, 844);
    await page.getByRole('button', { name: 'Practice', exact: true }).first().click();
    for (const name of ['Your scaled row 3 column 1', 'Your weights row 2 column 2']) {
      const entry = cell(calc, name);
      await entry.scrollIntoViewIfNeeded();
      await entry.click();
      await page.keyboard.type('-0.707', { delay: 60 });
      await page.keyboard.press('Enter');
      const { shown, needed } = await entry.evaluate((e) => ({ shown: e.clientWidth, needed: e.scrollWidth }));
      assert.ok(needed <= shown, `${name}: "-0.707" needs ${needed} px, the cell shows ${shown}`);
    }
    assert.deepEqual(problems, []);
  });

  for (const [width, height] of [[1280, 800], [390, 844]]) {
    it(`at ${width} px the causal hint sits on its checkbox label's line`, async () => {
      const { problems, calc } = await open(width, height);
      const label = await box(calc.locator('.masks .control-row > .toggle'));
      const hint = await box(calc.locator('.masks .control-row > .hint'));
      const middle = (b) => (b.top + b.bottom) / 2;
      assert.ok(Math.abs(middle(label) - middle(hint)) <= 2, `label middle ${middle(label)}, hint middle ${middle(hint)}`);
      assert.deepEqual(problems, []);
    });
  }

  it('axe-core reports no violations in the calculator at 390 px', async () => {
    const { page } = await open(390, 844, { bypassCSP: true });
    assert.deepEqual((await axeViolations(page, '#calculator')).violations, []);
  });
});
