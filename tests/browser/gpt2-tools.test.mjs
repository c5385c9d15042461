// The GPT-2 panel's instruments in headless Chromium under the strict CSP, on the generated
// fixture build-fixtures/gpt2/d64-f32 (3 layers of 4 heads; `bash tools/build.sh fixtures`): a head
// switched off (zero and mean), each layer's guess (the logit lens), who wrote the answer (direct
// logit attribution) and generation. The same file is opened here in Node by the same core, and
// the panel must show run()'s numbers cell for cell: the toggles' next tokens and maps, the lens
// table, the attribution heatmap and bars; generate()'s tokens. Keyboard, axe at 360 px, the script.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { format } from '../../web/shared/format.js';
import { colour } from '../../web/shared/heatmap.js';
import { ablationSentence } from '../../web/labs/gpt2/gpt2-ablation.js';
import { firstAnswerLayer } from '../../web/labs/gpt2/gpt2-lens.js';
import { GPT2_SENTENCE, gpt2Label } from '../../web/labs/gpt2/gpt2-lesson.js';
import { axeViolations, noProblemsAfterEach, openPage } from './chromium.mjs';
import { coursePage, servedWeb } from './served.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const MODEL = `${FIXTURES}d64-f32/model.safetensors`;
const CONFIG = `${FIXTURES}d64-f32/config.json`;
const PANEL = 'Exercise 4: look inside GPT-2';

describe('the GPT-2 panel\'s instruments', () => {
  const env = servedWeb();
  noProblemsAfterEach();
  let page, context, model;
  before(async () => {
    const attn = await loadAttention();
    model = await attn.openGpt2(new Uint8Array(readFileSync(MODEL)), { config: JSON.parse(readFileSync(CONFIG, 'utf8')) });
  });
  after(() => model?.dispose());
  beforeEach(async () => {
    ({ page, context } = await openPage(env.browser));
  });
  afterEach(async () => {
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    }).catch(() => {});
    await context.close();
  });

  const lab = (p = page) => p.getByRole('group', { name: PANEL });
  const map = (layer, head, p = page) => lab(p).getByRole('img', { name: `GPT-2 layer ${layer} head ${head}`, exact: true });
  const open = async (p = page, c = context, attrs = '') => {
    await p.goto(await coursePage(c, env.url, `<main><h1>A lesson</h1><attention-calc panels="gpt2"${attrs}></attention-calc></main>`));
    await lab(p).locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await map(2, 0, p).waitFor({ timeout: 30_000 });
  };
  // Waits until the panel shows a run with `count` heads switched off (the line says so, or is empty).
  const settled = (count) => page.waitForFunction((n) => {
    const root = document.querySelector('attention-calc').shadowRoot;
    const said = root.querySelector('.gpt2-ablation-said[role=status]').textContent;
    const before = [...root.querySelectorAll('.gpt2-next li')].some((li) => li.dataset.before !== undefined);
    return n === 0 ? said === '' && !before : said.startsWith('Switching off') && before && root.querySelectorAll('input.gpt2-switch-box:checked').length === n;
  }, count, { timeout: 20_000 });
  const cells = (layer, head, n) => map(layer, head).locator('rect').evaluateAll((rects, count) => rects.slice(0, count).map((r) => r.getAttribute('fill')), n * n);
  const nextShown = () => lab().locator('.gpt2-next li').evaluateAll((items) => items.map((li) => [li.querySelector('.token').textContent, li.dataset.before, li.dataset.after]));

  // The next tokens shown against run(): every token of either run's five, before and after.
  function assertNext(shown, base, now) {
    const ids = new Set([...base.next, ...now.next].map((t) => t.id));
    assert.equal(shown.length, ids.size);
    for (const [label, before, after] of shown) {
      const b = base.next.find((t) => gpt2Label(t.token) === label), a = now.next.find((t) => gpt2Label(t.token) === label);
      assert.equal(before, b ? String(b.probability) : '', `${label} before`);
      assert.equal(after, a ? String(a.probability) : '', `${label} after`);
    }
  }

  it('switching heads off (the table\'s box, a map\'s box), zero then mean, then Reset: the next tokens, the line and the later layer\'s maps are run()\'s, cell for cell', async () => {
    await open();
    const base = model.run(GPT2_SENTENCE);
    const n = base.tokens.length;
    await lab().locator('.gpt2-all-table').getByRole('checkbox', { name: 'Switch off GPT-2 layer 1 head 2' }).check();
    await settled(1);
    let ablate = [{ layer: 1, head: 2, mode: 'zero' }];
    let now = model.run(GPT2_SENTENCE, { ablate });
    assertNext(await nextShown(), base, now);
    assert.equal(await lab().locator('.gpt2-ablation-said[role=status]').textContent(), ablationSentence(ablate, base.next, now.next));
    assert.match(await lab().locator('.gpt2-ablation-said[role=status]').textContent(), /^Switching off 1\.2 moves “.+” from [\d.]+ % to /);
    for (let i = 0; i < 4; i++) assert.deepEqual(await cells(2, i, n), now.layers[2].heads[i].weights.flat().map(colour), `layer 2 head ${i} redrawn`);
    assert.notDeepEqual(await cells(2, 0, n), base.layers[2].heads[0].weights.flat().map(colour), 'a later layer changed');
    // A map's own switch (its label names it), by keyboard.
    const mapSwitch = lab().locator('figure.learned-head').getByRole('checkbox', { name: 'Switch off GPT-2 layer 2 head 0' });
    await mapSwitch.focus();
    await page.keyboard.press('Space');
    await settled(2);
    ablate = [{ layer: 1, head: 2, mode: 'zero' }, { layer: 2, head: 0, mode: 'zero' }];
    now = model.run(GPT2_SENTENCE, { ablate });
    assertNext(await nextShown(), base, now);
    assert.match(await lab().locator('.gpt2-ablation-said[role=status]').textContent(), /^Switching off 1\.2 and 2\.0 moves/);
    // Its pattern is still drawn (the weights of a switched-off head are its attention pattern).
    for (let i = 0; i < 4; i++) assert.deepEqual(await cells(2, i, n), now.layers[2].heads[i].weights.flat().map(colour), `layer 2 head ${i}, two heads off`);
    await lab().getByRole('radio', { name: /^Mean/ }).check();
    ablate = ablate.map((a) => ({ ...a, mode: 'mean' }));
    now = model.run(GPT2_SENTENCE, { ablate });
    await page.waitForFunction((p) => [...document.querySelector('attention-calc').shadowRoot.querySelectorAll('.gpt2-next li')].some((li) => li.dataset.after === p), String(now.next[0].probability), { timeout: 20_000 });
    assertNext(await nextShown(), base, now);
    assert.equal(await lab().locator('.gpt2-ablation-said[role=status]').textContent(), ablationSentence(ablate, base.next, now.next));
    await lab().getByRole('button', { name: 'Reset', exact: true }).click();
    await settled(0);
    const items = await lab().locator('.gpt2-next li').allTextContents();
    assert.deepEqual(items, base.next.map((t) => `${gpt2Label(t.token)} ${format(t.probability, 3)} (${format(t.probability * 100, 1)}%)`));
    for (let i = 0; i < 4; i++) assert.deepEqual(await cells(2, i, n), base.layers[2].heads[i].weights.flat().map(colour), `layer 2 head ${i} restored`);
  });

  it('each layer\'s guess: the table is run().lens, the three likeliest per layer, the first layer with the final answer marked, with one sentence', async () => {
    await open();
    const run = model.run(GPT2_SENTENCE, { lens: true });
    const rows = await lab().locator('table.gpt2-lens tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      marked: tr.classList.contains('first-answer'),
      cells: [...tr.querySelectorAll('td')].map((td) => [Number(td.dataset.id), Number(td.dataset.probability), td.querySelector('.token').textContent]),
    })));
    assert.equal(rows.length, run.lens.length);
    rows.forEach((row, l) => {
      assert.deepEqual(row.cells, run.lens[l].slice(0, 3).map((t) => [t.id, t.probability, gpt2Label(t.token)]), `layer ${l}`);
      assert.equal(row.marked, l === firstAnswerLayer(run.lens), `layer ${l} marked`);
    });
    assert.deepEqual(run.lens.at(-1).map((t) => t.id), run.next.map((t) => t.id), 'the last layer\'s guess is the answer');
    assert.match(await lab().locator('.gpt2-lens-view > .hint').textContent(), /^Each row reads the residual stream after that layer as if it were the last/);
  });

  it('who wrote the answer: the heatmap and bars are run().attribution, cell for cell, for the likeliest token and a typed one; a named head opens its map; a text of two tokens is refused in words', async () => {
    await open();
    const top = model.run(GPT2_SENTENCE).next[0];
    const check = async (id) => {
      const a = model.run(GPT2_SENTENCE, { attribute: id }).attribution;
      const heads = await lab().locator('.gpt2-dla-map td').evaluateAll((tds) => tds.map((td) => [Number(td.dataset.layer), Number(td.dataset.head), Number(td.dataset.value)]));
      assert.equal(heads.length, 12);
      for (const [l, h, v] of heads) assert.equal(v, a.heads[l][h], `head ${l}.${h}`);
      const bars = await lab().locator('.gpt2-bars .num').evaluateAll((spans) => spans.map((s) => Number(s.dataset.value)));
      assert.deepEqual(bars, [...a.mlps, a.embeddings, a.biases]);
      const caption = await lab().locator('.gpt2-dla-caption').textContent();
      assert.ok(caption.includes(`is ${format(a.logit, 3)}:`), caption);
      const sum = a.heads.flat().reduce((x, y) => x + y, 0) + a.mlps.reduce((x, y) => x + y, 0) + a.embeddings + a.biases;
      assert.ok(Math.abs(sum - a.logit) < 1e-3, `the parts add up to the logit: ${sum} vs ${a.logit}`);
      return a;
    };
    assert.match(await lab().locator('.gpt2-dla-caption').textContent(), new RegExp(`^The logit of “${gpt2Label(top.token).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}”`));
    await check(top.id);
    const the = model.run(' the').ids[0];
    await lab().getByLabel('Token whose logit is explained (empty: the likeliest next token)').fill(' the');
    await lab().getByLabel('Token whose logit is explained (empty: the likeliest next token)').press('Enter');
    await lab().locator('.gpt2-dla-caption').filter({ hasText: 'The logit of “␣the”' }).waitFor({ timeout: 20_000 });
    const a = await check(the);
    await lab().getByLabel('Token whose logit is explained (empty: the likeliest next token)').fill('hello world');
    await lab().getByLabel('Token whose logit is explained (empty: the likeliest next token)').press('Enter');
    await lab().locator('.gpt2-dla-message').filter({ hasText: /\S/ }).waitFor();
    assert.match(await lab().locator('.gpt2-dla-message').textContent(), /^“hello world” is 2 tokens for GPT-2 .*The parts below are still those of the token before\.$/);
    // The largest head, named first, opens its map.
    const largest = a.heads.flatMap((row, l) => row.map((v, h) => ({ l, h, v }))).sort((x, y) => Math.abs(y.v) - Math.abs(x.v))[0];
    await lab().locator('.gpt2-dla-named button').first().click();
    await page.waitForFunction(([l, h]) => {
      const active = document.querySelector('attention-calc').shadowRoot.activeElement;
      return active?.getAttribute('aria-label') === `GPT-2 layer ${l} head ${h}`;
    }, [largest.l, largest.h], { timeout: 20_000 });
    assert.equal(await lab().getByRole('combobox', { name: 'Layer' }).inputValue(), String(largest.l));
  });

  it('generate: greedy tokens one at a time, as generate() gives them, with ms and the cache growing; without the cache the same tokens, and the comparison', async () => {
    await open();
    const want = await model.generate(GPT2_SENTENCE, { maxNewTokens: 6 });
    await lab().getByRole('spinbutton', { name: 'New tokens' }).fill('6');
    const seen = [];
    await page.exposeFunction('tokenSeen', (n) => seen.push(n));
    await lab().locator('.gpt2-gen-steps').evaluate((list) => new MutationObserver(() => window.tokenSeen(list.children.length)).observe(list, { childList: true }));
    await lab().getByRole('button', { name: 'Generate', exact: true }).click();
    await lab().locator('.gpt2-gen-said').filter({ hasText: 'per token with the cache' }).waitFor({ timeout: 30_000 });
    const steps = await lab().locator('.gpt2-gen-steps li').evaluateAll((items) => items.map((li) => [Number(li.dataset.id), Number(li.dataset.ms), Number(li.dataset.cacheBytes)]));
    assert.deepEqual(steps.map(([id]) => id), want.ids);
    assert.ok(steps.every(([, ms]) => ms > 0), 'each token has its time');
    for (let k = 1; k < steps.length; k++) assert.ok(steps[k][2] > steps[k - 1][2], 'the cache grows');
    assert.equal(steps.at(-1)[2], want.cacheBytes);
    assert.deepEqual(seen.slice(0, 3), [1, 2, 3], 'the tokens appear one at a time');
    assert.equal(await lab().locator('.gpt2-gen-out .new').textContent(), want.tokens.join(''));
    await lab().getByRole('button', { name: 'Generate without the cache' }).click();
    await lab().locator('.gpt2-gen-said').filter({ hasText: 'per token without the cache' }).waitFor({ timeout: 30_000 });
    const plain = await lab().locator('.gpt2-gen-steps li').evaluateAll((items) => items.map((li) => [Number(li.dataset.id), Number(li.dataset.cacheBytes)]));
    assert.deepEqual(plain.map(([id]) => id), want.ids, 'the same tokens without the cache');
    assert.ok(plain.every(([, bytes]) => bytes === 0), 'no cache');
    assert.match(await lab().locator('.gpt2-gen-said').textContent(), /^6 tokens, [\d,.]+ ms per token without the cache \(after the first, which also read the text\)\. With the cache [\d,.]+ ms per token, without it [\d,.]+ ms: ([\d.]+ times as long without it|no faster with the cache here)/);
  });

  it('"Copy as PyTorch" covers the switched-off heads (head_mask, a hook for mean), the lens and the attribution', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
    await open();
    await lab().locator('.gpt2-all-table').getByRole('checkbox', { name: 'Switch off GPT-2 layer 1 head 2' }).check();
    await settled(1);
    await lab().getByRole('button', { name: 'Copy as PyTorch' }).click();
    await lab().getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    const script = await page.evaluate(() => navigator.clipboard.readText());
    for (const part of ['head_mask = torch.ones(model.config.n_layer, model.config.n_head)', 'for l, h in [(1, 2)]:', 'head_mask=head_mask', 'output_hidden_states=True',
      'Each layer\'s guess (the logit lens)', 'model.transformer.ln_f(h)', 'Who wrote the answer', 'sigma = (resid.var(unbiased=False) + ln_f.eps).sqrt()']) {
      assert.ok(script.includes(part), part);
    }
    try {
      execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: script });
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  });

  it('no axe-core violations with a head switched off and every instrument drawn, in light and dark at 360 px, and no sideways scroll', async () => {
    for (const theme of ['light', 'dark']) {
      const a = await openPage(env.browser, { bypassCSP: true, contextOptions: { viewport: { width: 360, height: 800 } } });
      try {
        await open(a.page, a.context, ` theme="${theme}"`);
        await lab(a.page).locator('.gpt2-all-table').getByRole('checkbox', { name: 'Switch off GPT-2 layer 0 head 1' }).check();
        await lab(a.page).locator('.gpt2-ablation-said[role=status]').filter({ hasText: 'Switching off' }).waitFor({ timeout: 20_000 });
        await lab(a.page).getByRole('spinbutton', { name: 'New tokens' }).fill('3');
        await lab(a.page).getByRole('button', { name: 'Generate', exact: true }).click();
        await lab(a.page).locator('.gpt2-gen-said').filter({ hasText: 'per token' }).waitFor({ timeout: 30_000 });
        assert.deepEqual((await axeViolations(a.page)).violations, [], theme);
        assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), 360, theme);
        await a.page.screenshot({ path: `test-results/gpt2-tools-360-${theme}.png`, fullPage: true }).catch(() => {});
        assert.deepEqual(a.problems, []);
      } finally {
        await a.context.close();
      }
    }
  });
});
