// Issue 18: the learner's view of the calculator page. What the first screen holds, the compact
// steps at n = 8, one Tab stop per matrix, a stable layout around an error, and contrast.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { axeViolations, noProblemsAfterEach, openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';


describe('the learner\'s view', () => {
  const env = servedWeb();
  noProblemsAfterEach(); // no console error or uncaught exception in any test's pages
  let context = null;
  afterEach(async () => { await context?.close(); context = null; });

  // The calculator page at a viewport, in a colour scheme; resolves once the first numbers show.
  async function open({ width = 1280, height = 800, colorScheme = 'light', bypassCSP = false } = {}) {
    let page, problems;
    ({ context, page, problems } = await openPage(env.browser, { bypassCSP }));
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(`${env.url}index.html`);
    const calc = page.locator('#calculator');
    await calc.getByLabel('Weights row 1 column 1').waitFor();
    return { page, problems, calc };
  }

  // The element's accessible name for whatever has focus, inside shadow roots.
  const focusedName = (page) => page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a?.getAttribute('aria-label') ?? a?.labels?.[0]?.textContent.trim() ?? a?.textContent.trim();
  });

  const inViewport = (locator) => locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  });

  async function toEight(calc) {
    for (const label of ['Tokens n', 'd_k', 'd_v']) await calc.getByLabel(label, { exact: true }).selectOption('8');
    await calc.getByLabel('Weights row 8 column 8').waitFor();
  }

  it('at 1280×800, on load, Q, the weights and the output are all in view, and an edit changes them in view', async () => {
    const { page, problems, calc } = await open();
    for (const name of ['Q row 1 column 1', 'Weights row 1 column 1', 'Output row 1 column 1']) {
      assert.ok(await inViewport(calc.getByLabel(name, { exact: true })), `${name} is within the first screen`);
    }
    const weight = calc.getByLabel('Weights row 1 column 1', { exact: true });
    const before = await weight.textContent();
    await calc.getByLabel('Q row 1 column 1', { exact: true }).fill('3');
    await page.waitForFunction((old) => {
      const cell = document.querySelector('#calculator').shadowRoot.querySelector('[aria-label="Weights row 1 column 1"]');
      return cell.textContent !== old;
    }, before);
    assert.ok(await inViewport(weight), 'the changed weight is still on the same screen');
    assert.deepEqual(problems, []);
  });

  it('at n = d = 8, each matrix is one Tab stop: ≤ 6 Tabs from Q row 1 column 1 reach the causal mask, and arrows move inside a grid', async () => {
    const { page, calc } = await open();
    await toEight(calc);
    await calc.getByLabel('Q row 1 column 1', { exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await focusedName(page), 'Q row 2 column 1');
    await page.keyboard.press('ArrowRight'); // the cell's text is selected: the caret is at its end
    assert.equal(await focusedName(page), 'Q row 2 column 2');
    await page.keyboard.press('Enter');
    assert.equal(await focusedName(page), 'Q row 3 column 2');
    // Tab leaves Q for K (its tab stop, the first cell), then V, then the mask controls.
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(page), 'K row 1 column 1');
    await page.keyboard.press('Tab');
    assert.equal(await focusedName(page), 'V row 1 column 1');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focusedName(page), 'Q row 3 column 2', 'Shift+Tab comes back to the cell last used');
    await calc.getByLabel('Q row 1 column 1', { exact: true }).focus();
    let presses = 0;
    while (presses < 6 && await focusedName(page) !== 'Causal mask') {
      await page.keyboard.press('Tab');
      presses++;
    }
    assert.equal(await focusedName(page), 'Causal mask', `reached in ${presses} presses`);
    // Screen-reader names are unchanged: every cell keeps "Q row i column j".
    assert.equal(await calc.getByLabel(/^Q row \d column \d$/).count(), 64);
  });

  it('at n = 8 the steps show one at a time, in the lesson\'s order, with "Show all steps" and print showing all; explanations still work', async () => {
    const { page, calc } = await open();
    await toEight(calc);
    const shownSteps = () => calc.locator('.steps figure.step').evaluateAll((figures) =>
      figures.filter((f) => getComputedStyle(f).display !== 'none').map((f) => f.querySelector('table').dataset.step));
    // The result (weights, output; first on the page) always shows; of the five steps before it, one.
    assert.deepEqual(await shownSteps(), ['weights', 'output', 'scores']);
    const stepper = calc.getByRole('group', { name: 'Step by step, one at a time' });
    assert.match(await stepper.textContent(), /Step 1 of 7/);
    const next = calc.getByRole('button', { name: 'Next step ›' });
    await next.click();
    assert.deepEqual(await shownSteps(), ['weights', 'output', 'scaledBeforeMask']);
    await next.click();
    await next.click();
    await next.click();
    assert.deepEqual(await shownSteps(), ['weights', 'output', 'rowSum']);
    // Focusing a cell of the shown step explains it.
    await calc.getByLabel('Row sum row 2', { exact: true }).focus();
    assert.match(await calc.getByRole('note', { name: 'Explanation' }).textContent(), /row sum/i);
    await next.click();
    assert.match(await stepper.textContent(), /Step 6 of 7/);
    assert.match(await calc.locator('.stepper-where').textContent(), /under Result/);
    assert.equal(await calc.locator('.step-weights.step-current').count(), 1, 'the weights are outlined');
    // Printing, and "Show all steps", show every step.
    await page.emulateMedia({ media: 'print' });
    assert.equal((await shownSteps()).length, 7);
    await page.emulateMedia({ media: 'screen' });
    assert.deepEqual(await shownSteps(), ['weights', 'output'], 'at step 6 the steps area points to the result');
    const all = calc.getByRole('button', { name: 'Show all steps' });
    await all.click();
    assert.equal(await all.getAttribute('aria-pressed'), 'true');
    assert.equal((await shownSteps()).length, 7);
    assert.equal(await stepper.isVisible(), false);
    // The learner's choice stands when n changes.
    await calc.getByLabel('Tokens n', { exact: true }).selectOption('6');
    assert.equal((await shownSteps()).length, 7);
    // At the worked example's n = 3, every step shows at once by default.
    await calc.getByRole('button', { name: 'Worked example' }).click();
    assert.equal((await shownSteps()).length, 7);
  });

  it('an error message under Q leaves K and V where they were', async () => {
    const { page, calc } = await open();
    const k = calc.getByLabel('K row 1 column 1', { exact: true });
    const v = calc.getByLabel('V row 1 column 1', { exact: true });
    const where = async () => [(await k.boundingBox()), (await v.boundingBox())].map((b) => [b.x, b.y]);
    const before = await where();
    await calc.getByLabel('Q row 1 column 1', { exact: true }).fill('x');
    await page.keyboard.press('Enter'); // commits: the message shows
    await page.waitForFunction(() => document.querySelector('#calculator').shadowRoot.querySelector('.cell-message').textContent !== '');
    assert.deepEqual(await where(), before);
  });

  for (const colorScheme of ['light', 'dark']) {
    it(`the plot's marks are ≥ 3:1 against the plot, ${colorScheme} theme`, async () => {
      const { page, calc } = await open({ colorScheme });
      // Pull output 3 outside the hull (a pitfall), so every kind of mark is drawn.
      await calc.getByLabel('Mode', { exact: true }).selectOption('mask-after-softmax');
      await calc.getByLabel('Causal mask').check();
      await calc.locator('svg.plot .output-point.outside').first().waitFor();
      const ratios = await calc.locator('svg.plot').evaluate((plot) => {
        const rgb = (c) => c.match(/[\d.]+/g).slice(0, 4).map(Number);
        const lum = ([r, g, b]) => [r, g, b].map((x) => x / 255).map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4))
          .reduce((s, x, i) => s + x * [0.2126, 0.7152, 0.0722][i], 0);
        const background = rgb(getComputedStyle(plot).backgroundColor);
        // A mark's paint with its opacity, composited over the plot's background.
        const over = (paint, opacity) => paint.slice(0, 3).map((x, i) => x * opacity + background[i] * (1 - opacity));
        const ratio = (colour) => {
          const [a, b] = [lum(colour), lum(background)].sort((x, y) => y - x);
          return (a + 0.05) / (b + 0.05);
        };
        const marks = {
          'hull outline': [plot.querySelector('.hull'), 'stroke'],
          'value handle': [plot.querySelector('.value-point circle:last-of-type'), 'fill'],
          'output inside the hull': [plot.querySelector('.output-point:not(.outside) rect'), 'fill'],
          'output outside the hull': [plot.querySelector('.output-point.outside rect'), 'fill'],
        };
        return Object.fromEntries(Object.entries(marks).filter(([, [el]]) => el).map(([name, [el, what]]) => {
          const style = getComputedStyle(el);
          const opacity = Number(style[`${what}Opacity`]) * Number(style.opacity);
          return [name, Math.round(ratio(over(rgb(style[what]), opacity)) * 100) / 100];
        }));
      });
      assert.ok(Object.keys(ratios).length >= 3, JSON.stringify(ratios));
      for (const [mark, ratio] of Object.entries(ratios)) assert.ok(ratio >= 3, `${mark}: ${ratio}:1 (${colorScheme})`);
    });

    it(`axe-core reports no violations on the calculator page, ${colorScheme} theme, with the steps one at a time`, async () => {
      const { page, calc } = await open({ colorScheme, bypassCSP: true }); // bypassCSP: to inject axe
      await toEight(calc);
      assert.deepEqual((await axeViolations(page, '#calculator')).violations, []);
    });
  }
});
