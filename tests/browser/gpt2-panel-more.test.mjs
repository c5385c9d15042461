// Issue 27, more of the GPT-2 panel's browser tests (panels="gpt2"), on the generated fixture
// (build-fixtures/gpt2/d64-f32: 3 layers of 4 heads, random weights, GPT-2's tokenizer): a 320 px
// column, and the dist/ embed alone under the strict CSP, by keyboard too. These tests use only
// the panel's DOM (accessible names, buttons, its file chooser), never its module, so they hold
// wherever the panel runs its model.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';

import { CSP, startServer } from '../../tools/serve.mjs';
import { serveRange } from '../engines/server.mjs';
import { launchChromium, openPage } from './chromium.mjs';
import { coursePage, servedPages } from './served.mjs';

const FIXTURE = fileURLToPath(new URL('../../build-fixtures/gpt2/d64-f32/', import.meta.url));
const MODEL = join(FIXTURE, 'model.safetensors');
const CONFIG = join(FIXTURE, 'config.json');
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const PANEL = 'Exercise 4: look inside GPT-2';
const LAST = 2; // the fixture has 3 layers: the panel starts at layer 5, or the last layer
const HEADS = 4;
const names = (layer) => Array.from({ length: HEADS }, (_, i) => `GPT-2 layer ${layer} head ${i}`);

/**
 * serve.mjs answers every request with the whole file, chunked: no Content-Length, no Range. A
 * course's host (nginx, GitHub Pages, a CDN) answers Range requests, which gpt2-src needs; so
 * models/… are served here as such a host does, with the same headers, CSP included. pages:
 * { path: [html, CSP] }, pages served with a CSP of their own.
 */
function servesRanges(server, root, pages = {}) {
  const [serveFile] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (pages[path]) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': pages[path][1], 'Cache-Control': 'no-cache' });
      res.end(pages[path][0]);
    } else if (path.startsWith('/models/')) {
      serveRange(root, decodeURIComponent(path), req, res);
    } else {
      serveFile(req, res);
    }
  });
}

/** A second origin, as a CDN or Hugging Face: build-fixtures/gpt2/ by Range requests, with CORS. */
function modelHost() {
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'Range');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, Accept-Ranges');
    if (req.method === 'OPTIONS') {
      res.end();
      return;
    }
    serveRange(join(FIXTURE, '..'), decodeURIComponent(new URL(req.url, 'http://x').pathname), req, res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

const lab = (page) => page.getByRole('group', { name: PANEL });
// Every map of the layer, by its exact name; should one not come, fails with what the panel says.
async function waitForMaps(page, layer) {
  for (const name of names(layer)) {
    await lab(page).getByRole('img', { name, exact: true }).waitFor({ timeout: 30_000 }).catch(async (error) => {
      const said = await lab(page).getByRole('alert').allTextContents().catch(() => []);
      throw new Error(`${error.message}\nThe panel says: ${said.join(' ')}`);
    });
  }
}
/** The names of the maps the panel shows, in order. */
const mapNames = (page) => lab(page).getByRole('img', { name: /^GPT-2 layer \d+ head \d+$/ }).evaluateAll((maps) => maps.map((m) => m.getAttribute('aria-label')));

describe('the GPT-2 panel in a 320 px column', () => {
  const env = servedPages();
  let page, problems, context;
  beforeEach(() => ({ page, problems, context } = env));

  // The learner's way in: the button opens the file chooser, which takes the model and its config.json.
  async function openFixture() {
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      lab(page).getByRole('button', { name: 'Open GPT-2 weights (model.safetensors)' }).click(),
    ]);
    await chooser.setFiles([MODEL, CONFIG]);
    await waitForMaps(page, LAST);
  }

  /**
   * What does not fit in the element's box: every element (not inside an SVG, which clips its own
   * content) whose right edge passes the box's and that no scroller inside the box holds, with its
   * width; every control (button, select, input, link, focusable) outside the box or in no scroller
   * that reaches it; and the box's own scroll width.
   */
  const measure = () => page.locator('attention-calc').evaluate((e) => {
    const box = e.getBoundingClientRect();
    const label = (el) => `${el.localName}${el.className?.baseVal ?? (el.className ? `.${String(el.className).trim().split(/\s+/).join('.')}` : '')}`
      + `${el.getAttribute('aria-label') ? ` “${el.getAttribute('aria-label')}”` : el.textContent && el.children.length === 0 ? ` “${el.textContent.trim().slice(0, 40)}”` : ''}`;
    const scrollerOf = (el) => {
      let s = el.parentElement ?? el.getRootNode().host;
      while (s && s !== e && !['auto', 'scroll'].includes(getComputedStyle(s).overflowX)) s = s.parentElement ?? s.getRootNode().host;
      return s === e ? null : s;
    };
    const out = [];
    const controls = [];
    for (const el of e.shadowRoot.querySelectorAll('*')) {
      if (el.ownerSVGElement) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const scroller = scrollerOf(el);
      const held = scroller && scroller.getBoundingClientRect().right <= box.right + 1 && scroller.getBoundingClientRect().left >= box.left - 1;
      if ((r.right > box.right + 1 || r.left < box.left - 1) && !held) out.push(`${label(el)}: ${Math.round(r.width)} px wide, right edge at ${Math.round(r.right - box.left)} px`);
      const control = el.matches('button, select, input:not(.sr-only), textarea, a[href], [tabindex="0"]');
      if (control && (r.right > box.right + 1 || r.left < box.left - 1) && !held) controls.push(`${label(el)}: ${Math.round(r.left - box.left)}…${Math.round(r.right - box.left)} px`);
    }
    return { width: box.width, scrollWidth: e.scrollWidth, page: document.documentElement.scrollWidth, viewport: innerWidth, out, controls };
  });

  it('a 320 px screen and a 320 px column in a wide page: no sideways page scroll, every control within the column, the layer still changes there', async () => {
    // A phone 320 px wide: the page itself must not scroll sideways.
    await page.setViewportSize({ width: 320, height: 800 });
    await page.goto(await coursePage(context, env.url, `<attention-calc panels="gpt2"></attention-calc>`));
    await openFixture();
    const phone = await measure();
    await page.screenshot({ path: 'test-results/gpt2-panel-320.png', fullPage: true }).catch(() => {});
    assert.deepEqual({ page: phone.page, out: phone.out, controls: phone.controls }, { page: 320, out: [], controls: [] }, 'a 320 px screen');

    // A 320 px column on a wide screen (the inline style needs the page without its CSP).
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(await coursePage(context, env.url, '<div style="width:320px"><attention-calc panels="gpt2"></attention-calc></div>', { csp: false }));
    await openFixture();
    const column = await measure();
    await page.screenshot({ path: 'test-results/gpt2-panel-320-column.png', fullPage: true }).catch(() => {});
    assert.equal(column.width, 320);
    assert.deepEqual({ out: column.out, controls: column.controls }, { out: [], controls: [] }, 'a 320 px column');
    assert.ok(column.scrollWidth <= 320, `the element scrolls ${column.scrollWidth} px wide`);
    assert.equal(column.page, 1280);

    // Reachable, not only drawn there: the layer selector and a button work in the column.
    await lab(page).getByRole('combobox', { name: 'Layer' }).selectOption('0');
    await waitForMaps(page, 0);
    assert.deepEqual(await mapNames(page), names(0));
    await lab(page).getByRole('button', { name: 'Repeat the text' }).click();
    assert.match(await lab(page).getByLabel('Text GPT-2 reads').inputValue(), /^The cat sat on the mat because it was tired The cat sat/);
    assert.deepEqual(await measure().then((m) => [m.out, m.controls]), [[], []], 'a 320 px column, twice the text');
    assert.deepEqual(problems, []);
  });
});

/**
 * Every response of `server` carries `csp`, as a site whose CSP is one header for all its files:
 * the GPT-2 panel's worker fetches the model, and a worker's CSP is the one its own script came with.
 */
function withCsp(server, csp) {
  const [serve] = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const writeHead = res.writeHead.bind(res);
    res.writeHead = (status, headers = {}) => writeHead(status, { ...headers, 'Content-Security-Policy': csp });
    serve(req, res);
  });
}

describe('the GPT-2 panel from dist/, embedded alone under the strict CSP', { skip: !existsSync(join(DIST, 'attention-calc.js')) && 'dist/ is not built (node tools/dist.mjs)' }, () => {
  let site, server, url, cdn, cdnSite, browser, page, problems, context, requests;
  before(async () => {
    // A course site: dist/ as it ships, the model beside it (same origin), one static page with
    // nothing but the module and the element (and dist/'s icon, or the browser asks for
    // /favicon.ico, a 404 on the console). serve.mjs sends the strict CSP header.
    site = mkdtempSync(join(tmpdir(), 'gpt2-course-'));
    cpSync(DIST, site, { recursive: true });
    mkdirSync(join(site, 'models/gpt2'), { recursive: true });
    cpSync(MODEL, join(site, 'models/gpt2/model.safetensors'));
    cpSync(CONFIG, join(site, 'models/gpt2/config.json'));
    const lesson = (src) => '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Exercise 4</title><link rel="icon" href="favicon.svg">'
      + '<script type="module" src="attention-calc.js"></script></head><body>'
      + `<attention-calc panels="gpt2" gpt2-src="${src}"></attention-calc></body></html>`;
    writeFileSync(join(site, 'lesson.html'), lesson('models/gpt2/model.safetensors'));
    ({ server, url } = await startServer({ root: site }));
    servesRanges(server, site);
    // The same page with the model on another origin, on a site whose CSP (one header for every
    // file, the worker's too) adds that origin to connect-src.
    cdn = await modelHost();
    writeFileSync(join(site, 'lesson-cdn.html'), lesson(`${cdn.url}d64-f32/model.safetensors`));
    cdnSite = await startServer({ root: site });
    withCsp(cdnSite.server, `${CSP}; connect-src 'self' ${cdn.url.slice(0, -1)}`);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
    cdnSite?.server.close();
    cdn?.server.close();
    if (site) rmSync(site, { recursive: true, force: true });
  });
  beforeEach(async () => {
    ({ page, problems, context } = await openPage(browser, {
      // CSP violations, as the page sees them (Chromium also logs them as console errors).
      initScript: () => {
        window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI}`));
      },
    }));
    requests = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  });
  // Opens a page of the site; its CSP header is the strict one (plus connect-src, if given).
  const visit = async (name, base = url) => {
    const response = await page.goto(`${base}${name}`);
    assert.match(response.headers()['content-security-policy'], /^default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; object-src 'none'; base-uri 'none'(; connect-src 'self' http:\/\/127\.0\.0\.1:\d+)?$/);
  };
  afterEach(async () => {
    await context.close();
  });

  it('shows the four named heads of the last layer, everything from the site itself, no CSP violation, no console error', async () => {
    await visit('lesson.html');
    await waitForMaps(page, LAST);
    assert.deepEqual(await mapNames(page), names(LAST));
    assert.equal(await lab(page).getByRole('combobox', { name: 'Layer' }).inputValue(), String(LAST));
    assert.ok(requests.some((r) => r.startsWith(`${url}models/gpt2/model.safetensors`)), 'the model came from gpt2-src');
    assert.deepEqual(requests.filter((r) => !r.startsWith(url)), [], 'nothing from elsewhere');
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
    assert.deepEqual(problems, []);
  });

  it('by keyboard: Tab reaches the layer selector, the arrow keys change the layer, the heatmaps\' names follow', async () => {
    await visit('lesson.html');
    await waitForMaps(page, LAST);
    // Tab from the top of the page until the focus is on the selector named "Layer".
    const focused = () => page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return { tag: el?.localName, name: el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent.trim() ?? el?.textContent.trim().slice(0, 40) };
    });
    const path = [];
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      const at = await focused();
      path.push(`${at.tag} “${at.name}”`);
      if (at.tag === 'select' && at.name === 'Layer') break;
    }
    assert.deepEqual(await focused(), { tag: 'select', name: 'Layer' }, `Tab went through: ${path.join(', ')}`);
    for (const [key, layer] of [['ArrowUp', 1], ['ArrowUp', 0], ['ArrowDown', 1]]) {
      await page.keyboard.press(key);
      await waitForMaps(page, layer);
      assert.deepEqual(await mapNames(page), names(layer), `${key}: layer ${layer}`);
      assert.equal(await lab(page).getByRole('combobox', { name: 'Layer' }).inputValue(), String(layer));
      assert.deepEqual(await focused(), { tag: 'select', name: 'Layer' }, 'the focus stays on the selector');
    }
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
    assert.deepEqual(problems, []);
  });

  it('the model on another origin (CORS, Range), which the page\'s connect-src allows: the same four named heads, no CSP violation, no console error', async () => {
    await visit('lesson-cdn.html', cdnSite.url);
    await waitForMaps(page, LAST);
    assert.deepEqual(await mapNames(page), names(LAST));
    const model = `${cdn.url}d64-f32/model.safetensors`;
    assert.ok(requests.includes(`${cdn.url}d64-f32/config.json`), 'the config.json beside the model');
    assert.ok(requests.includes(model), 'the model from gpt2-src');
    assert.deepEqual(requests.filter((r) => !r.startsWith(cdnSite.url) && !r.startsWith(`${cdn.url}d64-f32/`)), [], 'nothing from elsewhere');
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
    assert.deepEqual(problems, []);
  });
});
