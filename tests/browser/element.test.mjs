// <attention-calc> in headless Chromium: embedding, attributes, events, the iframe route,
// the strict CSP, failure modes, XSS payloads, bounds, the heap, accessibility and dist/.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startServer } from '../../tools/serve.mjs';
import { readFixture, referenceAttention } from '../js/helpers.mjs';
import { axeViolations, noProblemsAfterEach, openPage } from './chromium.mjs';
import { coursePage, servedPages } from './served.mjs';

const spec = readFixture('worked-example.json');
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const shown = (x, decimals = 3) => {
  const fixed = x.toFixed(decimals);
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
};
const matrixText = (rows) => rows.map((r) => r.join(' ')).join('; ');

describe('the <attention-calc> element', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  const scratch = (body, { ctx = context, csp = true } = {}) => coursePage(ctx, env.url, body, { csp });
  // Brings each widget into view in turn, so every lazy one starts, and waits for it.
  const scrollThrough = (p = page) => p.evaluate(async () => {
    await customElements.whenDefined('attention-calc');
    for (const e of document.querySelectorAll('attention-calc')) {
      e.scrollIntoView();
      await e.ready;
    }
  });

  const widget = (selector) => page.locator(selector);
  const cellIn = (w, name) => w.getByLabel(name, { exact: true });
  const weightsIn = async (w, n, m, decimals = 3) => {
    const rows = [];
    for (let i = 1; i <= n; i++) {
      const row = [];
      for (let j = 1; j <= m; j++) row.push(await cellIn(w, `Weights row ${i} column ${j}`).textContent());
      rows.push(row);
    }
    return rows;
  };
  // Once the element is defined (its module has top-level await, so that can follow 'load').
  const ready = (selector = 'attention-calc', p = page) => p.evaluate(async (sel) => {
    await customElements.whenDefined('attention-calc');
    await Promise.all([...document.querySelectorAll(sel)].map((e) => e.ready));
  }, selector);

  it('embed.html: differently configured widgets each show their own numbers; five share one core', async () => {
    const wasm = [];
    page.on('request', (r) => { if (r.url().endsWith('.wasm') && r.frame() === page.mainFrame()) wasm.push(r.url()); });
    await page.goto(`${env.url}embed.html`);
    // Below the fold, a widget waits until it nears the viewport.
    const last = widget('[data-example="events"] attention-calc');
    assert.equal(await last.evaluate((e) => e.result), null);
    assert.match(await last.locator('.calc-loading').textContent(), /Loading/);
    for (const example of ['full', 'weights', 'causal', 'pitfall', 'events']) {
      await widget(`[data-example="${example}"]`).scrollIntoViewIfNeeded();
      await widget(`[data-example="${example}"] attention-calc`).evaluate((e) => e.ready);
    }
    assert.equal(await page.locator('attention-calc').count(), 5);
    assert.deepEqual(wasm.length, 1, `one .wasm fetch for five widgets: ${wasm}`);

    const full = widget('[data-example="full"] attention-calc');
    assert.deepEqual(await weightsIn(full, 3, 3), spec.no_mask.weights.map((r) => r.map((x) => shown(x))));
    const heat = widget('[data-example="weights"] attention-calc');
    const heatWant = referenceAttention([[4, 0], [0, 1], [-1, 0]], spec.K, spec.V).weights;
    assert.deepEqual(await weightsIn(heat, 3, 3), heatWant.map((r) => r.map((x) => shown(x))));
    assert.equal(await heat.getByRole('group', { name: 'Inputs', exact: true }).isHidden(), true); // panels="weights"
    assert.equal(await heat.locator('svg.heatmap').count(), 1);
    const causal = widget('[data-example="causal"] attention-calc');
    const c = [[1, 0], [0, 1], [1, 1], [0, -1]], cv = [[1, 0], [0, 1], [1, 1], [-1, 0]];
    const hidden = c.map((_, i) => c.map((__, j) => j > i));
    const causalWant = referenceAttention(c, c, cv, hidden).weights;
    assert.deepEqual(await weightsIn(causal, 4, 4, 2), causalWant.map((r) => r.map((x) => shown(x, 2))));
    const pitfall = widget('[data-example="pitfall"] attention-calc');
    assert.match(await pitfall.locator('.pitfall-banner').textContent(), /Pitfall: no scaling/);
    // The events example printed the first query's weights as they arrived.
    assert.match(await page.locator('#event-log').textContent(), /attention-change: weights of query 1 = \[0\.\d{3}, 0\.\d{3}\]/);
    // Each snippet is the widget's own markup.
    assert.match(await page.locator('pre.snippet code').nth(1).textContent(), /<attention-calc panels="weights" readonly="" q="4 0; 0 1; -1 0"/);
    assert.deepEqual(problems, []);
  });

  // Issue 25 §6: an embed without a lab loads the calculator's half of the core; a lab named later
  // loads the full core for itself, and both work.
  it('a weights embed loads the calculator\'s module; a lab added later loads the full core and works', async () => {
    const wasm = [];
    page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
    await page.goto(await scratch('<attention-calc id="w" panels="weights"></attention-calc>'));
    await ready();
    const w = widget('#w');
    assert.deepEqual(await weightsIn(w, 3, 3), spec.no_mask.weights.map((r) => r.map((x) => shown(x))));
    assert.deepEqual(wasm, ['/wasm/calculator-relaxed.wasm']);
    await w.evaluate((e) => { e.panels = 'weights,scaling'; });
    const lab = w.getByRole('group', { name: 'The √d_k experiment', exact: true });
    await lab.waitFor({ timeout: 20_000 });
    await w.evaluate((e) => e.ready);
    assert.deepEqual(wasm, ['/wasm/calculator-relaxed.wasm', '/wasm/attention-relaxed.wasm']);
    // The lab's numbers come from the full core: its gradient summary is drawn.
    await page.waitForFunction(() => /median/i.test(document.querySelector('#w').shadowRoot.querySelector('.scaling-lab')?.textContent ?? ''), null, { timeout: 20_000 });
    assert.deepEqual(await weightsIn(w, 3, 3), spec.no_mask.weights.map((r) => r.map((x) => shown(x))));
    assert.deepEqual(problems, []);
  });

  it('reflects attribute and property changes live', async () => {
    await page.goto(await scratch('<attention-calc id="w"></attention-calc>'));
    await ready();
    const w = widget('#w');
    const q = [[2, 0], [0, 1], [1, 1]];
    await w.evaluate((e, text) => e.setAttribute('q', text), matrixText(q));
    assert.deepEqual(await weightsIn(w, 3, 3), referenceAttention(q, spec.K, spec.V).weights.map((r) => r.map((x) => shown(x))));
    // Properties reflect to attributes, and several set in one go are one update.
    const k4 = [[1, 0], [0, 1], [-1, 0], [1, 1]], q4 = [...q, [0, 0]], v4 = [...spec.V, [2, 2]];
    await w.evaluate((e, [a, b, c]) => { e.q = a; e.k = b; e.v = c; }, [matrixText(q4), matrixText(k4), matrixText(v4)]);
    assert.equal(await w.getAttribute('k'), matrixText(k4));
    assert.deepEqual(await weightsIn(w, 4, 4), referenceAttention(q4, k4, v4).weights.map((r) => r.map((x) => shown(x))));
    await w.evaluate((e) => { e.mask = 'causal'; e.precision = 1; });
    assert.equal(await cellIn(w, 'Weights row 1 column 2').textContent(), '0.0');
    assert.equal(await cellIn(w, 'Weights row 1 column 1').textContent(), '1.0');
    await w.evaluate((e) => e.setAttribute('mask', '0 1 0 0; 0 0 0 0; 0 0 0 0; 1 1 1 1'));
    assert.equal(await cellIn(w, 'Weights row 1 column 2').textContent(), '0.0');
    assert.match(await w.getByRole('group', { name: 'Checks', exact: true }).textContent(), /Query 4 sees no key at all/);
    await w.evaluate((e) => { e.panels = 'steps'; });
    assert.equal(await w.getByRole('group', { name: 'Inputs', exact: true }).isHidden(), true);
    assert.equal(await w.locator('[part="plot"]').isHidden(), true);
    assert.equal(await cellIn(w, 'Scores row 1 column 1').isVisible(), true);
    await w.evaluate((e) => { e.panels = 'inputs,steps'; e.readonly = true; });
    assert.equal(await w.getAttribute('readonly'), '');
    assert.equal(await cellIn(w, 'Q row 1 column 1').getAttribute('readonly'), '');
    const paper = () => w.evaluate((e) => getComputedStyle(e).backgroundColor);
    await w.evaluate((e) => { e.theme = 'light'; });
    const light = await paper();
    await w.evaluate((e) => { e.theme = 'dark'; });
    assert.notEqual(await paper(), light);
    await w.evaluate((e) => { e.scale = 'dk'; });
    assert.match(await w.locator('.pitfall-banner').textContent(), /scale by d_k/);
    assert.deepEqual(problems, []);
  });

  it('a lab hidden by `panels` is told so; one whose element leaves the page is disposed of, one moved is not', async () => {
    await page.goto(await scratch('<div id="a"><attention-calc id="w" panels="weights cost"></attention-calc></div><div id="b"></div>'));
    await ready();
    // The cost lab has neither shown() nor dispose(): the test gives it both, to see the calls.
    await page.evaluate(async () => {
      const { CostLab } = await import(new URL('labs/cost/cost.js', document.baseURI).href);
      window.calls = [];
      CostLab.prototype.shown = (visible) => window.calls.push(`shown ${visible}`);
      CostLab.prototype.dispose = () => window.calls.push('dispose');
    });
    const w = widget('#w');
    const tables = () => w.evaluate((e) => e.shadowRoot.querySelectorAll('.cost-table').length);
    await page.waitForFunction(() => document.querySelector('#w').shadowRoot.querySelector('.cost-table'));
    const built = await tables(); // the lab's own tables
    const calls = () => page.evaluate(() => window.calls.splice(0));
    const settle = () => page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
    await w.evaluate((e) => { e.panels = 'weights'; });
    await settle();
    assert.deepEqual(await calls(), ['shown false']);
    await w.evaluate((e) => { e.panels = 'weights cost'; });
    await settle();
    assert.deepEqual(await calls(), ['shown true']);
    await w.evaluate((e) => { e.panels = 'weights cost'; e.precision = 2; }); // no change of panels: no call
    await settle();
    assert.deepEqual(await calls(), []);
    // Moved: disconnected and connected again in one task. Its lab keeps running.
    await page.evaluate(() => document.querySelector('#b').append(document.querySelector('#w')));
    await settle();
    assert.deepEqual(await calls(), []);
    assert.equal(await tables(), built);
    // Removed for good: the lab is disposed of and its element goes.
    await page.evaluate(() => { window.kept = document.querySelector('#w'); window.kept.remove(); });
    await settle();
    assert.deepEqual(await calls(), ['dispose']);
    assert.equal(await page.evaluate(() => window.kept.shadowRoot.querySelectorAll('.cost-table').length), 0);
    // Put back: the lab is built again.
    await page.evaluate(() => document.querySelector('#a').append(window.kept));
    await page.waitForFunction((n) => document.querySelector('#w').shadowRoot.querySelectorAll('.cost-table').length === n, built);
    assert.equal(await w.locator('.cost-table').first().isVisible(), true);
    assert.deepEqual(problems, []);
  });

  // Puts the element taken off the page (window.kept) back into #a: its cost lab is built once,
  // and the one that was loading when the element left was never built, so never disposed of.
  const putBackBuildsLabOnce = async () => {
    await page.evaluate(() => document.querySelector('#a').append(window.kept));
    await page.waitForFunction(() => document.querySelector('#w').shadowRoot.querySelectorAll('.cost-table').length > 0);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    assert.equal(await page.evaluate(() => window.kept.shadowRoot.querySelectorAll('.cost-lab').length), 1);
    assert.deepEqual(await page.evaluate(() => window.calls), []);
  };

  it('an element taken off the page while the core loads resolves ready, builds no lab until put back, then builds each once', { timeout: 30000 }, async () => {
    await page.goto(await scratch('<div id="a"></div>'));
    await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      // The cost lab has no dispose(): the test gives it one, to see a lab built and let go.
      const { CostLab } = await import(new URL('labs/cost/cost.js', document.baseURI).href);
      window.calls = [];
      CostLab.prototype.dispose = () => window.calls.push('dispose');
      const w = document.createElement('attention-calc');
      w.id = 'w';
      w.setAttribute('panels', 'weights cost');
      w.setAttribute('loading', 'eager');
      document.querySelector('#a').append(w); // starts loading the core
      w.remove(); // and leaves before it has loaded
      window.kept = w;
      await w.ready;
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await putBackBuildsLabOnce();
    assert.equal(await widget('#w').locator('.cost-lab').isVisible(), true);
    assert.deepEqual(problems, []);
  });

  it('an element taken off the page after its core loaded, while its labs load, resolves ready and builds them once when put back', { timeout: 30000 }, async () => {
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await context.route('**/labs/labs-styles.js', async (route) => {
      await held; // the labs wait for their stylesheet
      await route.continue();
    });
    await page.goto(await scratch('<div id="a"><attention-calc id="w" panels="weights cost" loading="eager"></attention-calc></div>'));
    await page.waitForFunction(() => document.querySelector('#w')?.shadowRoot.querySelector('.calc .lab-slot'));
    const outcome = await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      const { CostLab } = await import(new URL('labs/cost/cost.js', document.baseURI).href);
      window.calls = [];
      CostLab.prototype.dispose = () => window.calls.push('dispose');
      window.kept = document.querySelector('#w');
      window.kept.remove();
      return Promise.race([window.kept.ready.then(() => 'ready'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000))]);
    });
    assert.equal(outcome, 'ready');
    release();
    await putBackBuildsLabOnce();
    assert.deepEqual(problems, []);
  });

  it('fires attention-change with the inputs and the full result, and error with a message', async () => {
    await page.goto(await scratch('<div id="outer"><attention-calc id="w" mask="causal"></attention-calc></div>'));
    await ready();
    const events = await page.evaluate(async () => {
      const seen = [];
      const outer = document.getElementById('outer');
      outer.addEventListener('attention-change', (e) => seen.push({ type: e.type, bubbles: e.bubbles, composed: e.composed, detail: e.detail }));
      outer.addEventListener('error', (e) => seen.push({ type: e.type, bubbles: e.bubbles, composed: e.composed, detail: e.detail }));
      const w = document.getElementById('w');
      w.setAttribute('v', '0 0; 2 0; 0 2');
      await Promise.resolve();
      w.setAttribute('q', '1 2; 3 x; 5 6');
      await Promise.resolve();
      return JSON.parse(JSON.stringify(seen, (key, x) => (x === -Infinity ? '-inf' : x)));
    });
    assert.equal(events.length, 2);
    const [change, error] = events;
    assert.deepEqual([change.type, change.bubbles, change.composed], ['attention-change', true, true]);
    assert.deepEqual(change.detail.inputs.v, spec.exercise_V);
    assert.equal(change.detail.inputs.mask, 'causal');
    assert.equal(change.detail.inputs.scale, null);
    const want = spec.exercise_causal;
    change.detail.result.weights.flat().forEach((x, t) => assert.ok(Math.abs(x - want.weights.flat()[t]) < 1e-5));
    change.detail.result.output.flat().forEach((x, t) => assert.ok(Math.abs(x - want.output.flat()[t]) < 1e-5));
    assert.equal(change.detail.result.scaled[0][1], '-inf');
    assert.deepEqual(change.detail.result.checks.rowSumsToOne, [true, true, true]);
    // The detail's result is the core's, as attention() returns it: no UI state on it (issue 15).
    assert.deepEqual(Object.keys(change.detail.result).sort(), ['checks', 'exp', 'fullyMasked', 'hidden', 'hiddenBy', 'output', 'rowMax', 'rowSum',
      'scale', 'scaled', 'scaledBeforeMask', 'scores', 'weights'].sort());
    assert.deepEqual(change.detail.result.hiddenBy[0], [[], ['causal'], ['causal']]);
    assert.deepEqual([error.type, error.bubbles, error.composed], ['error', true, true]);
    assert.equal(error.detail.message, 'q: row 2 column 2: “x” is not a number');
    // The message shows in place, and the last good result stays.
    const w = widget('#w');
    assert.match(await w.getByRole('status').filter({ hasText: '“x”' }).textContent(), /q: row 2 column 2: “x” is not a number\. Showing the last valid result/);
    assert.equal(await cellIn(w, 'Output row 2 column 1').textContent(), shown(want.output[1][0]));
  });

  it('attention-change says whether the state is committed: a keystroke not yet, then the same state again once committed', async () => {
    await page.goto(await scratch('<attention-calc id="w"></attention-calc>'));
    await ready();
    await page.evaluate(() => {
      window.seen = [];
      document.getElementById('w').addEventListener('attention-change', (e) => window.seen.push({ committed: e.detail.committed, q11: e.detail.inputs.q[0][0], verified: e.detail.result.checks.verified }));
    });
    const w = widget('#w');
    await cellIn(w, 'Q row 1 column 1').fill('2');
    const typed = await page.evaluate(() => window.seen.splice(0));
    assert.deepEqual(typed, [{ committed: false, q11: 2, verified: true }]);
    // The grid commits after a pause in typing: the same state, committed.
    await page.waitForFunction(() => window.seen.length > 0, null, { timeout: 5000 });
    assert.deepEqual(await page.evaluate(() => window.seen.splice(0)), [{ committed: true, q11: 2, verified: true }]);
    // Enter commits at once; any other control is committed with its change.
    await cellIn(w, 'Q row 1 column 1').fill('3');
    await cellIn(w, 'Q row 1 column 1').press('Enter');
    assert.deepEqual(await page.evaluate(() => window.seen.splice(0)), [{ committed: false, q11: 3, verified: true }, { committed: true, q11: 3, verified: true }]);
    await w.getByRole('checkbox', { name: 'Causal mask' }).check();
    assert.deepEqual(await page.evaluate(() => window.seen.splice(0)), [{ committed: true, q11: 3, verified: true }]);
    assert.deepEqual(problems, []);
  });

  // The inputs the calculator computes with and the inputs attention-change reports are one
  // (state.js's coreInputs), for every pitfall: what is shown is the core's result for them.
  it('for every pitfall, attention-change reports the inputs the calculator computed with, and the result shown is the core\'s for those inputs', async () => {
    await page.goto(await scratch('<attention-calc id="w"></attention-calc>'));
    await ready();
    const base = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&causal=1&pad=3';
    for (const pitfall of ['none', 'mask-after-softmax', 'scale-dk', 'no-scale', 'custom-scale']) {
      const hash = `${base}${pitfall === 'none' ? '' : `&pitfall=${pitfall}`}${pitfall === 'custom-scale' ? '&scale=0.3' : ''}`;
      const seen = await page.evaluate(async (h) => {
        const w = document.getElementById('w');
        const changed = new Promise((resolve) => w.addEventListener('attention-change', (e) => resolve(e.detail), { once: true }));
        w.hash = h;
        const detail = await changed;
        const { coreInputs } = await import(new URL('calc/state.js', document.baseURI).href);
        const { loadAttention } = await import(new URL('attention.js', document.baseURI).href);
        const inputs = coreInputs(w.state);
        const plain = (x) => JSON.parse(JSON.stringify(x, (key, y) => (y === -Infinity ? '-inf' : y)));
        return plain({ pitfall: w.state.pitfall, reported: detail.inputs, inputs, result: detail.result, shown: w.result, core: (await loadAttention()).attention(inputs) });
      }, hash);
      assert.equal(seen.pitfall, pitfall);
      assert.deepEqual(seen.reported, seen.inputs, `${pitfall}: the event's inputs are coreInputs(state)`);
      assert.deepEqual(seen.result, seen.core, `${pitfall}: the event's result is the core's for those inputs`);
      assert.deepEqual(seen.shown, seen.core, `${pitfall}: the result shown is the core's for those inputs`);
    }
    assert.deepEqual(problems, []);
  });

  it('the iframe route: state from the hash, and a postMessage API for the embedding page only', async () => {
    // The embedding page is on 127.0.0.1; a second window on localhost (another origin) tries too.
    const hash = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&causal=1';
    const other = env.url.replace('127.0.0.1', 'localhost');
    const intruderPage = `${other}intruder.html`;
    await context.route(intruderPage, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>another site</title>' }));
    await page.goto(await scratch(
      `<iframe id="f" title="calculator" src="frame.html?panels=inputs,weights#${hash}"></iframe>` +
      `<iframe id="intruder" title="another origin" src="${intruderPage}"></iframe>`, { csp: false }));
    const frame = page.frameLocator('#f');
    await frame.locator('body[data-ready="yes"]').waitFor();
    assert.equal(await frame.getByLabel('Weights row 2 column 2', { exact: true }).textContent(), shown(spec.causal.weights[1][1]));
    const ask = (message) => page.evaluate((m) => new Promise((resolve) => {
      const f = document.getElementById('f').contentWindow;
      const onMessage = (e) => {
        if (e.source !== f || !/^attention-calc:(state|error)$/.test(e.data.type)) return;
        window.removeEventListener('message', onMessage);
        resolve(JSON.parse(JSON.stringify(e.data, (key, x) => (x === -Infinity ? '-inf' : x))));
      };
      window.addEventListener('message', onMessage);
      f.postMessage(m, '*');
    }), message);
    const got = await ask({ type: 'attention-calc:get' });
    assert.equal(got.hash, hash);
    assert.ok(Math.abs(got.result.weights[1][0] - spec.causal.weights[1][0]) < 1e-5);
    const set = await ask({ type: 'attention-calc:set', hash: `q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=0,0;2,0;0,2` });
    assert.ok(Math.abs(set.result.output[1][0] - spec.exercise_no_mask.output[1][0]) < 1e-5);
    assert.equal(await frame.getByLabel('Weights row 1 column 2', { exact: true }).textContent(), shown(spec.no_mask.weights[0][1]));
    const bad = await ask({ type: 'attention-calc:set', hash: 'q=1' });
    assert.equal(bad.type, 'attention-calc:error');
    assert.match(bad.message, /could not be read/);
    // A window of another origin is ignored.
    const intruder = page.frames().find((f) => f.url().startsWith(other));
    await intruder.evaluate(() => window.parent.frames[0].postMessage({ type: 'attention-calc:set', hash: 'q=9;9;9&k=1;1;1&v=1;1;1' }, '*'));
    await page.waitForTimeout(200);
    assert.equal(await frame.getByLabel('Weights row 1 column 2', { exact: true }).textContent(), shown(spec.no_mask.weights[0][1]));
    // A keystroke in a cell is told at once (committed: false), then once more when Tab commits it.
    await page.evaluate(() => {
      window.changes = [];
      window.addEventListener('message', (e) => {
        if (e.data?.type === 'attention-calc:change') window.changes.push([e.data.committed, e.data.state.q[0][0]]);
      });
    });
    const cell = frame.getByLabel('Q row 1 column 1', { exact: true });
    await cell.click();
    await cell.press('End');
    await cell.press('5');
    await cell.press('Tab');
    await page.waitForFunction(() => window.changes.some(([committed]) => committed));
    assert.deepEqual(await page.evaluate(() => window.changes), [[false, 15], [true, 15]]);
    assert.deepEqual(problems, []);
  });

  it('shows no console error under the strict CSP, on every page', async () => {
    for (const path of ['index.html', 'embed.html', `frame.html#q=1,0;0,1&k=1,0;0,1&v=1;2`]) {
      await page.goto(`${env.url}${path}`);
      await scrollThrough();
    }
    const csp = await page.evaluate(async () => (await fetch('index.html')).headers.get('content-security-policy'));
    assert.equal(csp, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; object-src 'none'; base-uri 'none'");
    assert.deepEqual(problems, []);
  });

  it('uses the scalar build when SIMD does not validate, and says so in place when the .wasm fails', async () => {
    await context.addInitScript(() => {
      const validate = WebAssembly.validate.bind(WebAssembly);
      WebAssembly.validate = (bytes) => (new Uint8Array(bytes.buffer ?? bytes).includes(253) ? false : validate(bytes));
    });
    await page.goto(await scratch('<attention-calc></attention-calc><attention-calc panels="weights"></attention-calc>'));
    await ready();
    assert.equal(await page.evaluate(async () => (await import('./attention.js').then((m) => m.loadAttention())).arch), 'scalar');
    assert.deepEqual(await weightsIn(widget('attention-calc').nth(1), 3, 3), spec.no_mask.weights.map((r) => r.map((x) => shown(x))));
    assert.deepEqual(problems, []);

    for (const [label, fulfil, message] of [
      ['404', { status: 404, body: 'missing' }, /could not load .*calculator-relaxed\.wasm: HTTP 404/],
      ['an HTML page', { status: 200, contentType: 'text/html', body: '<!doctype html><p>Not here' }, /the file is not WebAssembly \(the server sent text\/html\)/],
    ]) {
      const { page: p, problems: logs, context: ctx } = await openPage(env.browser);
      await p.route('**/*.wasm', (route) => route.fulfill(fulfil));
      await p.goto(await scratch('<attention-calc></attention-calc><attention-calc></attention-calc><attention-calc></attention-calc>', { ctx }));
      await ready('attention-calc', p);
      for (let i = 0; i < 3; i++) {
        assert.match(await p.locator('attention-calc').nth(i).getByRole('alert').textContent(), message, label);
      }
      // No exception storm: no uncaught error, and at most the browser's one line for the failed request.
      assert.deepEqual(logs.filter((l) => l.startsWith('pageerror')), [], label);
      assert.ok(logs.length <= 1, `${label}: ${logs.join(' | ')}`);
      logs.length = 0; // provoked, and asserted above: not for noProblemsAfterEach
      await ctx.close();
    }
    // A wrong MIME type on a real .wasm still works: the module is compiled from its bytes.
    const { page: p, problems: logs, context: ctx } = await openPage(env.browser);
    await p.route('**/*.wasm', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
    });
    await p.goto(await scratch('<attention-calc panels="weights"></attention-calc>', { ctx }));
    await ready('attention-calc', p);
    assert.equal(await p.locator('attention-calc').getByLabel('Weights row 1 column 1', { exact: true }).textContent(), '0.446');
    assert.deepEqual(logs, []);
    await ctx.close();
  });

  // The styles are the element's own, adopted as constructed stylesheets: no .css file for a
  // site's bundler to meet, styled under style-src 'self', and the labs' only with a lab.
  it('carries its styles: styled under the strict CSP with no stylesheet request, the labs\' styles adopted with the first lab', async () => {
    const requested = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(await scratch('<attention-calc id="w" panels="weights" loading="eager"></attention-calc>'));
    await ready('#w');
    const look = () => page.evaluate(() => {
      const root = document.querySelector('#w').shadowRoot;
      const lab = root.querySelector('.lab');
      return { sheets: root.adoptedStyleSheets.length, styleElements: root.querySelectorAll('style, link').length,
        display: getComputedStyle(root.host).display, font: getComputedStyle(root.querySelector('.calc')).fontFamily,
        labMargin: lab ? getComputedStyle(lab).marginBottom : null };
    });
    const first = await look();
    assert.deepEqual({ ...first, font: undefined }, { sheets: 1, styleElements: 0, display: 'block', font: undefined, labMargin: null });
    assert.match(first.font, /^system-ui/);
    assert.deepEqual(requested.filter((path) => /\.css$|labs-styles/.test(path)), []);
    // The first lab brings the labs' styles, once, for every element.
    await page.evaluate(async () => {
      const w = document.querySelector('#w');
      w.panels = 'weights cost';
      await new Promise((resolve) => setTimeout(resolve));
      await w.ready;
    });
    await page.locator('#w .cost-lab').waitFor();
    const withLab = await look();
    assert.equal(withLab.sheets, 2);
    assert.notEqual(withLab.labMargin, '0px', 'the lab is styled');
    assert.deepEqual(requested.filter((path) => /\.css$/.test(path)), []);
    assert.equal(requested.filter((path) => /labs-styles/.test(path)).length, 1);
    assert.deepEqual(problems, []);
  });

  // Issue 28: every file that fails to load is named, with its full URL and the server's answer.
  it('names the file, its URL and the HTTP status when the wasm does not load under a base-url with nothing there', async () => {
    const { page: q, context: ctx2, problems: second } = await openPage(env.browser);
    await q.goto(await scratch('<attention-calc panels="weights" base-url="/elsewhere/"></attention-calc>', { ctx: ctx2 }));
    await ready('attention-calc', q);
    assert.match(await q.locator('attention-calc').getByRole('alert').textContent(),
      /could not load calculator-relaxed\.wasm from http:\/\/127\.0\.0\.1:\d+\/elsewhere\/wasm\/calculator-relaxed\.wasm: HTTP 404/);
    await ctx2.close();
    // The browser's own lines for the 404s this test provokes, and nothing else.
    assert.ok(second.every((line) => /status of 404/.test(line)), second.join('\n'));
    second.length = 0;
  });

  it('keeps XSS payloads inert in attributes, the hash, pasted text and postMessage', async () => {
    // With the CSP off, an injected handler would run: the test proves none is injected.
    await context.close();
    ({ page, problems, context } = await openPage(env.browser, { bypassCSP: true }));
    const inert = async (p) => {
      assert.equal(await p.evaluate(() => window.__xss), undefined);
      const injected = await p.evaluate(() => [...document.querySelectorAll('attention-calc')]
        .map((e) => e.shadowRoot.querySelectorAll('img, script, iframe').length).reduce((a, b) => a + b, 0));
      assert.equal(injected, 0);
    };
    await page.goto(await scratch(`<attention-calc id="w"></attention-calc>`));
    await ready();
    const w = widget('#w');
    for (const name of ['q', 'k', 'v', 'mask', 'scale', 'panels', 'precision', 'theme']) {
      // The element applies attributes in a microtask; let it run before looking.
      await w.evaluate(async (e, [n, x]) => { e.setAttribute(n, x); await Promise.resolve(); }, [name, XSS]);
      await inert(page);
      if (name === 'q') assert.match(await w.locator('.calc-status').textContent(), /q: row 1 column 1: “<img” is not a number/); // as text
      await w.evaluate((e, n) => e.removeAttribute(n), name);
    }
    await cellIn(w, 'Q row 1 column 1').evaluate((input, text) => {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, `${XSS} 1; 2 3`);
    await cellIn(w, 'Q row 1 column 2').fill(XSS);
    await inert(page);
    assert.match(await w.locator('.cell-message').first().textContent(), /<img src=x/);

    await page.goto(`${env.url}index.html#q=${encodeURIComponent(XSS)}&k=1&v=1`);
    await page.waitForSelector('body[data-ready]');
    await inert(page);
    assert.match(await page.locator('#notice').textContent(), /could not be used/);

    await page.goto(await scratch('<iframe id="f" title="calculator" src="frame.html"></iframe>'));
    await page.frameLocator('#f').locator('body[data-ready]').waitFor();
    await page.evaluate((x) => {
      const f = document.getElementById('f').contentWindow;
      f.postMessage({ type: 'attention-calc:set', hash: `q=${x}&k=1&v=1` }, '*');
      f.postMessage({ type: x, hash: x }, '*');
      f.postMessage(x, '*');
    }, XSS);
    await page.waitForTimeout(200);
    await inert(page);
    const frame = page.frames().find((f) => f.url().includes('frame.html'));
    assert.equal(await frame.evaluate(() => window.__xss), undefined);
    assert.deepEqual(problems, []);
  });

  it('caps sizes and refuses an over-long attribute quickly, with a clear message', async () => {
    await page.goto(await scratch('<attention-calc id="w"></attention-calc>'));
    await ready();
    const w = widget('#w');
    // Sets an attribute and resolves with the message of the error event it causes.
    const errorOf = (name, value) => w.evaluate((e, [n, x]) => new Promise((resolve) => {
      e.addEventListener('error', (ev) => resolve(ev.detail.message), { once: true });
      e.setAttribute(n, x);
    }), [name, value]);
    const nine = Array.from({ length: 9 }, () => '1 0').join('; ');
    assert.equal(await errorOf('q', nine), 'q is 9×2; the calculator shows at most 8 tokens and 8 columns');
    await w.evaluate((e) => e.removeAttribute('q'));
    // Refused from its length, before any parsing: no hang (a generous bound, not a speed test).
    const started = Date.now();
    assert.equal(await errorOf('v', '1 '.repeat(2_000_000)), 'the v attribute is 4000000 characters long; the limit is 2000');
    assert.ok(Date.now() - started < 10_000);
    assert.equal(await cellIn(w, 'Weights row 1 column 1').textContent(), '0.446'); // last good state
  });

  it('keeps the wasm heap flat over 10,000 edits through the element', async () => {
    await page.goto(await scratch('<attention-calc id="w" panels="weights"></attention-calc>'));
    await ready();
    const { growth, changes } = await page.evaluate(async () => {
      const { loadAttention } = await import('./attention.js');
      const attn = await loadAttention();
      const w = document.getElementById('w');
      let changes = 0;
      w.addEventListener('attention-change', () => changes++);
      const edit = async (i) => {
        w.q = `${i % 7} 1; 0 ${(i % 5) - 2}; -1 0`;
        if (i % 10 === 9) w.v = 'not numbers'; // an invalid edit now and then
        else if (i % 10 === 0) w.v = '1 0; 0 1; 1 1';
        await Promise.resolve();
      };
      for (let i = 0; i < 100; i++) await edit(i);
      const before = attn.heapBytesInUse();
      for (let i = 0; i < 10_000; i++) await edit(i);
      return { growth: attn.heapBytesInUse() - before, changes };
    });
    assert.equal(growth, 0);
    assert.ok(changes >= 9000, `${changes} updates`);
    assert.deepEqual(problems, []);
  });

  it('axe-core reports no violations on the calculator page and on embed.html', async () => {
    await context.close();
    ({ page, problems, context } = await openPage(env.browser, { bypassCSP: true })); // to inject axe
    for (const path of ['index.html', 'embed.html']) {
      await page.goto(`${env.url}${path}`);
      await scrollThrough();
      await page.evaluate(() => window.scrollTo(0, 0));
      assert.deepEqual((await axeViolations(page)).violations, [], path);
    }
  });

  it('dist/ works when copied into an empty folder and served as a course site would', async () => {
    const site = mkdtempSync(join(tmpdir(), 'course-site-'));
    try {
      cpSync(fileURLToPath(new URL('../../dist/', import.meta.url)), join(site, 'attention-calc'), { recursive: true });
      writeFileSync(join(site, 'lesson.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lesson 6.8</title><link rel="icon" href="attention-calc/favicon.svg">' +
        '<script type="module" src="attention-calc/attention-calc.js"></script></head><body><h1>Attention</h1>' +
        '<attention-calc mask="causal"></attention-calc>' +
        '<iframe title="calculator" src="attention-calc/frame.html?panels=weights#q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1"></iframe></body></html>');
      const { server, url } = await startServer({ root: site });
      try {
        const requests = [];
        page.on('request', (r) => requests.push(r.url()));
        await page.goto(`${url}lesson.html`);
        await ready();
        const w = widget('attention-calc');
        assert.deepEqual(await weightsIn(w, 3, 3), spec.causal.weights.map((r) => r.map((x) => shown(x))));
        assert.ok(await w.locator('.katex').count() > 0); // KaTeX came from dist/ too
        const frame = page.frameLocator('iframe');
        await frame.locator('body[data-ready="yes"]').waitFor();
        assert.equal(await frame.getByLabel('Weights row 1 column 3', { exact: true }).textContent(), shown(spec.no_mask.weights[0][2]));
        assert.deepEqual(requests.filter((r) => !r.startsWith(url)), []);
        assert.deepEqual(problems, []);
      } finally {
        server.close();
      }
    } finally {
      rmSync(site, { recursive: true, force: true });
    }
  });
});
