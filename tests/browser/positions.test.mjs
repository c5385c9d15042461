// Issue 40 §1, why positions must be injected (panels="positions") in headless Chromium under the
// strict CSP: every number the panel shows is the API's (positionalAttention), the shuffle's
// verdict is read from those numbers, the order is typed with real keystrokes (a bad one refused in
// place, the last good shuffle kept), it has no axe-core violations in either theme, fits 360 px,
// and works embedded alone from dist/, where it fetches the next labs' module and no other.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checkLabAccessible, embeddedAlone, fetchedAlone, openLab, servedPages, servedWeb } from './served.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const PANEL = 'Why positions must be injected';
const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat'];

// A course page with `body`, under the strict CSP; resolves once the lab has drawn.
const open = (page, context, url, body = '<attention-calc panels="positions"></attention-calc>') => openLab(page, context, url, body, '.positions-lab table[data-matrix="Z"]');

// The numbers of a table the lab drew, row by row (data-value: the core's number as JS wrote it).
const values = (table) => table.evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
const plain = (x) => JSON.parse(JSON.stringify(x)); // −0 as 0 and −∞ as null, as the page's numbers read back

// The API's answer on the page's own core for the lab's seeded inputs (seed 1).
const expected = (page, scheme, order) => page.evaluate(async ({ scheme, order }) => {
  const { loadAttention } = await import('./attention.js');
  const { seededRows } = await import('./labs/next/seeded-rows.js');
  const attn = await loadAttention({ labs: false, nextLabs: true });
  await attn.loadNextLabs();
  const q = seededRows(3, 6, 4), k = seededRows(4, 6, 4), v = seededRows(5, 6, 4);
  const shuffled = attn.positionalAttention({ q, k, v, scheme, order });
  const inOrder = attn.positionalAttention({ q, k, v, scheme });
  const bias = attn.positionalAttention({ q, k, v, scheme: 'alibi' }).bias;
  let zChange = 0;
  shuffled.output.forEach((row, i) => row.forEach((x, c) => { zChange = Math.max(zChange, Math.abs(x - inOrder.output[order[i]][c])); }));
  const moved = shuffled.scores.flatMap((row, i) => row.map((x, j) => Math.abs(x - inOrder.scores[order[i]][order[j]]) > 1e-6)).filter(Boolean).length;
  return { scores: shuffled.scores, output: shuffled.output, zChange, moved, bias };
}, { scheme, order });

describe('the positions lab', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));
  const shuffle = () => page.getByRole('group', { name: 'Shuffle the tokens' });

  async function checkShuffle(scheme, order) {
    const want = await expected(page, scheme, order);
    const lab = shuffle();
    const scores = await values(lab.locator('table[data-matrix="Scores"]'));
    assert.deepEqual(scores, plain(want.scores), `${scheme} ${order}: the scores`);
    assert.deepEqual(await values(lab.locator('table[data-matrix="Z"]')), plain(want.output), `${scheme} ${order}: Z`);
    assert.deepEqual(await lab.locator('table[data-matrix="Z"] tbody th').allTextContents(), order.map((t) => TOKENS[t]), 'Z\'s rows named by the tokens in their new order');
    assert.equal(await lab.locator('td.moved').count(), want.moved, 'the moved scores are marked');
    return want;
  }

  it('without positions a shuffle only moves Z\'s rows; with each scheme it changes Z, by the amount the core\'s numbers give', async () => {
    await open(page, context, env.url);
    const verdict = shuffle().locator('.pos-verdict');
    const none = await checkShuffle('none', [2, 0, 1, 5, 3, 4]);
    assert.ok(none.zChange <= 1e-6 && none.moved === 0);
    assert.match(await verdict.textContent(), /^Z’s rows moved with the tokens: attention alone cannot tell order\. .*largest difference/);
    for (const [scheme, label] of [['sinusoidal', 'Sinusoidal'], ['learned', 'Learned'], ['rope', 'RoPE'], ['alibi', 'ALiBi']]) {
      await shuffle().getByRole('radio', { name: label }).check();
      const want = await checkShuffle(scheme, [2, 0, 1, 5, 3, 4]);
      assert.ok(want.zChange > 1e-3, `${scheme} changes Z`);
      assert.equal(Number(await verdict.locator('.pos-z-change').getAttribute('data-value')), want.zChange);
      assert.match(await verdict.textContent(), new RegExp(`^With ${label} positions the same shuffle changes Z itself: by up to [0-9.]+, and ${want.moved} of the 36 scores moved`));
    }
    assert.deepEqual(problems, []);
  });

  it('keyboard only: an order typed key by key, a bad one refused in place with the last shuffle kept, a scheme chosen with the arrow keys, RoPE\'s slide', async () => {
    await open(page, context, env.url);
    const order = shuffle().getByLabel('Order: the token at each position, 0 to 5');
    const message = shuffle().locator('.cell-message');
    const typeOrder = async (text) => {
      await order.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type(text, { delay: 40 });
      await page.keyboard.press('Enter');
    };
    await typeOrder('5 4 3 2 1 0');
    await checkShuffle('none', [5, 4, 3, 2, 1, 0]);
    await typeOrder('0 1 2 3 4 4');
    assert.equal(await message.textContent(), 'Order is not a permutation of 0 to 5: entry 6 (4) is a token already placed. Showing the last valid shuffle until this is fixed.');
    assert.equal(await order.getAttribute('aria-invalid'), 'true');
    await checkShuffle('none', [5, 4, 3, 2, 1, 0]); // the last good shuffle stays
    await typeOrder('-1 0 1 2 3 4');
    assert.match(await message.textContent(), /^“-1” is not a position: the order lists whole numbers from 0 to 5\./);
    await typeOrder('1 0 2 3 4');
    assert.match(await message.textContent(), /^Order has 5 entries but there are 6 tokens/);
    await typeOrder('1, 0, 2, 3, 4, 5');
    assert.equal(await message.textContent(), '');
    assert.equal(await order.getAttribute('aria-invalid'), null);
    await checkShuffle('none', [1, 0, 2, 3, 4, 5]);
    // The schemes are one radio group: the arrow keys move through it.
    await shuffle().getByRole('radio', { name: 'None' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await shuffle().getByRole('radio', { name: 'RoPE' }).isChecked(), true);
    await checkShuffle('rope', [1, 0, 2, 3, 4, 5]);
    await shuffle().getByRole('button', { name: 'In order' }).press('Enter');
    assert.equal(await order.inputValue(), '0 1 2 3 4 5');
    assert.match(await shuffle().locator('.pos-verdict').textContent(), /in their own order/);
    await shuffle().getByRole('button', { name: 'Shuffle' }).press('Enter');
    assert.notEqual(await order.inputValue(), '0 1 2 3 4 5');

    // RoPE: the score of sat's q against cat's k, both slid along, stays within float32 rounding.
    const rope = page.getByRole('group', { name: 'RoPE: only the distance counts' });
    const score = async () => Number(await rope.locator('.pos-rope-score strong').getAttribute('data-value'));
    const first = await score();
    const slider = rope.getByRole('slider', { name: 'Shift both positions by' });
    for (let s = 1; s <= 12; s++) {
      await slider.press('ArrowRight');
      assert.match(await rope.locator('.pos-rope-score').textContent(), new RegExp(`^q at position ${2 + s}, k at position ${1 + s}: score`));
      assert.ok(Math.abs((await score()) - first) < 1e-5, `shift ${s}`);
    }
    assert.ok(Number(await rope.locator('.pos-rope-verdict').getAttribute('data-spread')) < 1e-5);
    assert.match(await rope.locator('.pos-rope-verdict').textContent(), /RoPE’s score depends only on i − j = 1\.$/);
    // ALiBi's bias, as the core gives it: −|i − j| / 256.
    const alibi = page.getByRole('group', { name: 'ALiBi: a penalty growing with distance' });
    const bias = await values(alibi.locator('table[data-matrix="ALiBi bias"]'));
    assert.deepEqual(bias, plain((await expected(page, 'alibi', [0, 1, 2, 3, 4, 5])).bias));
    bias.forEach((row, i) => row.forEach((b, j) => assert.ok(Math.abs(b + Math.abs(i - j) / 256) < 1e-7)));
    assert.match(await alibi.locator('.pos-alibi-verdict').textContent(), /^The penalty grows with distance: −0\.0039 one token away, −0\.0195 at 5 tokens/);
    // ALiBi's heads: slope 2^(−8k/h) for head k of 8, and the core's bias one and five tokens apart.
    const heads = await values(alibi.locator('table[data-matrix="ALiBi heads"]'));
    assert.equal(heads.length, 8);
    heads.forEach(([slope, near, far], k) => {
      assert.equal(slope, 2 ** (-(k + 1)));
      assert.ok(Math.abs(near + slope) < 1e-7 && Math.abs(far + 5 * slope) < 1e-6, `head ${k + 1}`);
    });
    assert.deepEqual(problems, []);
  });

  it('at 360 px, light and dark, with ALiBi on: no axe-core violations and no horizontal overflow', async () => {
    await checkLabAccessible(env, {
      open,
      body: (theme) => `<attention-calc panels="positions" theme="${theme}"></attention-calc>`,
      prepare: async (p) => {
        await p.getByRole('radio', { name: 'ALiBi' }).check();
        await p.getByLabel('Order: the token at each position, 0 to 5').fill('0 0 1 2 3 4'); // a message on screen too
        await p.getByLabel('Order: the token at each position, 0 to 5').press('Enter');
      },
    });
  });
});

describe('the positions lab from dist/, embedded alone', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  const env = servedWeb(DIST);

  it('<attention-calc panels="positions"> alone, under the strict CSP: its numbers, from the next labs\' module alone', async () => {
    await embeddedAlone(env, async ({ page, context, requests }) => {
      await open(page, context, env.url);
      const lab = page.getByRole('group', { name: PANEL });
      await lab.getByRole('radio', { name: 'RoPE' }).check();
      assert.match(await lab.locator('.pos-verdict').textContent(), /^With RoPE positions the same shuffle changes Z itself/);
      fetchedAlone(requests, ['heads', 'cost', 'scaling', 'construct', 'learned', 'gpt2']);
      assert.ok(await lab.locator('math').count() >= 2, 'its formulas, typeset at build time');
    });
  });
});
