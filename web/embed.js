// The embedding guide: each example's snippet is written from its live markup, with a Copy
// button; one example's events are printed as they arrive.
import './attention-calc.js';
import { h } from './shared/dom.js';

const SCRIPT = '<script type="module" src="/attention-calc/attention-calc.js"></script>';

for (const example of document.querySelectorAll('.example')) {
  const widget = example.firstElementChild;
  const markup = widget.outerHTML.replace(/ id="[^"]*"/, '');
  const code = widget.tagName === 'IFRAME' ? markup.replace('src="frame.html', 'src="/attention-calc/frame.html') : `${SCRIPT}\n${markup}`;
  const text = h('code', { text: code });
  const status = h('span', { class: 'sr-only', role: 'status' });
  const copy = h('button', {
    type: 'button',
    text: 'Copy',
    'aria-label': `Copy the ${example.dataset.example} snippet`,
    on: {
      click: async () => {
        try {
          await navigator.clipboard.writeText(code);
          copy.textContent = 'Copied ✓';
        } catch {
          getSelection().selectAllChildren(text); // select it for a manual copy
          copy.textContent = 'Select and copy';
        }
        status.textContent = copy.textContent;
      },
    },
  });
  example.after(h('pre', { class: 'snippet' }, copy, text, status));
}

const listened = document.getElementById('listened');
const log = document.getElementById('event-log');
listened.addEventListener('attention-change', (e) => {
  const row = e.detail.result.weights[0].map((w) => w.toFixed(3)).join(', ');
  log.textContent = `attention-change: weights of query 1 = [${row}]`;
});
listened.addEventListener('error', (e) => {
  log.textContent = `error: ${e.detail.message}`;
});
