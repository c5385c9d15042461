// Issue 25 #2: the page's links keep the learner's work, and a link can open at a section.
// The hash holds both, the section first: #cost&q=…; a section alone (#learned) or a state
// alone (#q=…) still opens as it always did. Real clicks, keystrokes and reloads.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';

const WORKED = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&preset=worked';

describe('links keep the work and open at a section', () => {
  const env = servedWeb();
  let context = null;
  afterEach(async () => { await context?.close(); context = null; });

  async function open(hash = '', { width = 1280, height = 800 } = {}) {
    let page, problems;
    ({ context, page, problems } = await openPage(env.browser));
    await page.setViewportSize({ width, height });
    await page.goto(`${env.url}index.html${hash}`);
    await page.waitForSelector('body[data-ready]');
    return { page, problems, calc: page.locator('#calculator') };
  }
  const top = (page, id) => page.locator(`#${id}`).evaluate((e) => e.getBoundingClientRect().top);
  // The section has its content (its lab, not "Loading…"), and the page has stopped moving.
  async function settled(page, id) {
    await page.locator(`#${id}`).evaluate((e) => e.ready);
    await page.waitForTimeout(1500);
  }
  const nearTop = async (page, id, why) => {
    const y = await top(page, id);
    assert.ok(Math.abs(y - 16) <= 4, `${why}: #${id} is ${y} px from the top of the screen, not at it (scrollY ${await page.evaluate(() => scrollY)})`);
  };

  it('an edit of Q by keyboard survives a click on "Cost" and a reload, which opens at Cost', async () => {
    const { page, problems, calc } = await open();
    const q11 = calc.getByLabel('Q row 1 column 1', { exact: true });
    await q11.click();
    await page.keyboard.type('-2.5', { delay: 80 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /q=-2.5,1;/.test(location.hash));
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Cost' }).click();
    await page.waitForFunction(() => location.hash.startsWith('#cost&'));
    assert.match(await page.evaluate(() => location.hash), /^#cost&q=-2\.5,1;0,1;-1,0&/);
    await settled(page, 'cost');
    await nearTop(page, 'cost', 'after the click');

    await page.reload();
    await page.waitForSelector('body[data-ready]');
    assert.equal(await q11.inputValue(), '−2.5');
    await settled(page, 'cost');
    await nearTop(page, 'cost', 'after the reload');
    assert.match(await page.evaluate(() => location.hash), /^#cost&q=-2\.5,1;/);
    assert.deepEqual(problems, []);
  });

  it('practice answers survive a click on "Cost" and a reload', async () => {
    const { page, problems, calc } = await open();
    await calc.getByRole('button', { name: 'Practice', exact: true }).click();
    const a11 = calc.getByLabel('Your weights row 1 column 1', { exact: true });
    await a11.click();
    await page.keyboard.type('1', { delay: 80 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /practice=1/.test(location.hash) && /your-weights=1,,;/.test(location.hash));
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Cost' }).click();
    await page.waitForFunction(() => location.hash.startsWith('#cost&'));
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    assert.equal(await a11.inputValue(), '1');
    assert.match(await page.evaluate(() => location.hash), /^#cost&.*practice=1.*your-weights=1,,;/);
    await settled(page, 'cost');
    await nearTop(page, 'cost', 'after the reload');
    assert.deepEqual(problems, []);
  });

  for (const id of ['learned', 'scaling', 'cost', 'construct', 'multi-head']) {
    it(`index.html#${id} opens at that section once it is laid out, and the hash still names it`, async () => {
      const { page, problems } = await open(`#${id}`);
      await settled(page, id);
      await nearTop(page, id, 'once loaded');
      assert.match(await page.evaluate(() => location.hash), new RegExp(`^#${id}(&q=1,1;0,1;-1,0&|$)`));
      // It does not jump again later.
      await page.waitForTimeout(1500);
      await nearTop(page, id, 'later');
      assert.deepEqual(problems, []);
    });
  }

  it('a link with a section and a state opens at the section with the state', async () => {
    const { page, problems, calc } = await open(`#learned&${WORKED.replace('q=1,1', 'q=3,1')}&causal=1`);
    assert.equal(await calc.getByLabel('Q row 1 column 1', { exact: true }).inputValue(), '3');
    assert.equal(await calc.getByLabel('Causal mask').isChecked(), true);
    await settled(page, 'learned');
    await nearTop(page, 'learned', 'once loaded');
    assert.match(await page.evaluate(() => location.hash), /^#learned&q=3,1;0,1;-1,0&.*causal=1/);
    assert.deepEqual(problems, []);
  });

  it('a state-only link still opens at the top with its state; Copy link gives one that opens the same', async () => {
    const { page, problems, calc } = await open(`#${WORKED.replace('q=1,1', 'q=4,1')}`);
    assert.equal(await calc.getByLabel('Q row 1 column 1', { exact: true }).inputValue(), '4');
    assert.equal(await page.evaluate(() => scrollY), 0);
    const link = await calc.evaluate((e) => `${e.linkTarget}#${e.hash}`);
    assert.match(link, /index\.html#q=4,1;/);
    await page.goto(link.replace('q=4,1', 'q=5,1'));
    await page.waitForSelector('body[data-ready]');
    assert.equal(await calc.getByLabel('Q row 1 column 1', { exact: true }).inputValue(), '5');
    assert.deepEqual(problems, []);
  });

  it('Back and Forward go between sections and keep the edits', async () => {
    const { page, problems, calc } = await open();
    const q11 = calc.getByLabel('Q row 1 column 1', { exact: true });
    await q11.click();
    await page.keyboard.type('7', { delay: 80 });
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Cost' }).click();
    await page.waitForFunction(() => location.hash.startsWith('#cost&q=7,1'));
    await settled(page, 'cost');
    await page.goBack();
    await page.waitForFunction(() => !location.hash.startsWith('#cost'));
    await page.waitForTimeout(500);
    assert.ok(await page.evaluate(() => scrollY) < 50, 'Back returns to the calculator');
    assert.equal(await q11.inputValue(), '7');
    // Work done after going Back is not taken back by Forward.
    await q11.click();
    await page.keyboard.type('8', { delay: 80 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^#q=8,1;/.test(location.hash));
    await page.goForward();
    await page.waitForFunction(() => location.hash.startsWith('#cost&q=8,1'));
    await page.waitForTimeout(500);
    await nearTop(page, 'cost', 'after Forward');
    assert.equal(await q11.inputValue(), '8');
    // A link pasted into the address bar brings its own state and section.
    await page.evaluate(() => { location.hash = '#learned&q=9,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1'; });
    await page.waitForFunction(() => document.querySelector('#calculator').state.q[0][0] === 9);
    await settled(page, 'learned');
    await nearTop(page, 'learned', 'after a pasted link');
    assert.deepEqual(problems, []);
  });
});
