// The calculator page: load the core, restore the state from the URL hash, keep the hash in
// step with every change.
import { loadAttention } from './attention.js';
import { Calculator } from './calc/calculator.js';
import { defaultState, fromHash, toHash } from './calc/state.js';

const app = document.getElementById('app');
const notice = document.getElementById('notice');

function say(message) {
  notice.textContent = message;
  notice.hidden = !message;
}

function stateFromLocation() {
  const { state, error } = fromHash(location.hash);
  if (error) say(`The link’s state could not be used (${error.replace(/^the link's state could not be read: /, '')}), so the page shows the worked example instead.`);
  return state ?? defaultState();
}

async function main() {
  let attn;
  try {
    attn = await loadAttention();
  } catch (error) {
    app.replaceChildren();
    say(`The attention core could not start: ${error.message}`);
    notice.setAttribute('role', 'alert');
    document.body.dataset.ready = 'error';
    return;
  }
  const calculator = new Calculator({
    attn,
    state: stateFromLocation(),
    link: () => location.href,
    onChange: (state) => {
      const hash = `#${toHash(state)}`;
      if (location.hash !== hash) history.replaceState(null, '', hash);
    },
  });
  app.replaceChildren(calculator.element);
  // A link pasted into the address bar, or Back/Forward between states.
  window.addEventListener('hashchange', () => {
    say('');
    calculator.setState(stateFromLocation());
  });
  document.getElementById('build').textContent = `${attn.simd ? 'WebAssembly SIMD' : 'scalar WebAssembly'} build`;
  document.body.dataset.ready = attn.simd ? 'simd' : 'scalar';
  performance.mark('attention-calc interactive');
}

main();
