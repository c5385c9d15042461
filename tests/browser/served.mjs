// For a describe() block: serve web/ on localhost and launch Chromium once, for all its tests.
import { after, afterEach, before, beforeEach } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CSP, startServer } from '../../tools/serve.mjs';
import { launchChromium, noProblemsAfterEach, openPage } from './chromium.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

/** → { browser, url }, filled in before the block's first test runs. */
export function servedWeb() {
  const env = { browser: null, url: null, server: null };
  before(async () => {
    ({ server: env.server, url: env.url } = await startServer({ root: WEB }));
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
