// Shared by the JS tests: fixtures and a comparator that says where data differ.
import { readdirSync, readFileSync } from 'node:fs';
import { wasmRelaxedSimdSupported } from '../../web/attention.js';

// The relaxed-SIMD build runs where Node validates it: Node 20 behind --experimental-wasm-relaxed-simd,
// which tools/test.sh gives the suite (node --test passes it to every file).
export const BUILDS = [
  ...(wasmRelaxedSimdSupported() ? [{ name: 'relaxed SIMD', simd: 'relaxed' }] : []),
  { name: 'SIMD', simd: true },
  { name: 'scalar', simd: false },
];

export function readFixture(name) {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
}

// The JS API's code: web/attention.js and the modules it is assembled from (web/api/), one
// file after another, for the tests that check it holds no copy of the core's rules.
export function apiCode() {
  const api = new URL('../../web/api/', import.meta.url);
  const files = [new URL('../../web/attention.js', import.meta.url),
    ...readdirSync(api).filter((name) => name.endsWith('.js')).sort().map((name) => new URL(name, api))];
  return files.map((file) => readFileSync(file, 'utf8')).join('\n');
}

// null in a fixture stands for -Infinity.
const fromJson = (x) => (x === null ? -Infinity : x);

/**
 * '' when every entry satisfies |got - want| <= abs + rel·|want| (infinities equal, NaN never),
 * else a description of the first difference.
 */
export function compareRows(got, want, { abs = 0, rel = 0 } = {}, what = 'matrix') {
  if (got.length !== want.length) return `${what}: ${got.length} rows, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    if (got[i].length !== want[i].length) return `${what} row ${i + 1}: ${got[i].length} entries, expected ${want[i].length}`;
    for (let j = 0; j < want[i].length; j++) {
      const g = got[i][j];
      const w = fromJson(want[i][j]);
      const ok = Number.isFinite(w) || Number.isFinite(g) ? Math.abs(g - w) <= abs + rel * Math.abs(w) : g === w;
      if (!ok) return `${what} row ${i + 1} column ${j + 1} = ${g}, expected ${w}`;
    }
  }
  return '';
}

/** The fixture's mask in the form attention.js takes. */
export function maskFromFixture(mask, n, m) {
  switch (mask.kind) {
    case 'causal': return 'causal';
    case 'key_padding': return { keys: mask.hidden };
    case 'custom': return Array.from({ length: n }, (_, i) => mask.hidden.slice(i * m, (i + 1) * m));
    default: return 'none';
  }
}

/**
 * Attention in float64, written plainly and independently of the core: the oracle for the page
 * tests. hidden: n×m booleans (true = hidden) or undefined.
 */
export function referenceAttention(q, k, v, hidden) {
  const dk = q[0].length;
  const weights = q.map((qi, i) => {
    const s = k.map((kj, j) => (hidden?.[i][j] ? -Infinity : qi.reduce((acc, x, t) => acc + x * kj[t], 0) / Math.sqrt(dk)));
    const max = Math.max(...s);
    if (max === -Infinity) return s.map(() => 0);
    const e = s.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
  const output = weights.map((w) => v[0].map((_, t) => w.reduce((acc, wj, j) => acc + wj * v[j][t], 0)));
  return { weights, output };
}

/**
 * '' when attn reproduces the lesson's worked example (no mask and causal) to 1e-5, else the
 * first difference: the check that a module is still sound after an error.
 */
let workedExample;
export function workedExampleDiff(attn) {
  const spec = (workedExample ??= readFixture('worked-example.json'));
  for (const [key, mask] of [['no_mask', 'none'], ['causal', 'causal']]) {
    const r = attn.attention({ q: spec.Q, k: spec.K, v: spec.V, mask });
    for (const step of ['scores', 'weights', 'output']) {
      const diff = compareRows(r[step], spec[key][step], { abs: 1e-5 }, `${key} ${step}`);
      if (diff) return diff;
    }
  }
  return '';
}
