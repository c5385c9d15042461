// What a learner reads, typed as a learner types (issue 25, section 5): a huge value is written
// compactly and the verified badge reports what it judges; the cost lab's words stay true where
// the two costs tie or nearly do; messages start with a capital.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { coursePage, servedPages } from './served.mjs';

const TYPING = { delay: 80 }; // a learner's pace

describe('numbers and wording a learner reads', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  async function open(body) {
    await page.goto(await coursePage(context, env.url, body));
    await page.evaluate(async () => { await document.querySelector('attention-calc').ready; });
  }

  // Replaces a field's text with `text`, typed key by key, and presses Enter.
  async function type(field, text) {
    await field.focus();
    await field.press('Control+a');
    await page.keyboard.type(text, TYPING);
    await field.press('Enter');
  }

  it('V₁₁ = 1e30: the outputs read 4.458e+29, not every digit, and the badge gives the relative difference it judges', async () => {
    await open('<attention-calc></attention-calc>');
    const calc = page.locator('attention-calc');
    const output = calc.locator('td[data-step="output"]');
    const width = () => calc.locator('.result table').last().evaluate((t) => t.getBoundingClientRect().width);
    const before = await width();
    await type(page.getByLabel('V row 1 column 1', { exact: true }), '1e30');
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelector('td[data-step="output"]').textContent.includes('e+'));
    const texts = await output.allTextContents();
    assert.ok(texts.includes('4.458e+29'), `Z₁₁ is 4.458e+29: ${texts.join(' ')}`);
    for (const text of texts) assert.ok(text.length <= 10, `“${text}” is at most 10 characters`);
    // The table may grow by the width of a few characters, not by the 17 digits toFixed wrote.
    assert.ok(await width() < before * 2, `the output table grew from ${before} to ${await width()} px`);

    const badge = calc.locator('.verified');
    const text = await badge.textContent();
    assert.match(text, /^✓ verified: max \|f32 − float64\| \/ max \|V\| = \d\.\de−\d+$/, 'a small relative difference beside the tick');
    assert.doesNotMatch(text, /e\+/, 'no huge number beside the tick');
    assert.match(await badge.getAttribute('title'), /Here max \|f32 − float64\| = \d\.\de\+\d+ and max \|V\| = 1\.0e\+30\.$/, 'the absolute difference, explained, in its title');
    // An ordinary input keeps the absolute difference.
    await type(page.getByLabel('V row 1 column 1', { exact: true }), '1');
    await page.waitForFunction(() => !document.querySelector('attention-calc').shadowRoot.querySelector('.verified').textContent.includes('/'));
    assert.match(await badge.textContent(), /^✓ verified: max \|f32 − float64\| = (0|\d\.\de−\d+)$/);
    assert.deepEqual(problems, []);
  });

  it('the cost lab at n = 2d says the two costs are equal, and near it which is larger and by how much, never “dominate” between equals', async () => {
    await open('<attention-calc panels="cost"></attention-calc>');
    const lab = page.getByRole('group', { name: 'Cost' });
    const verdict = lab.locator('.lab-verdict');
    const n = lab.getByLabel('n (tokens), exact value');
    const said = async (value) => {
      await type(n, String(value));
      await verdict.filter({ hasText: /They cross|where they cross/ }).waitFor();
      return verdict.textContent();
    };
    // d = 768: they cross at n = 1,536, where 4n²d = 8nd² = 7.25 GFLOP.
    const tie = await said(1536);
    assert.equal(tie, 'The attention terms (n²d) and the projections (nd²) cost the same here, 7.25 GFLOP each: this n is where they cross, n = 2d = 1,536 tokens for d = 768; below it the projections cost more, above it the n² terms take over.');
    const near = await said(1448);
    assert.match(near, /^The projections \(nd²\) cost a little more, 6\.1 % more: \d\.\d\d GFLOP against \d\.\d\d GFLOP for the attention terms\. They cross at n = 2d = 1,536 tokens/);
    // One token off the crossing: both round to 7.24 GFLOP, and the words still say which is larger.
    const oneOff = await said(1537);
    assert.match(oneOff, /^The attention terms \(n²d\) cost a little more, 0\.065 % more: /);
    assert.doesNotMatch(`${tie} ${near} ${oneOff}`, /dominate/);
    assert.match(await said(4096), /^The attention terms \(n²d\) dominate: /);
    assert.deepEqual(problems, []);
  });

  it('messages start with a capital: a sentence of 33 words in the construct lab, a count of heads in the heads lab', async () => {
    await open('<attention-calc panels="construct,heads"></attention-calc>');
    const sentence = page.getByLabel('Sentence', { exact: true });
    await type(sentence, Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '));
    const alert = page.getByRole('group', { name: 'Construct a head' }).getByRole('alert').filter({ hasText: /words/ });
    await alert.waitFor();
    assert.match(await alert.textContent(), /^The sentence has 33 words, over the limit of \d+/);

    const heads = page.getByLabel('Parameter counter heads', { exact: true });
    await heads.focus();
    await heads.press('Control+a');
    await page.keyboard.type('0', TYPING);
    const refused = page.getByRole('group', { name: 'Parameter counter' }).getByRole('alert');
    await refused.filter({ hasText: /must be a whole number/ }).waitFor();
    assert.match(await refused.textContent(), /^Heads must be a whole number from 1 to \d+\. The count below is for d_model = /);
    assert.deepEqual(problems, []);
  });
});
