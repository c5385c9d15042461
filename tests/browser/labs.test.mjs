// The lesson's labs in headless Chromium: multi-head, cost, the √d_k experiment, construct a
// head, and the calculator's "verified" badge. Each panel renders, responds to its controls,
// and shows the core's numbers.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { axeViolations, openPage } from './chromium.mjs';
import { coursePage, servedPages } from './served.mjs';

const number = (text) => parseFloat(text.replace('−', '-').replace(/,/g, ''));

describe('the lesson labs', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  // A course page with the given widgets, under the strict CSP; resolves once they are ready.
  const open = async (body) => {
    await page.goto(await coursePage(context, env.url, body));
    await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      for (const e of document.querySelectorAll('attention-calc')) {
        e.scrollIntoView();
        await e.ready;
      }
    });
  };
  const values = (table) => table.evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));

  it('scaling: std ≈ √d_k before and ≈ 1 after; unscaled softmax one-hot at large d_k', async () => {
    await open('<attention-calc panels="scaling"></attention-calc>');
    const lab = page.getByRole('group', { name: 'The √d_k experiment' });
    const stat = (key) => lab.locator(`[data-stat="${key}"] .stat-value`).textContent().then(number);
    // 10,000 pairs: the sample std is within ~1.5 % (one standard error ≈ 0.7–1 %) of σ.
    for (const dk of [1, 16, 64, 512, 1024]) {
      await lab.getByLabel('dₖ (length of q and k), exact value').fill(String(dk));
      await lab.getByLabel('dₖ (length of q and k), exact value').press('Enter');
      await assert.doesNotReject(lab.getByRole('slider', { name: 'dₖ (length of q and k)' }).and(page.locator(`[aria-valuetext="${dk.toLocaleString('en-US')}"]`)).waitFor());
      const before = await stat('unscaled'), after = await stat('scaled');
      assert.ok(Math.abs(before / Math.sqrt(dk) - 1) < 0.05, `d_k = ${dk}: std before scaling ${before}, √d_k = ${Math.sqrt(dk)}`);
      assert.ok(Math.abs(after - 1) < 0.05, `d_k = ${dk}: std after scaling ${after}`);
      assert.equal(await lab.locator('svg.chart').count(), 3); // the histograms on one axis, the softmax rows on one axis, the gradient against d_k
    }
    const entropy = (which) => lab.locator(`[data-softmax="${which}"] .entropy`).textContent().then(number);
    assert.ok(await entropy('unscaled') < 0.5, 'at d_k = 1024 the unscaled softmax is nearly one-hot');
    assert.ok(await entropy('scaled') > 2.5, 'scaled, the weights stay spread');
    // The slider works from the keyboard, and a bad exact value gets a message in place.
    await lab.getByRole('slider', { name: 'dₖ (length of q and k)' }).press('Home');
    assert.equal(await lab.getByRole('slider', { name: 'dₖ (length of q and k)' }).getAttribute('aria-valuetext'), '1');
    await lab.getByLabel('dₖ (length of q and k), exact value').fill('5000');
    await lab.getByLabel('dₖ (length of q and k), exact value').press('Enter');
    assert.match(await lab.locator('.slider-message').textContent(), /whole number from 1 to 1,024/);
    // Typed key by key, "-1" is told before Enter or leaving the box; "1" alone clears the message.
    const exact = lab.getByLabel('dₖ (length of q and k), exact value');
    await exact.fill('');
    await exact.pressSequentially('-1', { delay: 60 });
    assert.match(await lab.locator('.slider-message').textContent(), /whole number from 1 to 1,024/);
    assert.equal(await exact.getAttribute('aria-invalid'), 'true');
    await exact.press('Backspace');
    await exact.press('Backspace');
    await exact.pressSequentially('1', { delay: 60 });
    assert.equal(await lab.locator('.slider-message').textContent(), '');
    assert.equal(await stat('pairs'), 10000);
    assert.deepEqual(problems, []);
  });

  // Issue 25 §3: the lesson's why. The core's numbers for seed 0 over 1,000 rows of 64 scores:
  // scaled medians 0.18 at every d_k; unscaled 0.20 with 18.8 % below 0.01 at d_k = 64 and
  // 0.00026 with 67.4 % at 1024 (the NumPy: 0.17, 18 %; 0.0003, 66 %).
  it('scaling: the gradient per row against d_k, medians with quartiles and the share below 0.01, read in words', async () => {
    await open('<attention-calc panels="scaling"></attention-calc>');
    const lab = page.getByRole('group', { name: 'The √d_k experiment' });
    const chart = lab.getByRole('img', { name: /^The softmax's gradient per row against d_k from 1 to 1024/ });
    await chart.waitFor();
    assert.match(await chart.getAttribute('aria-label'), /Unscaled at d_k = 64: median 0\.2, middle half .* 18\.8 % of rows below 0\.01; at 1024: median 0\.00026, .* 67\.4 % of rows below 0\.01/);
    assert.equal(await chart.locator('[data-band]').count(), 2); // the quartiles as bands
    assert.equal(await chart.locator('[data-median]').count(), 2);
    const table = lab.getByRole('region', { name: 'The gradient per d_k, as a table' });
    const share = (dk, column) => table.locator(`tr[data-dk="${dk}"] td[data-share]`).nth(column).getAttribute('data-share').then(Number);
    assert.equal(await table.locator('tbody tr').count(), 11); // d_k = 1, 2, 4, … 1024
    assert.equal(await share(64, 0), 0.188);
    assert.equal(await share(1024, 0), 0.674);
    assert.equal(await share(1024, 1), 0);
    const verdict = await lab.locator('.lab-verdict').textContent();
    assert.match(verdict, /a partly saturated softmax still passes gradient: at d_k = 2 to 64 the unscaled median is even larger than the scaled one/);
    assert.match(verdict, /sets in around GPT-2's head size: at d_k = 64, 18\.8 % of unscaled rows already pass less than 0\.01, the median falls below the scaled one from d_k = 128, and at 1024 67\.4 % of rows/);
    assert.deepEqual(problems, []);
  });

  it('scaling: the entropy is averaged over 1,000 rows and says so; d_k = 4 is far from one-hot', async () => {
    await open('<attention-calc panels="scaling"></attention-calc>');
    const lab = page.getByRole('group', { name: 'The √d_k experiment' });
    const exact = lab.getByLabel('dₖ (length of q and k), exact value');
    await exact.fill('4');
    await exact.press('Enter');
    const rows = lab.locator('.row-entropy');
    await rows.filter({ hasText: 'd_k = 4' }).waitFor();
    assert.match(await rows.textContent(), /^Over 1,000 rows of 64 scores at d_k = 4 \(each row's entropy, then averaged\): without scaling mean 2\.25 nats, middle half 1\.77 to 2\.86; scaled mean 3\.57/);
    assert.ok(Number(await rows.getAttribute('data-unscaled-mean')) > 1.5);
    assert.doesNotMatch(await lab.locator('.lab-verdict').textContent(), /one-hot/);
    // The learner's d_k is marked on the chart and in the verdict.
    assert.match(await lab.locator('.lab-verdict').textContent(), /At your d_k = 4: unscaled median 0\.29/);
    assert.equal(await lab.locator('tr.current').getAttribute('data-dk'), '4');
    assert.deepEqual(problems, []);
  });

  it('heads: with h = 1 the head equals the calculator on the projected Q, K, V; bad h is explained', async () => {
    await open('<attention-calc id="heads" panels="heads"></attention-calc><attention-calc id="calc" panels="steps"></attention-calc>');
    const lab = page.locator('#heads').getByRole('group', { name: 'Multi-head attention' });
    await lab.getByLabel('Heads h', { exact: true }).selectOption('1');
    const q = await values(lab.locator('[data-matrix="Q"]'));
    const k = await values(lab.locator('[data-matrix="K"]'));
    const v = await values(lab.locator('[data-matrix="V"]'));
    const concat = await values(lab.locator('[data-matrix="Concat"]'));
    assert.equal(q.length, 4);
    assert.equal(q[0].length, 8);
    const output = await page.locator('#calc').evaluate((e, state) => {
      e.state = { ...e.state, ...state, preset: 'custom', padding: state.q.map(() => false), hidden: state.q.map(() => state.q.map(() => false)) };
      return e.result.output;
    }, { q, k, v });
    concat.forEach((row, i) => row.forEach((x, j) => assert.ok(Math.abs(x - output[i][j]) < 1e-5, `row ${i} column ${j}: ${x} vs ${output[i][j]}`)));
    assert.equal(await lab.locator('.head-map').count(), 1);

    // Four heads: four heatmaps; d_model 6 with 4 heads: a message, the last result kept.
    await lab.getByLabel('Heads h', { exact: true }).selectOption('4');
    assert.equal(await lab.locator('.head-map').count(), 4);
    const errors = page.evaluate(() => new Promise((resolve) => document.getElementById('heads').addEventListener('error', (e) => resolve(e.detail.message), { once: true })));
    await lab.getByLabel('d_model', { exact: true }).selectOption('6');
    assert.match(await errors, /not divisible/);
    assert.match(await lab.locator('.calc-status').textContent(), /not divisible.*last valid result/);
    assert.equal(await lab.locator('.head-map').count(), 4);
    await lab.getByLabel('Heads h', { exact: true }).selectOption('3');
    assert.equal(await lab.locator('.head-map').count(), 3);
    assert.equal(await lab.locator('.calc-status').textContent(), '');

    // An X cell edit changes the projections.
    const before = await values(lab.locator('[data-matrix="Q"]'));
    await lab.getByLabel('X row 1 column 1').fill('5');
    assert.notDeepEqual(await values(lab.locator('[data-matrix="Q"]')), before);

    // Identity weights: Q = K = V = X.
    await lab.getByRole('button', { name: 'Identity weights' }).click();
    assert.equal((await values(lab.locator('[data-matrix="Q"]')))[0][0], 5);

    // The parameter counter: GPT-2, biases, and the pitfall.
    const counter = lab.getByRole('group', { name: 'Parameter counter' });
    await counter.getByRole('button', { name: /GPT-2/ }).click();
    assert.equal(await counter.locator('.param-total').textContent(), '2,359,296');
    assert.match(await counter.locator('.param-wrong').textContent(), /28,311,552/);
    await counter.getByLabel('with biases').check();
    assert.equal(await counter.locator('.param-total').textContent(), '2,362,368');
    assert.deepEqual(problems, []);
  });

  it('cost: live counts follow the sliders; the browser measurement fits a slope near 2', async () => {
    await open('<attention-calc panels="cost"></attention-calc>');
    const lab = page.getByRole('group', { name: 'Cost' });
    const flops = (term) => lab.locator(`tr[data-term="${term}"] td.num`).textContent();
    // n = 1024, d = 768, h = 12: 2n²d = 1.61 GFLOP for the scores, 6nd² = 3.62 GFLOP.
    assert.equal(await flops('scores'), '1.61 GFLOP');
    assert.equal(await flops('projections'), '3.62 GFLOP');
    assert.equal(await flops('memory'), '48 MiB'); // 12 · 1024² floats
    assert.match(await lab.locator('.lab-verdict').textContent(), /projections \(nd²\) dominate.*n = 2d = 1,536/);
    await lab.getByLabel('n (tokens), exact value').fill('4096');
    await lab.getByLabel('n (tokens), exact value').press('Enter');
    assert.match(await lab.locator('.lab-verdict').textContent(), /attention terms \(n²d\) dominate/);
    // Keyboard: one step right on d gives 1024, which 12 heads do not divide: a message in
    // place, the last valid counts kept; 16 heads fix it.
    const d = lab.getByRole('slider', { name: 'd (d_model)' });
    await d.press('ArrowRight');
    assert.equal(await d.getAttribute('aria-valuetext'), '1,024');
    assert.match(await lab.locator('.cell-message').textContent(), /not divisible.*last valid sizes/);
    assert.equal(await flops('projections'), '14.5 GFLOP'); // still d = 768: 6 · 4096 · 768²
    const heads = lab.getByRole('slider', { name: 'h (heads)' });
    await heads.press('ArrowRight');
    assert.equal(await heads.getAttribute('aria-valuetext'), '16');
    assert.equal(await lab.locator('.cell-message').textContent(), '');
    assert.equal(await flops('projections'), '25.8 GFLOP');
    assert.equal(await flops('memory'), '1 GiB'); // 16 · 4096² floats

    await lab.getByRole('button', { name: 'Measure in this browser' }).click();
    await lab.getByRole('status').filter({ hasText: /^Measured \d+ sizes/ }).waitFor({ timeout: 60000 });
    const points = await lab.locator('svg.chart circle.point').count();
    assert.ok(points >= 4, `${points} points`);
    // The second series, the streaming kernel: a square a size, its own fitted slope, both n².
    assert.equal(await lab.locator('svg.chart rect.point-streaming').count(), points);
    assert.equal(await lab.locator('table.timings tbody tr').count(), points);
    // Each slope is the least-squares fit of log time on log n over the upper half (at least
    // three) of that path's sizes timed long enough, as the table gives them (3 significant digits). What the
    // times are is the machine's: a loaded one bends the curve, so the slope is only bounded.
    const rows = (await lab.locator('table.timings tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent))));
    for (const [k, path] of ['explaining', 'streaming'].entries()) {
      const timed = rows.filter((r) => !r[5].split('; ')[k].includes('not fitted'))
        .map((r) => [Math.log(Number(r[0].replace(/,/g, ''))), Math.log(Number(r[1 + k]))]);
      const upper = timed.slice(Math.max(0, Math.min(Math.floor(timed.length / 2), timed.length - 3)));
      const mean = (i) => upper.reduce((a, p) => a + p[i], 0) / upper.length;
      const [mx, my] = [mean(0), mean(1)];
      const fitted = upper.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / upper.reduce((a, [x]) => a + (x - mx) ** 2, 0);
      const slope = number(await lab.locator(`.slope-${path}`).textContent());
      assert.ok(Math.abs(slope - fitted) < 0.03, `${path}: the slope shown ${slope}, the table's fit ${fitted.toFixed(3)}`);
      assert.ok(slope > 1 && slope < 4, `${path}: fitted slope ${slope}`);
    }
    // The scores each path held at the largest n: n² floats against one 64×64 tile.
    const last = await lab.locator('table.timings tbody tr').last().locator('td').allTextContents();
    const n = Number(last[0].replace(/,/g, ''));
    assert.equal(last[3], { 256: '256 KiB', 512: '1 MiB', 1024: '4 MiB', 2048: '16 MiB' }[n], `n = ${n}`);
    assert.equal(last[4], '16 KiB');
    assert.match(await lab.locator('.chart-figure .hint').textContent(), /streaming kernel 16 KiB: its tiles save memory, not arithmetic\./);
    assert.deepEqual(problems, []);
  });

  it('construct: each preset head gives its pattern over the sentence; edits and bad sentences are handled', async () => {
    await open('<attention-calc panels="construct"></attention-calc>');
    const lab = page.getByRole('group', { name: 'Construct a head' });
    const verdict = lab.locator('.lab-verdict');
    assert.match(await lab.textContent(), /constructed by hand .* not learned/);
    for (const name of ['Previous-token head', 'First-token head (attention sink)', 'Same-token head']) {
      await lab.getByRole('button', { name }).click();
      assert.match(await verdict.textContent(), /^10 of 10 tokens/);
      assert.equal(await lab.locator('.heatmap-box svg').count(), 1);
    }
    // Breaking the previous-token head by hand: the verdict says so.
    await lab.getByRole('button', { name: 'Previous-token head' }).click();
    await lab.getByLabel('W_K: pos 1 → pos 2').fill('0');
    assert.match(await verdict.textContent(), /^9 of 10 tokens.*Your edit changed the pattern/);
    assert.equal(await lab.getByRole('button', { name: 'Previous-token head' }).getAttribute('aria-pressed'), 'false');
    // A new sentence rebuilds the features; an empty one is refused in place.
    await lab.getByRole('textbox', { name: 'Sentence' }).fill('a b a b');
    await lab.getByRole('textbox', { name: 'Sentence' }).press('Enter');
    assert.match(await verdict.textContent(), /^4 of 4 tokens/);
    await lab.getByRole('textbox', { name: 'Sentence' }).fill('   ');
    await lab.getByRole('textbox', { name: 'Sentence' }).press('Enter');
    assert.notEqual(await lab.locator('.cell-message').first().textContent(), '');
    assert.match(await verdict.textContent(), /^4 of 4 tokens/);
    assert.deepEqual(problems, []);
  });

  it('the seed boxes of the labs read any entry as a seed from 0 to 2^53 − 1 and show the seed used', async () => {
    await open('<attention-calc panels="heads"></attention-calc><attention-calc panels="scaling"></attention-calc>');
    const heads = page.getByRole('group', { name: 'Multi-head attention' });
    const scaling = page.getByRole('group', { name: 'The √d_k experiment' });
    const commit = async (box, text) => {
      await box.fill(text);
      await box.dispatchEvent('change');
    };
    const weightSeed = heads.getByLabel('Weight seed'), samplingSeed = scaling.getByLabel('Sampling seed');
    for (const [typed, seed] of [['7', 7], ['2.9', 2], ['-5', 0], ['', 0], ['1e20', Number.MAX_SAFE_INTEGER], ['12', 12]]) {
      await commit(weightSeed, typed);
      assert.equal(await weightSeed.inputValue(), String(seed), `heads: “${typed}”`);
      assert.match(await heads.locator('.hint').first().textContent(), new RegExp(`generator with seed ${seed}\\.$`), `heads: “${typed}”`);
      assert.equal(await heads.locator('.calc-status').textContent(), '', `heads: “${typed}” is a seed, not a problem`);
      await commit(samplingSeed, typed);
      assert.equal(await samplingSeed.inputValue(), String(seed), `scaling: “${typed}”`);
      assert.match(await scaling.locator('[data-stat="pairs"] .stat-expected').textContent(), new RegExp(`^seed ${seed},`), `scaling: “${typed}”`);
    }
    assert.deepEqual(problems, []);
  });

  it('every lab says "Showing the last valid …" in one wording, with one full stop after the problem', async () => {
    await open('<attention-calc panels="heads"></attention-calc><attention-calc panels="cost"></attention-calc><attention-calc panels="construct"></attention-calc>');
    const ONE_STOP = /^[^]*[^.]\. Showing the last valid [a-z]+(, dimmed,)? until this is fixed\.$/;
    // Multi-head: h does not divide d_model.
    const heads = page.getByRole('group', { name: 'Multi-head attention' });
    await heads.getByLabel('Heads h', { exact: true }).selectOption('3');
    const headsStatus = await heads.locator('.calc-status').textContent();
    assert.match(headsStatus, /Showing the last valid result, dimmed, until this is fixed\.$/);
    assert.match(headsStatus, ONE_STOP);
    assert.equal(await heads.locator('.calc-status.error').count(), 1);
    assert.equal(await page.locator('.heads-lab.stale').count(), 1);
    // Cost: 12 heads do not divide d = 1024.
    const cost = page.getByRole('group', { name: 'Cost' });
    await cost.getByRole('slider', { name: 'd (d_model)' }).press('ArrowRight'); // 1024
    const costMessage = await cost.locator('.cell-message').textContent();
    assert.match(costMessage, /Showing the last valid sizes until this is fixed\.$/);
    assert.match(costMessage, ONE_STOP);
    assert.equal(await page.locator('.cost-lab.stale').count(), 1);
    // Construct: a sentence with no words; then a weight cell that is no number.
    const construct = page.getByRole('group', { name: 'Construct a head' });
    await construct.getByRole('textbox', { name: 'Sentence' }).fill('  ');
    await construct.getByRole('textbox', { name: 'Sentence' }).press('Enter');
    const sentenceMessage = await construct.locator('.cell-message').first().textContent();
    assert.match(sentenceMessage, /Showing the last valid sentence until this is fixed\.$/);
    assert.match(sentenceMessage, ONE_STOP);
    assert.equal(await construct.getByRole('textbox', { name: 'Sentence' }).getAttribute('aria-invalid'), 'true');
    await construct.getByRole('textbox', { name: 'Sentence' }).fill('a b a b');
    await construct.getByRole('textbox', { name: 'Sentence' }).press('Enter');
    assert.equal(await construct.locator('.cell-message').first().textContent(), '');
    assert.equal(await construct.getByRole('textbox', { name: 'Sentence' }).getAttribute('aria-invalid'), null);
    await construct.getByLabel('W_Q: pos 1 → pos 1').fill('x');
    await construct.getByLabel('W_Q: pos 1 → pos 1').press('Enter');
    const verdict = await construct.locator('.lab-verdict').textContent();
    assert.match(verdict, /Showing the last valid pattern, dimmed, until this is fixed\.$/);
    assert.match(verdict, ONE_STOP);
    assert.equal(await page.locator('.construct-lab.stale').count(), 1);
    await construct.getByLabel('W_Q: pos 1 → pos 1').fill('1');
    await construct.getByLabel('W_Q: pos 1 → pos 1').press('Enter');
    assert.match(await construct.locator('.lab-verdict').textContent(), /^\d+ of 4 tokens/);
    assert.equal(await page.locator('.construct-lab.stale').count(), 0);
    assert.doesNotMatch(await page.locator('body').textContent(), /NaN|undefined/);
    assert.deepEqual(problems, []);
  });

  it('the calculator shows a live "verified" badge: f32 core against float64', async () => {
    await open('<attention-calc></attention-calc>');
    const badge = page.locator('attention-calc .verified');
    const read = async () => number((await badge.textContent()).match(/= (.*)$/)[1]);
    assert.match(await badge.textContent(), /^✓ verified: max \|f32 − float64\| = /);
    assert.ok(await read() < 1e-6);
    await page.getByLabel('Q row 1 column 1', { exact: true }).fill('1234.5');
    assert.match(await badge.textContent(), /^✓ verified/);
    assert.deepEqual(problems, []);
  });

  it('index.html shows every lab as a section, with no accessibility violations, down to 360 px', async () => {
    const axePage = await openPage(env.browser, { bypassCSP: true });
    try {
      const p = axePage.page;
      await p.goto(`${env.url}index.html`);
      const panels = await p.evaluate(async () => {
        await customElements.whenDefined('attention-calc');
        const found = [];
        for (const e of document.querySelectorAll('attention-calc')) {
          e.scrollIntoView();
          await e.ready;
          found.push(e.getAttribute('panels') ?? 'calculator');
        }
        return found;
      });
      assert.deepEqual(panels, ['calculator', 'heads', 'cost', 'scaling', 'construct', 'learned', 'gpt2', 'kvcache', 'positions', 'flash']);
      assert.deepEqual((await axeViolations(p)).violations, []);
      // A phone: every lab fits in 360 px, wide matrices scroll inside their own boxes.
      await p.setViewportSize({ width: 360, height: 800 });
      assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 360);
      assert.deepEqual(axePage.problems, []);
    } finally {
      await axePage.context.close();
    }
  });
});
