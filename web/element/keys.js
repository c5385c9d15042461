// Which keys stay inside the element. Focus inside the shadow root makes document.activeElement
// the host, so a page that ignores keys typed in its inputs cannot tell that a cell has focus. The
// keys a focused control uses stop at the shadow root; the rest (Escape, Tab, shortcuts on
// non-text controls) go on to the page.
const TEXT_INPUT = /^(text|search|number|email|url|tel|password)$/;
const ACTIVATE = new Set(['Enter', ' ', 'Spacebar']);
const ARROWS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']);
const RANGE_KEYS = new Set([...ARROWS, 'Home', 'End', 'PageUp', 'PageDown']);

/** Does the focused control `target` of the widget act on the key event `e`? */
function controlUsesKey(target, e) {
  if (e.key === 'Escape' || e.key === 'Tab') return false;
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || target.isContentEditable) return true;
  if (target instanceof HTMLInputElement) {
    if (TEXT_INPUT.test(target.type)) return true;
    if (e.altKey || e.ctrlKey || e.metaKey) return false;
    if (target.type === 'range') return RANGE_KEYS.has(e.key);
    if (target.type === 'radio') return ARROWS.has(e.key) || ACTIVATE.has(e.key);
    return ACTIVATE.has(e.key); // checkbox, button
  }
  if (e.altKey || e.ctrlKey || e.metaKey) return false;
  // The steps' cells and the plot's value handles move with the arrow keys.
  if (ARROWS.has(e.key) && target.closest('td[data-step], .value-point')) return true;
  return ACTIVATE.has(e.key) && target.matches('button, summary, a[href], [role="button"], [tabindex]');
}

/** Stops, at `root`, the key events its focused control acts on. */
export function keepKeysInside(root) {
  const guard = (e) => {
    if (controlUsesKey(e.composedPath()[0], e)) e.stopPropagation();
  };
  for (const type of ['keydown', 'keypress', 'keyup']) root.addEventListener(type, guard);
}
