// Debian's Chromium, driven by playwright-core (which downloads no browser of its own).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';

import { wasmRelaxedSimdSupported } from '../../web/attention.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core run in `page` (opened with bypassCSP, so its script can be injected) over `context`
 * (axe's: a selector, or { include } with paths into shadow roots; default the whole document):
 * its violations, each as "id: nodes × where (help)", and how many nodes the colour-contrast
 * rule passed (to show it saw the text).
 */
export async function axeViolations(page, context = null) {
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async (within) => {
    const result = await window.axe.run(within ?? document);
    return {
      violations: result.violations.map((v) => `${v.id}: ${v.nodes.length} × ${v.nodes.map((n) => n.target.join(' ')).join(', ')} (${v.help})`),
      contrastChecked: result.passes.find((rule) => rule.id === 'color-contrast')?.nodes.length ?? 0,
    };
  }, context);
}

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);

// Flags for a sandboxed CI machine: no GPU, and no background traffic to hosts it cannot reach.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * Debian's Chromium, headless. comparesWithNode (the tests): Chromium runs the relaxed-SIMD build,
 * and the tests compare its numbers, bit for bit, with the same core's in this Node process, which
 * Node 20 loads only behind its flag; the tools that only time the page pass false.
 */
export async function launchChromium({ comparesWithNode = true } = {}) {
  const executablePath = CANDIDATES.find((p) => existsSync(p));
  if (!executablePath) throw new Error('Chromium not found: run tools/bootstrap.sh (installs Debian\'s chromium)');
  if (comparesWithNode && !wasmRelaxedSimdSupported()) {
    throw new Error('run the browser suite as node --experimental-wasm-relaxed-simd --test …: the page runs the relaxed-SIMD build, and the tests compute in Node with the same build');
  }
  return chromium.launch({ executablePath, headless: true, args: ARGS });
}

// The `problems` of every context openPage made since the last afterEach of noProblemsAfterEach.
const watched = [];

/**
 * A new page, in a new context, that records console errors and uncaught exceptions in
 * `problems`, for that page and every other page opened in its context. bypassCSP: for tests
 * that must inject a script (axe) or prove that markup is never injected (XSS) even where a CSP
 * would have blocked it. contextOptions: more of browser.newContext()'s options (viewport,
 * hasTouch, isMobile…).
 */
export async function openPage(browser, { initScript, bypassCSP = false, contextOptions = {} } = {}) {
  const context = await browser.newContext({ ...contextOptions, bypassCSP });
  if (initScript) await context.addInitScript(initScript);
  const problems = [];
  watched.push(problems);
  context.on('page', (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  });
  const page = await context.newPage();
  return { context, page, problems };
}

/**
 * For a describe() block: after each of its tests, every page openPage opened during the test
 * (and every page opened in those pages' contexts) has logged no console error and thrown no
 * uncaught exception. A test that provokes an error on purpose asserts it, then empties `problems`.
 */
export function noProblemsAfterEach() {
  afterEach(() => {
    const found = watched.splice(0).flat();
    assert.deepEqual(found, [], 'console errors or uncaught exceptions in the test\'s pages');
  });
}
