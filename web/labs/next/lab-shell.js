// What every lab past the lesson does around its parts: a section saying its module is loading,
// its own rules adopted into the root it is put in, and its parts drawn once the next labs' module
// has loaded (loaded by the lab, not the element, so that the lesson's labs' embed does not grow),
// or the load's failure said in place.
import { adoptStyles, h } from '../../shared/dom.js';

/**
 * @param {object} o
 * @param {import('../../attention.js').Attention} o.attn
 * @param {(message: string) => void} o.onError
 * @param {string} o.name      the lab's class and part name: "kvcache" → class "kvcache-lab"
 * @param {string} o.label     the section's accessible name
 * @param {string} o.heading
 * @param {string} o.what      the lab in the loading and failure messages: "the KV-cache lab"
 * @param {string} o.styles    its CSS text
 * @param {() => Element[]} o.build   draws the parts, once the module has loaded
 * @returns {{ element: HTMLElement, ready: Promise<void> }} ready resolves once the parts are
 *   drawn, or the module failed to load
 */
export function nextLab({ attn, onError, name, label, heading, what, styles, build }) {
  const status = h('p', { class: 'calc-status', role: 'status', text: `Loading ${what}’s module…` });
  const element = h('section', { class: `lab ${name}-lab`, role: 'group', 'aria-label': label, part: name }, h('h2', { text: heading }), status);
  // The shelf puts the section in place as soon as it is built.
  queueMicrotask(() => {
    const root = element.getRootNode();
    if (root instanceof ShadowRoot || root instanceof Document) adoptStyles(root, styles);
  });
  const ready = attn.loadNextLabs().then(() => status.replaceWith(...build()), (error) => {
    status.textContent = `${what[0].toUpperCase()}${what.slice(1)} could not load its module: ${error.message}`;
    status.setAttribute('role', 'alert');
    status.classList.add('error');
    onError(error.message);
  });
  return { element, ready };
}
