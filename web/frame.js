// The iframe route, for platforms that allow only iframes:
//
//   <iframe src="…/frame.html?panels=weights#q=1,1;0,1;-1,0&k=…&v=…" title="Attention calculator"></iframe>
//
// The #hash holds the state (the format of the calculator page's links); the query string may
// set the element's view attributes: panels, theme, precision, readonly.
//
// postMessage API. The frame talks only to the page that embeds it: messages from any other
// window or origin are ignored, and replies go to that page's origin alone.
//   → { type: 'attention-calc:get' }              reply { type: 'attention-calc:state', hash, state, result }
//   → { type: 'attention-calc:set', hash: '…' }   apply a state; reply as for get, or
//                                                 { type: 'attention-calc:error', message }
//   ← { type: 'attention-calc:change', hash, state, result, committed }   after every update;
//                                                 committed as on attention-change: false while a
//                                                 keystroke waits for its commit, then the same
//                                                 state again with true
import './attention-calc.js';
import { brokenLinkMessage, defaultState, fromHash } from './calc/state.js';

const calc = document.getElementById('calculator');
for (const [name, value] of new URLSearchParams(location.search)) {
  if (['panels', 'theme', 'precision'].includes(name)) calc.setAttribute(name, value);
  // readonly, readonly=1 or readonly=true lock the inputs; 0 and false do not; any other
  // value locks them too, and the element says why (as for its own attribute).
  if (name === 'readonly' && !['0', 'false'].includes(value)) calc.setAttribute('readonly', ['', '1', 'true'].includes(value) ? '' : value);
}

// A broken link says so above the calculator, which shows the worked example instead.
const { state, error } = fromHash(location.hash);
if (state || error) calc.state = state ?? defaultState();
if (error) {
  const notice = document.getElementById('notice');
  notice.textContent = brokenLinkMessage(error, 'the calculator');
  notice.hidden = false;
}

const embedded = window.parent !== window;
// Chromium and Safari name the embedding origin; elsewhere the referrer does.
const parentOrigin = location.ancestorOrigins?.[0] ?? (document.referrer ? new URL(document.referrer).origin : null);

function tell(message) {
  if (embedded && parentOrigin) window.parent.postMessage(message, parentOrigin);
}

const snapshot = (type) => ({ type, hash: calc.hash, state: calc.state, result: calc.result });

calc.addEventListener('attention-change', (e) => {
  const hash = `#${calc.hash}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  tell({ ...snapshot('attention-calc:change'), committed: e.detail.committed });
});
calc.addEventListener('error', (e) => tell({ type: 'attention-calc:error', message: String(e.detail?.message ?? '') }));
if (error) calc.addEventListener('attention-change', () => tell({ type: 'attention-calc:error', message: error }), { once: true });

window.addEventListener('message', (event) => {
  if (!embedded || event.source !== window.parent || event.origin !== parentOrigin) return;
  const data = event.data;
  if (typeof data !== 'object' || data === null || typeof data.type !== 'string') return;
  if (data.type === 'attention-calc:get') {
    tell(snapshot('attention-calc:state'));
  } else if (data.type === 'attention-calc:set') {
    if (typeof data.hash !== 'string') {
      tell({ type: 'attention-calc:error', message: 'attention-calc:set needs a hash string' });
      return;
    }
    const next = fromHash(data.hash);
    if (next.error || !next.state) {
      tell({ type: 'attention-calc:error', message: next.error ?? 'the hash is empty' });
      return;
    }
    calc.state = next.state;
    tell(snapshot('attention-calc:state'));
  }
});

await calc.ready;
document.body.dataset.ready = calc.result ? 'yes' : 'error';
