// Debian's Firefox ESR, headless, driven by puppeteer-core over WebDriver BiDi: no geckodriver
// and no downloaded browser.
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** → the engine-neutral driver of driver.mjs. */
export async function launchFirefox() {
  if (!existsSync(FIREFOX)) throw new Error('Firefox not found: run tools/bootstrap.sh (installs Debian\'s firefox-esr)');
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    // BiDi forwards console errors, and uncaught exceptions as page errors.
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    return {
      name: 'Firefox',
      version: await browser.version(),
      consoleErrors,
      goto: async (url) => { await page.goto(url, { waitUntil: 'load' }); },
      evaluate: (fn, ...args) => page.evaluate(fn, ...args),
      pointerDrag: async (from, to, steps) => {
        await page.mouse.move(from.x, from.y);
        await page.mouse.down();
        await page.mouse.move(to.x, to.y, { steps });
        await page.mouse.up();
      },
      click: (at) => page.mouse.click(at.x, at.y),
      press: (key) => page.keyboard.press(key),
      type: (text, { delay = 0 } = {}) => page.keyboard.type(text, { delay }),
      selectAll: async () => {
        await page.keyboard.down('Control');
        await page.keyboard.press('a');
        await page.keyboard.up('Control');
      },
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
