// The calculator's state: inputs, masks, mode. Plain data, so it can live in a URL hash and be
// copied; every number derived from it comes from the core.
import { EXERCISE_V, WORKED_EXAMPLE } from '../examples.js';
import { STEP_KEYS, STEPS } from './steps/lesson-steps.js';
import { parseMatrixText, parseNumber, quote } from '../shared/parse.js';
import { mulberry32 } from '../shared/random.js';

export const MAX_TOKENS = 8;

export const MAX_DIM = 8;

/** The steps a learner fills in, in the lesson's order (lesson-steps.js). */
export const PRACTICE_STEPS = STEP_KEYS;

// Each step's name in a link (your-scaled=…, revealed=scaled,masked).
const LINK_NAMES = Object.fromEntries(STEPS.map((s) => [s.key, s.link]));

/** The size of the learner's matrix for `step`: n×m, n×1 for the row sums, n×d_v for the output. */
export function answerShape(step, { n, m, dv }) {
  return { rows: n, cols: step === 'rowSum' ? 1 : step === 'output' ? dv : m };
}

/** A practice attempt with nothing entered yet. */
export const emptyPractice = () => ({ answers: {}, revealed: [] });

export const PITFALLS = {
  'none': { label: 'Correct attention', wrong: false },
  'mask-after-softmax': { label: 'Pitfall: mask applied after the softmax', wrong: true },
  'scale-dk': { label: 'Pitfall: scale by d_k instead of √d_k', wrong: true },
  'no-scale': { label: 'Pitfall: no scaling', wrong: true },
  // Set only through the element's scale attribute (or the hash): any other fixed scale.
  'custom-scale': { label: 'Custom scale instead of 1/√d_k', wrong: true },
};

const copy = (rows) => rows.map((row) => [...row]);
const grid = (n, m, fill) => Array.from({ length: n }, () => Array(m).fill(fill));

export const sizes = (state) => ({ n: state.q.length, dk: state.q[0].length, dv: state.v[0].length });

function base(q, k, v, preset) {
  const n = q.length;
  return {
    q: copy(q), k: copy(k), v: copy(v),
    causal: false,
    padding: Array(n).fill(false),
    hidden: grid(n, n, false),
    pitfall: 'none',
    scale: null, // the factor used in the 'custom-scale' mode
    preset,
    seed: null,
    axes: [0, 1],
    practice: null, // practice mode: { answers: { step: (number|null)[][] }, revealed: step[] }
  };
}

export const PRESETS = {
  'worked': { label: 'Worked example', make: () => base(WORKED_EXAMPLE.q, WORKED_EXAMPLE.k, WORKED_EXAMPLE.v, 'worked') },
  'exercise': { label: 'Exercise: new V', make: () => base(WORKED_EXAMPLE.q, WORKED_EXAMPLE.k, EXERCISE_V, 'exercise') },
  'one-hot': {
    label: 'One-hot: each query matches one key',
    // Query i points along key i, 8 times longer than the others' overlap: its softmax is
    // nearly one-hot.
    make: () => base([[8, 0], [0, 8], [-8, 0]], WORKED_EXAMPLE.k, WORKED_EXAMPLE.v, 'one-hot'),
  },
  'random': {
    label: 'Random (seeded)',
    make: (seed = 1, { n = 3, dk = 2, dv = 2 } = {}) => {
      const rand = mulberry32(seed);
      const matrix = (r, c) => Array.from({ length: r }, () => Array.from({ length: c }, () => Math.round((rand() * 4 - 2) * 10) / 10));
      return { ...base(matrix(n, dk), matrix(n, dk), matrix(n, dv), 'random'), seed };
    },
  },
};

export const defaultState = () => PRESETS.worked.make();

function resizeMatrix(rows, n, cols) {
  return Array.from({ length: n }, (_, i) => Array.from({ length: cols }, (_, j) => rows[i]?.[j] ?? 0));
}

/** The state with n tokens and d_k, d_v columns; existing numbers stay, new ones are 0. */
export function resize(state, { n, dk, dv }) {
  return {
    ...state,
    q: resizeMatrix(state.q, n, dk),
    k: resizeMatrix(state.k, n, dk),
    v: resizeMatrix(state.v, n, dv),
    padding: Array.from({ length: n }, (_, j) => state.padding[j] ?? false),
    hidden: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => state.hidden[i]?.[j] ?? false)),
    axes: state.axes.map((a) => Math.min(a, dv - 1)),
    preset: 'custom',
  };
}

/**
 * The scale option for the core: undefined for the correct 1/√d_k, the pitfalls 'dk' and 'none'
 * (the core computes 1/d_k and 1), or the custom factor.
 */
export function coreScale(state) {
  return { 'scale-dk': 'dk', 'no-scale': 'none', 'custom-scale': state.scale ?? undefined }[state.pitfall];
}

/**
 * The mask as the core takes it: 'none' or 'causal' when that is all, else the state's parts as
 * they are, { causal, keys, hidden }. The core forms their union and says why each cell is hidden
 * (result.hiddenBy, attn.maskReasons).
 */
export function coreMask(state) {
  const padded = state.padding.some(Boolean), byHand = state.hidden.some((row) => row.some(Boolean));
  if (!padded && !byHand) return state.causal ? 'causal' : 'none';
  return {
    ...(state.causal && { causal: true }),
    ...(padded && { keys: [...state.padding] }),
    ...(byHand && { hidden: state.hidden.map((row) => [...row]) }),
  };
}

/**
 * The core's inputs for a state, as attn.attention() takes them: the one place that turns the
 * mask, the pitfall and the scale into options, for the calculator and its attention-change event.
 * scale is null for the correct 1/√d_k.
 */
export function coreInputs(state) {
  return {
    q: state.q,
    k: state.k,
    v: state.v,
    mask: coreMask(state),
    scale: coreScale(state) ?? null, // the pitfall modes pass a wrong scale on purpose
    maskAfterSoftmax: state.pitfall === 'mask-after-softmax',
  };
}

// --- the URL hash -------------------------------------------------------------------------
// #q=1,1;0,1;-1,0&k=…&v=…&causal=1&pad=2&hide=1-3&pitfall=no-scale&preset=random&seed=7&axes=1,2
// Readable, and short enough to share. Indices in it are 1-based, as on the page.

const matrixText = (rows) => rows.map((row) => row.join(',')).join(';');

export function toHash(state) {
  const p = new URLSearchParams();
  p.set('q', matrixText(state.q));
  p.set('k', matrixText(state.k));
  p.set('v', matrixText(state.v));
  if (state.causal) p.set('causal', '1');
  const pad = state.padding.flatMap((x, j) => (x ? [j + 1] : []));
  if (pad.length) p.set('pad', pad.join(','));
  const hide = state.hidden.flatMap((row, i) => row.flatMap((x, j) => (x ? [`${i + 1}-${j + 1}`] : [])));
  if (hide.length) p.set('hide', hide.join(','));
  if (state.pitfall !== 'none') p.set('pitfall', state.pitfall);
  if (state.pitfall === 'custom-scale') p.set('scale', String(state.scale));
  if (state.preset !== 'custom') p.set('preset', state.preset);
  if (state.seed !== null) p.set('seed', String(state.seed));
  if (state.axes[0] !== 0 || state.axes[1] !== 1) p.set('axes', state.axes.map((a) => a + 1).join(','));
  if (state.practice) {
    p.set('practice', '1');
    for (const step of PRACTICE_STEPS) {
      const rows = state.practice.answers[step];
      if (rows?.some((row) => row.some((x) => x !== null))) p.set(`your-${LINK_NAMES[step].toLowerCase()}`, rows.map((row) => row.map((x) => x ?? '').join(',')).join(';'));
    }
    if (state.practice.revealed.length) p.set('revealed', state.practice.revealed.map((step) => LINK_NAMES[step]).join(','));
  }
  // Keep the separators readable: URLSearchParams would escape ',' and ';'.
  return p.toString().replace(/%2C/gi, ',').replace(/%3B/gi, ';');
}

// Above any 8×8 state with a practice attempt, even with every number written to 17 digits;
// longer text is refused unread.
const MAX_HASH = 24000;

/**
 * The state a hash describes → { state } or { error } (the caller keeps its own state and
 * says why). An empty hash gives { state: null }.
 */
export function fromHash(hash) {
  const text = String(hash ?? '').replace(/^#/, '');
  if (text === '') return { state: null };
  if (text.length > MAX_HASH) return { error: `the link is ${text.length} characters long, more than the ${MAX_HASH} a calculator state needs` };
  let p;
  try {
    p = new URLSearchParams(text);
  } catch {
    return { error: 'the link could not be read' };
  }
  const read = (key) => {
    if (!p.has(key)) throw new Error(`it has no ${key.toUpperCase()} matrix`);
    const parsed = parseMatrixText(p.get(key));
    if (!parsed.ok) throw new Error(`${key.toUpperCase()}: ${parsed.message}`);
    return parsed.rows;
  };
  try {
    const q = read('q'), k = read('k'), v = read('v');
    const n = q.length;
    if (n > MAX_TOKENS) throw new Error(`Q has ${n} rows; the calculator shows at most ${MAX_TOKENS} tokens`);
    if (k.length !== n || v.length !== n) throw new Error(`Q, K and V must have the same number of rows (${n}, ${k.length}, ${v.length})`);
    if (k[0].length !== q[0].length) throw new Error(`K has ${k[0].length} columns but Q has ${q[0].length}`);
    if (q[0].length > MAX_DIM || v[0].length > MAX_DIM) throw new Error(`d_k and d_v can be at most ${MAX_DIM}`);
    const state = base(q, k, v, 'custom');
    state.causal = p.get('causal') === '1';
    const index = (s, what) => {
      const i = Number(s);
      if (!Number.isInteger(i) || i < 1 || i > n) throw new Error(`${what} ${quote(s)} is not a token from 1 to ${n}`);
      return i - 1;
    };
    for (const s of (p.get('pad') ?? '').split(',').filter(Boolean)) state.padding[index(s, 'padded token')] = true;
    for (const pair of (p.get('hide') ?? '').split(',').filter(Boolean)) {
      const [i, j, extra] = pair.split('-');
      if (j === undefined || extra !== undefined) throw new Error(`hidden pair ${quote(pair)} is not two tokens, query-key, such as 1-2`);
      state.hidden[index(i, 'query')][index(j, 'key')] = true;
    }
    const pitfall = p.get('pitfall') ?? 'none';
    if (!Object.hasOwn(PITFALLS, pitfall)) throw new Error(`unknown mode ${quote(pitfall)}; the modes are ${Object.keys(PITFALLS).join(', ')}`);
    state.pitfall = pitfall;
    if (pitfall === 'custom-scale') {
      const scale = Number(p.get('scale'));
      if (!p.has('scale') || !Number.isFinite(scale) || scale <= 0) throw new Error('a custom scale must be a number greater than 0');
      state.scale = scale;
    }
    const preset = p.get('preset');
    if (preset !== null && Object.hasOwn(PRESETS, preset)) state.preset = preset;
    if (p.has('seed')) {
      const seed = Number(p.get('seed'));
      if (!Number.isSafeInteger(seed) || seed < 0) throw new Error('the seed is not a whole number');
      state.seed = seed;
    }
    if (p.has('axes')) {
      const axes = p.get('axes').split(',').map(Number);
      const dv = v[0].length;
      if (axes.length !== 2 || !axes.every((a) => Number.isInteger(a) && a >= 1 && a <= dv)) {
        throw new Error(`the plot axes must be two coordinates from 1 to ${dv}`);
      }
      state.axes = axes.map((a) => a - 1);
    }
    if (p.has('practice')) state.practice = readPractice(p, { n, m: n, dv: v[0].length });
    return { state };
  } catch (error) {
    return { error: `the link's state could not be read: ${error.message}` };
  }
}

// The learner's answers in a link: your-weights=0.446,0.446,;…, an empty entry for a cell left
// empty, and revealed=scores,exp for the steps shown instead of typed.
function readPractice(p, sizes) {
  if (p.get('practice') !== '1') throw new Error(`practice must be 1, not ${quote(p.get('practice'))}`);
  const practice = emptyPractice();
  for (const step of PRACTICE_STEPS) {
    const key = `your-${LINK_NAMES[step].toLowerCase()}`;
    if (!p.has(key)) continue;
    const { rows, cols } = answerShape(step, sizes);
    const what = `your ${step === 'rowSum' ? 'row sums' : LINK_NAMES[step]}`;
    const lines = p.get(key).split(';');
    if (lines.length !== rows) throw new Error(`${what} have ${lines.length} rows, but the exercise has ${rows}`);
    practice.answers[step] = lines.map((line, i) => {
      const cells = line.split(',');
      if (cells.length !== cols) throw new Error(`${what} row ${i + 1} has ${cells.length} entries, but needs ${cols}`);
      return cells.map((text, j) => {
        if (text === '') return null;
        const parsed = parseNumber(text);
        if (!parsed.ok) throw new Error(`${what} row ${i + 1} column ${j + 1}: ${parsed.message}`);
        return parsed.value;
      });
    });
  }
  for (const step of (p.get('revealed') ?? '').split(',').filter(Boolean)) {
    const known = PRACTICE_STEPS.find((s) => LINK_NAMES[s].toLowerCase() === step.toLowerCase());
    if (!known) throw new Error(`revealed step ${quote(step)} is not one of ${PRACTICE_STEPS.map((s) => LINK_NAMES[s]).join(', ')}`);
    if (!practice.revealed.includes(known)) practice.revealed.push(known);
  }
  return practice;
}

/** What a page says when its link's hash cannot be read; `place` is 'the page' or 'the calculator'. */
export function brokenLinkMessage(error, place) {
  return `This link is broken: its state could not be used (${error.replace(/^the link's state could not be read: /, '')}), so ${place} shows the worked example instead.`;
}

/**
 * A state given as an object (the element's state property) → { state } or { error }. It is
 * checked exactly as a link is: written as a hash, then read back.
 */
export function checkState(value) {
  try {
    return readState(value);
  } catch {
    return { error: 'the state could not be used: reading it threw an exception' }; // a getter's or a Proxy's
  }
}

function readState(value) {
  const fail = (why) => ({ error: `the state could not be used: ${why}` });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('it must be an object such as the state property returns');
  const isGrid = (rows) => Array.isArray(rows) && rows.length > 0 && rows.every((row) => Array.isArray(row));
  for (const name of ['q', 'k', 'v']) {
    if (!isGrid(value[name])) return fail(`${name} must be a list of rows of numbers`);
  }
  const n = value.q.length;
  const full = { ...base(value.q, value.k, value.v, 'custom'), ...value };
  if (!Array.isArray(full.padding) || !isGrid(full.hidden) || !Array.isArray(full.axes)) {
    return fail('padding, hidden and axes must be lists, as the state property returns them');
  }
  let hash;
  try {
    hash = toHash({ ...full, padding: full.padding.slice(0, n), hidden: full.hidden.slice(0, n).map((row) => row.slice(0, n)) });
  } catch {
    return fail('it does not have the form the state property returns');
  }
  const { state, error } = fromHash(hash);
  return error ? fail(error.replace(/^the link's state could not be read: /, '')) : { state };
}
