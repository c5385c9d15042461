// Debian's Chromium, driven by playwright-core (which downloads no browser of its own).
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

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

/**
 * A new page, in a new context, that records console errors and uncaught exceptions in
 * `problems`. bypassCSP: for tests that must inject a script (axe) or prove that markup is
 * never injected (XSS) even where a CSP would have blocked it.
 */
export async function openPage(browser, { initScript, bypassCSP = false } = {}) {
  const context = await browser.newContext({ bypassCSP });
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { context, page, problems };
}
