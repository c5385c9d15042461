// A wide table on a narrow screen scrolls sideways in its own box. So that nothing hides there
// without a cue, the box fades on each side that has more, and a line under it names what is out
// of sight ("scroll for head 2 →"). The line is there whenever the box overflows, whatever the
// scroll position, so scrolling never moves the layout.
import { h } from '../../shared/dom.js';

/**
 * @param {Element} content    a table, or anything wide (a formula)
 * @param {object} o
 * @param {string} o.label   names the box when it scrolls (it is then a keyboard stop)
 * @param {(first: number, last: number) => string} [o.what]
 *   for a table: what its columns first…last (0-based, row labels not counted) are, e.g. "head 2";
 *   otherwise the cue says "the rest" and "the start"
 */
export function scrollBox(content, { label, what }) {
  const scroller = h('div', { class: 'scroller' }, content);
  const frame = h('div', { class: 'scroll-frame' }, scroller);
  const cue = h('p', { class: 'scroll-cue', 'aria-hidden': 'true' });
  const box = h('div', { class: 'scroll-box' }, frame, cue);

  // What is out of sight past the scroller's right (or left) edge: for a table, the data columns
  // (first-row cells that are not row labels or the corner) named by `what`; else "the rest".
  const outOfSight = (side) => {
    const fallback = side === 'right' ? 'the rest' : 'the start';
    if (!(content instanceof HTMLTableElement && what)) return fallback;
    const edge = scroller.getBoundingClientRect();
    const cells = [...(content.tHead ?? content.tBodies[0]).rows[0].cells].filter((c) => c.getAttribute('scope') !== 'row' && !c.classList.contains('corner'));
    const hidden = cells.flatMap((c, j) => {
      const box = c.getBoundingClientRect();
      return (side === 'right' ? box.right > edge.right + 1 : box.left < edge.left - 1) ? [j] : [];
    });
    return hidden.length ? what(hidden[0], hidden.at(-1)) : fallback;
  };

  const update = () => {
    const room = scroller.scrollWidth - scroller.clientWidth;
    const overflows = room > 1;
    const right = overflows && scroller.scrollLeft < room - 1;
    const left = overflows && scroller.scrollLeft > 1;
    frame.classList.toggle('more-right', right);
    frame.classList.toggle('more-left', left);
    box.classList.toggle('overflows', overflows);
    if (overflows) {
      // Scrollable from the keyboard too: a tab stop with a name, only while there is more.
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'region');
      scroller.setAttribute('aria-label', label);
    } else {
      scroller.removeAttribute('tabindex');
      scroller.removeAttribute('role');
      scroller.removeAttribute('aria-label');
      cue.textContent = '';
      return;
    }
    cue.classList.toggle('back', !right);
    cue.textContent = right ? `scroll for ${outOfSight('right')} →` : `← scroll back for ${outOfSight('left')}`;
  };
  scroller.addEventListener('scroll', update, { passive: true });
  // A size change is answered in the next frame, not inside the observer's callback: the cue's
  // text can change the box's own size, which inside the callback is a ResizeObserver loop
  // (WebKit reports it as an error on the page).
  let pending = 0;
  const resized = new ResizeObserver(() => {
    if (!pending) pending = requestAnimationFrame(() => { pending = 0; update(); });
  });
  resized.observe(scroller);
  resized.observe(content);
  return box;
}
