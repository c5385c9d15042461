// <attention-calc> inside the hosts course authors use: a slide deck listening for keys on the
// document, a slide's big centred type, a scaled and scrolling stage, a narrow column, a printed
// handout, a deck that measures its slides once, and a site that switches dark mode by a class.
// Each host is a page of the test's own under the strict CSP, styled by a served stylesheet.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { join } from 'node:path';

import { coursePage, servedPages } from './served.mjs';

// Screenshots of each host, to look at by eye: ATTENTION_CALC_SHOTS=/some/folder node --test …
const SHOTS = process.env.ATTENTION_CALC_SHOTS ? join(process.env.ATTENTION_CALC_SHOTS, '/') : null;

let sheets = 0;

describe('<attention-calc> in real hosts', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  // A host page: `body` styled by `css`, served as a stylesheet (the CSP allows no inline style).
  async function host(body, css = '') {
    const href = `${env.url}host-${++sheets}.css`;
    await context.route(href, (route) => route.fulfill({ contentType: 'text/css', body: css }));
    await page.goto(await coursePage(context, env.url, `<link rel="stylesheet" href="${href}">${body}`));
    await page.evaluate(() => customElements.whenDefined('attention-calc'));
  }
  const startAll = () => page.evaluate(async () => {
    for (const e of document.querySelectorAll('attention-calc')) {
      e.scrollIntoView();
      await e.ready;
    }
  });
  const shot = async (name, locator = null) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await (locator ?? page).screenshot({ path: `${SHOTS}${name}.png`, ...(locator ? {} : { fullPage: true }) });
  };

  it('keys typed in a cell do not reach the page\'s listeners; Escape still does', async () => {
    await host('<main class="deck"><attention-calc></attention-calc></main>');
    await startAll();
    // A slide deck's listeners: it would change slide on these keys.
    await page.evaluate(() => {
      window.heard = [];
      for (const type of ['keydown', 'keypress', 'keyup']) document.addEventListener(type, (e) => window.heard.push(`${type} ${e.key}`));
    });
    const heard = () => page.evaluate(() => window.heard.splice(0));
    const calc = page.locator('attention-calc');

    const cell = calc.getByLabel('Q row 1 column 1', { exact: true });
    await cell.click();
    await page.keyboard.type('0.5');
    assert.equal(await cell.inputValue(), '0.5', 'the . reaches the cell');
    for (const key of ['ArrowRight', 'ArrowLeft', 'Space', 'End', 'Home', 'b', 'Backspace', 'ArrowDown', 'Enter']) await page.keyboard.press(key);
    assert.deepEqual(await heard(), [], 'typing and grid navigation stay in the widget');

    // A focused plot handle: the arrows move the vector, and only the vector.
    const handle = calc.getByRole('button', { name: /^Value vector v₁/ });
    const v1 = calc.getByLabel('V row 1 column 1', { exact: true });
    const before = await v1.inputValue();
    await handle.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.notEqual(await v1.inputValue(), before, 'the handle moved');
    assert.deepEqual(await heard(), []);

    // The Mode select and the steps' cells use their keys too.
    await calc.getByLabel('Mode', { exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    await calc.getByLabel('Weights row 1 column 1', { exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await calc.getByLabel('Weights row 1 column 2', { exact: true }).evaluate((e) => e.getRootNode().activeElement === e), true);
    assert.deepEqual(await heard(), []);

    // Keys the widget has no use for go on to the page.
    await cell.focus();
    await page.keyboard.press('Escape');
    assert.deepEqual(await heard(), ['keydown Escape', 'keyup Escape']);
    assert.deepEqual(problems, []);
  });

  it('a slide\'s 42 px centred text does not size or align the widget; --calc-font-size does', async () => {
    await host(
      '<section class="slide"><attention-calc id="plain"></attention-calc><attention-calc id="big"></attention-calc></section>',
      '.slide { width: 700px; font-size: 42px; text-align: center; line-height: 1.2; } #big { --calc-font-size: 20px; }');
    await startAll();
    const look = (id) => page.locator(`#${id}`).evaluate((e) => {
      const cell = e.shadowRoot.querySelector('td[data-step="weights"]');
      const input = e.shadowRoot.querySelector('.input-matrix input');
      return {
        cell: parseFloat(getComputedStyle(cell).fontSize),
        align: getComputedStyle(e.shadowRoot.querySelector('.calc')).textAlign,
        width: e.getBoundingClientRect().width,
        scrollWidth: e.scrollWidth,
        inputFits: input.scrollWidth <= input.clientWidth,
      };
    });
    const plain = await look('plain');
    assert.ok(plain.cell <= 16, `a weights cell is at most 16 px, not the slide's 42 px (${plain.cell})`);
    assert.equal(plain.align, 'start');
    assert.ok(plain.width <= 700 && plain.scrollWidth <= 701, `the widget stays within the 700 px slide (${plain.width}, ${plain.scrollWidth})`);
    assert.ok(plain.inputFits, 'a cell shows all of its number');
    const big = await look('big');
    assert.ok(big.cell > plain.cell * 1.15, `--calc-font-size scales the widget (${big.cell} vs ${plain.cell})`);
    await shot('slide-42px', page.locator('#plain'));
    assert.deepEqual(problems, []);
  });

  it('the explanation never covers the numbers, in a scaled and scrolling host', async () => {
    await host(
      '<div class="stage"><div class="slide"><attention-calc></attention-calc></div></div>',
      '.stage { transform: scale(0.6); transform-origin: 0 0; width: 960px; } .slide { height: 640px; overflow: auto; }');
    await startAll();
    const overlaps = await page.evaluate(async () => {
      const calc = document.querySelector('attention-calc');
      const slide = document.querySelector('.slide');
      const panel = calc.shadowRoot.querySelector('.explain');
      const found = [];
      for (let top = 0; top <= slide.scrollHeight; top += 40) {
        slide.scrollTop = top;
        await new Promise(requestAnimationFrame);
        const p = panel.getBoundingClientRect(), view = slide.getBoundingClientRect();
        for (const cell of calc.shadowRoot.querySelectorAll('td[data-step]')) {
          const c = cell.getBoundingClientRect();
          if (c.width === 0 || c.bottom <= view.top || c.top >= view.bottom) continue;
          const covered = c.left < p.right && p.left < c.right && c.top < p.bottom && p.top < c.bottom;
          if (covered) found.push(`${cell.getAttribute('aria-label')} at scrollTop ${top}`);
        }
      }
      return found;
    });
    assert.deepEqual(overlaps.slice(0, 5), [], `${overlaps.length} cells covered by the explanation`);
    // A tap on a weight reaches it, and the explanation it brings covers nothing either.
    const weight = page.locator('attention-calc').getByLabel('Weights row 1 column 2', { exact: true });
    await weight.scrollIntoViewIfNeeded();
    await weight.click();
    assert.match(await page.locator('attention-calc').getByRole('note', { name: 'Explanation' }).textContent(), /weight/i);
    await shot('scaled-stage');
    assert.deepEqual(problems, []);
  });

  it('the widget fits a 280 px and a 320 px column on a wide screen', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await host(
      '<div class="layout"><aside class="c280"><attention-calc></attention-calc></aside>'
      + '<aside class="c320"><attention-calc panels="formula,controls,inputs,weights,checks"></attention-calc></aside></div>',
      '.layout { display: flex; gap: 40px; align-items: flex-start; } .c280 { width: 280px; flex: none; } .c320 { width: 320px; flex: none; }');
    await startAll();
    for (const column of ['c280', 'c320']) {
      const fit = await page.locator(`.${column} attention-calc`).evaluate((e) => {
        const width = e.getBoundingClientRect().width;
        const box = e.getBoundingClientRect();
        // Anything wider than the host must sit in a scroller of its own inside the widget.
        const out = [];
        for (const el of e.shadowRoot.querySelectorAll('*')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.right <= box.right + 1) continue;
          let scroller = el.parentElement;
          while (scroller && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(scroller).overflowX)) scroller = scroller.parentElement;
          if (!scroller || scroller.getBoundingClientRect().right > box.right + 1) out.push(`${el.localName}.${el.className?.baseVal ?? el.className}`);
        }
        const mode = e.shadowRoot.querySelector('select[aria-label="Mode"]');
        return { width, scrollWidth: e.scrollWidth, out, mode: mode.getBoundingClientRect().width };
      });
      const want = column === 'c280' ? 280 : 320;
      assert.equal(fit.width, want);
      assert.deepEqual(fit.out, [], `${column}: nothing sticks out`);
      assert.ok(fit.scrollWidth <= want, `${column}: no horizontal overflow (${fit.scrollWidth} px)`);
      assert.ok(fit.mode <= want, `${column}: the Mode select shrinks (${fit.mode} px)`);
    }
    // The narrow layout comes from the column: a 280 px widget uses the narrow cells, on a wide screen.
    const cellWidth = await page.locator('.c280 attention-calc').evaluate((e) => e.shadowRoot.querySelector('.input-matrix input').getBoundingClientRect().width);
    assert.ok(cellWidth < 60, `narrow cells in a narrow column (${cellWidth} px)`);
    await shot('columns');
    assert.deepEqual(problems, []);
  });

  it('printing starts every widget below the fold; loading="eager" starts at once', async () => {
    const six = (attrs = '') => Array.from({ length: 6 }, (_, i) => `<attention-calc panels="weights" q="${i + 1} 0; 0 1" k="1 0; 0 1" v="1 0; 0 1"${attrs}></attention-calc>`).join('');
    await host(`<div class="fold"></div>${six()}`, '.fold { height: 4000px; }');
    // Without the fix they never start: wait a bounded time, then compare.
    const allStarted = (selector) => page.waitForFunction((sel) => [...document.querySelectorAll(sel)].every((e) => e.result !== null), selector, { timeout: 10_000 }).catch(() => {});
    const started = () => page.evaluate(() => [...document.querySelectorAll('attention-calc')].map((e) => e.result !== null));
    await page.waitForTimeout(300);
    assert.deepEqual(await started(), Array(6).fill(false), 'lazy: none started below the fold');
    await page.emulateMedia({ media: 'print' });
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    await allStarted('attention-calc');
    assert.deepEqual(await started(), Array(6).fill(true), 'printing started all six');
    await page.emulateMedia({ media: 'screen' });

    await host(`<div class="fold"></div>${six(' loading="eager"')}<attention-calc loading="soon"></attention-calc>`, '.fold { height: 4000px; }');
    const errors = page.evaluate(() => new Promise((resolve) => document.addEventListener('error', (e) => resolve(e.detail.message))));
    await allStarted('attention-calc[loading="eager"]');
    assert.deepEqual((await started()).slice(0, 6), Array(6).fill(true), 'eager: all six started without scrolling');
    await page.locator('attention-calc[loading="soon"]').scrollIntoViewIfNeeded();
    assert.match(await errors, /loading must be lazy \(the default\) or eager, not “soon”/);
    // The property reflects the attribute, and setting it later starts a waiting widget.
    // At the top of the page, while the view is 4000 px further down.
    await page.evaluate(() => document.body.prepend(Object.assign(document.createElement('attention-calc'), { id: 'late' })));
    await page.waitForTimeout(200);
    assert.equal(await page.locator('#late').evaluate((e) => e.result), null);
    await page.locator('#late').evaluate((e) => { e.loading = 'eager'; });
    assert.equal(await page.locator('#late').getAttribute('loading'), 'eager');
    await allStarted('#late');
    assert.equal(await page.locator('#late').evaluate((e) => e.result !== null), true);
    assert.deepEqual(problems, []);
  });

  it('attention-calc-resize tells the host when the widget grows after start', async () => {
    await host('<div class="fold"></div><section class="slide"><attention-calc panels="weights"></attention-calc></section>', '.fold { height: 3000px; }');
    await page.evaluate(() => {
      window.sizes = [];
      document.addEventListener('attention-calc-resize', (e) => window.sizes.push(e.detail));
    });
    const calc = page.locator('attention-calc');
    const loading = await calc.evaluate((e) => e.getBoundingClientRect().height);
    await startAll();
    await page.waitForFunction(() => window.sizes.length > 0, null, { timeout: 5000 });
    const height = await calc.evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height > loading * 2, `the widget grew from "Loading…" (${loading} → ${height} px)`);
    const last = await page.evaluate(() => window.sizes.at(-1));
    assert.equal(last.height, height);
    assert.equal(last.width, await calc.evaluate((e) => e.getBoundingClientRect().width));
    // Showing more panels grows it again, and says so.
    const count = await page.evaluate(() => window.sizes.length);
    await calc.evaluate((e) => { e.panels = 'weights,checks'; });
    await page.waitForFunction((n) => window.sizes.length > n, count, { timeout: 5000 });
    assert.equal((await page.evaluate(() => window.sizes.at(-1))).height, await calc.evaluate((e) => e.getBoundingClientRect().height));
    assert.deepEqual(problems, []);
  });

  it('theme="auto" follows a dark class on <html>, live; theme="light" stays light', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await host(
      '<attention-calc id="auto" panels="weights"></attention-calc><attention-calc id="light" theme="light" panels="weights"></attention-calc>',
      'html.night { color-scheme: dark; }');
    await startAll();
    const paper = (id) => page.locator(`#${id}`).evaluate((e) => getComputedStyle(e).backgroundColor);
    const WHITE = 'rgb(255, 255, 255)', DARK = 'rgb(21, 24, 28)';
    assert.equal(await paper('auto'), WHITE);
    await page.evaluate(() => document.documentElement.classList.add('dark'));
    await page.waitForFunction(() => getComputedStyle(document.querySelector('#auto')).backgroundColor === 'rgb(21, 24, 28)', null, { timeout: 2000 }).catch(() => {});
    assert.equal(await paper('auto'), DARK, 'html.dark turns the widget dark');
    assert.equal(await paper('light'), WHITE, 'theme="light" wins over the page');
    await shot('dark-class');
    await page.evaluate(() => document.documentElement.classList.remove('dark'));
    await page.waitForTimeout(50);
    assert.equal(await paper('auto'), WHITE, 'and back');
    // A site that sets color-scheme: dark on <html> (through its own class) is followed too.
    await page.evaluate(() => document.documentElement.classList.add('night'));
    await page.waitForTimeout(50);
    assert.equal(await paper('auto'), DARK, 'color-scheme: dark on <html>');
    // With no theme named, the system decides, as before.
    await page.evaluate(() => document.documentElement.classList.remove('night'));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(50);
    assert.equal(await paper('auto'), DARK);
    await page.evaluate(() => document.documentElement.classList.add('light'));
    await page.waitForTimeout(50);
    assert.equal(await paper('auto'), WHITE, 'html.light wins over a dark system');
    assert.deepEqual(problems, []);
  });
});
