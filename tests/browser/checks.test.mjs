// The checks view and the hull plot say what is true in every mode: a query that sees no key is
// exempt (not a pass), a pitfall that changes nothing says how to see it, a dragged value stays on
// the canvas, and large values give no NaN and no false ✗. Driven through the page, as a learner.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { axeViolations, openPage } from './chromium.mjs';
import { servedPages } from './served.mjs';

const SIZE = 320, PAD = 28; // the plot's viewBox and inner margin (plot.js)
const WORKED = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0';
const NO_KEY_FOR_QUERY_2 = 'hide=2-1,2-2,2-3';

describe('checks and hull plot', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  const open = async (hash = '') => {
    await page.goto(env.url + hash);
    await page.waitForSelector('body[data-ready]');
  };
  const checks = () => page.getByRole('group', { name: 'Checks', exact: true });
  const sums = () => checks().locator('li').first();
  const hull = () => checks().locator('li').nth(1);
  const caption = () => page.locator('.plot-figure figcaption');
  const note = () => page.locator('.plot-note');
  const plot = () => page.locator('svg.plot');
  // Value vector v_j (1-based, as on the page).
  const handle = (j) => page.getByRole('button', { name: new RegExp(`^Value vector v${'₀₁₂₃₄₅₆₇₈₉'[j]} `) });
  // A value handle's centre and every drawn output, in the plot's own coordinates.
  const valueAt = async (j) => {
    const dot = handle(j).locator('circle').last();
    return [Number(await dot.getAttribute('cx')), Number(await dot.getAttribute('cy'))];
  };
  const outputsAt = () => page.locator('.output-point rect').evaluateAll((rects) => rects.map((r) => [r.x.baseVal.value + 5, r.y.baseVal.value + 5]));
  const onCanvas = ([x, y]) => x >= 0 && x <= SIZE && y >= 0 && y <= SIZE;

  it('a fully masked query is shown as exempt in checks, plot and caption', async () => {
    await open(`#${WORKED}&v=1,0;0,1;1,1&${NO_KEY_FOR_QUERY_2}`);
    // Checks: row 2 is exempt, not a row that "sums to 1" with 0.000 beside it.
    assert.match(await sums().textContent(), /^✓Passes: Each row of A with a visible key sums to 1 \(1\.000, exempt: no key visible, 1\.000\)$/);
    assert.match(await hull().textContent(), /^✓Passes: Every output with a visible key lies inside the hull of the values \(z₂ exempt: no key visible\)$/);
    assert.match(await checks().textContent(), /Query 2 sees no key at all\. Its weights and its output are defined as 0 \(never NaN\), so both checks exempt it/);
    assert.doesNotMatch(await checks().textContent(), /count the row as passing/);
    // Plot: z₂ is drawn hollow at 0 and named as exempt; the others are ordinary outputs.
    const z2 = page.getByRole('img', { name: 'Output z₂ = 0, defined, no key visible; exempt from the hull check', exact: true });
    assert.equal(await z2.count(), 1);
    assert.equal(await z2.locator('rect').getAttribute('fill'), 'none');
    assert.equal(await z2.locator('text').textContent(), 'z₂ = 0 (no key)');
    assert.equal(await page.getByRole('img', { name: /^Output z₁ at \(0\.554, 0\.554\)$/ }).count(), 1);
    // Captions claim only what is true: not "every output" while one is exempt.
    assert.equal(await caption().textContent(), 'Outputs inside the convex hull of the values, except z₂ (no key visible)');
    assert.equal(await page.getByRole('figure', { name: 'Outputs inside the convex hull of the values, except z₂ (no key visible)' }).count(), 1);
    assert.equal(await note().textContent(), 'Drag a value vector (or focus it and use the arrow keys): every other output stays inside the hull. z₂ is 0 by definition (query 2 sees no key), exempt from the hull: drawn hollow.');

    // Values far from 0: the exempt z₂ does not shrink the hull to a dot; it is not drawn, and
    // the note says so.
    await open(`#${WORKED}&v=10,10;11,10;10,11&${NO_KEY_FOR_QUERY_2}`);
    assert.equal(await page.getByRole('img', { name: /^Output z₂/ }).count(), 0);
    assert.match(await note().textContent(), /z₂ is 0 by definition \(query 2 sees no key\), exempt from the hull: not drawn, as 0 lies outside this view\.$/);
    const corners = (await page.locator('polygon.hull').getAttribute('points')).split(' ').map((p) => p.split(',').map(Number));
    const width = Math.max(...corners.map((c) => c[0])) - Math.min(...corners.map((c) => c[0]));
    assert.ok(width > (SIZE - 2 * PAD) / 2, `the hull fills the view (${width.toFixed(0)} of ${SIZE - 2 * PAD})`);

    // d_v = 1 and d_v = 3 say it too; and when no query sees a key, nothing is "passed".
    await open(`#${WORKED}&v=1;2;3&${NO_KEY_FOR_QUERY_2}`);
    assert.match(await sums().textContent(), /\(1\.000, exempt: no key visible, 1\.000\)/);
    assert.match(await hull().textContent(), /\(the interval of the values; z₂ exempt: no key visible\)/);
    await open(`#${WORKED}&v=1,0,0;0,1,0;0,0,1&${NO_KEY_FOR_QUERY_2}`);
    assert.match(await note().textContent(), /^d_v = 3: showing coordinates 1 and 2 only\. The other outputs stay inside this projection of the hull\. z₂ is 0 by definition/);
    await open(`#${WORKED}&v=1,0;0,1;1,1&pad=1,2,3`);
    for (const item of [sums(), hull()]) {
      assert.equal(await item.getAttribute('class'), 'exempt');
      assert.match(await item.textContent(), /^–Not checked: .*\(every query is exempt: no key visible\)$/);
    }
    assert.match(await note().textContent(), /z₁, z₂ and z₃ are 0 by definition \(queries 1, 2, 3 see no key\)/);
  });

  it('in the mask-after-softmax pitfall, outputs outside the hull are named, never covered by "every"', async () => {
    await open(`#${WORKED}&v=1,0;0,1;1,1&causal=1&pitfall=mask-after-softmax`);
    assert.equal(await hull().getAttribute('class'), 'fail');
    assert.match(await hull().textContent(), /Outputs z₁ and z₂ lie outside: with weights that do not sum to 1/);
    assert.equal(await caption().textContent(), 'Outputs and the convex hull of the values: z₁ and z₂ lie outside');
    assert.equal(await note().textContent(), 'Drag a value vector (or focus it and use the arrow keys). z₁ and z₂ lie outside the hull: see the checks.');
    assert.equal(await page.getByRole('img', { name: /^Output z₁ at .*, outside the hull$/ }).count(), 1);
  });

  it('mask-after-softmax without a mask tells the learner to turn a mask on', async () => {
    await open(`#${WORKED}&v=1,0;0,1;1,1`);
    const mode = page.getByLabel('Mode', { exact: true });
    await mode.selectOption('mask-after-softmax');
    const hint = checks().locator('.check-hint');
    assert.equal(await hint.textContent(), 'No key is hidden, so applying the mask after the softmax changes nothing here: turn on the causal mask or hide a key to see the pitfall.');
    assert.equal(await hint.getAttribute('role'), 'note');
    // With a mask on, the pitfall shows by itself and the hint goes.
    await page.getByLabel('Causal mask').check();
    assert.equal(await hint.count(), 0);
    assert.equal(await sums().getAttribute('class'), 'fail');
    await page.getByLabel('Causal mask').uncheck();
    assert.equal(await hint.count(), 1);
    // Hiding every key of one query changes nothing either: that row is 0 in both orders.
    await page.locator('.mask-details summary').click();
    for (let j = 1; j <= 3; j++) await page.getByLabel(`Mask query 2 key ${j}`).click();
    assert.match(await hint.textContent(), /^Every hidden key belongs to a query that sees no key at all, so applying the mask after the softmax changes nothing here/);
    // The correct mode needs no hint.
    await mode.selectOption('none');
    assert.equal(await hint.count(), 0);
  });

  it('the exempt, outside and hint states pass axe-core in light and dark themes', async () => {
    await context.close();
    ({ page, problems, context } = await openPage(env.browser, { bypassCSP: true })); // to inject axe
    const states = [
      `${WORKED}&v=1,0;0,1;1,1&${NO_KEY_FOR_QUERY_2}&pitfall=mask-after-softmax`, // exempt row, and the hint
      `${WORKED}&v=1,0;0,1;1,1&causal=1&pitfall=mask-after-softmax`, // outputs outside, checks failing
    ];
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const state of states) {
        await open(`#${state}`);
        // The plot and the checks, inside the element's shadow root (axe's shadow-path selector).
        const { violations, contrastChecked } = await axeViolations(page, { include: [[['attention-calc#calculator', '.insight']]] });
        assert.deepEqual(violations, [], `${scheme}: ${state}`);
        assert.ok(contrastChecked >= 5, `axe saw the checks' text (${contrastChecked} contrast checks)`);
      }
    }
  });

  it('dragging a value past the edge is clamped and the plot refits on release', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await open(`#${WORKED}&v=1,0;0,1;1,1`);
    await plot().scrollIntoViewIfNeeded();
    const box = await plot().boundingBox();
    const dot = await handle(1).locator('circle').last().boundingBox();
    await page.mouse.move(dot.x + dot.width / 2, dot.y + dot.height / 2);
    await page.mouse.down();
    // Far past the right and bottom edges of the plot.
    await page.mouse.move(box.x + box.width + 300, Math.min(box.y + box.height + 200, 895), { steps: 8 });
    const [x, y] = await valueAt(1);
    assert.ok(Math.abs(x - (SIZE - PAD)) < 1 && Math.abs(y - (SIZE - PAD)) < 1, `held at the corner of the view while dragging: (${x}, ${y})`);
    for (const p of await outputsAt()) assert.ok(onCanvas(p), `output on the canvas while dragging: ${p}`);
    const v1 = [Number(await page.getByLabel('V row 1 column 1', { exact: true }).inputValue()), Number((await page.getByLabel('V row 1 column 2', { exact: true }).inputValue()).replace('−', '-'))];
    await page.mouse.up();
    // The value keeps where it was let go; the view refits, so it is no longer pinned to the edge.
    assert.equal(await page.getByLabel('V row 1 column 1', { exact: true }).inputValue(), String(v1[0]));
    const [rx, ry] = await valueAt(1);
    assert.ok(rx < SIZE - PAD - 20 && ry < SIZE - PAD - 20, `refitted on release: (${rx}, ${ry})`);
    for (let j = 1; j <= 3; j++) assert.ok(onCanvas(await valueAt(j)), `v${j} on the canvas`);
    for (const p of await outputsAt()) assert.ok(onCanvas(p), `output on the canvas: ${p}`);
    // And on screen, not only in the plot's coordinates.
    const after = await handle(1).locator('circle').last().boundingBox();
    assert.ok(after.x >= box.x && after.x + after.width <= box.x + box.width && after.y >= box.y && after.y + after.height <= box.y + box.height);
    // A second drag starts from the refitted view and behaves the same.
    await page.mouse.move(after.x + after.width / 2, after.y + after.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width + 300, after.y, { steps: 4 });
    assert.ok(Math.abs((await valueAt(1))[0] - (SIZE - PAD)) < 1);
    await page.mouse.up();
    assert.ok((await valueAt(1))[0] < SIZE - PAD - 20);
  });

  it('in the page: |V| ≈ 1e7 with d_v ≥ 3 shows no NaN and no false ✗, in every projection', async () => {
    for (const v of ['1e7,0,0;0,1e7,0;0,0,1e7', '12345678,-3e6,7e6,1;-9e6,1e7,2.5e6,-4e6;5e5,-1e7,1e7,9999999']) {
      await open(`#${WORKED}&v=${v}`);
      const dv = v.split(';')[0].split(',').length;
      for (const axes of dv === 3 ? [[1, 2], [2, 3], [1, 3]] : [[1, 2], [3, 4], [2, 4]]) {
        await page.getByLabel('Plot x coordinate').selectOption(String(axes[0] - 1));
        await page.getByLabel('Plot y coordinate').selectOption(String(axes[1] - 1));
        for (const item of [sums(), hull()]) assert.equal(await item.getAttribute('class'), 'pass', `${v} axes ${axes}: ${await item.textContent()}`);
        const text = `${await checks().textContent()} ${await caption().textContent()} ${await note().textContent()}`;
        assert.doesNotMatch(text, /NaN|✗|outside|Infinity/, `${v} axes ${axes}`);
        const attributes = await plot().evaluate((root) => [...root.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => `${a.name}=${a.value}`)));
        assert.deepEqual(attributes.filter((a) => /NaN|Infinity/.test(a)), [], `${v} axes ${axes}`);
        for (const p of await outputsAt()) assert.ok(onCanvas(p), `${v} axes ${axes}: output ${p}`);
      }
    }
  });

  it('arrow keys and drags move a value by a step that fits the view, on float32 numbers', async () => {
    await open(`#${WORKED}&v=1e7,0,0;0,1e7,0;0,0,1e7`);
    const v11 = () => page.getByLabel('V row 1 column 1', { exact: true }).inputValue().then((t) => Number(t.replace('−', '-')));
    const outputBefore = await page.getByLabel('Output row 1 column 1', { exact: true }).textContent();
    await handle(1).focus();
    await page.keyboard.press('ArrowRight'); // the view is 1.3e7 wide: a step of 1e6, not 0.1
    assert.equal(await v11(), 11_000_000);
    await page.keyboard.press('Shift+ArrowLeft');
    assert.equal(await v11(), 1_000_000);
    assert.notEqual(await page.getByLabel('Output row 1 column 1', { exact: true }).textContent(), outputBefore);
    // A drag lands on the same grain (a tenth of a step), so the grid holds what float32 holds.
    await handle(2).scrollIntoViewIfNeeded();
    const dot = await handle(2).locator('circle').last().boundingBox();
    await page.mouse.move(dot.x + dot.width / 2, dot.y + dot.height / 2);
    await page.mouse.down();
    await page.mouse.move(dot.x + 37, dot.y + 23, { steps: 3 });
    await page.mouse.up();
    for (const column of [1, 2]) {
      const x = Number((await page.getByLabel(`V row 2 column ${column}`, { exact: true }).inputValue()).replace('−', '-'));
      assert.ok(Number.isInteger(x / 1e5) && Math.fround(x) === x, `V row 2 column ${column} = ${x}`);
    }
    // At the lesson's scale the steps are unchanged: 0.1, and 1 with Shift, on a grain of 0.01.
    await open(`#${WORKED}&v=1.05,0;0,1;1,1`);
    await handle(1).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await v11(), 1.15);
    await page.keyboard.press('Shift+ArrowRight');
    assert.equal(await v11(), 2.15);
  });
});
