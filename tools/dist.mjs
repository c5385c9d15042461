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
//   (the formulas are MathML typeset at build time, web/vendor/tex-formulas.js, bundled in)
//
// Every file keeps its path relative to the entry points, so the element finds its assets in
// dist/ exactly as it does in web/.
import { build, transform } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB = join(ROOT, 'web');
const DIST = join(ROOT, 'dist');
const ENTRIES = ['attention-calc.js', 'frame.js', 'main.js', 'embed.js'];
const COPIED = ['index.html', 'frame.html', 'embed.html', 'style.css', 'frame.css', 'embed.css', 'favicon.svg',
  'attention.d.ts', 'attention-calc.d.ts', 'calc/calculator.css', 'labs/labs.css', 'wasm'];

for (const required of ['wasm/attention-simd.wasm', 'wasm/attention-scalar.wasm', 'vendor/tex-formulas.js']) {
  try {
    statSync(join(WEB, required));
  } catch {
    throw new Error(`web/${required} is missing: run tools/build.sh first`);
  }
}

// attention.js reads the .wasm from disk under Node (import('node:fs/promises'), behind a check
// for Node). dist/ is for browsers, and a site's bundler that meets a node: import fails
// (webpack: "UnhandledSchemeError", so Docusaurus does not build) or warns (Vite): in dist/ that
// import is a stub instead. Under Node, attention-calc/attention.js (web/) reads from disk as before.
const noNodeBuiltins = {
  name: 'no-node-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-builtin-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'node-builtin-stub' }, (args) => ({
      contents: `export function readFile() { throw new Error(${JSON.stringify(`attention-calc: dist/ runs in browsers; under Node, import attention-calc/attention.js (${args.path} is not bundled)`)}); }`,
      loader: 'js',
    }));
  },
};

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
  plugins: [noNodeBuiltins],
  logLevel: 'warning',
});
// Copies, never links: dist/ files are rewritten below and must not write through to web/.
for (const path of COPIED) cpSync(join(WEB, path), join(DIST, path), { recursive: true, dereference: true });
// Emscripten's JS glue comes out readable, the stylesheet commented: minified, each is a quarter
// smaller over the wire.
const minified = [...readdirSync(join(DIST, 'wasm')).filter((n) => n.endsWith('.mjs')).map((n) => join(DIST, 'wasm', n)), join(DIST, 'calc/calculator.css'), join(DIST, 'labs/labs.css')];
for (const path of minified) {
  const loader = path.endsWith('.css') ? 'css' : 'js';
  const { code } = await transform(readFileSync(path, 'utf8'), { loader, format: loader === 'js' ? 'esm' : undefined, target: 'es2022', minify: true, legalComments: 'none' });
  writeFileSync(path, code);
}

// Sizes: our own JS, the stylesheet, the wasm of each build, as a static host gzips them (level 6).
const files = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? files(path) : [path];
});
const all = files(DIST);
const measure = (list) => list.reduce(([raw, gz], f) => {
  const bytes = readFileSync(f);
  return [raw + bytes.length, gz + gzipSync(bytes).length];
}, [0, 0]);
const kb = ([raw, gz]) => `${(raw / 1000).toFixed(1)} KB raw, ${(gz / 1000).toFixed(1)} KB gzip`;
const ourJs = all.filter((f) => f.endsWith('.js'));
// The widget is everything but the three pages' own entry points; the labs' chunks load only
// when a widget's panels name them.
const pageEntries = ENTRIES.filter((e) => e !== 'attention-calc.js').map((e) => join(DIST, e));
const widgetJs = ourJs.filter((f) => !pageEntries.includes(f));
const labChunks = widgetJs.filter((f) => /\/(heads|cost|scaling|construct)-[^/]*\.js$/.test(f));
const css = [join(DIST, 'calc/calculator.css')];
const labCss = [join(DIST, 'labs/labs.css')];
const simd = all.filter((f) => /attention-simd\.(wasm|mjs)$/.test(f));
const scalar = all.filter((f) => /attention-scalar\.(wasm|mjs)$/.test(f));
// What one page transfers: the widget's JS (with or without the labs), its stylesheet and one
// wasm build (the SIMD one, or the scalar fallback where SIMD does not validate; never both).
// Formulas are MathML in the JS: no fonts. tests/browser/budget.test.mjs measures the same in
// Chromium; the budgets are checked there and here.
const larger = (files) => [measure([...files, ...simd]), measure([...files, ...scalar])].sort((a, b) => b[1] - a[1])[0];
const calculator = larger([...widgetJs.filter((f) => !labChunks.includes(f)), ...css]);
const withLabs = larger([...widgetJs, ...css, ...labCss]);
console.log(`dist/ written: ${all.length} files`);
console.log(`  widget JS, calculator only:                   ${kb(measure(widgetJs.filter((f) => !labChunks.includes(f))))}`);
console.log(`  widget JS with the four labs:                 ${kb(measure(widgetJs))}`);
console.log(`  all our JS (with the page, frame and guide):  ${kb(measure(ourJs))}`);
console.log(`  stylesheets, calculator and labs:             ${kb(measure(css))}, ${kb(measure(labCss))}`);
console.log(`  wasm SIMD build (.wasm + .mjs glue):          ${kb(measure(simd))}`);
console.log(`  wasm scalar build (.wasm + .mjs glue):        ${kb(measure(scalar))}`);
console.log(`  one embed, every calculator chunk:            ${kb(calculator)} (budget: 150 KB gzip)`);
console.log(`  one embed with all four labs:                 ${kb(withLabs)}`);
// Static sums that count every shared chunk, also those only the pages use, and the chunks
// that load only with their panel (plot, checks, exporters, practice): an upper bound. What one
// embed transfers, panels="weights" (110 KB) included, is measured in the browser by
// tests/browser/budget.test.mjs.
if (withLabs[1] > 150 * 1000) {
  console.error('dist/: one embed with every lab exceeds the 150 KB gzip budget');
  process.exitCode = 1;
}
