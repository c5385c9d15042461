// Issue 40 §3, the KV cache and grouped heads (panels="kvcache") in headless Chromium under the
// strict CSP: every number the panel shows is the API's (decodeStep, attention, groupedAttention,
// kvCacheBytes), it is used from the keyboard alone, has no axe-core violations in either theme,
// fits 360 px, and works embedded alone from dist/, where it fetches the next labs' module alone
// (it holds the calculator's functions), not the calculator's nor the full core.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checkLabAccessible, coursePage, embeddedAlone, fetchedAlone, openLab, servedPages, servedWeb } from './served.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const MIB = 2 ** 20;
const PANEL = 'KV cache and grouped heads';

const number = (text) => Number(text.trim().replace(/−/g, '-').replace(/,/g, ''));

// A course page with `body`, under the strict CSP; resolves once the lab has drawn its three parts
// (it loads the next labs' module after the element is ready).
const open = (page, context, url, body = '<attention-calc panels="kvcache"></attention-calc>') => openLab(page, context, url, body, '.kvcache-lab .kv-models tbody tr');

// The numbers of a table the lab drew, row by row (data-value: the core's number as JS wrote it,
// so −0 reads back as 0).
const values = (table) => table.evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));

// The API's answer for `tokens` ({ q, k, v } each), on the page's own core: every decode step
// from an empty cache, and the full causal attention over all of them.
const plain = (x) => JSON.parse(JSON.stringify(x)); // −0 as 0, as a data-value holds it
const expectedDecode = (page, tokens) => page.evaluate(async (tokens) => {
  const { loadAttention } = await import('./attention.js');
  const attn = await loadAttention({ labs: false });
  await attn.loadNextLabs();
  let k = [], v = [], step = null;
  for (const t of tokens) {
    step = attn.decodeStep({ k, v, q: t.q, kNew: t.k, vNew: t.v });
    ({ k, v } = step);
  }
  const full = attn.attention({ q: tokens.map((t) => t.q), k: tokens.map((t) => t.k), v: tokens.map((t) => t.v), mask: 'causal' });
  return { step, last: full.output.at(-1), scores: full.scores.length * full.scores[0].length };
}, tokens).then(plain);

describe('the KV cache lab', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  const decodePart = () => page.getByRole('group', { name: 'Decode step by step' });
  // The new token's q, k and v as its fields hold them.
  const nextToken = async () => Object.fromEntries(await Promise.all(['q', 'k', 'v'].map(async (part) => {
    const cells = decodePart().getByLabel(new RegExp(`^New token's ${part}, entry \\d+$`));
    return [part, (await cells.evaluateAll((inputs) => inputs.map((i) => i.value))).map(number)];
  })));

  // Every number of the decode part against the API's, for the tokens in the cache.
  async function checkDecode(tokens) {
    const lab = decodePart();
    const { step, last, scores } = await expectedDecode(page, tokens);
    const t = tokens.length;
    assert.deepEqual(await values(lab.locator('table[data-matrix="step"]')), [step.scores, step.weights], `token ${t}: scores and weights`);
    assert.equal(step.scores.length, t, 'one row of m + 1 scores');
    assert.deepEqual(await values(lab.locator('table[data-matrix="K cache"]')), step.k, `token ${t}: the K cache`);
    assert.deepEqual(await values(lab.locator('table[data-matrix="V cache"]')), step.v, `token ${t}: the V cache`);
    assert.equal(step.k.length, t);
    // Only the newest row is marked, and named so.
    for (const name of ['K cache', 'V cache']) {
      const rows = lab.locator(`table[data-matrix="${name}"] tbody tr`);
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.classList.contains('newest'))), Array.from({ length: t }, (_, i) => i === t - 1));
      assert.match(await rows.last().locator('th').textContent(), / new$/);
    }
    assert.deepEqual(await values(lab.locator('table[data-matrix="compare"]')), [step.output, last], `token ${t}: the new row and the full recomputation's last`);
    const difference = Math.max(...step.output.map((x, j) => Math.abs(x - last[j])));
    assert.equal(Number(await lab.locator('.kv-difference').getAttribute('data-value')), difference);
    assert.ok(difference <= 1e-6, `the decode step's row is the full causal computation's last: ${difference}`);
    assert.match(await lab.locator('.kv-work').textContent(), new RegExp(`took ${scores.toLocaleString('en-US')} scores \\(${t} × ${t}.*the step computed ${t}\\.$`));
    assert.match(await lab.getByRole('status').first().textContent(), new RegExp(`^Token ${t}.* attends to ${t - 1} cached tokens? and itself: one row of ${t} scores\\.`));
  }

  it('decode: from the calculator\'s Q, K and V, each appended token adds one row to K and V and one row of scores, all decodeStep\'s, and its output row is the full causal recomputation\'s last', async () => {
    await open(page, context, env.url, '<attention-calc panels="kvcache" q="1 0; 0 1; 1 1" k="1 1; 0 1; -1 0" v="2 0; 0 2; 1 1"></attention-calc>');
    const prompt = await page.locator('attention-calc').evaluate((e) => ({ q: e.state.q, k: e.state.k, v: e.state.v }));
    const tokens = prompt.q.map((q, t) => ({ q, k: prompt.k[t], v: prompt.v[t] }));
    assert.equal(await decodePart().getByRole('button', { name: 'The calculator’s Q, K, V' }).getAttribute('aria-pressed'), 'true');
    await checkDecode(tokens);
    for (let i = 0; i < 3; i++) {
      tokens.push(await nextToken());
      await decodePart().getByRole('button', { name: 'Append a token' }).press('Enter');
      await checkDecode(tokens);
    }
    // Seeded tokens of another size: 2 tokens with d_k = d_v = 3, then one appended.
    await decodePart().getByRole('button', { name: 'Seeded random tokens' }).press('Enter');
    await decodePart().getByLabel('Prompt tokens').selectOption('2');
    await decodePart().getByLabel('d_k = d_v').selectOption('3');
    const seeded = await page.evaluate(async () => {
      const { seededRows } = await import('./labs/next/seeded-rows.js');
      return seededRows(1, 16, 9).map((row) => ({ q: row.slice(0, 3), k: row.slice(3, 6), v: row.slice(6) }));
    });
    await checkDecode(seeded.slice(0, 2));
    assert.deepEqual(await nextToken(), seeded[2], 'the next token is the same seeded draw');
    await decodePart().getByRole('button', { name: 'Append a token' }).press('Enter');
    await checkDecode(seeded.slice(0, 3));
    assert.deepEqual(problems, []);
  });

  it('keyboard only: Tab reaches every control in order; a typed token is appended, a bad one is refused in place, Reset goes back to the prompt', async () => {
    await open(page, context, env.url);
    // The name of what has focus, through the shadow root.
    const focused = () => page.evaluate(() => {
      let e = document.activeElement;
      while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
      return e?.getAttribute('aria-label') ?? e?.textContent ?? '';
    });
    const tabTo = async (name, most = 40) => {
      for (let i = 0; i < most; i++) {
        if ((await focused()) === name) return;
        await page.keyboard.press('Tab');
      }
      assert.fail(`Tab never reached ${name}; focus is on ${await focused()}`);
    };
    await tabTo('The calculator’s Q, K, V');
    await tabTo('New token\'s q, entry 1');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter'); // commits, and moves nowhere (one row)
    const typed = await nextToken();
    assert.equal(typed.q[0], 2);
    await tabTo('Append a token');
    await page.keyboard.press('Enter');
    const prompt = await page.locator('attention-calc').evaluate((e) => e.state.q.map((q, t) => ({ q, k: e.state.k[t], v: e.state.v[t] })));
    await checkDecode([...prompt, typed]);
    await page.keyboard.press('Space');
    assert.equal(await decodePart().locator('table[data-matrix="K cache"] tbody tr').count(), 5);

    // Text that is no number: marked where it is typed, and Append refuses with the reason.
    await page.keyboard.press('Shift+Tab'); // back to the last grid, one Tab stop
    assert.equal(await focused(), 'New token\'s v, entry 1');
    await page.keyboard.press('ArrowRight'); // within the grid
    assert.equal(await focused(), 'New token\'s v, entry 2');
    await page.keyboard.type('x');
    await page.keyboard.press('Enter');
    assert.equal(await decodePart().getByLabel('New token\'s v, entry 2').getAttribute('aria-invalid'), 'true');
    await tabTo('Append a token');
    await page.keyboard.press('Enter');
    assert.match(await decodePart().locator('.cell-message').last().textContent(), /^New token's v, entry 2: .* Fix it to append the token\.$/);
    assert.equal(await decodePart().locator('table[data-matrix="K cache"] tbody tr').count(), 5, 'the cache as it was');
    await tabTo('Reset');
    await page.keyboard.press('Enter');
    assert.equal(await decodePart().locator('table[data-matrix="K cache"] tbody tr').count(), 3);
    assert.equal(await decodePart().getByLabel('New token\'s v, entry 2').getAttribute('aria-invalid'), null);

    // Grouped heads: the sliders by arrow keys, and an h_kv typed that does not divide h.
    const grouped = page.getByRole('group', { name: 'Grouped heads', exact: true });
    const kind = () => grouped.locator('.kv-kind-name').textContent();
    await tabTo('h (query heads)');
    await page.keyboard.press('ArrowRight');
    assert.equal(await grouped.getByRole('slider', { name: 'h (query heads)' }).getAttribute('aria-valuetext'), '8');
    assert.equal(await kind(), 'GQA');
    await tabTo('h_kv (K/V heads)');
    await page.keyboard.press('Home');
    assert.equal(await kind(), 'MQA');
    assert.equal(await grouped.locator('.kv-group').count(), 1);
    await page.keyboard.press('End');
    assert.equal(await kind(), 'MHA');
    assert.equal(await grouped.locator('.kv-group').count(), 8);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await kind(), 'GQA');
    assert.equal(await grouped.getByRole('slider', { name: 'h_kv (K/V heads)' }).getAttribute('aria-valuetext'), '4');
    await tabTo('h_kv (K/V heads), exact value');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    assert.match(await grouped.locator('.cell-message').textContent(), /3 K\/V heads do not divide 8.* Showing the last valid heads, dimmed, until this is fixed\.$/);
    assert.equal(await page.locator('.kv-grouped.stale').count(), 1);
    assert.equal(await grouped.locator('.head-map').count(), 8, 'the last valid heads stay');
    await tabTo('h_kv (K/V heads)');
    await page.keyboard.press('ArrowRight');
    assert.equal(await grouped.locator('.cell-message').textContent(), '');
    assert.equal(await page.locator('.kv-grouped.stale').count(), 0);

    // The learner's model, typed.
    await tabTo('Your model: K/V heads');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('4');
    const yours = page.locator('tr[data-model="yours"] td[data-tokens="1024"]');
    assert.equal(Number(await yours.getAttribute('data-bytes')), 2 * 12 * 4 * 64 * 1024 * 2);
    assert.deepEqual(problems, []);
  });

  it('grouped heads: the K and V blocks, each query head\'s weights, the parameters and the cache per token are groupedAttention\'s; each map sits with the K/V head it reads', async () => {
    await open(page, context, env.url);
    const grouped = page.getByRole('group', { name: 'Grouped heads', exact: true });
    const expected = (n, d, heads, kvHeads, seed = 2) => page.evaluate(async ({ n, d, heads, kvHeads, seed }) => {
      const { seededRows } = await import('./labs/next/seeded-rows.js');
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention({ labs: false });
      await attn.loadNextLabs();
      const all = seededRows(seed, 3 * n, d);
      const cut = (rows) => rows.map((row) => row.slice(0, kvHeads * (d / heads)));
      const q = all.slice(0, n), k = cut(all.slice(n, 2 * n)), v = cut(all.slice(2 * n));
      const r = attn.groupedAttention(q, k, v, { heads, kvHeads, causal: true });
      const mha = attn.groupedAttention(q, all.slice(n, 2 * n), all.slice(2 * n), { heads, kvHeads: heads, causal: true });
      return { k, v, weights: r.heads.map((head) => head.weights), kvHeads: r.heads.map((head) => head.kvHead), parameters: r.parameters, cache: r.cacheBytesPerToken, mhaParameters: mha.parameters };
    }, { n, d, heads, kvHeads, seed }).then(plain);
    // The maps' cells, as their titles give them (3 decimals): one list per query head.
    const maps = () => grouped.locator('.head-map').evaluateAll((figures) => figures.map((f) => ({
      head: Number(f.dataset.head), kvHead: Number(f.dataset.kvHead), box: Number(f.closest('.kv-group').dataset.kvHead),
      cells: [...f.querySelectorAll('rect > title')].map((t) => t.textContent.split(': ')[1]),
    })));
    for (const [heads, kvHeads] of [[4, 2], [4, 4], [4, 1], [8, 2]]) {
      const h = grouped.getByRole('slider', { name: 'h (query heads)' }), hkv = grouped.getByRole('slider', { name: 'h_kv (K/V heads)' });
      while (Number(await h.getAttribute('aria-valuetext')) !== heads) await h.press(Number(await h.getAttribute('aria-valuetext')) < heads ? 'ArrowRight' : 'ArrowLeft');
      while (Number(await hkv.getAttribute('aria-valuetext')) !== kvHeads) await hkv.press(Number(await hkv.getAttribute('aria-valuetext')) < kvHeads ? 'ArrowRight' : 'ArrowLeft');
      const e = await expected(5, 16, heads, kvHeads);
      const label = `h = ${heads}, h_kv = ${kvHeads}`;
      assert.deepEqual(await values(grouped.locator('table[data-matrix="K"]')), e.k, label);
      assert.deepEqual(await values(grouped.locator('table[data-matrix="V"]')), e.v, label);
      const shown = await maps();
      assert.equal(shown.length, heads);
      assert.equal(await grouped.locator('.kv-group').count(), kvHeads);
      shown.forEach((m, i) => {
        assert.equal(m.head, i + 1);
        assert.equal(m.kvHead, e.kvHeads[i] + 1, `${label}: query head ${i + 1} reads K/V head ${e.kvHeads[i] + 1}`);
        assert.equal(m.box, m.kvHead, 'drawn in its K/V head\'s box');
        assert.deepEqual(m.cells, e.weights[i].flat().map((w) => w.toFixed(3)), `${label}: query head ${i + 1}'s weights`);
      });
      assert.equal(Number(await grouped.locator('[data-stat="parameters"] .stat-value').getAttribute('data-value')), e.parameters);
      assert.equal(e.parameters, 2 * 16 * 16 + 2 * 16 * (16 * kvHeads / heads), 'the formula, 2·d² + 2·d·(d·h_kv/h)');
      assert.equal(Number(await grouped.locator('[data-stat="cache"] .stat-value').getAttribute('data-value')), e.cache);
      assert.equal(e.cache, 2 * kvHeads * (16 / heads) * 4);
      assert.match(await grouped.locator('[data-stat="parameters"]').textContent(), kvHeads === heads ? /the same as MHA/ : new RegExp(`less than MHA’s ${e.mhaParameters.toLocaleString('en-US')}`));
      assert.equal(await grouped.locator('.kv-kind-name').textContent(), kvHeads === heads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA');
    }
    // d_model 12: h moves to a divisor of it, and the maps follow.
    await grouped.getByLabel('d_model').selectOption('12');
    const h = Number(await grouped.getByRole('slider', { name: 'h (query heads)' }).getAttribute('aria-valuetext'));
    assert.equal(12 % h, 0);
    assert.equal(await grouped.locator('.head-map').count(), h);
    assert.deepEqual(problems, []);
  });

  it('real models: every size is kvCacheBytes\'s in fp16 at 1k, 8k and 128k tokens, in MiB; the configs are cited; the learner\'s model is checked in place', async () => {
    await open(page, context, env.url);
    const real = page.getByRole('group', { name: 'Real models’ KV caches' });
    const configs = { gpt2: [12, 12, 64], llama2: [32, 32, 128], llama3: [32, 8, 128], yours: [12, 1, 64] };
    const expected = await page.evaluate(async (configs) => {
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention({ labs: false });
      await attn.loadNextLabs();
      return Object.fromEntries(Object.entries(configs).map(([key, [layers, kvHeads, dHead]]) => [key,
        [1, 1024, 8192, 131072].map((tokens) => attn.kvCacheBytes({ layers, kvHeads, dHead, tokens, bytesPerValue: 2 }))]));
    }, configs);
    for (const [key, [perToken, ...bytes]] of Object.entries(expected)) {
      const row = real.locator(`tr[data-model="${key}"]`);
      const cells = row.locator('td[data-tokens]');
      assert.deepEqual((await cells.evaluateAll((tds) => tds.map((td) => Number(td.dataset.bytes)))), bytes, key);
      for (let j = 0; j < 3; j++) {
        const text = (await cells.nth(j).textContent()).match(/^([\d,.]+) MiB/)[1];
        assert.equal(number(text), Math.round((bytes[j] / MIB) * 10) / 10, `${key}: ${text} MiB is ${bytes[j]} bytes`);
      }
      assert.equal(Number(await row.locator('td[data-bytes]').last().getAttribute('data-bytes')), perToken);
    }
    // The numbers a learner can check by hand: GPT-2 small 36 KiB a token, Llama-2-7B 0.5 MiB,
    // Llama-3-8B a quarter of that (8 K/V heads instead of 32): 16 GiB at 128k tokens.
    assert.equal(expected.gpt2[0], 36864);
    assert.equal(expected.llama2[0], MIB / 2);
    assert.equal(expected.llama3[3], 16 * 2 ** 30);
    assert.equal(await real.locator('tr[data-model="llama3"] th').textContent(), 'Llama-3-8B GQA');
    assert.equal(await real.locator('tr[data-model="yours"] th').textContent(), 'Your model MQA');
    // Beyond each model's context, the size is marked and said.
    assert.match(await real.locator('tr[data-model="gpt2"] td[data-tokens="8192"]').textContent(), /\(beyond its 1,024-token context\)/);
    assert.doesNotMatch(await real.locator('tr[data-model="llama3"] td[data-tokens="8192"]').textContent(), /beyond/);
    const links = await real.locator('.kv-sources a').evaluateAll((as) => as.map((a) => a.href));
    assert.deepEqual(links, ['https://huggingface.co/openai-community/gpt2/blob/main/config.json',
      'https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json', 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json']);
    assert.match(await real.locator('.kv-sources').textContent(), /num_key_value_heads 8/);

    // The learner's row: refused entries are marked and said, and the last valid model stays.
    const yours = real.locator('tr[data-model="yours"] td[data-tokens="1024"]');
    const box = (name) => real.getByLabel(`Your model: ${name}`);
    for (const [name, text, reason] of [['K/V heads', '5', /^5 K\/V heads do not divide 12 heads/], ['Layers', '0', /^Layers must be a whole number of at least 1/],
      ['d_head', '2.5', /^d_head must be a whole number/], ['Layers', '20000', /layers/i]]) {
      await box(name).fill(text);
      assert.match(await real.locator('.cell-message').textContent(), reason, `${name} ${text}`);
      assert.match(await real.locator('.cell-message').textContent(), /Your row shows the last valid model: 12 layers, 12 heads, 1 K\/V heads, d_head 64\.$/);
      assert.equal(await box(name).getAttribute('aria-invalid'), 'true');
      assert.equal(Number(await yours.getAttribute('data-bytes')), expected.yours[1]);
      await box(name).fill(String({ 'K/V heads': 1, Layers: 12, d_head: 64 }[name]));
      assert.equal(await real.locator('.cell-message').textContent(), '');
    }
    await box('Heads').fill('32');
    await box('K/V heads').fill('8');
    await box('Layers').fill('32');
    await box('d_head').fill('128');
    assert.equal(Number(await yours.getAttribute('data-bytes')), expected.llama3[1], 'described as Llama-3-8B, the same numbers');
    assert.deepEqual(problems, []);
  });

  it('at 360 px, light and dark, with a full cache and 8 heads: no axe-core violations and no horizontal overflow', async () => {
    await checkLabAccessible(env, {
      open,
      body: (theme) => `<attention-calc panels="kvcache" theme="${theme}"></attention-calc>`,
      prepare: async (p) => {
        const append = p.getByRole('button', { name: 'Append a token' });
        while (!(await append.isDisabled())) await append.press('Enter');
        assert.match(await p.getByRole('group', { name: 'Decode step by step' }).getByRole('status').first().textContent(), /The view holds 16 tokens: Reset to start again\.$/);
        await p.getByRole('slider', { name: 'h (query heads)' }).press('End');
        assert.equal(await p.locator('.head-map').count(), 8, 'd_model 16: h = 8, the most of its divisors drawn');
        await p.getByLabel('Your model: K/V heads').fill('5'); // a message on screen too
      },
    });
  });
});

describe('the KV cache lab from dist/, embedded alone', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  const env = servedWeb(DIST);

  it('<attention-calc panels="kvcache"> alone, under the strict CSP: its numbers, from the next labs\' module alone (not the calculator\'s, not the full core)', async () => {
    await embeddedAlone(env, async ({ page, context, requests }) => {
      await open(page, context, env.url);
      const lab = page.getByRole('group', { name: PANEL });
      await lab.getByRole('button', { name: 'Append a token' }).press('Enter');
      assert.equal(await lab.locator('table[data-matrix="K cache"] tbody tr').count(), 4);
      assert.equal(Number(await lab.locator('.kv-difference').getAttribute('data-value')), 0);
      assert.equal(Number(await lab.locator('tr[data-model="llama3"] td[data-tokens="131072"]').getAttribute('data-bytes')), 16 * 2 ** 30);
      assert.equal(await lab.locator('.kv-kind-name').textContent(), 'GQA');
      fetchedAlone(requests, ['heads', 'cost', 'scaling', 'construct', 'learned', 'gpt2']);
      assert.equal(await lab.locator('math').count(), 3, 'its formulas, typeset at build time');
    });
  });

  it('an embed of the lesson\'s labs fetches nothing of this lab (its chunk, the next labs\' code and module)', async () => {
    await embeddedAlone(env, async ({ page, context, requests }) => {
      await page.goto(await coursePage(context, env.url, '<attention-calc panels="heads,cost,scaling,construct"></attention-calc>'));
      await page.evaluate(async () => {
        await customElements.whenDefined('attention-calc');
        await document.querySelector('attention-calc').ready;
      });
      await page.waitForLoadState('networkidle');
      assert.ok(requests.some((p) => /^\/construct-/.test(p)), `the lesson's labs loaded: ${requests.join(' ')}`);
      assert.deepEqual(requests.filter((p) => /kvcache|next-labs/.test(p)), []);
    });
  });
});
