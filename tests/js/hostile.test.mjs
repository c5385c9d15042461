// Hostile input for every function of the JS API (web/attention.js), property-tested with
// fast-check: each call returns a well-formed result or throws an Error whose message names the
// argument, in the caller's terms, with no engine text; afterwards the worked example still
// comes out right. Then one named regression test per finding of issue 10 about the JS API.
// The seed is fixed and printed (FC_SEED=… overrides it, FC_RUNS=… the runs), so a failure replays exactly.
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';
import fc from 'fast-check';

import { loadAttention } from '../../web/attention.js';
import { BUILDS, workedExampleDiff } from './helpers.mjs';

const SEED = Number(process.env.FC_SEED ?? 20261201);
const RUNS = Number(process.env.FC_RUNS ?? 150); // per function and build: the file stays well under 20 s

// Phrases of V8 and Embind that must never reach a user.
const ENGINE_TEXT = [
  'Cannot read', 'Cannot destructure', 'is not a function', 'Invalid typed array', 'Maximum call stack',
  'undefined (reading', 'BindingError', 'is not iterable', 'Cannot convert', 'Invalid array length',
  'allocation failed', 'Cannot perform', 'is not a constructor', '[object ',
];

// What hostile getters and Proxy traps throw. An Error whose cause is BOOM came from reading the
// input; any other cause would be a bug of attention.js dressed up as the input's fault.
const BOOM = new Error('thrown by the input itself');
const boom = () => {
  throw BOOM;
};

const Q = [[1, 1], [0, 1], [-1, 0]];
const K = [[1, 0], [0, 1], [-1, 0]];
const V = [[1, 0], [0, 1], [1, 1]];
const I2 = [[1, 0], [0, 1]];

function deep(depth) {
  let value = [1];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function sparseOfLength(length) {
  const a = [];
  a[length - 1] = 1;
  return a;
}

// --- hostile values

const SCALARS = [
  null, undefined, NaN, Infinity, -Infinity, -0, 0, -1, 0.5, 1.5, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 32 + 3,
  2 ** 53, 2 ** 53 + 2, 2 ** 64, -(2 ** 32) + 1, 1e-50, 1e39, -1e39, 3.4e38, Number.MAX_VALUE, Number.MIN_VALUE,
  true, false, '', '1', '[[1]]', 'causal', 'none', '\u0000', '\ud800', 1n, -1n, 2n ** 64n, Symbol('hostile'),
];

// Made fresh for each call from their name (see Make): fast-check itself inspects the values it
// generates, and a revoked Proxy or a throwing getter would throw at it rather than at the API.
const OBJECTS = {
  'a plain object': () => ({}),
  'a null-prototype object': () => Object.create(null),
  'a function': () => () => 1,
  'a Date': () => new Date(0),
  'a Map': () => new Map([[0, 1]]),
  'an ArrayBuffer': () => new ArrayBuffer(8),
  'a DataView': () => new DataView(new ArrayBuffer(16)),
  'getters that throw': () => ({
    get rows() { return boom(); }, get cols() { return boom(); }, get data() { return boom(); },
    get keys() { return boom(); }, get length() { return boom(); },
  }),
  'a Proxy that throws': () => new Proxy({}, { get: boom, has: boom }),
  'an array Proxy that throws': () => new Proxy([1, 2], { get: boom, has: boom }),
  'a revoked Proxy': () => {
    const p = Proxy.revocable([], {});
    p.revoke();
    return p.proxy;
  },
  'an array with a throwing entry': () => Object.defineProperty([1, 2, 3], 1, { get: boom }),
  'a typed array with a throwing length': () => Object.defineProperty(new Float32Array(3), 'length', { get: boom }),
  'a 5,000-deep array': () => deep(5000),
  'a sparse array of length 2^32 − 1': () => sparseOfLength(2 ** 32 - 1),
  'new Array(3)': () => new Array(3),
  '[1, , 1]': () => [1, , 1], // eslint-disable-line no-sparse-arrays
  '[[1, , 1]]': () => [[1, , 1]], // eslint-disable-line no-sparse-arrays
  'an empty array': () => [],
  '[[]]': () => [[]],
  'a flat matrix of 2^32 + 3 rows': () => ({ rows: 2 ** 32 + 3, cols: 0, data: [] }),
  'a flat matrix of 4 × (2^32 + 1)': () => ({ rows: 4, cols: 2 ** 32 + 1, data: [] }),
  'a flat matrix with -1 rows': () => ({ rows: -1, cols: 2, data: [] }),
  'a flat matrix with throwing data': () => ({ rows: 1, cols: 1, get data() { return boom(); } }),
  'key padding with a hole': () => ({ keys: [true, , false] }), // eslint-disable-line no-sparse-arrays
  'key padding of a DataView': () => ({ keys: new DataView(new ArrayBuffer(3)) }),
};

const TYPED_ARRAYS = [
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
];

const scalar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SCALARS) },
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.string({ maxLength: 24 }),
);
// The name of one of OBJECTS, made into the object just before the call; printed by name when a
// counterexample is reported.
class Make {
  constructor(name) {
    this.name = name;
  }

  [fc.toStringMethod]() {
    return `‹${this.name}›`;
  }
}

// A generated value with every Make inside it (in arrays, holes kept, and in plain objects) made.
function materialize(value) {
  if (value instanceof Make) return OBJECTS[value.name]();
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = materialize(value[i]);
    return out;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, materialize(v)]));
  }
  return value;
}

const object = fc.constantFrom(...Object.keys(OBJECTS)).map((name) => new Make(name));
const typedArray = fc
  .tuple(fc.constantFrom(...TYPED_ARRAYS), fc.array(fc.double(), { maxLength: 6 }))
  .map(([Kind, xs]) => (Kind.name.startsWith('Big')
    ? Kind.from(xs, (x) => BigInt(Number.isFinite(x) ? Math.trunc(x % 1000) : 0))
    : Kind.from(xs)));
const nested = fc.oneof(
  fc.array(fc.array(scalar, { maxLength: 4 }), { maxLength: 4 }),
  fc.sparseArray(scalar, { maxLength: 5 }),
  fc.array(fc.sparseArray(fc.double(), { maxLength: 4 }), { maxLength: 3 }),
  fc.array(typedArray, { maxLength: 3 }),
);
const hostile = fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 3, arbitrary: object }, typedArray, nested);
// Hostile, but never a string: for baseUrl, where a string is a place to load from.
const hostileNoString = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SCALARS.filter((x) => typeof x !== 'string')) }, object, typedArray);

const copyRows = (rows) => rows.map((row) => [...row]);

// A valid matrix with one hostile part: an entry, a row, a hole, or the flat form's fields.
function matrixLike(rows) {
  return fc.oneof(
    hostile,
    fc.tuple(fc.nat(), fc.nat(), hostile).map(([i, j, x]) => {
      const copy = copyRows(rows);
      copy[i % copy.length][j % copy[0].length] = x;
      return copy;
    }),
    fc.tuple(fc.nat(), hostile).map(([i, x]) => {
      const copy = copyRows(rows);
      copy[i % copy.length] = x;
      return copy;
    }),
    fc.tuple(fc.nat(), fc.nat()).map(([i, j]) => {
      const copy = copyRows(rows);
      delete copy[i % copy.length][j % copy[0].length];
      return copy;
    }),
    fc.tuple(fc.nat(), fc.constantFrom(...TYPED_ARRAYS)).map(([i, Kind]) => {
      const copy = copyRows(rows);
      const r = i % copy.length;
      copy[r] = Kind.name.startsWith('Big') ? Kind.from(copy[r], BigInt) : Kind.from(copy[r]);
      return copy;
    }),
    fc.record({
      rows: fc.oneof(fc.constant(rows.length), hostile),
      cols: fc.oneof(fc.constant(rows[0].length), hostile),
      data: fc.oneof(fc.constant(Float32Array.from(rows.flat())), fc.constant(rows.flat()), hostile),
    }),
  );
}

// A valid list of numbers with one hostile entry or hole, or something else entirely.
function listLike(values) {
  return fc.oneof(
    hostile,
    fc.tuple(fc.nat(), hostile).map(([i, x]) => {
      const copy = [...values];
      copy[i % copy.length] = x;
      return copy;
    }),
    fc.nat().map((i) => {
      const copy = [...values];
      delete copy[i % copy.length];
      return copy;
    }),
  );
}

const maskGrid = [[false, true, true], [false, false, true], [false, false, false]];
const maskLike = fc.oneof(
  matrixLike(maskGrid),
  fc.record({ keys: listLike([false, true, false]) }),
  fc.constantFrom('none', 'causal', 'diagonal', { keys: [1, 0, 0] }, maskGrid.map((row) => Uint8Array.from(row, Number))),
);

const OVERFLOW = ['Q', 'K', 'V', 'inputs or weights'];

// Each function: how it is called, a valid call, and each argument with the names its messages
// may use for it (attention.js's own, or the core's: "d_model" for dModel, "Q" for q...).
const API = [
  {
    name: 'attention',
    base: { q: Q, k: K, v: V },
    args: [
      ['q', ['Q'], matrixLike(Q)],
      ['k', ['K'], matrixLike(K)],
      ['v', ['V'], matrixLike(V)],
      ['mask', ['mask'], maskLike],
      ['scale', ['scale'], hostile],
      ['maskAfterSoftmax', ['maskAfterSoftmax'], hostile],
    ],
  },
  {
    name: 'multiHead',
    base: { x: V, wq: I2, wk: I2, wv: I2, wo: I2, heads: 2 },
    // Float32 overflow is reported where it happens: on Q, K, V (= X·W + b, all in the result),
    // the scores ("Q and K are too large") or the output ("the inputs or weights are too large").
    args: [
      ['x', ['X', 'tokens', ...OVERFLOW], matrixLike(V)],
      ['wq', ['W_Q', ...OVERFLOW], matrixLike(I2)],
      ['wk', ['W_K', ...OVERFLOW], matrixLike(I2)],
      ['wv', ['W_V', ...OVERFLOW], matrixLike(I2)],
      ['wo', ['W_O', ...OVERFLOW], matrixLike(I2)],
      ['bq', ['b_Q', ...OVERFLOW], listLike([0, 1])],
      ['bk', ['b_K', ...OVERFLOW], listLike([0, 1])],
      ['bv', ['b_V', ...OVERFLOW], listLike([0, 1])],
      ['bo', ['b_O', ...OVERFLOW], listLike([0, 1])],
      ['heads', ['heads'], hostile],
      ['mask', ['mask'], maskLike],
    ],
  },
  {
    name: 'attentionOutput',
    base: { q: new Float32Array(6).fill(0.5), k: new Float32Array(6).fill(0.25), v: new Float32Array(6).fill(1), n: 3, d: 2 },
    args: [
      ['q', ['q'], hostile],
      ['k', ['k'], hostile],
      ['v', ['v'], hostile],
      ['n', ['n'], hostile],
      ['m', ['m'], hostile],
      ['d', ['d'], hostile],
      ['dv', ['dv'], hostile],
      ['causal', ['causal'], hostile],
    ],
  },
  {
    name: 'parameterCount',
    base: { dModel: 768, heads: 12 },
    args: [['dModel', ['dModel', 'd_model'], hostile], ['heads', ['heads'], hostile], ['bias', ['bias'], hostile]],
  },
  {
    name: 'cost',
    base: { n: 1024, dModel: 768, heads: 12 },
    // A count too large for 64 bits or for a double is about every size together: "use smaller sizes".
    args: [
      ['n', ['n', 'sizes'], hostile],
      ['m', ['m', 'sizes'], hostile],
      ['dModel', ['dModel', 'd_model', 'sizes'], hostile],
      ['heads', ['heads'], hostile],
    ],
  },
  {
    name: 'normalMatrix',
    base: { rows: 2, cols: 3, seed: 1 },
    args: [['rows', ['rows'], hostile], ['cols', ['cols'], hostile], ['seed', ['seed'], hostile], ['std', ['std'], hostile]],
  },
  { name: 'entropy', direct: true, base: [0.25, 0.75], args: [['weights', ['weights', 'entropy'], listLike([0.25, 0.75])]] },
  {
    name: 'scalingExperiment',
    base: { dk: 4, pairs: 100, bins: 10, row: 8 },
    args: [
      ['dk', ['dk'], hostile],
      ['pairs', ['pairs'], hostile],
      ['seed', ['seed'], hostile],
      ['bins', ['bins'], hostile],
      ['row', ['row'], hostile],
    ],
    // Valid but slow sizes are not what this test is about.
    slow: (key, value) => typeof value === 'number' && ((key === 'dk' && value > 64) || (key === 'pairs' && value > 5000)),
  },
  {
    name: 'constructedHead',
    base: { kind: 'previous-token' },
    args: [['kind', ['kind'], hostile], ['sentence', ['sentence'], hostile]],
  },
  {
    name: 'timeAttention',
    base: { n: 2, d: 2 },
    args: [['n', ['n'], hostile], ['d', ['d'], hostile], ['repeats', ['repeats'], hostile], ['seed', ['seed'], hostile], ['path', ['path'], hostile]],
    slow: (key, value) => typeof value === 'number' && key !== 'seed' && value > 8,
  },
  { name: 'convexHull', direct: true, base: [[0, 0], [1, 0], [0, 1]], args: [['points', ['points'], matrixLike([[0, 0], [1, 0], [0, 1]])]] },
  {
    name: 'fitPowerLaw',
    base: { x: [1, 2, 4], y: [1, 4, 16] },
    // The core's own messages say "a power-law fit needs … (point 2)".
    args: [['x', ['x', 'power-law fit'], listLike([1, 2, 4])], ['y', ['y', 'power-law fit'], listLike([1, 4, 16])]],
  },
  {
    name: 'peakMulAdd',
    direct: true,
    base: 1,
    args: [['iterations', ['iterations'], hostile]],
    slow: (key, value) => typeof value === 'number' && value > 1000,
  },
];

// A case: one argument hostile (the others valid), or the options object itself.
function cases(spec) {
  const everyName = [spec.name, ...spec.args.flatMap(([, names]) => names)];
  const perArgument = spec.args.map(([key, names, arbitrary]) => arbitrary.map((value) => ({ key, names, value })));
  const whole = hostile.map((value) => ({ key: null, names: everyName, value }));
  return spec.direct ? fc.oneof(...perArgument) : fc.oneof(...perArgument, whole);
}

function call(attn, spec, { key, value }) {
  const made = materialize(value);
  if (spec.direct) return attn[spec.name](made);
  return attn[spec.name](key === null ? made : { ...spec.base, [key]: made });
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const namesPattern = (names) => new RegExp(`(^|[^\\w])(${names.map(escape).join('|')})($|[^\\w])`, 'i');

// '' when a result is well-formed: no NaN, no undefined, no holes, anywhere in it.
function malformed(value, where = 'result', depth = 0) {
  if (depth > 8) return `${where} nests too deep`;
  if (value === undefined) return `${where} is undefined`;
  if (typeof value === 'number') return Number.isNaN(value) ? `${where} is NaN` : '';
  if (ArrayBuffer.isView(value)) {
    const i = Array.prototype.findIndex.call(value, Number.isNaN);
    return i >= 0 ? `${where}[${i}] is NaN` : '';
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return `${where}[${i}] is a hole`;
      const problem = malformed(value[i], `${where}[${i}]`, depth + 1);
      if (problem) return problem;
    }
    return '';
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const problem = malformed(v, `${where}.${k}`, depth + 1);
      if (problem) return problem;
    }
  }
  return '';
}

// The property for one call: a clear Error or a well-formed result, and a sound module after.
function checkCall(attn, spec, c) {
  if (spec.slow?.(c.key, c.value)) return fc.pre(false);
  let result, error, threw = false;
  try {
    result = call(attn, spec, c);
  } catch (e) {
    threw = true;
    error = e;
  }
  if (threw) {
    assert.ok(error instanceof Error, `threw a non-Error: ${String(error)}`);
    assert.match(error.message, namesPattern(c.names), `the message does not name ${c.names.join(' or ')}`);
    for (const phrase of ENGINE_TEXT) assert.ok(!error.message.includes(phrase), `engine text "${phrase}" in: ${error.message}`);
    if (error.cause !== undefined) {
      assert.ok(error.cause === BOOM || /revoked/.test(error.cause?.message), `cause is not the input's: ${error.cause}`);
    }
  } else {
    assert.equal(malformed(result), '');
    if (spec.name === 'parameterCount') assert.ok(Number.isSafeInteger(result), `${result} is not exact`);
    if (spec.name === 'cost') {
      for (const [k, v] of Object.entries(result)) if (k !== 'dominant') assert.ok(Number.isSafeInteger(v), `${k} = ${v} is not exact`);
    }
  }
  assert.equal(workedExampleDiff(attn), '', 'the worked example after the call');
}

for (const build of BUILDS) {
  describe(`every function, every argument, hostile values (${build.name} build)`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
    });

    for (const spec of API) {
      it(`${spec.name}: a well-formed result or an Error naming the argument, then the worked example`, (t) => {
        t.diagnostic(`fast-check seed ${SEED} (set FC_SEED to replay another)`);
        fc.assert(fc.property(cases(spec), (c) => checkCall(attn, spec, c)), { seed: SEED, numRuns: RUNS });
      });
    }
  });
}

describe('loadAttention, hostile options', () => {
  it('rejects with an Error naming the option, or loads; the worked example stays right', async (t) => {
    t.diagnostic(`fast-check seed ${SEED}`);
    const option = fc.oneof(
      hostile.map((value) => ({ options: value, names: ['loadAttention', 'simd', 'baseUrl'] })),
      hostile.map((value) => ({ options: { simd: value }, names: ['simd'] })),
      hostileNoString.map((value) => ({ options: { simd: false, baseUrl: value }, names: ['baseUrl', 'could not load'] })),
    );
    await fc.assert(
      fc.asyncProperty(option, async ({ options, names }) => {
        let attn, error;
        try {
          attn = await loadAttention(materialize(options));
        } catch (e) {
          error = e;
        }
        if (attn === undefined) {
          assert.ok(error instanceof Error, `rejected with a non-Error: ${String(error)}`);
          assert.match(error.message, namesPattern(names));
          for (const phrase of ENGINE_TEXT) assert.ok(!error.message.includes(phrase), `engine text "${phrase}" in: ${error.message}`);
          attn = await loadAttention();
        }
        assert.equal(workedExampleDiff(attn), '');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('hostile input to the JS API: regressions', () => {
  let attn;
  before(async () => {
    attn = await loadAttention();
  });
  const throwsExactly = (f, message) => assert.throws(f, (e) => e instanceof Error && e.message === message, message);

  it('heads 2**32+1 is refused, not run as one head', () => {
    const layer = { x: V, wq: I2, wk: I2, wv: I2, wo: I2 };
    throwsExactly(() => attn.multiHead({ ...layer, heads: 2 ** 32 + 1 }), 'heads must be a whole number from 1 to 256 (got 4294967297)');
    throwsExactly(() => attn.parameterCount({ dModel: 4, heads: 2 ** 32 + 2 }), 'heads must be a whole number from 1 to 256 (got 4294967298)');
    throwsExactly(() => attn.cost({ n: 4, dModel: 4, heads: 2 ** 32 + 4 }), 'heads must be a whole number from 1 to 256 (got 4294967300)');
    assert.equal(attn.multiHead({ ...layer, heads: 2 }).headOutputs.length, 2);
  });

  it('every integer that crosses into the core reaches its range check as given, never narrowed first', () => {
    const f32 = new Float32Array(4);
    const cases = [
      ['attentionOutput', { q: f32, k: f32, v: f32, n: 2 ** 32 + 2, d: 2 }, 'n'],
      ['attentionOutput', { q: f32, k: f32, v: f32, n: 2, m: 2 ** 32 + 2, d: 2 }, 'm'],
      ['attentionOutput', { q: f32, k: f32, v: f32, n: 2, d: 2 ** 32 + 2 }, 'd'],
      ['attentionOutput', { q: f32, k: f32, v: f32, n: 2, d: 2, dv: 2 ** 32 + 2 }, 'dv'],
      ['cost', { n: 2 ** 53 + 2, dModel: 4 }, 'n'],
      ['cost', { n: 4, m: 2 ** 53 + 2, dModel: 4 }, 'm'],
      ['cost', { n: 4, dModel: 2 ** 53 + 2 }, 'dModel'],
      ['parameterCount', { dModel: 2 ** 53 + 2 }, 'dModel'],
      ['normalMatrix', { rows: 2 ** 32 + 1, cols: 1 }, 'rows'],
      ['normalMatrix', { rows: 1, cols: 2 ** 32 + 1 }, 'cols'],
      ['normalMatrix', { rows: 1, cols: 1, seed: 2 ** 53 + 2 }, 'seed'],
      ['scalingExperiment', { dk: 2 ** 32 + 1 }, 'dk'],
      ['scalingExperiment', { dk: 4, pairs: 2 ** 32 + 100 }, 'pairs'],
      ['scalingExperiment', { dk: 4, bins: 2 ** 32 + 1 }, 'bins'],
      ['scalingExperiment', { dk: 4, row: 2 ** 32 + 2 }, 'row'],
      ['scalingExperiment', { dk: 4, seed: -1 }, 'seed'],
      ['timeAttention', { n: 2 ** 32 + 1 }, 'n'],
      ['timeAttention', { n: 2, d: 2 ** 32 + 1 }, 'd'],
      ['timeAttention', { n: 2, repeats: 2 ** 32 + 1 }, 'repeats'],
      ['timeAttention', { n: 2, seed: 2 ** 53 + 2 }, 'seed'],
      ['attention', { q: { rows: 2 ** 32 + 1, cols: 2, data: [] }, k: K, v: V }, 'Q'],
      ['attention', { q: { rows: 1, cols: 2 ** 32 + 2, data: [] }, k: K, v: V }, 'Q'],
    ];
    for (const [name, options, arg] of cases) {
      assert.throws(() => attn[name](options), (e) => {
        assert.match(e.message, namesPattern([arg]), `${name} ${arg}: ${e.message}`);
        assert.match(e.message, /4294967|9007199254740994|got -1/, `${name} ${arg} shows the number given: ${e.message}`);
        return true;
      });
    }
    throwsExactly(() => attn.peakMulAdd(2 ** 32 + 1), 'iterations must be a whole number from 1 to 4294967295 (got 4294967297)');
  });

  it('holes in sparse arrays are refused, named like undefined entries', () => {
    /* eslint-disable no-sparse-arrays */
    const hole = 'an empty slot of a sparse array';
    const layer = { x: V, wq: I2, wk: I2, wv: I2, wo: I2 };
    const cases = [
      [() => attn.attention({ q: [[1, , 1]], k: [[1, 1, 1]], v: [[1]] }), `Q row 1 column 2 is not a number (got ${hole})`],
      [() => attn.attention({ q: [[1, 1], , [1, 1]], k: K, v: V }), `Q row 2 is not an array (got ${hole})`],
      [() => attn.attention({ q: { rows: 1, cols: 2, data: [1, , ] }, k: [[1, 1]], v: [[1]] }), `Q row 1 column 2 is not a number (got ${hole})`],
      [() => attn.attention({ q: Q, k: K, v: V, mask: [[false, , false], [false, false, false], [false, false, false]] }),
        `mask row 1 column 2 must be true (hidden) or false (visible) (got ${hole})`],
      [() => attn.attention({ q: Q, k: K, v: V, mask: { keys: [true, , false] } }), `mask.keys[1] must be true (hidden) or false (visible) (got ${hole})`],
      [() => attn.multiHead({ ...layer, bq: [1, , ] }), `b_Q entry 2 is not a number (got ${hole})`],
      [() => attn.entropy([0.5, , 0.5]), `weights entry 2 is not a finite number (got ${hole})`],
      [() => attn.fitPowerLaw({ x: [1, , 3], y: [1, 2, 3] }), `x[1] is not a number (got ${hole})`],
      [() => attn.convexHull([[0, 0], [1, , ], [0, 1]]), `points row 2 column 2 is not a number (got ${hole})`],
      // A sparse array of 2³² − 1 entries fails at its first hole, without allocating them.
      [() => attn.entropy(sparseOfLength(2 ** 32 - 1)), `weights entry 1 is not a finite number (got ${hole})`],
    ];
    /* eslint-enable no-sparse-arrays */
    for (const [f, message] of cases) throwsExactly(f, message);
    // Named as an undefined entry is.
    throwsExactly(() => attn.attention({ q: [[1, undefined, 1]], k: [[1, 1, 1]], v: [[1]] }), 'Q row 1 column 2 is not a number (got undefined)');
  });

  it('parameterCount and cost are exact, or refused above 2^53 − 1', () => {
    // 4·d² + 4·d for d = 2²⁷ + 1 is 72057595648540680, which a double would round to …672.
    assert.throws(() => attn.parameterCount({ dModel: 2 ** 27 + 1, bias: true }), (e) => /2\^53/.test(e.message) && /d_model/.test(e.message));
    // The largest d_model whose 4·d² still fits: exact to the last digit.
    const d = 47453132;
    assert.equal(attn.parameterCount({ dModel: d }), Number(4n * BigInt(d) ** 2n));
    assert.ok(4n * BigInt(d + 1) ** 2n > BigInt(Number.MAX_SAFE_INTEGER));
    assert.throws(() => attn.parameterCount({ dModel: d + 1 }), /2\^53/);
    // scoreFlops = 2·n²·d = 2⁵³ here: above 2⁵³ − 1, so refused rather than returned.
    assert.throws(() => attn.cost({ n: 2 ** 20, dModel: 2 ** 12 }), /2\^53|64 bits/);
    const c = attn.cost({ n: 2 ** 20 - 1, dModel: 2 ** 12 });
    assert.equal(c.scoreFlops, Number(2n * BigInt(2 ** 20 - 1) ** 2n * 4096n));
  });

  it('messages: null and other non-objects as options say what was expected', async () => {
    const methods = ['attention', 'multiHead', 'attentionOutput', 'parameterCount', 'cost', 'normalMatrix',
      'scalingExperiment', 'constructedHead', 'timeAttention', 'fitPowerLaw'];
    for (const name of methods) {
      for (const value of [null, 5, 'q', true, 1n, Symbol('s')]) {
        assert.throws(() => attn[name](value), (e) => {
          assert.match(e.message, new RegExp(`^${name} takes an options object such as \\{ .* \\} \\(got .+\\)$`));
          return true;
        }, name);
      }
    }
    throwsExactly(() => attn.attention(null), 'attention takes an options object such as { q, k, v } (got null)');
    throwsExactly(() => attn.entropy(null), 'weights must be an array of numbers (got null)');
    throwsExactly(() => attn.convexHull(null), 'points must be an array of rows or { rows, cols, data } (got null)');
    throwsExactly(() => attn.peakMulAdd(null), 'iterations must be a whole number (got null)');
    await assert.rejects(loadAttention(null), { message: 'loadAttention takes an options object such as { simd: false } (got null)' });
    await assert.rejects(loadAttention({ simd: 'yes' }), { message: "simd must be true, false or 'relaxed' (got \"yes\")" });
    await assert.rejects(loadAttention({ baseUrl: 5 }), { message: 'baseUrl must be a string or a URL (got 5)' });
  });

  it('messages: sizes beyond the limits are refused before anything is allocated', () => {
    // Was "Invalid typed array length: 17179869188": a 4 × (2³² + 1) mask allocated before K was checked.
    throwsExactly(() => attn.attention({ q: [[1], [1], [1], [1]], k: { rows: 2 ** 32 + 1, cols: 0, data: [] }, v: [[1]], mask: [[], [], [], []] }),
      'K has 4294967297 rows, over the limit of 65536');
    throwsExactly(() => attn.attention({ q: [new Array(5000)], k: K, v: V }), 'Q has 5000 columns, over the limit of 4096');
    throwsExactly(() => attn.attention({ q: new Array(70000), k: K, v: V }), 'Q has 70000 rows, over the limit of 65536');
    const row = new Array(65536).fill(false);
    throwsExactly(() => attn.attention({ q: new Array(65536).fill([1]), k: new Array(65536).fill([1]), v: [[1]], mask: new Array(65536).fill(row) }),
      'Q has 65536 rows and K has 65536: the 65536×65536 attention matrix is over the limit of 4194304 entries (2048×2048)');
    // Found in review: key flags and biases were read whole before any length check.
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, mask: { keys: sparseOfLength(2 ** 32 - 1) } }),
      'mask.keys has 4294967295 flags but K has 3 rows: key padding needs one flag per key');
    throwsExactly(() => attn.multiHead({ x: V, wq: I2, wk: I2, wv: I2, wo: I2, bq: sparseOfLength(2 ** 32 - 1) }),
      'b_Q has 4294967295 entries, more than d_model can be (at most 4096)');
  });

  it('messages: { rows: 2**32 + 3, cols: 0 } is refused as given, not as a 3×0 matrix', () => {
    throwsExactly(() => attn.attention({ q: { rows: 2 ** 32 + 3, cols: 0, data: [] }, k: K, v: V }), 'Q has 4294967299 rows, over the limit of 65536');
    throwsExactly(() => attn.attention({ q: { rows: -1, cols: 2, data: [] }, k: K, v: V }), 'Q.rows must be a whole number ≥ 0 (got -1)');
  });

  it('messages: a BigInt is called a BigInt', () => {
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, maskAfterSoftmax: 1n }), 'maskAfterSoftmax must be true or false (got the BigInt 1n)');
    throwsExactly(() => attn.attention({ q: [[1n, 1]], k: K, v: V }), 'Q row 1 column 1 is not a number (got the BigInt 1n)');
    throwsExactly(() => attn.cost({ n: 1n, dModel: 4 }), 'n must be a whole number ≥ 1 (got the BigInt 1n)');
    throwsExactly(() => attn.attention({ q: [BigInt64Array.of(1n, 1n)], k: K, v: V }),
      'Q row 1 is a BigInt64Array: its entries are BigInts, not numbers (pass an array or a Float64Array)');
  });

  it('messages: a DataView is refused by name, never read as "undefined values" or no bias', () => {
    const view = new DataView(new ArrayBuffer(8));
    const tail = 'is a DataView, which has no entries to read: pass an array or a typed array such as Float32Array';
    throwsExactly(() => attn.multiHead({ x: V, wq: I2, wk: I2, wv: I2, wo: I2, bq: view }), `b_Q ${tail}`);
    throwsExactly(() => attn.attention({ q: { rows: 1, cols: 2, data: view }, k: [[1, 1]], v: [[1]] }), `Q.data ${tail}`);
    throwsExactly(() => attn.attention({ q: [view], k: K, v: V }), `Q row 1 ${tail}`);
    throwsExactly(() => attn.entropy(view), `weights ${tail}`);
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, mask: { keys: view } }), `mask.keys ${tail}`);
  });

  it('messages: typed-array rows are read like arrays, in matrices and masks alike', () => {
    const grid = [[false, true, true], [false, false, true], [false, false, false]];
    const want = attn.attention({ q: Q, k: K, v: V, mask: grid });
    const typedMask = grid.map((row) => Uint8Array.from(row, Number));
    assert.deepEqual(attn.attention({ q: Q, k: K, v: V, mask: typedMask }), want);
    assert.deepEqual(attn.attention({ q: Q.map((r) => Float64Array.from(r)), k: K.map((r) => Int8Array.from(r)), v: V, mask: grid }), want);
    assert.deepEqual(attn.attention({ q: Q, k: K, v: V, mask: { keys: Uint8Array.of(0, 1, 0) } }),
      attn.attention({ q: Q, k: K, v: V, mask: { keys: [false, true, false] } }));
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, mask: [Uint8Array.of(0, 2, 0), ...typedMask.slice(1)] }),
      'mask row 1 column 2 must be true (hidden) or false (visible) (got 2)');
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, mask: [Uint8Array.of(0, 1), ...typedMask.slice(1)] }),
      'mask row 1 has 2 entries but K has 3 rows: a custom mask needs one entry per key');
  });

  it('messages: scales 1e-50 and 1e39 are printed as given, checked against float32', () => {
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, scale: 1e-50 }),
      'scale is 1e-50, below float32\'s smallest positive number (1.4e-45): it would round to 0');
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, scale: 1e39 }), 'scale is 1e+39, outside the float32 range (±3.4e38)');
    throwsExactly(() => attn.attention({ q: Q, k: K, v: V, scale: -0 }), 'scale must be a finite number greater than 0 (got -0)');
    assert.ok(attn.attention({ q: Q, k: K, v: V, scale: 1e-40 }).weights.flat().every(Number.isFinite)); // a subnormal float32 is kept
  });

  it('5,000-deep nested arrays give a clear error, not a stack overflow', () => {
    const nest = deep(5000);
    const cases = [
      [() => attn.attention({ q: nest, k: K, v: V }), 'Q row 1 column 1 is not a number (got an array)'],
      [() => attn.attention({ q: Q, k: K, v: V, mask: [nest, nest, nest] }), 'mask row 1 has 1 entry but K has 3 rows: a custom mask needs one entry per key'],
      [() => attn.attention({ q: Q, k: K, v: V, mask: { keys: [nest, false, false] } }), 'mask.keys[0] must be true (hidden) or false (visible) (got an array)'],
      [() => attn.multiHead({ x: V, wq: I2, wk: I2, wv: I2, wo: I2, bq: nest }), 'b_Q entry 1 is not a number (got an array)'],
      [() => attn.entropy(nest), 'weights entry 1 is not a finite number (got an array)'],
      [() => attn.fitPowerLaw({ x: nest, y: [1] }), 'x[0] is not a number (got an array)'],
      [() => attn.convexHull(nest), 'points row 1 column 1 is not a number (got an array)'],
    ];
    for (const [f, message] of cases) throwsExactly(f, message);
  });

  it('convexHull refuses non-finite points and says which one', () => {
    // Was [0, 1, 2, 1]. The rule is the core's; the message reaches the caller as it is.
    assert.throws(() => attn.convexHull([[NaN, NaN], [NaN, NaN], [NaN, NaN]]), { message: /^NaN at points row 1 column 1\b/ });
    assert.throws(() => attn.convexHull([[0, 0], [1, Infinity], [2, 2]]), { message: /^\+Infinity at points row 2 column 2\b/ });
    assert.throws(() => attn.convexHull({ rows: 2, cols: 2, data: [0, 0, -Infinity, 1] }), { message: /^-Infinity at points row 2 column 1\b/ });
    assert.deepEqual(attn.convexHull([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]]), [0, 1, 2, 3]);
  });

  it('messages: an exception thrown while reading an argument names the argument', () => {
    assert.throws(() => attn.attention({ q: Q, k: K, get v() { return boom(); } }), (e) => {
      assert.equal(e.message, 'V could not be read: reading it threw an Error (this Error\'s cause)');
      assert.equal(e.cause, BOOM);
      return true;
    });
    assert.throws(() => attn.entropy(new Proxy([0.5, 0.5], { get: boom })), (e) => e.message.startsWith('weights could not be read') && e.cause === BOOM);
    assert.equal(workedExampleDiff(attn), '');
  });

  it('limits() are the core\'s, and the ones the checks use', () => {
    const limits = attn.limits();
    assert.ok(Object.isFrozen(limits));
    assert.deepEqual(
      { ...limits },
      {
        maxRows: 65536, maxCols: 4096, maxHeads: 256, maxScoreEntries: 2048 * 2048, maxStreamingFloats: 2 ** 26, maxExactCount: 2 ** 53 - 1,
        maxNormalSide: 256, maxScalingDk: 1024, maxScalingPairs: 100000, maxScalingBins: 200, maxScalingRow: 256, maxScalingRows: 100000,
        maxTimingN: 2048, maxTimingRepeats: 1000, maxConstructTokens: 16, maxPeakIterations: 2 ** 32 - 1, maxPeakTokens: 4096,
      },
    );
    assert.equal(attn.parameterCount({ dModel: limits.maxHeads, heads: limits.maxHeads }), 4 * 256 * 256);
    assert.throws(() => attn.parameterCount({ dModel: 512, heads: limits.maxHeads + 1 }), { message: 'heads must be a whole number from 1 to 256 (got 257)' });
    assert.equal(attn.normalMatrix({ rows: limits.maxNormalSide, cols: 1 }).length, 256);
    assert.throws(() => attn.normalMatrix({ rows: limits.maxNormalSide + 1, cols: 1 }), /rows must be a whole number from 1 to 256/);
  });
});
