// The calculator page in headless Chromium, served on localhost with a strict
// Content-Security-Policy header (script-src 'self' 'wasm-unsafe-eval', no inline anything).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { readFixture, referenceAttention } from '../js/helpers.mjs';
import { servedPages } from './served.mjs';

const ARTIFACTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
const spec = readFixture('worked-example.json');

// How the page writes a number: 3 decimals, a typographic minus, −∞.
const shown = (x) => {
  if (x === null || x === -Infinity) return '−∞';
  const fixed = x.toFixed(3);
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
};

describe('the calculator page', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(async () => {
    ({ page, problems, context } = env);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
  });

  const open = async (hash = '') => {
    await page.goto(env.url + hash);
    await page.waitForSelector('body[data-ready]');
    assert.equal(await page.getAttribute('body', 'data-ready'), 'relaxed');
  };
  const cell = (name) => page.getByLabel(name, { exact: true });
  // The focused element, inside the calculator's shadow root.
  const focusedLabel = () => page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el?.getAttribute('aria-label');
  });
  const text = (name) => cell(name).textContent();
  const matrixShown = async (name, rows, cols) => {
    const out = [];
    for (let i = 1; i <= rows; i++) {
      const row = [];
      for (let j = 1; j <= cols; j++) row.push(await text(`${name} row ${i} column ${j}`));
      out.push(row);
    }
    return out;
  };

  it('opens on the worked example, equal to the spec to 3 decimals, with and without the causal mask', async () => {
    await open();
    for (const [key, causal] of [['no_mask', false], ['causal', true]]) {
      if (causal) await page.getByLabel('Causal mask').check();
      const want = spec[key];
      assert.deepEqual(await matrixShown('Scores', 3, 3), want.scores.map((r) => r.map(shown)), `${key} scores`);
      assert.deepEqual(await matrixShown('Masked', 3, 3), want.scaled.map((r) => r.map(shown)), `${key} masked`);
      assert.deepEqual(await matrixShown('Weights', 3, 3), want.weights.map((r) => r.map(shown)), `${key} weights`);
      assert.deepEqual(await matrixShown('Output', 3, 2), want.output.map((r) => r.map(shown)), `${key} output`);
    }
    assert.deepEqual(await matrixShown('Scaled', 3, 3), spec.no_mask.scaled.map((r) => r.map(shown)));
    // KaTeX typeset the formula (its MathML carries the text).
    assert.ok(await page.locator('.calc-header .katex').count());
    await page.getByLabel('Causal mask').uncheck();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}calculator.png`, fullPage: true });
  });

  it('updates weights and outputs on every keystroke, matching a float64 computation', async () => {
    await open();
    const q = spec.Q.map((r) => [...r]);
    for (const typed of ['2', '2.5', '-3']) {
      await cell('Q row 1 column 1').fill(typed);
      q[0][0] = Number(typed);
      const want = referenceAttention(q, spec.K, spec.V);
      assert.deepEqual(await matrixShown('Weights', 3, 3), want.weights.map((r) => r.map(shown)), `Q11 = ${typed}`);
      assert.deepEqual(await matrixShown('Output', 3, 2), want.output.map((r) => r.map(shown)), `Q11 = ${typed}`);
    }
    // The URL follows the calculator once typing pauses (not on every keystroke).
    await page.waitForFunction(() => /q=-3,1;0,1;-1,0/.test(location.hash), null, { timeout: 5000 });
  });

  it('explains each computed number with the actual numbers', async () => {
    await open();
    const explanation = page.getByRole('note', { name: 'Explanation' });
    const expectations = [
      ['Scores row 1 column 2', 'score₁₂ = q₁·k₂ = 1·0 + 1·1 = 1.000'],
      ['Scaled row 1 column 2', 'scaled₁₂ = score₁₂ × 0.707 = 1.000 × 0.707 = 0.707'],
      ['Exp row 1 column 1', 'exp₁₁ = e^(0.707 − 0.707) = 1.000, with the row max 0.707 subtracted.'],
      ['Row sum row 1', 'row sum₁ = 1.000 + 1.000 + 0.243 = 2.243'],
      ['Weights row 1 column 1', 'A₁₁ = exp₁₁ / row sum₁ = 1.000 / 2.243 = 0.446'],
      ['Output row 1 column 1', 'z₁ = 0.446·v₁ + 0.446·v₂ + 0.108·v₃ = (0.554, 0.554)'],
    ];
    for (const [name, line] of expectations) {
      await cell(name).focus();
      assert.ok((await explanation.textContent()).includes(line), `${name}: ${await explanation.textContent()}`);
    }
    // Hover works too, and the explanation follows live edits.
    await cell('Scores row 2 column 2').hover();
    assert.match(await explanation.textContent(), /score₂₂ = q₂·k₂ = 0·0 \+ 1·1 = 1\.000/);
    await cell('Masked row 1 column 1').focus();
    await page.getByLabel('Causal mask').check();
    await cell('Masked row 1 column 3').focus();
    assert.match(await explanation.textContent(), /masked₁₃ = −∞: key 3 is hidden from query 1 by the causal mask/);
  });

  it('drags a value vector in the plot: V and the outputs change', async () => {
    await open();
    const before = await matrixShown('Output', 3, 2);
    const handle = page.getByRole('button', { name: /^Value vector v₁/ });
    await handle.scrollIntoViewIfNeeded();
    const box = await handle.locator('circle').last().boundingBox();
    const x = box.x + box.width / 2, y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x - 40, y - 30, { steps: 5 });
    await page.mouse.up();
    const v11 = Number((await cell('V row 1 column 1').inputValue()).replace('−', '-'));
    const v12 = Number((await cell('V row 1 column 2').inputValue()).replace('−', '-'));
    assert.ok(v11 < 1 && v12 > 0, `v₁ moved left and up: (${v11}, ${v12})`);
    const after = await matrixShown('Output', 3, 2);
    assert.notDeepEqual(after, before);
    const v = [[v11, v12], spec.V[1], spec.V[2]];
    assert.deepEqual(after, referenceAttention(spec.Q, spec.K, v).output.map((r) => r.map(shown)));
    // The keyboard moves it too.
    await handle.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await cell('V row 1 column 1').inputValue(), String(Math.round((v11 + 0.1) * 100) / 100).replace('-', '−'));
  });

  it('marks an invalid cell, explains it, and keeps the last good results visible', async () => {
    await open();
    const weights = await matrixShown('Weights', 3, 3);
    await cell('Q row 1 column 1').fill('abc');
    assert.equal(await cell('Q row 1 column 1').getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('.cell-message').first().textContent(), /Q row 1 column 1: “abc” is not a number/);
    assert.match(await page.getByRole('status').filter({ hasText: 'last valid result' }).textContent(), /Showing the last valid result/);
    assert.deepEqual(await matrixShown('Weights', 3, 3), weights);
    assert.ok(await page.locator('.calc.stale').count());
    assert.doesNotMatch(await page.locator('main').textContent(), /NaN/);
    // Too large for float32 is refused the same way; a valid number brings everything back.
    await cell('Q row 1 column 1').fill('1e39');
    assert.match(await page.locator('.cell-message').first().textContent(), /too large/);
    await cell('Q row 1 column 1').fill('0');
    assert.equal(await page.locator('.calc.stale').count(), 0);
    assert.equal(await text('Scores row 1 column 1'), '0.000');
  });

  it('round-trips the whole state through the URL hash, and falls back on a broken one', async () => {
    await open();
    await cell('K row 2 column 1').fill('0.5');
    await page.getByLabel('Causal mask').check();
    await page.getByLabel('Padding token 3').check();
    await page.getByLabel('Mode', { exact: true }).selectOption('no-scale');
    const hash = await page.evaluate(() => location.hash);
    const weights = await matrixShown('Weights', 3, 3);
    const page2 = await context.newPage();
    await page2.goto(env.url + hash);
    await page2.waitForSelector('body[data-ready]');
    assert.equal(await page2.getByLabel('K row 2 column 1', { exact: true }).inputValue(), '0.5');
    assert.equal(await page2.getByLabel('Causal mask').isChecked(), true);
    assert.equal(await page2.getByLabel('Padding token 3').isChecked(), true);
    assert.equal(await page2.getByLabel('Mode', { exact: true }).inputValue(), 'no-scale');
    assert.equal(await page2.evaluate(() => location.hash), hash);
    for (let i = 1; i <= 3; i++) {
      for (let j = 1; j <= 3; j++) {
        assert.equal(await page2.getByLabel(`Weights row ${i} column ${j}`, { exact: true }).textContent(), weights[i - 1][j - 1]);
      }
    }
    await page2.close();

    await open('#q=1,1;0,oops&k=1,0&v=1');
    assert.match(await page.locator('#notice').textContent(), /could not be used \(Q: row 2 column 2: “oops” is not a number\), so the page shows the worked example instead/);
    assert.deepEqual(await matrixShown('Weights', 3, 3), spec.no_mask.weights.map((r) => r.map(shown)));
  });

  it('makes the row-sum check fail visibly in the mask-after-softmax pitfall', async () => {
    await open();
    const sums = page.getByRole('group', { name: 'Checks', exact: true }).locator('li').first();
    assert.match(await sums.textContent(), /✓.*Each row of A sums to 1/);
    await page.getByLabel('Causal mask').check();
    await page.getByLabel('Mode', { exact: true }).selectOption('mask-after-softmax');
    assert.equal(await sums.getAttribute('class'), 'fail');
    assert.match(await sums.textContent(), /✗.*Row 1 sums to 0\.446: the mask zeroed weights after the softmax/);
    assert.match(await page.locator('.pitfall-banner').textContent(), /wrong on purpose/);
    const hull = page.getByRole('group', { name: 'Checks', exact: true }).locator('li').nth(1);
    assert.equal(await hull.getAttribute('class'), 'fail');
    // The scale pitfalls leave both checks passing, and say why that is still wrong.
    await page.getByLabel('Mode', { exact: true }).selectOption('scale-dk');
    assert.equal(await sums.getAttribute('class'), 'pass');
    assert.equal(await text('Scaled row 1 column 1'), '0.500');
    assert.match(await page.getByRole('group', { name: 'Checks', exact: true }).textContent(), /still pass in this pitfall/);
  });

  it('works from the keyboard alone', async () => {
    await open();
    // Tab from the top of the page to the first cell of Q.
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      if (await focusedLabel() === 'Q row 1 column 1') break;
    }
    assert.equal(await focusedLabel(), 'Q row 1 column 1');
    await page.keyboard.type('2'); // the focused cell's text is selected, so typing replaces it
    await page.keyboard.press('ArrowRight');
    await page.keyboard.type('0');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('1');
    const q = [[2, 0], [0, 3], [1, 0]];
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 2; j++) assert.equal(await cell(`Q row ${i + 1} column ${j + 1}`).inputValue(), String(q[i][j]));
    }
    assert.deepEqual(await matrixShown('Weights', 3, 3), referenceAttention(q, spec.K, spec.V).weights.map((r) => r.map(shown)));
    // The causal mask and the computed cells are reachable too.
    await page.getByLabel('Causal mask').focus();
    await page.keyboard.press('Space');
    assert.equal(await text('Masked row 1 column 2'), '−∞');
    await cell('Weights row 1 column 1').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await focusedLabel(), 'Weights row 1 column 2');
    assert.match(await page.getByRole('note', { name: 'Explanation' }).textContent(), /A₁₂/);
  });

  it('pastes a matrix as text, resizes, and runs the presets', async () => {
    await open();
    const paste = (name, value) => cell(name).evaluate((input, text) => {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, value);
    await paste('V row 1 column 1', '0 0\n2 0\n0 2'); // a spreadsheet's rows, the exercise's V
    assert.deepEqual(await matrixShown('Output', 3, 2), spec.exercise_no_mask.output.map((r) => r.map(shown)));
    await paste('Q row 1 column 1', '1 1; 0 1; -1 0; 2 2');
    assert.equal(await page.getByLabel('Tokens n', { exact: true }).inputValue(), '4');
    assert.equal(await cell('K row 4 column 2').inputValue(), '0');
    assert.equal(await cell('Weights row 4 column 4').count(), 1);
    await paste('K row 1 column 1', '1 2 3; x 1 1');
    assert.match(await page.locator('.cell-message').nth(1).textContent(), /Could not paste into K: row 2 column 1: “x” is not a number/);

    await page.getByLabel('d_k', { exact: true }).selectOption('3');
    assert.equal(await cell('Q row 1 column 3').inputValue(), '0');
    await page.getByRole('button', { name: 'Exercise: new V' }).click();
    assert.deepEqual(await matrixShown('Output', 3, 2), spec.exercise_no_mask.output.map((r) => r.map(shown)));
    await page.getByRole('button', { name: 'One-hot: each query matches one key' }).click();
    for (let i = 1; i <= 3; i++) assert.ok(Number(await text(`Weights row ${i} column ${i}`)) > 0.99);
    await page.getByRole('button', { name: 'Random (seeded)' }).click();
    const seed = await page.getByLabel('Random seed').inputValue();
    const randomQ = await cell('Q row 1 column 1').inputValue();
    await page.getByRole('button', { name: 'New seed' }).click();
    assert.equal(await page.getByLabel('Random seed').inputValue(), String(Number(seed) + 1));
    await page.getByLabel('Random seed').fill(seed);
    await page.getByLabel('Random seed').dispatchEvent('change');
    assert.equal(await cell('Q row 1 column 1').inputValue(), randomQ); // same seed, same numbers
  });

  it('gives a fully masked row its defined result and says why, never NaN', async () => {
    await open();
    await page.locator('.mask-details summary').click();
    for (let j = 1; j <= 3; j++) await page.getByLabel(`Mask query 2 key ${j}`).click();
    assert.equal(await page.getByLabel('Mask query 2 key 1').getAttribute('aria-pressed'), 'true');
    for (let j = 1; j <= 3; j++) assert.equal(await text(`Weights row 2 column ${j}`), '0.000');
    assert.equal(await text('Output row 2 column 1'), '0.000');
    assert.match(await page.getByRole('group', { name: 'Checks', exact: true }).textContent(), /Query 2 sees no key at all/);
    await cell('Weights row 2 column 1').focus();
    assert.match(await page.getByRole('note', { name: 'Explanation' }).textContent(), /never NaN/);
    assert.doesNotMatch(await page.locator('main').textContent(), /(?<!never )NaN/);
  });

  it('the masks compose in the core; the grid and the explanations say every reason, even while an input is wrong', async () => {
    await open();
    const explanation = page.getByRole('note', { name: 'Explanation' });
    await page.getByLabel('Causal mask').check();
    await page.getByLabel('Padding token 3').check();
    await page.locator('.mask-details summary').click();
    const grid = (i, j) => page.getByLabel(`Mask query ${i} key ${j}`);
    // Key 3 is hidden from query 1 by two rules; the core says both.
    assert.equal(await grid(1, 3).getAttribute('title'), 'hidden by the causal mask; hidden: padding token');
    assert.equal(await grid(3, 3).getAttribute('title'), 'hidden: padding token');
    assert.equal(await grid(3, 1).getAttribute('title'), 'visible');
    await cell('Masked row 1 column 3').focus();
    assert.match(await explanation.textContent(), /masked₁₃ = −∞: key 3 is hidden from query 1 by the causal mask: a token may not look at later tokens, and by padding: the key token is filler\./);
    // A cell hidden only by a rule is explained, not toggled; a visible one is hidden by hand.
    await grid(1, 2).click();
    assert.match(await explanation.textContent(), /hidden from query 1 by the causal mask; untick/);
    assert.equal(await grid(1, 2).getAttribute('title'), 'hidden by the causal mask');
    await grid(2, 1).click();
    assert.equal(await grid(2, 1).getAttribute('title'), 'hidden by you');
    assert.equal(await text('Masked row 2 column 1'), '−∞');
    assert.equal(await text('Weights row 2 column 2'), '1.000'); // key 2 is all query 2 still sees
    // While Q has a wrong number, the grid still follows the mask: the reasons need no Q, K or V.
    await cell('Q row 1 column 1').fill('x');
    await page.getByLabel('Padding token 3').uncheck();
    assert.equal(await grid(1, 3).getAttribute('title'), 'hidden by the causal mask');
    assert.equal(await grid(3, 3).getAttribute('title'), 'visible');
  });

  it('exports PyTorch, LaTeX, the link and SVG files', async () => {
    await open();
    await page.getByLabel('Causal mask').check();
    await page.getByRole('button', { name: 'Copy as PyTorch' }).click();
    await page.getByText('Copy as PyTorch: copied ✓').waitFor();
    const python = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(python, /def attention\(Q, K, V, causal=False, mask=None\):/);
    assert.match(python, /Q = torch\.tensor\(\[\[1\., 1\.\], \[0\., 1\.\], \[-1\., 0\.\]\]\)/);
    assert.match(python, /Z, A = attention\(Q, K, V, causal=True\)/);
    await page.getByRole('button', { name: 'Copy as LaTeX' }).click();
    await page.getByText('Copy as LaTeX: copied ✓').waitFor();
    const latex = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(latex, /Q = \\begin\{pmatrix\} 1 & 1 \\\\ 0 & 1 \\\\ -1 & 0 \\end\{pmatrix\}/);
    assert.match(latex, /0\.330 & 0\.670 & 0\.000/);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText('Copy link: copied ✓').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.evaluate(() => location.href));
    for (const [button, file] of [['Save heatmap as SVG', 'attention-weights.svg'], ['Save plot as SVG', 'attention-hull.svg']]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      assert.equal(download.suggestedFilename(), file);
      const body = await (await download.createReadStream()).toArray();
      const svgText = Buffer.concat(body).toString();
      assert.match(svgText, /^<\?xml[^>]*>\n<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
  });
});
