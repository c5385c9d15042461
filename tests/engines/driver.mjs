// The engine-neutral layer the smoke suite is written against. Each engine module launches its
// browser and returns the same small driver:
//   name, version, consoleErrors (what the engine itself reports; WebKit: none)
//   goto(url), evaluate(fn, ...args)          fn runs in the page; async functions are awaited
//   click(point), pointerDrag(from, to, steps), press(key), type(text, { delay }), selectAll()
//                                             real input events from the engine, at viewport points
//   close()                                   ends the browser and every process it started
// Page is what the tests use: it finds elements through shadow roots with in-page.js, which
// every served HTML page loads first.
import { setTimeout as sleep } from 'node:timers/promises';

import { launchFirefox } from './firefox.mjs';
import { launchWebKit } from './webkit.mjs';

export const ENGINES = { firefox: launchFirefox, webkit: launchWebKit };

export class Page {
  constructor(engine) {
    this.engine = engine;
  }

  /** Opens `url` and waits until `ready` (a function run in the page) returns true. */
  async open(url, ready = () => document.body?.dataset.ready !== undefined) {
    this.engine.consoleErrors.length = 0;
    await this.engine.goto(url);
    await this.waitFor(ready);
  }

  /** Polls `fn` in the page until it returns a truthy value, which it returns. */
  async waitFor(fn, { args = [], timeout = 20000, what = String(fn) } = {}) {
    const until = Date.now() + timeout;
    for (;;) {
      const value = await this.engine.evaluate(fn, ...args);
      if (value) return value;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  evaluate(fn, ...args) {
    return this.engine.evaluate(fn, ...args);
  }

  /** Console errors the engine saw, and the errors and CSP violations in-page.js recorded. */
  async problems() {
    // Fonts still loading would fail when the next test navigates away (Firefox reports the
    // aborted download as an error): let them finish, so that only real failures count.
    await this.engine.evaluate(() => document.fonts.ready.then(() => true));
    const recorded = await this.engine.evaluate(() => window.__engine?.problems ?? ['in-page.js did not run']);
    // A ResizeObserver loop that is one is reported frame after frame while the layout keeps
    // changing. One report alone is a size that changed between the frame's layout and its
    // observers' delivery, seen once in WebKit on a loaded machine (no callback of the page
    // changes the layout: scroll-cue.js and attention-calc.js answer in the next frame), and
    // the observation is delivered the frame after: that one is not counted.
    const loop = recorded.filter((p) => p.startsWith('error: ResizeObserver loop'));
    return [...this.engine.consoleErrors, ...(loop.length === 1 ? recorded.filter((p) => p !== loop[0]) : recorded)];
  }

  /** The value of an input or the text of any other element named `name`. */
  text(name, options = {}) {
    return this.engine.evaluate((n, o) => window.__engine.text(n, o), name, options);
  }

  /** Rows × cols of the cells "<name> row i column j". */
  async matrix(name, rows, cols) {
    return this.engine.evaluate((m, r, c) => Array.from({ length: r }, (_, i) => Array.from({ length: c },
      (__, j) => window.__engine.text(`${m} row ${i + 1} column ${j + 1}`))), name, rows, cols);
  }

  focusedName() {
    return this.engine.evaluate(() => window.__engine.focusedName());
  }

  /** The centre of the element named `name`, scrolled into view, in viewport pixels. */
  centre(name, options = {}) {
    return this.engine.evaluate((n, o) => window.__engine.centre(window.__engine.find(n, o)), name, options);
  }

  /** A real click at the centre of the element named `name`. */
  async click(name, options = {}) {
    await this.engine.click(await this.centre(name, options));
  }
}
