// For a describe() block: serve web/ on localhost and launch Chromium once, for all its tests.
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startServer } from '../../tools/serve.mjs';
import { launchChromium } from './chromium.mjs';

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
