// The element's attributes as calculator settings. Attribute text is only ever parsed as
// numbers and keywords; an attribute that does not parse gives a message, never HTML.
import { EXERCISE_V, WORKED_EXAMPLE } from '../examples.js';
import { PANELS } from '../calc/calculator.js';
import { parseMatrixText, quote } from '../shared/parse.js';
import { defaultState, MAX_DIM, MAX_TOKENS } from '../calc/state.js';

// Far more than an 8×8 matrix needs; longer text is refused before it is parsed.
export const MAX_ATTRIBUTE_LENGTH = 2000;

function text(name, value) {
  if (value.length > MAX_ATTRIBUTE_LENGTH) {
    throw new Error(`the ${name} attribute is ${value.length} characters long; the limit is ${MAX_ATTRIBUTE_LENGTH}`);
  }
  return value.trim();
}

function matrix(name, value) {
  const parsed = parseMatrixText(text(name, value));
  if (!parsed.ok) throw new Error(`${name}: ${parsed.message}`);
  const { rows } = parsed;
  if (rows.length > MAX_TOKENS || rows[0].length > MAX_DIM) {
    throw new Error(`${name} is ${rows.length}×${rows[0].length}; the calculator shows at most ${MAX_TOKENS} tokens and ${MAX_DIM} columns`);
  }
  return rows;
}

/**
 * The state that attributes { q, k, v, mask, scale } describe (null or '' for absent ones).
 * Absent matrices come from the lesson's worked example. Throws Error with a clear message.
 */
export function stateFromAttributes({ q, k, v, mask, scale }) {
  const state = defaultState();
  if (q) state.q = matrix('q', q);
  if (k) state.k = matrix('k', k);
  if (v) state.v = matrix('v', v);
  const n = state.q.length;
  if (state.k.length !== n || state.v.length !== n) {
    throw new Error(`q, k and v need one row per token, but have ${n}, ${state.k.length} and ${state.v.length} rows`);
  }
  if (state.k[0].length !== state.q[0].length) {
    throw new Error(`k has ${state.k[0].length} columns but q has ${state.q[0].length}: queries and keys need the same length d_k`);
  }
  state.padding = Array(n).fill(false);
  state.hidden = Array.from({ length: n }, () => Array(n).fill(false));
  const sameAs = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  state.preset = q || k || v
    ? (sameAs(state.q, WORKED_EXAMPLE.q) && sameAs(state.k, WORKED_EXAMPLE.k) && sameAs(state.v, EXERCISE_V) ? 'exercise' : 'custom')
    : 'worked';

  const m = text('mask', mask ?? '');
  if (m === 'causal') state.causal = true;
  else if (m !== '' && m !== 'none') {
    const grid = matrix('mask', m);
    if (grid.length !== n || grid[0].length !== n) throw new Error(`mask is ${grid.length}×${grid[0].length} but there are ${n} tokens: it needs ${n}×${n} entries of 0 or 1`);
    if (!grid.flat().every((x) => x === 0 || x === 1)) throw new Error('mask entries must be 0 (visible) or 1 (hidden)');
    state.hidden = grid.map((row) => row.map((x) => x === 1));
  }

  const s = text('scale', scale ?? '');
  if (s === 'dk') state.pitfall = 'scale-dk';
  else if (s === 'none') state.pitfall = 'no-scale';
  else if (s !== '' && s !== 'sqrt') {
    const factor = Number(s);
    if (!Number.isFinite(factor) || factor <= 0) throw new Error(`scale must be sqrt (the default), dk, none or a number greater than 0, not ${quote(s)}`);
    state.pitfall = 'custom-scale';
    state.scale = factor;
  }
  return state;
}

/**
 * 'inputs,steps' → ['inputs', 'steps']; absent or empty → the calculator's panels. `labs`: the
 * names of the labs the element can show besides.
 */
export function parsePanels(value, labs) {
  const names = text('panels', value ?? '').split(/[\s,]+/).filter(Boolean);
  if (names.length === 0) return PANELS;
  const known = [...PANELS, ...labs];
  const unknown = names.filter((p) => !known.includes(p));
  if (unknown.length) throw new Error(`unknown panel ${quote(unknown[0])}; the panels are ${known.join(', ')}`);
  return names;
}

/** Decimals shown: a whole number from 0 to 8; absent → 3. */
export function parsePrecision(value) {
  if (value === null || value === undefined || value.trim() === '') return 3;
  const p = Number(value);
  if (!Number.isInteger(p) || p < 0 || p > 8) throw new Error(`precision must be a whole number from 0 to 8, not ${quote(value)}`);
  return p;
}

export const MODES = ['explore', 'practice'];

/** explore (the calculator shows every step) or practice (the learner computes them); absent → explore. */
export function parseMode(value) {
  if (value === null || value === undefined || value.trim() === '') return 'explore';
  const mode = text('mode', value).toLowerCase();
  if (!MODES.includes(mode)) throw new Error(`mode must be explore (the default) or practice, not ${quote(value)}; the calculator stays in explore mode`);
  return mode;
}

export const THEMES = ['auto', 'light', 'dark'];

/** Checks the theme attribute (the stylesheet applies it): auto, light or dark; absent → auto. */
export function checkTheme(value) {
  if (value === null || value === undefined || value.trim() === '') return;
  text('theme', value);
  if (!THEMES.includes(value)) throw new Error(`theme must be auto (the default), light or dark, not ${quote(value)}; the calculator follows the system's theme instead`);
}

/**
 * Checks the readonly attribute. Like any HTML boolean attribute it is on whenever present,
 * so readonly="false" still locks the inputs: that surprise gets a message.
 */
export function checkReadonly(value) {
  if (value === null || ['', 'readonly', 'true'].includes(value.trim().toLowerCase())) return;
  text('readonly', value);
  throw new Error(`readonly is on whenever the attribute is present, so readonly=${quote(value)} still makes the calculator read-only; remove the attribute to allow editing`);
}

const LOADING = ['lazy', 'eager'];

/** lazy (start near the viewport) or eager: only checked, the element reads it. */
export function checkLoading(value) {
  if (value === null || value.trim() === '' || LOADING.includes(value.trim().toLowerCase())) return;
  throw new Error(`loading must be lazy (the default) or eager, not ${quote(value)}; the calculator starts when it nears the viewport`);
}

/**
 * The view attributes, each read by `attribute(name)`: { view: { readonly, precision, panels },
 * problems }, with every bad attribute's message in `problems`. `labs`: as for parsePanels.
 */
export function readView(attribute, labs) {
  const view = { readonly: attribute('readonly') !== null, precision: 3, panels: PANELS };
  const problems = [];
  const read = (parse) => {
    try {
      parse();
    } catch (error) {
      problems.push(error.message);
    }
  };
  read(() => { view.panels = parsePanels(attribute('panels'), labs); });
  read(() => { view.precision = parsePrecision(attribute('precision')); });
  // Only checked: the stylesheet applies the theme, and readonly is read above.
  read(() => checkReadonly(attribute('readonly')));
  read(() => checkTheme(attribute('theme')));
  read(() => checkLoading(attribute('loading')));
  read(() => parseMode(attribute('mode')));
  return { view, problems };
}

/** Gives `prototype` a property per attribute of `names`, which reads and writes the attribute. */
export function reflectAttributes(prototype, names) {
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      get() { return this.getAttribute(name); },
      set(value) {
        if (value === null || value === undefined) this.removeAttribute(name);
        else this.setAttribute(name, String(value));
      },
      configurable: true,
      enumerable: true,
    });
  }
}
