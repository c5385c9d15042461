// For a describe() block: serve web/ (or dist/) on localhost and launch Chromium once, for all its tests.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CSP, startServer } from '../../tools/serve.mjs';
import { axeViolations, launchChromium, noProblemsAfterEach, openPage } from './chromium.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

/** → { browser, url }, filled in before the block's first test runs; `root` (web/ by default) served. */
export function servedWeb(root = WEB) {
  const env = { browser: null, url: null, server: null };
  before(async () => {
    ({ server: env.server, url: env.url } = await startServer({ root }));
    env.browser = await launchChromium();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.close();
  });
  return env;
}

/**
 * servedWeb(), and for each test a fresh page in a context of its own (openPage's options), closed
 * after it, and checked for console errors and uncaught exceptions: env.page, env.context,
 * env.problems.
 */
export function servedPages(options) {
  const env = servedWeb();
  noProblemsAfterEach();
  beforeEach(async () => {
    Object.assign(env, await openPage(env.browser, options));
  });
  afterEach(async () => {
    await env.context?.close();
  });
  return env;
}

let coursePages = 0;

/**
 * A course page of the test's own, served (through a route, not a file) beside the element,
 * under the strict CSP header unless csp is false. Returns its URL.
 */
export async function coursePage(context, baseUrl, body, { csp = true } = {}) {
  const url = `${baseUrl}course-${++coursePages}.html`;
  await context.route(url, (route) => route.fulfill({
    contentType: 'text/html; charset=utf-8',
    headers: csp ? { 'Content-Security-Policy': CSP } : {},
    body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title><link rel="icon" href="favicon.svg">'
      + `<script type="module" src="attention-calc.js"></script></head><body>${body}</body></html>`,
  }));
  return url;
}

/**
 * Opens a course page with `body` (coursePage, under the strict CSP) and resolves once every
 * element is ready and `drawn`, a selector of what the lab draws last, is on the page.
 */
export async function openLab(page, context, baseUrl, body, drawn) {
  await page.goto(await coursePage(context, baseUrl, body));
  await page.evaluate(async () => {
    await customElements.whenDefined('attention-calc');
    for (const e of document.querySelectorAll('attention-calc')) await e.ready;
  });
  await page.locator(drawn).first().waitFor({ timeout: 20_000 });
}

/**
 * A lab at 360 px in the light and the dark theme, then dark at 1280 px: no axe-core violations
 * (with the contrast of more than 50 nodes checked), no horizontal overflow at 360 px, and no
 * console error. `open(page, context, url, body)` opens `body(theme)`; `prepare(page)` then puts
 * the lab in the state to check (a message on screen, a full table).
 */
export async function checkLabAccessible(env, { open, body, prepare = async () => {} }) {
  const axePage = await openPage(env.browser, { bypassCSP: true });
  try {
    const p = axePage.page;
    await p.setViewportSize({ width: 360, height: 800 });
    for (const theme of ['light', 'dark']) {
      await open(p, axePage.context, env.url, `<main><h1>A lesson</h1>${body(theme)}</main>`);
      await prepare(p);
      const { violations, contrastChecked } = await axeViolations(p);
      assert.deepEqual(violations, [], theme);
      assert.ok(contrastChecked > 50, `${theme}: axe checked the contrast of ${contrastChecked} nodes`);
      assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 360, `${theme}: no horizontal overflow`);
    }
    await p.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual((await axeViolations(p)).violations, [], 'dark, 1280 px');
    assert.deepEqual(axePage.problems, []);
  } finally {
    await axePage.context.close();
  }
}

/**
 * A lab past the lesson embedded from dist/: in a fresh page of env's browser, check({ page,
 * context, requests }) runs with every request's path recorded, then the page must have had no
 * problem. The lab's own checks run in check(); fetchedAlone() checks what it fetched.
 */
export async function embeddedAlone(env, check) {
  const { page, problems, context } = await openPage(env.browser);
  try {
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await check({ page, context, requests });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
}

/**
 * What such an embed fetched: one wasm module, the next labs' (Chromium runs its relaxed-SIMD
 * build; it holds the calculator's functions, so neither the calculator's module nor the full
 * core comes), and no chunk of the labs named in `others`.
 */
export function fetchedAlone(requests, others) {
  const modules = requests.filter((p) => p.endsWith('.wasm'));
  assert.deepEqual(modules, ['/wasm/next-labs-relaxed.wasm'], `one wasm module, the next labs': ${requests.join(' ')}`);
  assert.ok(requests.every((p) => !new RegExp(`^/(${others.join('|')})[-.]`).test(p)), `no other lab's chunk: ${requests.join(' ')}`);
}
