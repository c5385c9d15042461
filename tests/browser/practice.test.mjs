// Issue 12: practice mode. The learner types every step; each entry is checked against the core.
// Every exercise typed right, each named mistake recognised, carried rounding, the hash, typed
// garbage, the element's mode attribute, keyboard, axe-core and 360 px. Numbers typed key by key at
// a learner's pace are practice-keys.test.mjs's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import { axeViolations, openPage } from './chromium.mjs';
import { STEPS, WORKED, cell, coreResult, inputsOf, live, practiceSuite, practise, summary } from './practice-page.mjs';
import { coursePage } from './served.mjs';

// Typed into a practice cell: none of these may throw, show NaN or engine text.
const NASTY = [
  'abc', 'NaN', '-NaN', 'Infinity', '-Infinity', '∞', '−∞', '1e39', '-1e40', '1e400', '9'.repeat(400), '−', '--1', '1..2', '1,5',
  '1e', '-', '+', '.', '1e-', '', '   ', '0x1F', '1_000', '½', '１', '٣', '1 2', '1;2', '1/2', 'sqrt(2)', 'null', 'undefined',
  '{}', '[[1]]', '😀', '\u200b', 'x'.repeat(5000), '<script>window.__x=1</script>', '<img src=x onerror="window.__x=2">',
  '__proto__', 'constructor', 'toString', '0.4460000000000000000001', '-0', '+0.5', '.5', '5.', '1e-400', '-1e-45',
];
const ENGINE = /Cannot read|undefined \(reading|null \(reading|is not a function|is not iterable|TypeError|RangeError|\[object |NaN/;

describe('practice mode', () => {
  const { env, open, track } = practiceSuite();

  // Types a step's numbers (null: leave the cell), rounded to 3 decimals, then Enter commits.
  async function typeStep(calc, step, rows) {
    let last = null;
    for (const [i, row] of rows.entries()) {
      for (const [j, x] of row.entries()) {
        if (x === null) continue;
        last = cell(calc, step, i, j);
        await last.fill(String(Number(x.toFixed(3))));
      }
    }
    await last?.press('Enter');
  }

  for (const exercise of ['worked', 'worked-causal', 'exercise', 'exercise-causal', 'random-int']) {
    it(`exercise ${exercise} typed as the core's values to 3 decimals is all right, every step done`, async () => {
      const { page, problems, calc } = await open();
      await practise(calc);
      await calc.getByLabel('Exercise', { exact: true }).selectOption(exercise);
      const values = await coreResult(page, await inputsOf(calc));
      for (const step of STEPS) await typeStep(calc, step, values[step]);
      const total = exercise.endsWith('causal') ? 51 : 54; // the causal mask's 3 masked scores are given
      await page.waitForFunction(([t]) => document.querySelector('#calculator').shadowRoot.querySelector('.practice-summary').textContent.startsWith(`${t} of ${t} entries right`), [total]);
      assert.match(await summary(calc), /Every step done/);
      const marks = await calc.locator('.practice .input-matrix input').evaluateAll((inputs) => inputs.map((i) => (i.readOnly ? 'given' : i.getAttribute('aria-invalid'))));
      assert.equal(marks.filter((m) => m === 'false').length, total);
      assert.ok(marks.every((m) => m === 'false' || m === 'given'), JSON.stringify(marks));
      assert.equal(await calc.locator('.practice-progress.done').count(), 7);
      assert.deepEqual(problems, []);
    });
  }

  it('each named mistake is recognised when typed: d_k scaling, no scale, mask after the softmax, transposed scores', async () => {
    const { page, problems, calc } = await open();
    await practise(calc);
    const inputs = await inputsOf(calc);
    const expect = async (step, i, j, text, want) => {
      const c = cell(calc, step, i, j);
      await c.fill(text);
      await c.press('Enter');
      await page.waitForFunction(() => document.querySelector('#calculator').shadowRoot.querySelector('.practice-live').textContent !== '');
      assert.equal(await c.getAttribute('aria-invalid'), 'true', `${step} ${text}`);
      const said = await live(calc).textContent();
      assert.match(said, want);
      await c.fill('');
      await c.press('Enter');
      return said;
    };
    const dk = await coreResult(page, { ...inputs, scale: 'dk' });
    await expect('scaledBeforeMask', 0, 0, String(dk.scaledBeforeMask[0][0]), /^Your scaled row 1 column 1: Not right: this is scaled by d_k instead of √d_k/);
    const none = await coreResult(page, { ...inputs, scale: 'none' });
    await expect('scaledBeforeMask', 0, 1, String(none.scaledBeforeMask[0][1]), /^Your scaled row 1 column 2: Not right: this is not scaled/);
    const transposed = await coreResult(page, { q: inputs.k, k: inputs.q, v: inputs.v });
    await expect('scores', 0, 1, String(transposed.scores[0][1]), /^Your scores row 1 column 2: Not right: this is a transposed QKᵀ/);
    await calc.getByLabel('Exercise', { exact: true }).selectOption('worked-causal');
    const after = await coreResult(page, { ...inputs, mask: 'causal', maskAfterSoftmax: true });
    await expect('weights', 1, 0, after.weights[1][0].toFixed(3), /^Your weights row 2 column 1: Not right: this is the mask applied after the softmax/);
    assert.deepEqual(problems, []);
  });

  it('carried rounding counts as right: exercise 1, z₁₂ = 0.216 from the learner\'s own A₁ (0.217 from the exact values)', async () => {
    const { page, calc } = await open();
    await practise(calc);
    await calc.getByLabel('Exercise', { exact: true }).selectOption('exercise');
    const values = await coreResult(page, await inputsOf(calc));
    await typeStep(calc, 'weights', values.weights);
    const z12 = cell(calc, 'output', 0, 1);
    await z12.fill('0.216');
    await z12.press('Enter');
    await page.waitForFunction(() => /carried/.test(document.querySelector('#calculator').shadowRoot.querySelector('.practice-live').textContent));
    assert.equal(await z12.getAttribute('aria-invalid'), 'false');
    assert.match(await live(calc).textContent(), /^Your output row 1 column 2: Right, carried from your own numbers .*0\.217/);
    assert.match(await calc.locator('.practice-output .practice-progress').textContent(), /^1 of 6 right/);
  });

  it('the hash holds the exercise and the answers; a link restores the attempt; a bad one gets the broken-link message', async () => {
    const { page, calc } = await open();
    await practise(calc);
    await calc.getByLabel('Exercise', { exact: true }).selectOption('exercise-causal');
    await typeStep(calc, 'weights', [[1, null, null], [0.33, null, null], [null, null, null]]);
    await calc.getByRole('button', { name: 'Reveal this step' }).first().click(); // the scores
    await page.waitForFunction(() => /your-weights=1,,;0.33,,;,,/.test(location.hash) && /revealed=scores/.test(location.hash));
    const link = page.url();
    assert.match(link, /preset=exercise&/);
    assert.match(link, /causal=1/);
    assert.match(link, /practice=1/);

    const { calc: again } = await open({ hash: new URL(link).hash });
    await again.getByLabel('Your weights row 1 column 1', { exact: true }).waitFor();
    assert.equal(await again.getByLabel('Exercise', { exact: true }).inputValue(), 'exercise-causal');
    assert.equal(await cell(again, 'weights', 0, 0).inputValue(), '1');
    assert.equal(await cell(again, 'weights', 1, 0).inputValue(), '0.33');
    assert.equal(await cell(again, 'weights', 1, 0).getAttribute('aria-invalid'), 'false', '0.33 is A₂₁ = 0.330238 to 3 decimals');
    assert.equal(await cell(again, 'scores', 2, 0).inputValue(), '−1');
    assert.match(await summary(again), /Revealed instead of typed: scores/);

    const { page: bad } = await open({ hash: `#${WORKED}&practice=1&your-weights=1,2;3,4` });
    const notice = bad.locator('#notice');
    await notice.waitFor();
    assert.equal(await notice.textContent(), 'This link is broken: its state could not be used (your weights have 2 rows, but the exercise has 3), so the page shows the worked example instead.');
    const { page: bad2 } = await open({ hash: `#${WORKED}&practice=1&your-exp=x,,;,,;,,` });
    await bad2.locator('#notice').waitFor();
    assert.match(await bad2.locator('#notice').textContent(), /your exp row 1 column 1: “x” is not a number/);
  });

  it('no uncaught error, NaN or engine text for any typed text (a few hundred strings in every step)', async () => {
    const { page, problems, calc } = await open({ hash: `#${WORKED}&causal=1&practice=1` });
    await cell(calc, 'scores', 0, 0).waitFor();
    const texts = [...NASTY, ...fc.sample(fc.oneof(fc.string({ maxLength: 24 }), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.double().map(String), fc.mixedCase(fc.constantFrom('nan', 'inf', 'e', '-1e5'))), { numRuns: 300, seed: 12 })];
    const found = await calc.evaluate(async (e, { texts, names }) => {
      const root = e.shadowRoot;
      const bad = [];
      for (const [n, text] of texts.entries()) {
        const name = names[n % names.length];
        const input = root.querySelector(`[aria-label="${name}"]`);
        input.value = text;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new FocusEvent('focusout', { bubbles: true }));
        // The learner's own text is quoted back (“NaN” is not a number); the rest must be clean.
        const shown = root.querySelector('.practice').innerText.replace(/“[^”]*”/g, '“…”');
        if (/NaN|Cannot read|is not a function|TypeError|RangeError|\[object /.test(shown)) bad.push(`${name} ← ${JSON.stringify(text.slice(0, 20))}: ${shown.slice(0, 200)}`);
      }
      return bad;
    }, { texts, names: ['Your scores row 1 column 1', 'Your exp row 2 column 2', 'Your row sum row 3', 'Your weights row 2 column 1', 'Your output row 3 column 2', 'Your masked row 1 column 1'] });
    assert.deepEqual(found, []);
    assert.ok(texts.length >= 300, `${texts.length} strings`);
    assert.equal(await page.evaluate(() => window.__x), undefined);
    assert.doesNotMatch((await calc.locator('.practice').innerText()).replace(/“[^”]*”/g, '“…”'), ENGINE);
    assert.deepEqual(problems, []);
  });

  it('the element: mode="practice" starts in practice, precision sets the checking, a bad mode is reported, and the Explore / Practice buttons keep the attempt', async () => {
    const context = track((await openPage(env.browser)).context);
    const page = await context.newPage();
    const errors = [];
    await page.exposeFunction('reportError', (m) => errors.push(m));
    await page.goto(await coursePage(context, env.url, '<attention-calc id="a" mode="practice" precision="1" loading="eager"></attention-calc><attention-calc id="b" mode="quiz" loading="eager"></attention-calc>'));
    await page.evaluate(() => customElements.whenDefined('attention-calc'));
    const a = page.locator('#a');
    await cell(a, 'weights', 0, 0).waitFor();
    assert.equal(await a.evaluate((e) => e.mode), 'practice');
    await cell(a, 'weights', 0, 0).fill('0.4'); // 0.446 to 1 decimal
    await cell(a, 'weights', 0, 0).press('Enter');
    await page.waitForFunction(() => document.querySelector('#a').shadowRoot.querySelector('[aria-label="Your weights row 1 column 1"]').getAttribute('aria-invalid') === 'false');
    const b = page.locator('#b');
    await b.getByLabel('Weights row 1 column 1', { exact: true }).waitFor();
    assert.match(await b.locator('.calc-status').textContent(), /Mode must be explore \(the default\) or practice, not “quiz”/);
    // The buttons: explore hides the attempt, practice brings it back.
    await a.getByRole('button', { name: 'Explore', exact: true }).click();
    assert.equal(await a.getByRole('button', { name: 'Explore', exact: true }).getAttribute('aria-pressed'), 'true');
    assert.equal(await a.locator('.practice').isVisible(), false);
    await a.getByLabel('Weights row 1 column 1', { exact: true }).waitFor();
    await a.getByRole('button', { name: 'Practice', exact: true }).click();
    assert.equal(await cell(a, 'weights', 0, 0).inputValue(), '0.4');
    // The attribute switches it live.
    await a.evaluate((e) => { e.mode = 'explore'; });
    await a.getByLabel('Weights row 1 column 1', { exact: true }).waitFor();
    assert.equal(await a.locator('.practice').isVisible(), false);
  });

  it('keyboard: each grid is one Tab stop, then its Hint, Answer and Reveal; Hint and Answer speak of the focused cell', async () => {
    const { page, calc } = await open({ hash: `#${WORKED}&practice=1` });
    const focused = () => page.evaluate(() => {
      let a = document.activeElement;
      while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      return a?.getAttribute('aria-label') ?? a?.textContent;
    });
    await cell(calc, 'weights', 0, 0).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 'Your weights row 1 column 2');
    await page.keyboard.type('0.9');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Hint for your weights row 1 column 2');
    await page.keyboard.press('Enter');
    assert.match(await live(calc).textContent(), /^Hint: A₁₂ = exp₁₂ \/ row sum₁ = \? \/ \?/);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Answer for your weights row 1 column 2');
    await page.keyboard.press('Enter');
    assert.match(await live(calc).textContent(), /Answer: 0\.446$/);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Reveal this step');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Your output row 1 column 1');
  });

  it('marking a cell right or wrong moves nothing: the mark\'s thicker border takes its pixel from the padding', async () => {
    const { page, problems, calc } = await open();
    await practise(calc);
    const score = cell(calc, 'scores', 0, 2);
    await score.waitFor();
    const boxes = () => score.locator('xpath=ancestor::figure[1]').evaluate((f) => [...f.querySelectorAll('table, input')].map((e) => JSON.stringify(e.getBoundingClientRect())));
    const unmarked = await boxes();
    const value = (await coreResult(page, await inputsOf(calc))).scores[0][2];
    for (const [typed, mark] of [[String(Number(value.toFixed(3)) + 5), 'wrong'], [String(Number(value.toFixed(3))), 'right']]) {
      await score.fill(typed);
      await score.press('Enter');
      await page.waitForFunction(([m]) => document.querySelector('#calculator').shadowRoot.querySelector('[aria-label="Your scores row 1 column 3"]').classList.contains(m), [mark]);
      assert.deepEqual(await boxes(), unmarked, `marked ${mark}`);
    }
    assert.deepEqual(problems, []);
  });

  it('by touch at 390 px, the "Change sign" key makes the number in a Q cell, a practice cell and a lab cell negative, keeps focus there, and the number is used', async () => {
    const { context, page, problems } = await openPage(env.browser, { contextOptions: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } });
    track(context);
    await page.goto(`${env.url}index.html#${WORKED}`);
    const calc = page.locator('#calculator');
    const focusedIn = (host) => page.locator(host).evaluate((e) => e.shadowRoot.activeElement?.getAttribute('aria-label') ?? null);
    // Taps the cell, types `digits` on the keypad, taps ±: the key shows only while the cell has
    // focus, sits apart from every cell, and showing it moves nothing.
    const negate = async (host, input, digits) => {
      const figure = input.locator('xpath=ancestor::figure[1]');
      assert.equal(await figure.getByRole('button', { name: 'Change sign' }).count(), 0, 'no ± key before a cell has focus');
      await input.tap();
      const name = await input.getAttribute('aria-label');
      const boxes = () => figure.evaluate((f) => [...f.querySelectorAll('table, input')].map((e) => JSON.stringify(e.getBoundingClientRect())));
      await page.keyboard.type(digits, { delay: 100 });
      const key = figure.getByRole('button', { name: 'Change sign' });
      assert.equal(await key.count(), 1);
      const before = await boxes();
      const k = await key.boundingBox();
      for (const box of await figure.locator('input').evaluateAll((inputs) => inputs.map((e) => e.getBoundingClientRect().toJSON()))) {
        assert.ok(k.x >= box.right || k.x + k.width <= box.left || k.y >= box.bottom || k.y + k.height <= box.top, `the ± key ${JSON.stringify(k)} covers a cell ${JSON.stringify(box)}`);
      }
      assert.ok(k.width >= 24 && k.height >= 24, `a touch target: ${k.width}×${k.height}`);
      await key.tap();
      assert.equal(await input.inputValue(), `−${digits}`);
      assert.equal(await focusedIn(host), name, 'focus stays in the cell');
      assert.deepEqual(await boxes(), before, 'nothing moved');
      await key.tap();
      assert.equal(await input.inputValue(), digits, 'a second tap makes it positive again');
      await key.tap();
    };

    // The calculator's Q: the weights follow q₁₁ = −2.
    const q11 = calc.getByLabel('Q row 1 column 1', { exact: true });
    const a11 = calc.getByLabel('Weights row 1 column 1', { exact: true });
    const weightBefore = await a11.textContent();
    await negate('#calculator', q11, '2');
    await page.waitForFunction(() => document.querySelector('#calculator').state.q[0][0] === -2);
    await page.waitForFunction((w) => document.querySelector('#calculator').shadowRoot.querySelector('[aria-label="Weights row 1 column 1"]').textContent !== w, weightBefore);

    // A practice cell: score₁₃ = −1, marked right once committed.
    await page.goto(`${env.url}index.html#${WORKED}&practice=1`);
    await cell(calc, 'scores', 0, 2).waitFor();
    await negate('#calculator', cell(calc, 'scores', 0, 2), '1');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#calculator').shadowRoot.querySelector('[aria-label="Your scores row 1 column 3"]').getAttribute('aria-invalid') === 'false');
    assert.equal(await calc.evaluate((e) => e.state.practice.answers.scores[0][2]), -1);

    // A lab's grid (construct a head, W_Q): its heat map follows.
    const lab = page.locator('#construct');
    await lab.scrollIntoViewIfNeeded();
    await lab.evaluate((e) => e.ready);
    const wq = lab.locator('.input-matrix input').first();
    await wq.waitFor();
    const mapBefore = await lab.locator('.heatmap-box').first().innerHTML();
    await negate('#construct', wq, '3');
    await page.keyboard.press('Enter');
    assert.notEqual(await lab.locator('.heatmap-box').first().innerHTML(), mapBefore, 'the lab used −3');
    assert.equal(await wq.getAttribute('aria-invalid'), null);
    assert.deepEqual(problems, []);
  });

  for (const colorScheme of ['light', 'dark']) {
    it(`axe-core reports no violations in practice mode, with marked entries, ${colorScheme} theme`, async () => {
      const { page, calc } = await open({ hash: `#${WORKED}&causal=1&practice=1&your-scores=1,1,-1;0,2,;,,&your-weights=1,0,0;,,;,,`, colorScheme, bypassCSP: true });
      await cell(calc, 'scores', 0, 0).waitFor();
      await cell(calc, 'scores', 1, 1).focus();
      assert.equal(await calc.getByRole('button', { name: 'Change sign' }).count(), 1, 'the ± key is checked too');
      assert.deepEqual((await axeViolations(page, '#calculator')).violations, []);
    });
  }

  it('at 360 px wide practice mode has no horizontal overflow, and each step\'s grid shows whole', async () => {
    const { page, calc } = await open({ hash: `#${WORKED}&practice=1&your-scores=1,1,-1;0,1,0;-1,0,1&your-exp=1,1,0.243;,,;,,`, width: 360, height: 740 });
    await cell(calc, 'exp', 0, 0).waitFor();
    await cell(calc, 'exp', 0, 2).focus();
    await calc.getByRole('button', { name: /^Hint for your exp row 1 column 3/ }).click();
    const widths = await calc.evaluate((e) => ({ element: e.getBoundingClientRect().width, scroll: e.scrollWidth, page: document.documentElement.scrollWidth, viewport: innerWidth }));
    assert.ok(widths.scroll <= Math.ceil(widths.element), JSON.stringify(widths));
    assert.ok(widths.page <= widths.viewport, JSON.stringify(widths));
    const overflowing = await calc.locator('.practice *').evaluateAll((els) => els
      .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5 && el.getClientRects().length)
      .map((el) => `${el.tagName}.${el.className}`));
    assert.deepEqual(overflowing, []);
    // Every step's 3×3 grid shows whole, not cut into a scroll box (a floated progress line did that).
    const clipped = await calc.locator('.practice .input-matrix').evaluateAll((figures) => figures
      .filter((f) => f.scrollWidth > f.clientWidth + 1).map((f) => f.querySelector('table').getAttribute('aria-label')));
    assert.deepEqual(clipped, []);
  });
});
