// Measures the calculator page in headless Chromium (a benchmark that prints figures, not a test):
//   - time from navigation to the first numbers (the core loaded and the first result shown),
//     on dist/ (built) and web/ (source modules);
//   - median time from an input event to every number updated, at 3×3 and at n = d = 8;
//   - the page's own JS and wasm bytes, raw and gzip (KaTeX, if present, counted apart).
// It prints the processor and the load average first: on a busy machine the figures are noise.
// Usage: npm run bench:page   (after a build; `npm test` or `npm run build` builds dist/)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { launchChromium, openPage } from '../tests/browser/chromium.mjs';
import { startServer } from './serve.mjs';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const RUNS = 11, EDITS = 60;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');
console.log(`${cpus()[0].model}, ${cpus().length} cores; load average before: ${load()}`);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const browser = await launchChromium({ comparesWithNode: false });
// Time to first numbers, on the page as built (dist/: bundled and minified, what a course site
// serves) and as source (web/: the unbundled modules, a request per module).
for (const [label, root] of [['dist/ (built)', DIST], ['web/ (source modules)', WEB]]) {
  if (!existsSync(join(root, 'index.html'))) continue;
  const { server, url } = await startServer({ root });
  const interactive = [];
  for (let run = 0; run < RUNS; run++) {
    const { page, context } = await openPage(browser);
    await page.goto(url);
    await page.waitForSelector('body[data-ready]');
    interactive.push(await page.evaluate(() => performance.getEntriesByName('attention-calc interactive')[0].startTime));
    await context.close();
  }
  server.close();
  console.log(`time to first numbers, ${label} (navigation to the first result on screen): median ${median(interactive).toFixed(1)} ms over ${RUNS} fresh pages (min ${Math.min(...interactive).toFixed(1)}, max ${Math.max(...interactive).toFixed(1)})`);
}
const { server, url } = await startServer({ root: existsSync(join(DIST, 'index.html')) ? DIST : WEB });
try {

  const { page, context } = await openPage(browser);
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  for (const [label, size] of [['3×3 (n = 3, d_k = d_v = 2)', null], ['n = 8, d_k = d_v = 8', 8]]) {
    if (size) {
      for (const name of ['Tokens n', 'd_k', 'd_v']) await page.getByLabel(name, { exact: true }).selectOption(String(size));
    }
    await page.evaluate(() => performance.clearMeasures('attention-calc update'));
    const input = page.getByLabel('Q row 1 column 1', { exact: true });
    for (let e = 0; e < EDITS; e++) await input.fill(String((e % 17) / 4 - 2));
    const times = await page.evaluate(() => performance.getEntriesByName('attention-calc update').map((m) => m.duration));
    console.log(`input event to all numbers updated, ${label}: median ${median(times).toFixed(2)} ms over ${times.length} edits (min ${Math.min(...times).toFixed(2)}, max ${Math.max(...times).toFixed(2)})`);
  }
  await context.close();
  console.log(`load average after: ${load()}`);
} finally {
  await browser.close();
  server.close();
}

// Bytes the page itself ships: its JS and CSS, and the wasm build it loads.
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? (path === KATEX ? [] : files(path)) : [path];
  });
}
const KATEX = join(WEB, 'vendor', 'katex');
const groups = {
  'our JS (page + attention.js + api/, element/, calc/, labs/, shared/ + vendor/*.js)': files(WEB).filter((f) => /\.js$/.test(f)),
  'CSS': files(WEB).filter((f) => /\.css$/.test(f)),
  'wasm SIMD build (.mjs glue + .wasm)': files(join(WEB, 'wasm')).filter((f) => /attention-simd\./.test(f)),
  ...(existsSync(KATEX) ? { 'KaTeX (apart: vendor/katex)': files(KATEX) } : {}),
};
for (const [label, list] of Object.entries(groups)) {
  const raw = list.reduce((sum, f) => sum + statSync(f).size, 0);
  const gz = list.reduce((sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length, 0);
  console.log(`${label}: ${(raw / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzip (${list.length} files)`);
}
console.log(`files: ${files(WEB).map((f) => relative(WEB, f)).join(', ')}`);
