// The smoke checks every engine must pass, written once against driver.mjs and run once per
// engine (firefox.test.mjs, webkit.test.mjs). The page is served on 127.0.0.1 under the strict
// CSP header; every input is a real pointer or key event from the engine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { compareRows, readFixture, referenceAttention } from '../js/helpers.mjs';
import { ENGINES, Page } from './driver.mjs';
import { serveWithRecorder } from './server.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The generated GPT-2-family fixture: 3 layers of 4 heads, random weights, GPT-2's tokenizer.
const GPT2_FIXTURE = join(ROOT, 'build-fixtures/gpt2/d64-f32');
const spec = readFixture('worked-example.json');
const TEST = { timeout: 60000 };

// The page prints 3 decimals with a typographic minus: equal to the spec to half a unit in the last place.
const parse = (text) => (text === '−∞' ? -Infinity : Number(text.replace('−', '-')));
const SHOWN = { abs: 5e-4 + 1e-12 };
const assertShows = (rows, want, what) => assert.equal(compareRows(rows.map((r) => r.map(parse)), want, SHOWN, what), '');

const newest = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((t, e) =>
  Math.max(t, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);

/** dist/, rebuilt (under the shared build lock) when it is missing or older than web/. */
function freshDist() {
  const entry = join(ROOT, 'dist/attention-calc.js');
  let built = 0;
  try { built = statSync(entry).mtimeMs; } catch { /* missing */ }
  if (built < newest(join(ROOT, 'web'))) {
    const run = spawnSync('flock', ['/tmp/attn-build.lock', 'node', 'tools/dist.mjs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, `tools/dist.mjs failed: ${run.stderr}`);
  }
  return join(ROOT, 'dist');
}

/** describe() block of the smoke checks in one engine: 'firefox' or 'webkit'. */
export function smokeSuite(engineKey) {
  let engine, page, server, url;
  before(async () => {
    ({ server, url } = await serveWithRecorder(join(ROOT, 'web')));
    engine = await ENGINES[engineKey]();
    page = new Page(engine);
    console.log(`# engine: ${engine.version}`);
  });
  after(async () => {
    await engine?.close();
    server?.close();
  });

  describe(`the page in ${engineKey === 'firefox' ? 'Firefox' : 'WebKit'}`, () => {
    // Every test ends with no console error, uncaught error, unhandled rejection or CSP violation.
    afterEach(async () => assert.deepEqual(await page.problems(), []));

    it('loads with no error, on the best build WebAssembly.validate accepts: relaxed SIMD, else SIMD (WebKit), else scalar', TEST, async () => {
      await page.open(url);
      const found = await page.evaluate(async () => {
        const attn = await (await import('./attention.js')).loadAttention();
        return {
          ready: document.body.dataset.ready,
          validates: window.__engine.simdValidates(),
          relaxed: window.__engine.relaxedValidates(),
          simd: attn.simd,
          build: attn.build,
          text: document.getElementById('build').textContent,
          // Distinct paths: WebKit lists the preloaded .wasm a second time when the page fetches it.
          wasm: [...new Set(performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')))],
        };
      });
      const { validates: simd, relaxed } = found; // SIMD: true in Firefox 153 and WebKitGTK 2.50
      // WebKitGTK has no relaxed SIMD: this is where the fallback to the SIMD build is proven.
      if (engineKey === 'webkit') assert.equal(relaxed, false, 'WebKitGTK validates relaxed SIMD: the fallback is not tested here');
      const build = relaxed ? 'relaxed' : simd ? 'simd' : 'scalar';
      const text = { relaxed: 'WebAssembly relaxed SIMD', simd: 'WebAssembly SIMD', scalar: 'scalar WebAssembly' }[build];
      assert.deepEqual(found, { ready: build, validates: simd, relaxed, simd, build, text: `${text} build`, wasm: [`/wasm/attention-${build}.wasm`] });
    });

    it('falls back to the scalar build when WebAssembly SIMD does not validate', TEST, async () => {
      await page.open(`${url}?engine-no-simd`);
      const found = await page.evaluate(async () => ({
        ready: document.body.dataset.ready,
        simd: (await (await import('./attention.js')).loadAttention()).simd,
      }));
      assert.deepEqual(found, { ready: 'scalar', simd: false });
      assertShows(await page.matrix('Weights', 3, 3), spec.no_mask.weights, 'scalar weights');
    });

    it('shows the worked example\'s weights and output, and the causal mask after a click', TEST, async () => {
      await page.open(url);
      assertShows(await page.matrix('Weights', 3, 3), spec.no_mask.weights, 'weights');
      assertShows(await page.matrix('Output', 3, 2), spec.no_mask.output, 'output');
      await page.click('Causal mask');
      assert.equal(await page.evaluate(() => window.__engine.find('Causal mask').checked), true);
      assertShows(await page.matrix('Masked', 3, 3), spec.causal.scaled, 'causal masked scores');
      assertShows(await page.matrix('Weights', 3, 3), spec.causal.weights, 'causal weights');
      assertShows(await page.matrix('Output', 3, 2), spec.causal.output, 'causal output');
    });

    it('updates the weights and outputs as a cell is typed into', TEST, async () => {
      await page.open(url);
      const q = spec.Q.map((r) => [...r]);
      await page.click('Q row 1 column 1');
      for (const typed of ['2', '-3']) {
        await engine.selectAll();
        await engine.type(typed);
        q[0][0] = Number(typed);
        assert.equal(await page.text('Q row 1 column 1'), typed);
        const want = referenceAttention(q, spec.K, spec.V);
        assertShows(await page.matrix('Weights', 3, 3), want.weights, `weights, Q₁₁ = ${typed}`);
        assertShows(await page.matrix('Output', 3, 2), want.output, `output, Q₁₁ = ${typed}`);
      }
    });

    it('in every practice step a cell keeps "-0.707", "−1", ".707", "+2", "1e-3" typed key by key, and the attempt holds the number', { timeout: 400000 }, async () => {
      await page.open(`${url}index.html#q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&preset=worked&practice=1`,
        () => { try { return Boolean(window.__engine.find('Your scores row 1 column 1')); } catch { return false; } });
      const TEXTS = { '-0.707': -0.707, '−1': -1, '.707': 0.707, '+2': 2, '1e-3': 0.001 };
      const STEPS = { scores: 'scores row 1 column 1', scaledBeforeMask: 'scaled row 1 column 1', scaled: 'masked row 1 column 1', exp: 'exp row 1 column 1', rowSum: 'row sum row 1', weights: 'weights row 1 column 1', output: 'output row 1 column 1' };
      for (const [step, cell] of Object.entries(STEPS)) {
        const name = `Your ${cell}`;
        for (const [text, value] of Object.entries(TEXTS)) {
          await page.click(name);
          await engine.selectAll();
          await engine.type(text, { delay: 100 });
          await engine.press('Enter'); // commits, and goes on down
          await page.waitFor((n) => window.__engine.find(n).hasAttribute('aria-invalid'), { args: [name], what: `${name} marked` });
          assert.equal(await page.text(name), text, `${name}: the text typed stays`);
          assert.equal(await page.evaluate((s) => document.getElementById('calculator').state.practice.answers[s][0][0], step), value, `${name}: ${text}`);
        }
      }
    });

    it('arrow keys move between cells, both in Q and in the computed steps, and do not reach the page', TEST, async () => {
      await page.open(url);
      const moves = async (start, keys) => {
        await page.click(start);
        const scrolled = await page.evaluate(() => scrollY);
        const visited = [];
        for (const key of keys) {
          await engine.press(key);
          visited.push(await page.focusedName());
        }
        assert.equal(await page.evaluate(() => scrollY), scrolled, 'the page did not scroll');
        return visited;
      };
      assert.deepEqual(await moves('Q row 1 column 1', ['ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowLeft']),
        ['Q row 2 column 1', 'Q row 2 column 2', 'Q row 1 column 2', 'Q row 1 column 1']);
      assert.deepEqual(await moves('Weights row 1 column 1', ['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp']),
        ['Weights row 1 column 2', 'Weights row 2 column 2', 'Weights row 2 column 1', 'Weights row 1 column 1']);
      const keys = await page.evaluate(() => window.__engine.arrowKeys());
      assert.equal(keys.length, 8);
      assert.deepEqual(keys.filter((k) => !k.handled), [], 'every arrow key was taken by the grid');
      assert.deepEqual((await page.matrix('Q', 3, 2)).map((r) => r.map(parse)), spec.Q, 'no cell changed');
    });

    it('a pointer drag moves value vector v₁ in the hull plot, and the outputs follow', TEST, async () => {
      await page.open(url);
      const from = await page.evaluate(() => {
        const handle = window.__engine.find('Value vector v₁', { prefix: true });
        return window.__engine.centre(handle.querySelectorAll('circle')[1]);
      });
      await engine.pointerDrag(from, { x: from.x - 40, y: from.y - 30 }, 5);
      const v1 = (await page.matrix('V', 1, 2))[0].map(parse);
      assert.ok(v1[0] < spec.V[0][0] && v1[1] > spec.V[0][1], `v₁ moved left and up: (${v1})`);
      const want = referenceAttention(spec.Q, spec.K, [v1, ...spec.V.slice(1)]);
      assertShows(await page.matrix('Output', 3, 2), want.output, 'output after the drag');
    });

    it('index.html renders every lab: multi-head, cost, scaling, construct, learned heads, the KV cache', TEST, async () => {
      await page.open(url);
      const labs = await page.evaluate(async () => {
        const panels = [];
        for (const e of document.querySelectorAll('attention-calc')) {
          e.scrollIntoView();
          await e.ready;
          panels.push(e.getAttribute('panels') ?? 'calculator');
        }
        const lab = (name) => window.__engine.find(name);
        return {
          panels,
          heads: lab('Multi-head attention').querySelectorAll('.head-map').length,
          scores: lab('Cost').querySelector('tr[data-term="scores"] td.num').textContent,
          scalingCharts: lab('The √d_k experiment').querySelectorAll('svg.chart').length,
          construct: lab('Construct a head').querySelector('.lab-verdict').textContent,
          constructMap: lab('Construct a head').querySelectorAll('.heatmap-box svg').length,
          learnedMaps: await (async () => {
            // The learned heads' module and checkpoint load after the panel is built.
            const names = () => [...lab('Look inside a trained model').querySelectorAll('[aria-label^="Layer "]')].map((m) => m.getAttribute('aria-label'));
            for (let t = 0; t < 200 && names().length < 4; t++) await new Promise((r) => setTimeout(r, 100));
            return names();
          })(),
          kvcache: await (async () => {
            // The KV-cache lab draws once its module (the next labs') has loaded: Llama-3-8B's cache at 128k tokens.
            const cell = () => window.__engine.lookFor('Real models’ KV caches')?.querySelector('tr[data-model="llama3"] td[data-tokens="131072"]');
            for (let t = 0; t < 200 && !cell(); t++) await new Promise((r) => setTimeout(r, 100));
            return cell()?.dataset.bytes ?? null;
          })(),
          positions: await (async () => {
            // The positions lab draws once the same module has loaded: the shuffle without positions.
            const verdict = () => window.__engine.lookFor('Shuffle the tokens')?.querySelector('.pos-verdict');
            for (let t = 0; t < 200 && !verdict()?.textContent; t++) await new Promise((r) => setTimeout(r, 100));
            return verdict()?.textContent ?? null;
          })(),
        };
      });
      assert.deepEqual(labs.panels, ['calculator', 'heads', 'cost', 'scaling', 'construct', 'learned', 'gpt2', 'kvcache', 'positions', 'flash']);
      assert.ok(labs.heads >= 1, `${labs.heads} head maps`);
      assert.equal(labs.scores, '1.61 GFLOP'); // 2n²d for n = 1024, d = 768
      assert.equal(labs.scalingCharts, 3); // the histograms on one shared axis, the softmax rows on one, the gradient across d_k
      assert.match(labs.construct, /^\d+ of \d+ tokens/);
      assert.equal(labs.constructMap, 1);
      assert.deepEqual(labs.learnedMaps, ['Layer 1 head 1', 'Layer 1 head 2', 'Layer 2 head 1', 'Layer 2 head 2']);
      assert.equal(labs.kvcache, String(16 * 2 ** 30)); // 2 × 32 layers × 8 K/V heads × 128 × 131,072 tokens × 2 bytes
      assert.match(labs.positions, /^Z’s rows moved with the tokens: attention alone cannot tell order\./);
    });

    it('the cost lab times each size over ≥ 20 ticks of this engine\'s clock, says how long a tick is, and fits a slope', TEST, async () => {
      // The test scrolls to the lab itself: a #cost link would hold the section in place while the
      // labs above it load, which is the links test's subject, not this one's.
      await page.open(`${url}index.html`);
      const { button, tick } = await page.evaluate(async () => {
        const calc = document.getElementById('cost');
        calc.scrollIntoView();
        await calc.ready;
        const measure = [...window.__engine.find('Cost').querySelectorAll('button')].find((b) => b.textContent === 'Measure in this browser');
        // The clock's step, sampled independently of the lab: the smallest step between distinct readings.
        let smallest = Infinity, last = performance.now();
        for (let steps = 0, giveUp = Date.now() + 1000; steps < 5 && Date.now() < giveUp;) {
          const now = performance.now();
          if (now !== last) { smallest = Math.min(smallest, now - last); steps++; }
          last = now;
        }
        return { button: await window.__engine.centre(measure), tick: smallest };
      });
      await engine.click(button);
      await page.waitFor(() => window.__engine.find('Cost').querySelector('progress')?.hidden === false
        || [...window.__engine.find('Cost').querySelectorAll('[role=status]')].some((e) => e.textContent.startsWith('Measured')), { timeout: 5000, what: 'the click to start the measurement' });
      const status = await page.waitFor(() => {
        const text = [...window.__engine.find('Cost').querySelectorAll('[role=status]')].map((e) => e.textContent).find((t) => t.startsWith('Measured'));
        return text ?? false;
      }, { timeout: 40000, what: 'the measurement' });
      const ms = +tick.toPrecision(3); // a float: 0.99999… ms is 1 ms
      const stated = ms >= 1 ? `${ms} ms` : `${+(ms * 1000).toPrecision(3)} µs`;
      assert.match(status, new RegExp(`clock ticks every ${stated}, so each size was timed over at least 20 ticks`));
      const rows = await page.evaluate(() => [...window.__engine.find('Cost').querySelectorAll('table.timings tbody tr')].map((tr) => ({
        n: Number(tr.cells[0].textContent.replace(/,/g, '')), ms: Number(tr.cells[1].textContent),
        ticks: Math.min(...tr.cells[5].textContent.split('; ').map((t) => parseInt(t, 10))), // the explaining path's and the streaming kernel's
      })));
      assert.ok(rows.length >= 4, `${rows.length} sizes`);
      for (const row of rows) assert.ok(row.ticks >= 20, `n = ${row.n}: both paths timed over ≥ ${row.ticks} ticks`);
      // Not rounding noise: the largest size, ≥ 16× the work of n = 32, reads well above it
      // (a loaded machine can blur neighbouring sizes, so only the ends are compared).
      assert.ok(rows.at(-1).ms > 8 * rows[0].ms, `n = ${rows[0].n}: ${rows[0].ms} ms, n = ${rows.at(-1).n}: ${rows.at(-1).ms} ms`);
      for (const path of ['explaining', 'streaming']) {
        assert.match(await page.evaluate((p) => window.__engine.find('Cost').querySelector(`.slope-${p}`).textContent, path), /^\d\.\d\d$/, path);
      }
    });

    it('"Train in this browser" trains in a module worker in this engine, and the panel shows the trained heads', { timeout: 150000 }, async () => {
      await page.open(`${url}index.html#learned`);
      // The panel renders once scrolled into view, and its training half loads after it: until
      // then neither is there, which a slower machine sees for longer.
      const button = await page.waitFor(() => {
        const calc = document.querySelector('attention-calc[panels="learned"]');
        calc?.scrollIntoView();
        const panel = window.__engine.lookFor('Look inside a trained model');
        const train = panel && [...panel.querySelectorAll('button')].find((b) => b.textContent === 'Train in this browser' && !b.hidden);
        if (!train) return false;
        train.scrollIntoView({ block: 'center' });
        return window.__engine.centre(train);
      }, { timeout: 30000, what: 'the training button' });
      await engine.click(button);
      // The worker posts the heads of the model in training every few hundred steps.
      const source = await page.waitFor(() => {
        const text = [...window.__engine.find('Look inside a trained model').querySelectorAll('*')].map((e) => e.textContent)
          .find((t) => /^Heads of the model trained in this browser, seed \d+, step [1-9]\d*/.test(t));
        return text ?? false;
      }, { timeout: 120000, what: 'the first heads of the model training in the worker' });
      assert.match(source, /trained in this browser, seed 1, step [1-9]/);
      assert.equal(await page.evaluate(() => window.__engine.find('Look inside a trained model').querySelectorAll('[aria-label^="Layer "]').length), 4);
    });

    it('the GPT-2 panel opens the fixture from gpt2-src and shows the last layer\'s four named maps', { timeout: 90000 }, async () => {
      // web/ as it is, the fixture beside it as a course's copy (same origin, Range requests), and
      // a page with the panel alone: it starts at layer 5, or the model's last layer, here 2.
      const site = mkdtempSync(join(tmpdir(), 'gpt2-site-'));
      for (const entry of readdirSync(join(ROOT, 'web'))) symlinkSync(join(ROOT, 'web', entry), join(site, entry));
      symlinkSync(GPT2_FIXTURE, join(site, 'models'));
      writeFileSync(join(site, 'gpt2.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Exercise 4</title>'
        + '<link rel="icon" href="favicon.svg"><script type="module" src="attention-calc.js"></script></head><body>'
        + '<attention-calc panels="gpt2" gpt2-src="models/model.safetensors"></attention-calc></body></html>');
      const course = await serveWithRecorder(site, { ranges: '/models/' });
      try {
        await page.open(`${course.url}gpt2.html`, () => customElements.get('attention-calc') !== undefined);
        const maps = () => {
          const lab = window.__engine.lookFor('Exercise 4: look inside GPT-2'); // null while the panel loads
          const names = lab ? [...lab.querySelectorAll('[role="img"][aria-label^="GPT-2 "]')].map((m) => m.getAttribute('aria-label')) : [];
          return names.length > 0 && { names, layer: window.__engine.find('Layer', { scope: lab }).value };
        };
        const shown = await page.waitFor(maps, { timeout: 60000, what: 'the GPT-2 panel\'s maps' }).catch(async (error) => {
          const said = await page.evaluate(() => [...window.__engine.find('Exercise 4: look inside GPT-2').querySelectorAll('[role="alert"], [role="status"]')]
            .filter((e) => !e.closest('[hidden]')).map((e) => e.textContent).filter(Boolean).join(' | ')).catch(() => 'no panel');
          throw new Error(`${error.message}; the panel says: ${said}`);
        });
        assert.deepEqual(shown, { names: [0, 1, 2, 3].map((i) => `GPT-2 layer 2 head ${i}`), layer: '2' });
      } finally {
        course.server.close();
        rmSync(site, { recursive: true, force: true });
      }
    });

    it('the dist/ widget works in a course page served with the strict CSP header', TEST, async () => {
      const site = mkdtempSync(join(tmpdir(), 'course-site-'));
      const course = await (async () => {
        cpSync(freshDist(), join(site, 'attention-calc'), { recursive: true });
        writeFileSync(join(site, 'lesson.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lesson 6.8</title>'
          + '<link rel="icon" href="attention-calc/favicon.svg"><script type="module" src="attention-calc/attention-calc.js"></script>'
          + '</head><body><h1>Attention</h1><attention-calc mask="causal"></attention-calc></body></html>');
        return serveWithRecorder(site);
      })();
      try {
        await page.open(`${course.url}lesson.html`, async () => {
          const widget = document.querySelector('attention-calc');
          return widget?.ready !== undefined && widget.ready.then(() => true);
        });
        assertShows(await page.matrix('Weights', 3, 3), spec.causal.weights, 'the widget\'s causal weights');
        const found = await page.evaluate(() => ({
          katex: document.querySelector('attention-calc').shadowRoot.querySelectorAll('.katex').length,
          foreign: performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !n.startsWith(location.origin)),
        }));
        assert.ok(found.katex > 0, 'KaTeX came from dist/ too');
        assert.deepEqual(found.foreign, []);
      } finally {
        course.server.close();
        rmSync(site, { recursive: true, force: true });
      }
    });
  });
}
