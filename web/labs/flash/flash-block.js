// The row block around the stepped row: FlashAttention reads each tile of keys once for a block of
// query rows and holds that block's scores for the tile, B_r × B_c of them, never n × n. Here the
// block has as many rows as the tile has keys (B_r = B_c = B): at the step shown, each of its rows
// with its scores for the tile and the m, rescale and ℓ it carries after it. Every number is the
// core's (tiledAttention's tiles, row by row); this module only draws them.
import { h, sub } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { scrollBox } from '../widgets/scroll-cue.js';

/** "key 3" or "keys 3–4", counted from 1, for the keys start … end − 1. */
export const keysText = (start, end) => (end - start === 1 ? `key ${start + 1}` : `keys ${start + 1}–${end}`);

/** The block of `tile` rows that holds `row` (0-based), cut at n: [first, end). */
const blockOf = (row, tile, n) => {
  const first = Math.floor(row / tile) * tile;
  return [first, Math.min(n, first + tile)];
};

export class BlockPart {
  constructor() {
    this.table = h('div', { class: 'flash-block-box' });
    this.said = h('p', { class: 'flash-block-said' });
    this.element = h('div', { class: 'flash-block', hidden: true }, this.table, this.said);
  }

  /**
   * @param {{ tiles: { row: number, start: number, end: number, scores: number[], max: number, rescale: number, sum: number }[] }} run
   * @param {{ row: number, tile: number, n: number, start: number, end: number, step: number }} at
   *   the stepped row, B, n and the keys [start, end) of the tile this step reads
   */
  show(run, { row, tile, n, start, end, step }) {
    const [first, last] = blockOf(row, tile, n);
    const rows = [];
    let held = 0;
    for (let i = first; i < last; i++) {
      // The row's own step over the same keys: absent when a causal mask never reads them for it.
      const t = run.tiles.find((x) => x.row === i && x.start === start);
      const name = (what) => `Row ${i + 1}, ${what}`;
      const cells = [];
      for (let j = start; j < end; j++) {
        const score = t?.scores[j - start];
        if (!t) cells.push(h('td', { class: 'skipped', 'aria-label': name(`key ${j + 1}: never read, all these keys come after the row`), text: '' }));
        else if (score === undefined) cells.push(h('td', { class: 'masked', 'aria-label': name(`key ${j + 1}: after the row, masked`), text: '−∞' }));
        else cells.push(h('td', { 'aria-label': name(`key ${j + 1}: ${format(score)}`), dataset: { value: score }, text: format(score) }));
      }
      if (t) held += end - start;
      const state = t ? [['running max m', t.max], ['rescale', t.rescale], ['running sum ℓ', t.sum]].map(([what, x]) =>
        h('td', { 'aria-label': name(`${what}: ${format(x)}`), dataset: { value: x }, text: format(x) }))
        : [h('td', { colspan: 3, class: 'skipped-note', text: 'this tile skipped' })];
      rows.push(h('tr', { class: i === row ? 'current' : null, dataset: { row: i + 1 } },
        h('th', { scope: 'row', text: `row ${i + 1}` }), cells, state));
    }
    const keys = [];
    for (let j = start; j < end; j++) keys.push(h('th', { scope: 'col', text: `k${sub(j + 1)}` }));
    const table = h('table', { class: 'grid computed lab-matrix flash-block-table', dataset: { matrix: 'block' } },
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), keys, ['m', 'rescale', 'ℓ'].map((c) => h('th', { scope: 'col', text: c })))),
      h('tbody', {}, rows));
    this.table.replaceChildren(h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: `The row block, ${last - first === 1 ? `row ${last}` : `rows ${first + 1}–${last}`}` }),
        `, at tile ${step} (${keysText(start, end)}): each row’s scores for it, then what the row carries`)),
      scrollBox(table, { label: 'The row block, scrolls sideways' })));
    const value = h('strong', { class: 'flash-block-held', dataset: { value: held }, text: `${held}` });
    const one = tile === 1 ? 'With B = 1 the block is the row itself: it reads these keys’ k and v and holds '
      : 'This last block has one row (n is not a multiple of B): it reads these keys’ k and v and holds ';
    this.said.replaceChildren(last - first === 1 ? one : `The ${last - first} rows of the block read these keys’ k and v once, together, and hold `, value,
      ` score${held === 1 ? '' : 's'} for them at once (B_r × B_c at most, ${tile} × ${tile} = ${tile * tile}), where the plain path holds all n × n = ${n * n}.`
      + ' Each row keeps its own m, ℓ and O: the rows of a block never mix.');
  }
}
