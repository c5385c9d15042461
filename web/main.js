// The calculator page: the calculator, whose state lives in the URL hash, then the lesson's labs.
import { loadAttention } from './attention.js';
import './attention-calc.js';
import { COMMIT_MS } from './calc/grid.js';
import { brokenLinkMessage, defaultState, fromHash } from './calc/state.js';
// Unbundled, the element's modules import one another five levels deep, a round trip per level
// before the first number shows; named here, they are all fetched at once (dist/ bundles them).
import './assets.js';
import './examples.js';
import './calc/attributes.js';
import './calc/calculator.js';
import './calc/checks.js';
import './calc/dom.js';
import './calc/explain.js';
import './calc/export.js';
import './calc/files.js';
import './calc/format.js';
import './calc/heatmap.js';
import './calc/masks.js';
import './calc/parse.js';
import './calc/plot.js';
import './calc/random.js';
import './calc/stepper.js';
import './calc/steps.js';
import './calc/tex.js';
import './vendor/tex-formulas.js';

// Start compiling the core now: the element asks for the same one only once it is laid out.
// Its failure is the element's to report.
const core = loadAttention().catch(() => null);
const calc = document.getElementById('calculator');
const notice = document.getElementById('notice');

function say(message) {
  notice.textContent = message;
  notice.hidden = !message;
}

// A link's state, or the worked example (and a note) when the hash cannot be read. A hash that
// names a section of the page (#cost) is a place to scroll to, not a state.
function applyHash() {
  if (/^#[a-z-]+$/.test(location.hash) && document.getElementById(location.hash.slice(1))) return;
  const { state, error } = fromHash(location.hash);
  if (error) say(brokenLinkMessage(error, 'the page'));
  if (state || error) calc.state = state ?? defaultState();
}

calc.linkTarget = new URL(location.pathname, location.href).href;
applyHash();
// The URL follows the committed state, as the calculator does: a keystroke in a cell is written
// once typing pauses (the grids' commit rule), not on every key, as history.replaceState costs
// more than the rest of an update; any other control, leaving the calculator or the page
// writes it at once.
let urlPending = null;
function writeUrl() {
  clearTimeout(urlPending);
  urlPending = null;
  const hash = `#${calc.hash}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}
// Set while an input event from a text field crosses the element (capture, then bubble): the
// calculator's change event fires in between, from the cell's own listener.
let typing = false;
const TYPED = new Set(['text', 'number', 'search']);
calc.addEventListener('input', (e) => {
  const field = e.composedPath()[0];
  typing = field instanceof HTMLInputElement && TYPED.has(field.type);
}, { capture: true });
calc.addEventListener('input', () => { typing = false; });
calc.addEventListener('attention-change', () => {
  if (!typing) return writeUrl();
  clearTimeout(urlPending);
  urlPending = setTimeout(writeUrl, COMMIT_MS);
});
calc.addEventListener('focusout', () => { if (urlPending !== null) writeUrl(); });
window.addEventListener('pagehide', () => { if (urlPending !== null) writeUrl(); });
// A link pasted into the address bar, or Back/Forward between states.
window.addEventListener('hashchange', () => {
  say('');
  applyHash();
});

// The first numbers: the calculator's first result is on screen and its inputs take edits (the
// plot and the labs below may still be arriving).
calc.addEventListener('attention-change', () => performance.mark('attention-calc interactive'), { once: true });

await calc.ready;
if (calc.result) {
  const { simd } = await core;
  document.getElementById('build').textContent = `${simd ? 'WebAssembly SIMD' : 'scalar WebAssembly'} build`;
  document.body.dataset.ready = simd ? 'simd' : 'scalar';
} else {
  document.body.dataset.ready = 'error';
}
