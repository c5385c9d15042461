// The labs as a learner sees them (issue 18, points 4 and 5): the √d_k lab's charts show the
// spread on one axis, the parameter counter and the construct lab's sentence follow typing, the
// heads lab's wide tables say what is out of sight on a phone, and chart marks stand out in
// both themes. Extents and colours are measured from what Chromium draws.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { axeViolations, openPage } from './chromium.mjs';
import { coursePage, servedPages } from './served.mjs';


describe('the labs as a learner sees them', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  // A course page with the given widgets, under the strict CSP; resolves once they are ready.
  const open = async (body, p = page, c = context) => {
    await p.goto(await coursePage(c, env.url, body));
    await p.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      for (const e of document.querySelectorAll('attention-calc')) {
        e.scrollIntoView();
        await e.ready;
      }
    });
  };

  const scalingLab = () => page.getByRole('group', { name: 'The √d_k experiment' });
  const setDk = async (dk) => {
    const lab = scalingLab();
    await lab.getByLabel('dₖ (length of q and k), exact value').fill(String(dk));
    await lab.getByLabel('dₖ (length of q and k), exact value').press('Enter');
    await lab.getByRole('slider', { name: 'dₖ (length of q and k)' }).and(page.locator(`[aria-valuetext="${dk.toLocaleString('en-US')}"]`)).waitFor();
  };
  // The drawn bars of one series: their horizontal extent and tallest bar, in CSS pixels.
  const drawn = (chart, key) => chart.locator(`[data-series="${key}"] rect`).evaluateAll((rects) => {
    const boxes = rects.map((r) => r.getBoundingClientRect()).filter((b) => b.height > 0 && b.width > 0);
    return {
      bars: boxes.length,
      left: Math.min(...boxes.map((b) => b.left)),
      right: Math.max(...boxes.map((b) => b.right)),
      tallest: Math.max(...boxes.map((b) => b.height)),
    };
  });
  const histograms = () => scalingLab().getByRole('img', { name: /^Histograms of 10000 dot products on one axis/ });

  it('in the √d_k lab at d_k = 512, the unscaled histogram\'s drawn width is more than 10 times the scaled one\'s on the shared axis', async () => {
    await open('<attention-calc panels="scaling"></attention-calc>');
    await setDk(512);
    const before = await drawn(histograms(), 'unscaled'), after = await drawn(histograms(), 'scaled');
    assert.ok(before.bars >= 20 && after.bars >= 20, `bars drawn: ${before.bars} before, ${after.bars} after scaling`);
    const ratio = (before.right - before.left) / (after.right - after.left);
    assert.ok(ratio > 10, `unscaled ${before.right - before.left} px wide, scaled ${after.right - after.left} px: ${ratio.toFixed(1)} times`);
    // One axis: both bells are centred on q·k = 0 at the same place.
    const centre = (e) => (e.left + e.right) / 2;
    assert.ok(Math.abs(centre(before) - centre(after)) < 0.05 * (before.right - before.left), `centres ${centre(before)} and ${centre(after)}`);

    // The measure itself: at d_k = 1 scaling changes nothing, and the two are drawn alike.
    await setDk(1);
    const one = await drawn(histograms(), 'unscaled'), same = await drawn(histograms(), 'scaled');
    assert.ok(Math.abs((one.right - one.left) / (same.right - same.left) - 1) < 0.1, `at d_k = 1: ${one.right - one.left} and ${same.right - same.left} px`);
    assert.deepEqual(problems, []);
  });

  it('the softmax rows with and without the scale share one chart and one y scale: at d_k = 512 the one-hot spike stands over 5 times the scaled row\'s highest bar, each row named in text', async () => {
    await open('<attention-calc panels="scaling"></attention-calc>');
    await setDk(512);
    const chart = scalingLab().getByRole('img', { name: /^Softmax weights of 64 keys on the same axes: without scaling, largest 1\.000/ });
    const spike = await drawn(chart, 'unscaled'), spread = await drawn(chart, 'scaled');
    assert.ok(spike.tallest > 5 * spread.tallest, `tallest bars: ${spike.tallest} px unscaled, ${spread.tallest} px scaled`);
    assert.ok(spread.bars >= 48, `${spread.bars} of 64 scaled weights drawn`);
    const names = await chart.locator('text.series-name').allTextContents();
    assert.deepEqual(names, ['without scaling', 'scaled by 1/√d_k']);
    assert.deepEqual(problems, []);
  });

  it('chart marks are at least 3:1 against the chart in both themes: the √d_k lab\'s bars, the cost lab\'s points and fitted lines of both paths', async () => {
    for (const theme of ['light', 'dark']) {
      await open(`<attention-calc panels="scaling" theme="${theme}"></attention-calc><attention-calc panels="cost" theme="${theme}"></attention-calc>`);
      const cost = page.getByRole('group', { name: 'Cost' });
      await cost.getByRole('button', { name: 'Measure in this browser' }).click();
      await cost.getByRole('status').filter({ hasText: /^Measured \d+ sizes/ }).waitFor({ timeout: 60000 });
      const ratios = await page.evaluate(() => {
        const luminance = (colour) => {
          const [r, g, b] = colour.match(/[\d.]+/g).slice(0, 3).map((c) => {
            const x = Number(c) / 255;
            return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const contrast = (a, b) => {
          const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
          return (hi + 0.05) / (lo + 0.05);
        };
        const marks = [];
        for (const host of document.querySelectorAll('attention-calc')) {
          for (const chart of host.shadowRoot.querySelectorAll('svg.chart')) {
            const background = getComputedStyle(chart).backgroundColor;
            for (const [what, selector, property] of [['unscaled bars', '[data-series="unscaled"] rect', 'fill'], ['scaled bars', '[data-series="scaled"] rect', 'fill'],
              ['points', 'circle.point', 'fill'], ['fitted line', 'line.fit-explaining', 'stroke'],
              ['streaming points', 'rect.point-streaming', 'fill'], ['streaming fitted line', 'line.fit-streaming', 'stroke']]) {
              const mark = chart.querySelector(selector);
              if (mark) marks.push({ what, colour: getComputedStyle(mark)[property], background, ratio: contrast(getComputedStyle(mark)[property], background) });
            }
          }
        }
        return marks;
      });
      assert.deepEqual(new Set(ratios.map((m) => m.what)), new Set(['unscaled bars', 'scaled bars', 'points', 'fitted line', 'streaming points', 'streaming fitted line']), theme);
      for (const m of ratios) assert.ok(m.ratio >= 3, `${theme}: ${m.what} ${m.colour} on ${m.background}: ${m.ratio.toFixed(2)}:1`);
    }
    assert.deepEqual(problems, []);
  });

  it('the parameter counter follows typing: each keystroke counts, an entry that gives no count is marked in place and the last count stays', async () => {
    await open('<attention-calc panels="heads"></attention-calc>');
    const counter = page.getByRole('group', { name: 'Parameter counter' });
    const d = counter.getByLabel('Parameter counter d_model'), heads = counter.getByLabel('Parameter counter heads');
    const total = counter.locator('.param-total'), message = counter.locator('.cell-message');
    assert.equal(await total.textContent(), '256'); // d = 8, h = 2, following the view
    await d.fill('');
    assert.equal(await d.getAttribute('aria-invalid'), 'true');
    assert.match(await message.textContent(), /^d_model must be a whole number of at least 1\. The count below is for d_model = 8, h = 2\.$/);
    assert.equal(await total.textContent(), '256');
    // Key by key, never leaving the box: 1 is not divisible by 2 heads, 12 is.
    await d.press('1');
    assert.equal(await d.getAttribute('aria-invalid'), 'true');
    assert.match(await message.textContent(), /d_model 1 is not divisible by 2 heads/);
    assert.equal(await total.textContent(), '256');
    await d.press('2');
    assert.equal(await d.getAttribute('aria-invalid'), null);
    assert.equal(await message.textContent(), '');
    assert.equal(await total.textContent(), '576');
    assert.equal(await d.inputValue(), '12');
    assert.ok(await d.evaluate((e) => e.matches(':focus')), 'the caret stays in the box');
    // The heads box likewise: 5 does not divide 12 (marked there), 3 does.
    await heads.fill('5');
    assert.equal(await heads.getAttribute('aria-invalid'), 'true');
    assert.equal(await d.getAttribute('aria-invalid'), null);
    assert.match(await counter.locator('.param-wrong').textContent(), /Not h × 4d² = 2 × 576 = 1,152/);
    await heads.fill('3');
    assert.equal(await heads.getAttribute('aria-invalid'), null);
    assert.match(await counter.locator('.param-wrong').textContent(), /Not h × 4d² = 3 × 576 = 1,728/);
    assert.doesNotMatch(await counter.textContent(), /NaN|undefined/);
    assert.deepEqual(problems, []);
  });

  it('the construct lab\'s sentence applies as the learner types, without Enter; a space keeps edited weights', async () => {
    await open('<attention-calc panels="construct"></attention-calc>');
    const lab = page.getByRole('group', { name: 'Construct a head' });
    const sentence = lab.getByRole('textbox', { name: 'Sentence' });
    const verdict = lab.locator('.lab-verdict');
    await sentence.fill('');
    await sentence.pressSequentially('a b a b');
    await lab.locator('.lab-verdict', { hasText: /^4 of 4 tokens/ }).waitFor({ timeout: 5000 });
    assert.ok(await sentence.evaluate((e) => e.matches(':focus')), 'applied while the caret is still in the box');
    // A bad sentence is refused in place once typing pauses; the last pattern stays.
    await sentence.fill('   ');
    await lab.locator('.cell-message', { hasText: /no words.*last valid sentence/ }).waitFor({ timeout: 5000 });
    assert.equal(await sentence.getAttribute('aria-invalid'), 'true');
    assert.match(await verdict.textContent(), /^4 of 4 tokens/);
    // An edit to W_K survives a sentence with the same words (a trailing space).
    await sentence.fill('a b a b');
    await lab.locator('input.sentence:not([aria-invalid])').waitFor({ timeout: 5000 });
    await lab.getByLabel('W_K: pos 1 → pos 2').fill('0');
    await lab.getByLabel('W_K: pos 1 → pos 2').press('Enter');
    await lab.locator('.lab-verdict', { hasText: /Your edit changed the pattern/ }).waitFor({ timeout: 5000 });
    await sentence.press('End');
    await sentence.press(' ');
    await page.waitForTimeout(600); // past the typing pause
    assert.match(await verdict.textContent(), /Your edit changed the pattern/);
    assert.equal(await sentence.getAttribute('aria-invalid'), null);
    assert.deepEqual(problems, []);
  });

  it('at 360 px the reshape tables say that head 2 is out of sight (a fade and "scroll for head 2 →"), and scrolling does not move the layout', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await open('<attention-calc panels="heads"></attention-calc>');
    const lab = page.getByRole('group', { name: 'Multi-head attention' });
    const figure = lab.locator('figure').filter({ has: page.locator('table[data-matrix="Q"]') });
    const cue = figure.locator('.scroll-cue');
    const fade = (side) => figure.locator('.scroll-frame').evaluate((e, pseudo) => getComputedStyle(e, pseudo).opacity, `::${side}`);
    assert.equal(await cue.textContent(), 'scroll for head 2 →');
    const box = await cue.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 360 && box.height > 0, `the cue at ${JSON.stringify(box)}`);
    assert.equal(await fade('after'), '1');
    assert.equal(await fade('before'), '0');
    // The scroller is a named tab stop, so the keyboard scrolls it too.
    const scroller = lab.getByRole('region', { name: 'Q, scrolls sideways' });
    assert.equal(await scroller.getAttribute('tabindex'), '0');
    for (const name of ['K', 'V', 'Concat']) assert.match(await lab.locator('figure').filter({ has: page.locator(`table[data-matrix="${name}"]`) }).locator('.scroll-cue').textContent(), /^scroll for head 2 →$/);

    const height = await figure.evaluate((e) => e.getBoundingClientRect().height);
    await scroller.focus();
    await scroller.press('End');
    await scroller.evaluate((e) => { e.scrollLeft = e.scrollWidth; });
    await figure.locator('.scroll-cue', { hasText: '← scroll back for head 1' }).waitFor({ timeout: 5000 });
    assert.equal(await fade('after'), '0');
    assert.equal(await fade('before'), '1');
    assert.equal(await figure.evaluate((e) => e.getBoundingClientRect().height), height);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);

    // Where the tables fit, there is no cue and no extra tab stop.
    await page.setViewportSize({ width: 1280, height: 800 });
    await cue.waitFor({ state: 'hidden', timeout: 5000 });
    assert.equal(await lab.getByRole('region', { name: 'Q, scrolls sideways' }).count(), 0);
    assert.deepEqual(problems, []);
  });

  it('the three labs at 360 px, light and dark, have no axe-core violations', async () => {
    const axePage = await openPage(env.browser, { bypassCSP: true });
    try {
      const p = axePage.page;
      await p.setViewportSize({ width: 360, height: 800 });
      for (const theme of ['light', 'dark']) {
        const labs = ['scaling', 'heads', 'construct'].map((panel) => `<attention-calc panels="${panel}" theme="${theme}"></attention-calc>`).join('');
        await open(`<main><h1>A lesson</h1>${labs}</main>`, p, axePage.context);
        assert.deepEqual((await axeViolations(p)).violations, [], theme);
      }
      assert.deepEqual(axePage.problems, []);
    } finally {
      await axePage.context.close();
    }
  });
});
