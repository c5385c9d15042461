// Writes dist/: everything a static host needs to serve the widget, the iframe route and the
// calculator page, offline. Run by `npm run build` (after tools/build.sh built the wasm).
//
//   dist/attention-calc.js     the element (an ES module; imports the shared chunks)
//   dist/chunk-*.js            code shared by the entry points
//   dist/{heads,cost,scaling,construct}-*.js   the labs, each loaded the first time it is shown
//   dist/frame.html, frame.js  the iframe route;  index.html, main.js: the calculator page;
//   dist/embed.html, embed.js  the embedding guide
//   dist/wasm/                 the SIMD and scalar WebAssembly builds (.wasm + .mjs glue)
//   dist/calc/calculator.css   the element's stylesheet
//   dist/vendor/katex/         KaTeX: its module, stylesheet, @font-face rules and woff2 fonts
//
// Every file keeps its path relative to the entry points, so the element finds its assets in
// dist/ exactly as it does in web/.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'web');
const DIST = join(ROOT, 'dist');
const ENTRIES = ['attention-calc.js', 'frame.js', 'main.js', 'embed.js'];
const COPIED = ['index.html', 'frame.html', 'embed.html', 'style.css', 'frame.css', 'embed.css', 'favicon.svg',
  'attention.d.ts', 'calc/calculator.css', 'wasm', 'vendor/katex'];

for (const required of ['wasm/attention-simd.wasm', 'wasm/attention-scalar.wasm', 'vendor/katex/katex.mjs']) {
  try {
    statSync(join(WEB, required));
  } catch {
    throw new Error(`web/${required} is missing: run tools/build.sh first`);
  }
}

rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });
await build({
  entryPoints: ENTRIES.map((e) => join(WEB, e)),
  outdir: DIST,
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  chunkNames: '[name]-[hash]', // at the top level, beside the entries: import.meta.url stays valid
  external: ['node:*'], // attention.js reads the .wasm from disk only under Node
  logLevel: 'warning',
});
for (const path of COPIED) cpSync(join(WEB, path), join(DIST, path), { recursive: true });

// Sizes: our own JS, the wasm of each build, KaTeX apart.
const files = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? files(path) : [path];
});
const all = files(DIST);
const measure = (list) => list.reduce(([raw, gz], f) => {
  const bytes = readFileSync(f);
  return [raw + bytes.length, gz + gzipSync(bytes, { level: 9 }).length];
}, [0, 0]);
const kb = ([raw, gz]) => `${(raw / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzip`;
const ourJs = all.filter((f) => f.endsWith('.js') && !f.includes('/vendor/'));
// The widget is everything but the three pages' own entry points; the labs' chunks load only
// when a widget's panels name them.
const pageEntries = ENTRIES.filter((e) => e !== 'attention-calc.js').map((e) => join(DIST, e));
const widgetJs = ourJs.filter((f) => !pageEntries.includes(f));
const labChunks = widgetJs.filter((f) => /\/(heads|cost|scaling|construct)-[^/]*\.js$/.test(f));
const simd = all.filter((f) => /attention-simd\.(wasm|mjs)$/.test(f));
const scalar = all.filter((f) => /attention-scalar\.(wasm|mjs)$/.test(f));
const katex = all.filter((f) => f.includes('/vendor/katex/'));
// The budget is what one page downloads: the widget with every lab, and one wasm build (the
// SIMD one, or the scalar fallback where SIMD does not validate; never both).
const perPage = [measure([...widgetJs, ...simd]), measure([...widgetJs, ...scalar])].sort((a, b) => b[1] - a[1])[0];
console.log(`dist/ written: ${all.length} files`);
console.log(`  widget JS, calculator only:                   ${kb(measure(widgetJs.filter((f) => !labChunks.includes(f))))}`);
console.log(`  widget JS with the four labs:                 ${kb(measure(widgetJs))}`);
console.log(`  all our JS (with the page, frame and guide):  ${kb(measure(ourJs))}`);
console.log(`  wasm SIMD build (.wasm + .mjs glue):          ${kb(measure(simd))}`);
console.log(`  wasm scalar build (.wasm + .mjs glue):        ${kb(measure(scalar))}`);
console.log(`  one page at most (widget, labs, one build):   ${kb(perPage)} (budget 150 KB gzip)`);
console.log(`  widget JS + both wasm builds (all of dist/):  ${kb(measure([...widgetJs, ...simd, ...scalar]))}`);
console.log(`  KaTeX, apart:                                 ${kb(measure(katex))}`);
if (perPage[1] > 150 * 1000) {
  console.error('dist/: one page\'s JS plus its wasm exceed the 150 KB gzip budget');
  process.exitCode = 1;
}
