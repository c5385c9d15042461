// Issue 40 §2, FlashAttention's online softmax (panels="flash") in headless Chromium under the
// strict CSP: every number the panel shows is the API's (tiledAttention, attention), it is used
// from the keyboard alone, has no axe-core violations in either theme, fits 360 px, and works
// embedded alone from dist/, where it fetches the next labs' module alone (it holds the
// calculator's functions), not the calculator's nor the full core.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { checkLabAccessible, embeddedAlone, fetchedAlone, openLab, servedPages, servedWeb } from './served.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const PANEL = 'FlashAttention’s online softmax';
// Five tokens: B = 3 (the lab's first tile size for five keys) gives tiles of 3 and 2 keys.
const FIVE = '<attention-calc panels="flash" q="1 0; 0 1; 1 1; -1 0; 0.5 -1" k="1 1; 0 1; -1 0; 2 0; 0 -1" v="2 0; 0 2; 1 1; -1 1; 0 1"></attention-calc>';

// A course page with `body`, under the strict CSP; resolves once the lab has drawn (it loads the
// next labs' module after the element is ready).
const open = (page, context, url, body = FIVE) => openLab(page, context, url, body, '.flash-lab .stat-card');

const plain = (x) => JSON.parse(JSON.stringify(x)); // −0 as 0, as a data-value holds it
const values = (table) => table.evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
const dataValue = async (locator) => Number(await locator.getAttribute('data-value'));

// The API's answers on the page's own core: the tiles for `tile`, Z, and every tile size's Z
// against attention()'s.
const expected = (page, { q, k, v }, tile, causal) => page.evaluate(async ({ q, k, v, tile, causal }) => {
  const { loadAttention } = await import('./attention.js');
  const attn = await loadAttention({ labs: false });
  await attn.loadNextLabs();
  const z = attn.attention({ q, k, v, mask: causal ? 'causal' : 'none' }).output;
  const largest = (a) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - z[i][j]))));
  const run = attn.tiledAttention(q, k, v, { tile, causal });
  const sizes = k.map((_, t) => {
    const r = attn.tiledAttention(q, k, v, { tile: t + 1, causal });
    return [r.tiles.length, r.skipped, r.peakFloats, largest(r.output)];
  });
  return { run, z, sizes };
}, { q, k, v, tile, causal }).then(plain);

const keysText = (t) => (t.end - t.start === 1 ? `key ${t.start + 1}` : `keys ${t.start + 1}–${t.end}`);

describe('the flash lab', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  const lab = () => page.getByRole('group', { name: 'Tiles, one step at a time' });
  const inputs = () => page.locator('attention-calc').evaluate((e) => ({ q: e.state.q, k: e.state.k, v: e.state.v }));
  const valueText = (name) => lab().getByRole('slider', { name }).getAttribute('aria-valuetext');

  // Everything the lab shows for `row` (from 0) at `step` (from 1) against the API's numbers.
  async function checkStep(e, row, step) {
    const tiles = e.run.tiles.filter((t) => t.row === row), tile = tiles[step - 1];
    const label = `row ${row + 1}, tile ${step} of ${tiles.length}`;
    assert.equal(await lab().locator('.flash-step-status').textContent(), `Tile ${step} of ${tiles.length}: ${keysText(tile)}.`, label);
    for (const key of ['max', 'rescale', 'sum']) assert.equal(await dataValue(lab().locator(`[data-stat="${key}"] .stat-value`)), tile[key], `${label}: ${key}`);
    assert.deepEqual(await values(lab().locator('table[data-matrix="output"]')), [tile.output, e.z[row]], `${label}: O and Z's row`);
    assert.deepEqual(await values(lab().locator('table[data-matrix="ledger"]')), tiles.slice(0, step).map((t) => [t.max, t.rescale, t.sum, ...t.output]), `${label}: the running state`);
    // The key strip: the scores of the tiles read so far, this step's marked; the rest unread.
    const strip = lab().locator('table[data-matrix="keys"] td[data-value]');
    assert.deepEqual(await strip.evaluateAll((tds) => tds.map((td) => Number(td.dataset.value))), tiles.slice(0, step).flatMap((t) => t.scores), `${label}: scores read`);
    assert.deepEqual(await lab().locator('table[data-matrix="keys"] td.current').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value))), tile.scores, `${label}: this tile`);
    const difference = Math.max(...tile.output.map((x, j) => Math.abs(x - e.z[row][j])));
    assert.equal(await dataValue(lab().locator('.flash-difference')), difference);
    if (step === tiles.length) {
      assert.ok(difference < 1e-6, `${label}: the last tile's O is Z's row (${difference})`);
      assert.deepEqual(tile.output, e.run.output[row]);
      assert.match(await lab().locator('.flash-verdict').textContent(), /^After the last tile O is row \d+ of Z: .*under 1e−6/);
    }
    assert.equal(await dataValue(lab().locator('.flash-skipped-count')), e.run.skipped);
  }

  // The every-tile-size table and the memory cards against the API's.
  async function checkSizes(e, tile) {
    const sizes = page.getByRole('group', { name: 'Every tile size' });
    assert.deepEqual(await values(sizes.locator('table[data-matrix="sizes"]')), e.sizes);
    assert.equal(await sizes.locator('tr.current th').textContent(), `B = ${tile}`);
    const worst = Math.max(...e.sizes.map((s) => s[3]));
    assert.equal(await dataValue(sizes.locator('.flash-worst')), worst);
    assert.ok(worst < 1e-6, `every tile size gives Z: ${worst}`);
    const memory = page.getByRole('group', { name: 'Floats held' });
    assert.equal(await dataValue(memory.locator('[data-stat="plain"] .stat-value')), e.run.fullPeakFloats);
    assert.equal(await dataValue(memory.locator('[data-stat="tiled"] .stat-value')), e.run.peakFloats);
  }

  it('numbers: every step of every row, each tile size and the causal mask, are tiledAttention\'s; O after the last tile is attention()\'s Z row', async () => {
    await open(page, context, env.url);
    const x = await inputs();
    assert.equal(x.q.length, 5);
    assert.equal(await valueText('Tile size B'), '3 keys');
    assert.equal(await valueText('Query row'), 'row 5');
    for (const causal of [false, true]) {
      if (causal) await lab().getByRole('checkbox', { name: 'Causal tiles' }).check();
      for (const tile of [3, 2, 1, 5]) {
        const b = lab().getByRole('slider', { name: 'Tile size B' });
        while (parseInt(await b.getAttribute('aria-valuetext'), 10) !== tile) await b.press(parseInt(await b.getAttribute('aria-valuetext'), 10) < tile ? 'ArrowRight' : 'ArrowLeft');
        const e = await expected(page, x, tile, causal);
        if (!causal) assert.equal(e.run.skipped, 0);
        await checkSizes(e, tile);
        for (const row of [4, 1, 0]) {
          const r = lab().getByRole('slider', { name: 'Query row' });
          while (parseInt((await r.getAttribute('aria-valuetext')).slice(4), 10) !== row + 1) await r.press('ArrowLeft');
          const count = e.run.tiles.filter((t) => t.row === row).length;
          if (causal) assert.equal(count, Math.floor(row / tile) + 1, 'the tiles after the row are not read');
          for (let step = 1; step <= count; step++) {
            await checkStep(e, row, step);
            if (step < count) await lab().getByRole('button', { name: 'Next tile' }).press('Enter');
          }
          await lab().getByRole('button', { name: 'Restart' }).press('Enter');
          await checkStep(e, row, 1);
          await r.press('End');
        }
      }
    }
    // Causal, B = 5: row 1 reads one tile of five keys, of which keys 2–5 are after it, masked.
    assert.equal(await lab().locator('table[data-matrix="keys"] td.masked').count(), 0, 'row 5 masks nothing');
    await lab().getByRole('slider', { name: 'Query row' }).press('Home');
    assert.equal(await lab().locator('table[data-matrix="keys"] td.masked').count(), 4);
    assert.deepEqual(problems, []);
  });

  it('keyboard only: Tab reaches every control; arrows change B and the row, Enter and Space step, Space ticks the mask, Play plays to the last tile', async () => {
    await open(page, context, env.url);
    const x = await inputs();
    // The name of what has focus, through the shadow root.
    const focused = () => page.evaluate(() => {
      let e = document.activeElement;
      while (e?.shadowRoot?.activeElement) e = e.shadowRoot.activeElement;
      return e?.getAttribute('aria-label') ?? e?.labels?.[0]?.textContent ?? e?.textContent ?? '';
    });
    const tabTo = async (name, most = 60) => {
      for (let i = 0; i < most; i++) {
        if ((await focused()) === name) return;
        await page.keyboard.press('Tab');
      }
      assert.fail(`Tab never reached ${name}; focus is on ${await focused()}`);
    };
    await tabTo('Tile size B');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await valueText('Tile size B'), '2 keys');
    let e = await expected(page, x, 2, false);
    await checkStep(e, 4, 1);
    await tabTo('Next tile');
    await page.keyboard.press('Enter');
    await checkStep(e, 4, 2);
    await page.keyboard.press('Space');
    await checkStep(e, 4, 3);
    await page.keyboard.press('Enter'); // the last tile: Next does nothing, and keeps the focus
    await checkStep(e, 4, 3);
    assert.equal(await focused(), 'Next tile');
    assert.equal(await lab().getByRole('button', { name: 'Next tile' }).getAttribute('aria-disabled'), 'true');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'Previous tile');
    await page.keyboard.press('Enter');
    await checkStep(e, 4, 2);
    await tabTo('Restart');
    await page.keyboard.press('Space');
    await checkStep(e, 4, 1);
    await tabTo('Play');
    await page.keyboard.press('Enter');
    assert.equal(await lab().locator('.flash-play').textContent(), 'Pause');
    await page.waitForFunction(() => document.querySelector('attention-calc').shadowRoot.querySelector('.flash-play').textContent === 'Play', null, { timeout: 10_000 });
    await checkStep(e, 4, 3);

    // The mask, by Space on its checkbox (Shift+Tab: back to it from the step buttons).
    for (let i = 0; i < 10 && (await focused()) !== 'Causal tiles'; i++) await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'Causal tiles');
    await page.keyboard.press('Space');
    assert.equal(await lab().getByRole('checkbox', { name: 'Causal tiles' }).isChecked(), true);
    e = await expected(page, x, 2, true);
    assert.ok(e.run.skipped > 0);
    await checkStep(e, 4, 1);
    await checkSizes(e, 2);
    assert.match(await lab().locator('.flash-skipped').textContent(), new RegExp(`^Causal mask: the core skipped ${e.run.skipped} tiles over the 5 rows`));
    await tabTo('Query row');
    await page.keyboard.press('Home');
    await checkStep(e, 0, 1);
    assert.equal(await lab().locator('table[data-matrix="keys"] td.skipped').count(), 3, 'keys 3–5 never read by row 1');
    assert.equal(await lab().getByRole('button', { name: 'Next tile' }).getAttribute('aria-disabled'), 'true', 'one tile to read');

    // B typed: off the range, refused in words in place; in range, taken.
    await tabTo('Tile size B, exact value');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('-1', { delay: 60 });
    assert.equal(await lab().locator('.slider-message').first().textContent(), 'Tile size B must be a whole number from 1 to 5', 'told as typed');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('9');
    await page.keyboard.press('Enter');
    assert.equal(await lab().locator('.slider-message').first().textContent(), 'Tile size B must be a whole number from 1 to 5');
    assert.equal(await valueText('Tile size B'), '2 keys');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    assert.equal(await valueText('Tile size B'), '4 keys');
    assert.equal(await lab().locator('.slider-message').first().textContent(), '');
    e = await expected(page, x, 4, true);
    await checkStep(e, 0, 1);
    await checkSizes(e, 4);

    // The seeded tokens, and back to the calculator's.
    await tabTo('8 seeded tokens');
    await page.keyboard.press('Enter');
    assert.equal(await valueText('Tile size B'), '3 keys');
    assert.equal(await page.getByRole('group', { name: 'Every tile size' }).locator('table[data-matrix="sizes"] tbody tr').count(), 8);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    assert.equal(await page.getByRole('group', { name: 'Every tile size' }).locator('table[data-matrix="sizes"] tbody tr').count(), 5);
    assert.deepEqual(problems, []);
  });

  it('the memory curve: each n\'s peaks are attentionPeakFloats\' (the core\'s allocator), from n = 64 doubling, and the lab says where and why it stops', async () => {
    await open(page, context, env.url);
    const curve = page.getByRole('group', { name: 'Memory against n' });
    const stop = curve.locator('.flash-curve-stop');
    assert.equal(await stop.count(), 0, 'the curve waits to be asked for: it takes about a second');
    await curve.getByRole('button', { name: 'Measure the memory curve' }).press('Enter');
    await stop.waitFor({ timeout: 30_000 });
    const shown = await curve.locator('table[data-matrix="curve"] tbody tr').evaluateAll((trs) => trs.map((tr) => [Number(tr.dataset.n), ...[...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))]));
    assert.ok(shown.length >= 3, `at least n = 64 … 256, however long they take: ${shown.length} sizes`);
    assert.deepEqual(shown.map(([n]) => n), shown.map((_, i) => 64 * 2 ** i));
    const e = await page.evaluate(async (ns) => {
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention({ labs: false });
      await attn.loadNextLabs();
      const refused = (o) => { try { attn.attentionPeakFloats(o); return null; } catch (error) { return error.message; } };
      return {
        peaks: ns.map((n) => { const p = attn.attentionPeakFloats({ n, d: 64, tile: 64 }); return [n, p.fullPeakFloats, p.peakFloats]; }),
        // The same as tiledAttention's allocator counted, for inputs of that shape.
        small: attn.attentionPeakFloats({ n: 5, d: 2, tile: 3 }),
        stepped: ((x) => attn.tiledAttention(x, x, x, { tile: 3 }))([[1, 0], [0, 1], [1, 1], [-1, 0], [0.5, -1]]),
        past: refused({ n: 65536, d: 64, tile: 64 }),
        tile: refused({ n: 64, d: 64, tile: 65 }),
      };
    }, shown.map(([n]) => n));
    assert.deepEqual(shown, e.peaks);
    for (let i = 1; i < shown.length; i++) {
      assert.ok(shown[i][1] / shown[i - 1][1] >= 3, 'the plain path grows as n²');
      assert.ok(shown[i][2] / shown[i - 1][2] < 2.1, 'the tiled path as n');
    }
    assert.deepEqual(e.small, { peakFloats: e.stepped.peakFloats, fullPeakFloats: e.stepped.fullPeakFloats });
    assert.match(e.past, /n must be a whole number from 1 to 4096 \(got 65536\)/);
    assert.match(e.tile, /tile must be a whole number from 1 to 64 \(got 65\)/);
    const last = shown.at(-1)[0];
    assert.equal(Number(await stop.getAttribute('data-last')), last);
    const text = await stop.textContent();
    assert.ok(text.startsWith(`It stops at n = ${last.toLocaleString('en-US')}: `), text);
    assert.match(text, /It does not reach n = 65,536: there the plain path would hold n² = 4,294,967,296 scores, 17 GB of float32, past the 4 GB a wasm32 page can address/);
    assert.equal(await curve.locator('svg.chart circle').count(), 2 * shown.length);
    assert.deepEqual(problems, []);
  });

  // The block of B rows around the stepped row, at the step's tile: each row's scores for it and
  // the state it carries are the API's, row by row; a row a causal mask never reads it for says so.
  it('the row block, ticked by Space: each row of the block at the step\'s tile is tiledAttention\'s; causal rows that skip the tile say so', async () => {
    await open(page, context, env.url);
    const x = await inputs();
    const box = lab().getByRole('checkbox', { name: 'Show the row block' });
    assert.equal(await lab().locator('.flash-block').isHidden(), true, 'hidden until ticked');
    await box.focus();
    await page.keyboard.press('Space');
    assert.equal(await box.isChecked(), true);
    const shown = async (e, row, step) => {
      const tile = e.run.tiles.filter((t) => t.row === row)[step - 1];
      const first = Math.floor(row / 3) * 3, end = Math.min(5, first + 3);
      const want = [];
      let held = 0;
      for (let i = first; i < end; i++) {
        const t = e.run.tiles.find((u) => u.row === i && u.start === tile.start);
        if (t) held += tile.end - tile.start;
        // Masked keys (−∞) and a skipped tile hold no number.
        want.push(t ? [...t.scores, t.max, t.rescale, t.sum] : []);
      }
      const label = `row ${row + 1}, tile ${step}`;
      assert.deepEqual(await values(lab().locator('table[data-matrix="block"]')).then((rows) => rows.map((r) => r.filter((v) => !Number.isNaN(v)))), want, label);
      assert.equal(await lab().locator('table[data-matrix="block"] tr.current th').textContent(), `row ${row + 1}`, label);
      assert.equal(await dataValue(lab().locator('.flash-block-held')), held, label);
      return want;
    };
    // B = 3 over five rows: row 5's block is rows 4–5.
    let e = await expected(page, x, 3, false);
    await shown(e, 4, 1);
    await lab().getByRole('button', { name: 'Next tile' }).press('Enter');
    await shown(e, 4, 2);
    // Causal, row 2 (block rows 1–3): at tile 1, row 1 masks keys 2–3.
    await lab().getByRole('checkbox', { name: 'Causal tiles' }).press('Space');
    e = await expected(page, x, 3, true);
    const r = lab().getByRole('slider', { name: 'Query row' });
    await r.press('Home');
    await r.press('ArrowRight');
    const want = await shown(e, 1, 1);
    assert.equal(want[0].length, 1 + 3, 'row 1 reads key 1 of the tile, its other keys masked');
    assert.equal(await lab().locator('table[data-matrix="block"] td.masked').count(), 2 + 1);
    // Row 5 (block rows 4–5) at tile 2: both read it; row 4 masks key 5.
    await r.press('End');
    await lab().getByRole('button', { name: 'Next tile' }).press('Enter');
    await shown(e, 4, 2);
    await box.press('Space');
    assert.equal(await lab().locator('.flash-block').isHidden(), true, 'hidden again when unticked');
    assert.deepEqual(problems, []);
  });

  it('at 360 px, light and dark, on a causal step: no axe-core violations and no horizontal overflow', async () => {
    await checkLabAccessible(env, {
      open,
      body: (theme) => FIVE.replace('<attention-calc', `<attention-calc theme="${theme}"`),
      prepare: async (p) => {
        const flash = p.getByRole('group', { name: 'Tiles, one step at a time' });
        await flash.getByRole('checkbox', { name: 'Causal tiles' }).check();
        await flash.getByRole('checkbox', { name: 'Show the row block' }).check();
        await flash.getByRole('slider', { name: 'Tile size B' }).press('ArrowLeft');
        await flash.getByRole('slider', { name: 'Query row' }).press('ArrowLeft');
        await flash.getByRole('button', { name: 'Next tile' }).press('Enter');
        await p.getByRole('button', { name: 'Measure the memory curve' }).press('Enter');
        await p.getByRole('group', { name: 'Memory against n' }).locator('.flash-curve-stop').waitFor({ timeout: 30_000 });
      },
    });
  });
});

describe('the flash lab from dist/, embedded alone', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  const env = servedWeb(DIST);

  it('<attention-calc panels="flash"> alone, under the strict CSP: its numbers, from one wasm module, the next labs\' (not the calculator\'s, not the full core)', async () => {
    await embeddedAlone(env, async ({ page, context, requests }) => {
      await open(page, context, env.url, '<attention-calc panels="flash"></attention-calc>');
      const lab = page.getByRole('group', { name: PANEL });
      await lab.getByRole('button', { name: 'Next tile' }).press('Enter');
      // What the lab fetched, before the test's own look-up below loads the API a second time.
      const fetched = [...requests];
      const x = await page.locator('attention-calc').evaluate((e) => ({ q: e.state.q, k: e.state.k, v: e.state.v }));
      const e = await expected(page, x, 2, false);
      const last = e.run.tiles.filter((t) => t.row === x.q.length - 1).at(-1);
      assert.equal(await lab.locator('.flash-step-status').textContent(), `Tile 2 of 2: ${keysText(last)}.`);
      assert.deepEqual(await values(lab.locator('table[data-matrix="output"]')), [last.output, e.z.at(-1)]);
      assert.ok(await dataValue(lab.locator('.flash-worst')) < 1e-6);
      assert.equal(await dataValue(lab.locator('[data-stat="plain"] .stat-value')), e.run.fullPeakFloats);
      fetchedAlone(fetched, ['heads', 'cost', 'scaling', 'construct', 'learned', 'gpt2', 'kvcache', 'positions']);
      assert.equal(await lab.locator('math').count(), 8, 'its formulas, typeset at build time');
      // The memory curve, measured by the same module.
      await lab.getByRole('button', { name: 'Measure the memory curve' }).press('Enter');
      await lab.locator('.flash-curve-stop').waitFor({ timeout: 30_000 });
      assert.ok(await lab.locator('table[data-matrix="curve"] tbody tr').count() >= 3, 'three sizes at least');
    });
  });
});
