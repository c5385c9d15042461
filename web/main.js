// The calculator page: the calculator, whose state lives in the URL hash, then the lesson's labs.
// The element's own loadAttention: in dist/ the page shares the element's bundle, and so its core.
import { loadAttention } from './attention-calc.js';
import { brokenLinkMessage, defaultState, fromHash } from './calc/state.js';
// Unbundled, the element's modules are fetched at once (preload.js); dist/ leaves that out.
import './preload.js';

// Start compiling the core now: the element asks for the same one only once it is laid out.
// Its failure is the element's to report.
const core = loadAttention().catch(() => null);
const BUILD_NAMES = { relaxed: 'WebAssembly relaxed SIMD', simd: 'WebAssembly SIMD', scalar: 'scalar WebAssembly' };
const calc = document.getElementById('calculator');
const notice = document.getElementById('notice');

function say(message) {
  notice.textContent = message;
  notice.hidden = !message;
}

// The hash: an optional section of the page, then the calculator's state, #cost&q=…&k=…, so that
// the page's own section links keep the learner's work and a teacher's link can open at a lab
// with a state. Old links still open: a state alone (#q=…) at the top, a section alone (#cost).
// The GPT-2 panel's text rides at the end (gpt2-text=…, gpt2-eot=1 when it starts with
// <|endoftext|>), so a reload keeps what the learner typed there too.
const main = document.querySelector('main');
const sectionNamed = (name) => {
  const element = document.getElementById(name);
  return element?.parentElement === main ? element : null;
};
const GPT2_KEYS = /^gpt2-(text|eot)=/;
function readHash(hash) {
  const parts = hash.replace(/^#/, '').split('&');
  const section = /^[a-z][a-z0-9-]*$/.test(parts[0]) && sectionNamed(parts[0]) ? parts.shift() : null;
  const gpt2 = new URLSearchParams(parts.filter((p) => GPT2_KEYS.test(p)).join('&'));
  return { section, stateText: parts.filter((p) => !GPT2_KEYS.test(p)).join('&'), gpt2 };
}
const gpt2Element = document.getElementById('gpt2');
let gpt2Text = readHash(location.hash).gpt2;
const hashFor = (section) => `#${section ? `${section}&` : ''}${calc.hash}${gpt2Text.size ? `&${gpt2Text}` : ''}`;
// The panel reads its starting text from these attributes, and says when the learner changes it.
if (gpt2Text.has('gpt2-text')) gpt2Element?.setAttribute('gpt2-text', gpt2Text.get('gpt2-text'));
if (gpt2Text.get('gpt2-eot') === '1') gpt2Element?.setAttribute('gpt2-eot', '1');

// A link's state, or the worked example (and a note) when the hash cannot be read. A section
// alone leaves the state as it is.
function applyState(stateText) {
  if (stateText === '') return;
  const { state, error } = fromHash(stateText);
  if (error) say(brokenLinkMessage(error, 'the page'));
  if (state || error) calc.state = state ?? defaultState();
}

// --- scrolling to a section ---------------------------------------------------------------
// The sections below the calculator are laid out late (each starts as it nears the screen), so
// the page holds the section at the top of the screen while the page above and the section
// itself take their height, and lets go once the section is ready and the page has been still
// for a moment, or as soon as the learner scrolls, types or clicks.
const SETTLED_MS = 800, MOST_MS = 20000;
let letGoOfSection = () => {};
function holdAt(place, ready) {
  letGoOfSection();
  const go = () => {
    if (typeof place === 'number') window.scrollTo(0, place);
    else place.scrollIntoView({ block: 'start' });
  };
  let quiet = null, isReady = false;
  const settle = () => {
    clearTimeout(quiet);
    if (isReady) quiet = setTimeout(letGo, SETTLED_MS);
  };
  const onResize = () => { go(); settle(); };
  const resized = new ResizeObserver(onResize);
  resized.observe(main);
  if (typeof place !== 'number') resized.observe(place);
  const learnerMoves = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  const most = setTimeout(() => letGo(), MOST_MS);
  function letGo() {
    resized.disconnect();
    clearTimeout(quiet);
    clearTimeout(most);
    for (const type of learnerMoves) window.removeEventListener(type, letGo, true);
    letGoOfSection = () => {};
  }
  for (const type of learnerMoves) window.addEventListener(type, letGo, true);
  letGoOfSection = letGo;
  go();
  Promise.resolve(ready).then(() => { isReady = true; settle(); });
}
const holdSection = (element) => holdAt(element, element.ready);

// The URL follows the committed state: a keystroke in a cell is written once the calculator
// commits it (attention-change's committed), not on every key, as history.replaceState costs
// more than the rest of an update; any other control writes it at once, and leaving the page
// writes a keystroke still waiting. The section named in the hash stays.
let urlPending = false;
function writeUrl() {
  urlPending = false;
  const hash = hashFor(readHash(location.hash).section);
  if (location.hash !== hash) history.replaceState(history.state, '', hash);
}
calc.addEventListener('attention-change', (e) => {
  if (e.detail.committed) writeUrl();
  else urlPending = true;
});
window.addEventListener('pagehide', () => { if (urlPending) writeUrl(); });
gpt2Element?.addEventListener('attention-calc-gpt2-text', (e) => {
  const { text, endOfTextFirst, lesson } = e.detail;
  gpt2Text = new URLSearchParams(lesson ? [] : [['gpt2-text', text], ...(endOfTextFirst ? [['gpt2-eot', '1']] : [])]);
  writeUrl();
});

// --- history ------------------------------------------------------------------------------
// Each entry of the page's history remembers where the page was scrolled, so that Back and
// Forward return there; the page restores it itself, as the browser's restoring would fight the
// holding above. Going Back or Forward never takes back the learner's work: the state stays
// and the entry's hash is written again with it. A link pasted into the address bar (a new
// entry) brings its own state.
history.scrollRestoration = 'manual';
const remember = () => history.replaceState({ ...history.state, page: true, scrollY: window.scrollY }, '', location.href);
let scrollNoted = null;
window.addEventListener('scroll', () => {
  clearTimeout(scrollNoted);
  scrollNoted = setTimeout(() => remember(), 250);
}, { passive: true });

calc.linkTarget = new URL(location.pathname, location.href).href;
{
  const { section, stateText } = readHash(location.hash);
  applyState(stateText);
  history.replaceState({ page: true }, '', location.href);
  if (section) holdSection(sectionNamed(section));
}

// The page's own section links: the section joins the state in the hash, as a new entry.
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const link = e.target.closest?.('a[href^="#"]');
  const section = link && sectionNamed(link.getAttribute('href').slice(1));
  if (!section) return;
  e.preventDefault();
  urlPending = false; // the new entry's hash holds the state on screen
  remember();
  history.pushState({ page: true }, '', hashFor(section.id));
  holdSection(section);
});

window.addEventListener('popstate', (e) => {
  const { section, stateText } = readHash(location.hash);
  if (e.state?.page) {
    // Back or Forward: to where that entry was, with the work as it is now.
    const hash = hashFor(section);
    if (location.hash !== hash) history.replaceState(e.state, '', hash);
    if (typeof e.state.scrollY === 'number') holdAt(e.state.scrollY, calc.ready);
    else if (section) holdSection(sectionNamed(section));
    return;
  }
  say('');
  applyState(stateText);
  history.replaceState({ page: true }, '', location.href);
  if (section) holdSection(sectionNamed(section));
});

// The first numbers: the calculator's first result is on screen and its inputs take edits (the
// plot and the labs below may still be arriving).
calc.addEventListener('attention-change', () => performance.mark('attention-calc interactive'), { once: true });

await calc.ready;
if (calc.result) {
  const { build } = await core;
  document.getElementById('build').textContent = `${BUILD_NAMES[build]} build`;
  document.body.dataset.ready = build;
} else {
  document.body.dataset.ready = 'error';
}
