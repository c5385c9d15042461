// Issue 28: importing the package on a server (Node: Next's and Astro's server-side rendering,
// SvelteKit) has no side effect. Nothing at a module's top level touches window or document, no
// global is added, and the element is defined (customElements.define) only where custom elements
// exist. Each import runs in a fresh Node process, as a server would load it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = existsSync(new URL('../../dist/attention-calc.js', import.meta.url));

// The globals before and after the import, the module's exports and what it defined.
const PROBE = `
const before = new Set(Object.getOwnPropertyNames(globalThis));
const m = await import(process.argv[1]);
const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.has(name));
console.log(JSON.stringify({ exports: Object.keys(m).sort(), added, window: typeof window, document: typeof document }));
`;
const importInNode = (specifier) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, specifier], { cwd: ROOT, encoding: 'utf8' }));

describe('safe on the server: importing the package in Node has no side effect', () => {
  const cases = [
    ['web/attention-calc.js (the element, unbundled)', new URL('../../web/attention-calc.js', import.meta.url).href, ['AttentionCalcElement', 'loadAttention']],
    ['web/attention.js (the API, unbundled)', new URL('../../web/attention.js', import.meta.url).href, ['loadAttention', 'wasmSimdSupported']],
    // The package by its name, as a site imports it (Node resolves a package's own name to its exports).
    ["'attention-calc' (dist/attention-calc.js)", 'attention-calc', ['AttentionCalcElement', 'loadAttention']],
    ["'attention-calc/attention.js' (dist/attention.js)", 'attention-calc/attention.js', ['loadAttention', 'wasmSimdSupported']],
  ];
  for (const [name, specifier, exports] of cases) {
    const bundled = !specifier.startsWith('file:');
    it(`imports ${name} without a window, a document or a new global`, { skip: bundled && !DIST && 'dist/ is not built (tools/build.sh dist)' }, () => {
      const result = importInNode(specifier);
      for (const e of exports) assert.ok(result.exports.includes(e), `exports ${e} (${result.exports.join(', ')})`);
      assert.deepEqual(result.added, [], 'no global added');
      assert.equal(result.window, 'undefined');
      assert.equal(result.document, 'undefined');
    });
  }

  it('the element class exists on the server, and defines itself where customElements exists', () => {
    const probe = `
      const defined = [];
      globalThis.HTMLElement = class {};
      globalThis.customElements = { get: () => undefined, define: (name, c) => defined.push([name, c.name]) };
      await import(process.argv[1]);
      console.log(JSON.stringify(defined));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe, new URL('../../web/attention-calc.js', import.meta.url).href], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), [['attention-calc', 'AttentionCalcElement']]);
  });
});
