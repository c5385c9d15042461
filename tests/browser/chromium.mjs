// Debian's Chromium, driven by playwright-core (which downloads no browser of its own).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';

/** axe-core's script, to inject into a page opened with bypassCSP (addScriptTag({ content: AXE })). */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);

// Flags for a sandboxed CI machine: no GPU, and no background traffic to hosts it cannot reach.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launchChromium() {
  const executablePath = CANDIDATES.find((p) => existsSync(p));
  if (!executablePath) throw new Error('Chromium not found: run tools/bootstrap.sh (installs Debian\'s chromium)');
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
