// The GPT-2 panel's views of many heads at once: the all-heads table (layers × heads, each head by
// its strongest role, each with its "switch off" box when the panel offers one), and the layer's
// heads saved as one SVG file. No state: gpt2-panel.js owns the run and what is switched off.
import { h, svg } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { gridText, headName, strongestRole } from './gpt2-lesson.js';

export { headName };

/** The accessible name of a head's switch, on its map and in the table. */
export const switchName = (layer, head) => `Switch off GPT-2 layer ${layer} head ${head}`;

/**
 * The layers × heads table, or a hint when the text was too long to keep every layer's scores.
 * @param {object} run  the panel's run ({ layers: [{ heads: [scores] }] })
 * @param {{ onOpen(layer, head): void, off?: Set<string>, onSwitch?(layer, head, off): void }} o
 *   off: the switched-off heads as "layer.head"; onSwitch: given, each cell has its switch
 */
export function allHeadsTable(run, { onOpen, off = new Set(), onSwitch = null }) {
  if (!run.layers.every((l) => l.heads.length)) {
    return h('p', { class: 'hint', text: 'This text is too long to keep every layer’s weights in one run: only the chosen layer was run. Shorten it to see every head.' });
  }
  const heads = run.layers[0].heads.length;
  const table = h('table', { class: 'gpt2-all-table' },
    h('caption', { class: 'sr-only', text: 'Every head’s strongest role and score on this text, layers as rows, heads as columns' }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'corner', text: 'Layer' }), Array.from({ length: heads }, (_, i) => h('th', { scope: 'col', 'aria-label': `head ${i}`, text: `h${i}` })))),
    h('tbody', {}, run.layers.map((layer, l) => h('tr', {}, h('th', { scope: 'row', text: String(l) }), layer.heads.map((d, i) => {
      const best = strongestRole(d);
      const isOff = off.has(headName(l, i));
      const button = h('button', {
        type: 'button', class: `gpt2-cell${isOff ? ' off' : ''}`, dataset: { layer: l, head: i },
        'aria-label': `GPT-2 head ${l}.${i}: ${best ? `${best.earned ? best.role.label : 'no role'}, ${best.role.score} ${format(best.score, 2)}` : 'no scores'}${isOff ? ', switched off' : ''}`,
        on: { click: () => onOpen(l, i) },
      }, h('span', { class: `swatch ${best?.earned ? best.role.key : 'none'}`, 'aria-hidden': 'true' }), gridText(d));
      if (best) button.firstChild.style.setProperty('--score', String(best.score));
      if (!onSwitch) return h('td', {}, button);
      const box = h('input', {
        type: 'checkbox', class: 'gpt2-switch-box', checked: isOff, 'aria-label': switchName(l, i), title: switchName(l, i),
        dataset: { layer: l, head: i }, on: { change: () => onSwitch(l, i, box.checked) },
      });
      return h('td', {}, h('span', { class: 'gpt2-cell-box' }, box, button));
    })))));
  // On a phone the table scrolls in its own box, which says which heads are out of sight.
  return scrollBox(table, { label: 'All heads at a glance', what: (a, b) => (a === b ? `head ${a}` : `heads ${a}–${b}`) });
}

/** A layer's heatmaps side by side, four to a row, each with its name, in one SVG element. */
export function layerSvg(views, { layer, text }) {
  const maps = views.map((v) => v.map);
  const sizes = maps.map((m) => [Number(m.getAttribute('width')), Number(m.getAttribute('height')) + 18]);
  const [w, hgt] = [Math.max(...sizes.map((s) => s[0])), Math.max(...sizes.map((s) => s[1]))];
  const columns = Math.min(4, maps.length), rows = Math.ceil(maps.length / columns);
  const root = svg('svg', { viewBox: `0 0 ${columns * w} ${rows * hgt}`, width: columns * w, height: rows * hgt, 'font-family': 'system-ui, sans-serif', 'font-size': 12 });
  root.append(svg('title', { text: `GPT-2 layer ${layer}: ${maps.length} heads on “${text}”` }));
  maps.forEach((m, i) => {
    const x = (i % columns) * w, y = Math.floor(i / columns) * hgt;
    root.append(svg('text', { x: x + 4, y: y + 13, fill: 'currentColor', 'font-weight': 600, text: views[i].name }));
    const copy = m.cloneNode(true);
    copy.setAttribute('x', x);
    copy.setAttribute('y', y + 18);
    copy.querySelectorAll('.focus-row, .cell-cursor').forEach((e) => e.remove());
    root.append(copy);
  });
  return root;
}
