// The exactness claim over every tile size, and the floats each path holds. The tiled Z for
// B = 1 … n against attention()'s, and both peaks, are the core's (tiledAttention counts them with
// its allocator); this module takes the largest difference and draws.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { tex } from '../../shared/tex.js';
import { scrollBox } from '../widgets/scroll-cue.js';

const BOUND = 1e-6;
const fmt = (x) => x.toLocaleString('en-US');

/** A difference as the lab writes it: 0, 3 decimals (0.386), or below 0.001 in exponent form (6.0e−8). */
export const small = (x) => (x === 0 ? '0' : x >= 1e-3 ? format(x) : x.toExponential(1).replace('-', '−'));

/** The largest |a − b| over two equal-shaped matrices. */
const largest = (a, b) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));

export class SizesPart {
  /**
   * tiledAttention for every tile size, against Z from attention().
   * @returns {{ tile: number, read: number, skipped: number, peakFloats: number, difference: number }[]}
   */
  static measure(attn, { q, k, v }, causal, z) {
    return k.map((_, t) => {
      const r = attn.tiledAttention(q, k, v, { tile: t + 1, causal });
      return { tile: t + 1, read: r.tiles.length, skipped: r.skipped, peakFloats: r.peakFloats, difference: largest(r.output, z) };
    });
  }

  constructor() {
    this.table = h('div');
    this.verdict = h('p', { class: 'lab-verdict flash-sizes-verdict' });
    this.element = h('section', { class: 'flash-part flash-sizes', role: 'group', 'aria-label': 'Every tile size' },
      h('h3', { text: 'The same Z for every tile size' }),
      h('p', {}, 'The tiles change the order in which the sums are added, not what is summed: whatever B, the output after the last tile is Z. Here every row, for every tile size, against the calculator’s attention() on the same Q, K and V.'),
      h('div', { class: 'lab-results' }, this.table, this.verdict));
  }

  show(sizes, current) {
    const cell = (x, name, text) => h('td', { 'aria-label': `${name}: ${text}`, dataset: { value: x }, text });
    this.table.replaceChildren(h('figure', { class: 'matrix lab-figure' },
      h('figcaption', {}, h('span', {}, h('strong', { text: 'Every tile size' }), ': tiles read and skipped over all rows, floats held, and the largest |O − Z|')),
      scrollBox(h('table', { class: 'grid computed lab-matrix', dataset: { matrix: 'sizes' } },
        h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ['tiles read', 'skipped', 'floats held', 'largest |O − Z|'].map((text) => h('th', { scope: 'col', text })))),
        h('tbody', {}, sizes.map((s) => h('tr', { class: s.tile === current ? 'current' : null, dataset: { tile: s.tile } },
          h('th', { scope: 'row', text: `B = ${s.tile}` }),
          cell(s.read, `B = ${s.tile}, tiles read`, fmt(s.read)),
          cell(s.skipped, `B = ${s.tile}, tiles skipped`, fmt(s.skipped)),
          cell(s.peakFloats, `B = ${s.tile}, floats held`, fmt(s.peakFloats)),
          cell(s.difference, `B = ${s.tile}, largest difference from Z`, small(s.difference)))))),
      { label: 'Every tile size, scrolls sideways' })));
    const worst = Math.max(...sizes.map((s) => s.difference));
    const value = h('strong', { class: 'flash-worst', dataset: { value: worst }, text: small(worst) });
    this.verdict.replaceChildren(...(worst < BOUND
      ? [`For every B from 1 to ${sizes.length}, the largest difference over all rows is `, value, ': under 1e−6, float32 rounding.']
      : ['The largest difference is ', value, ': above 1e−6.']));
  }
}

export class MemoryPart {
  constructor() {
    this.cards = h('div', { class: 'stat-cards' });
    this.sentence = h('p', { class: 'flash-memory-note' });
    this.element = h('section', { class: 'flash-part flash-memory', role: 'group', 'aria-label': 'Floats held' },
      h('h3', { text: 'Memory: the floats each path holds at once' }),
      h('p', {}, 'Counted by the core’s allocator as it runs, for the Q, K and V above: the plain path holds every score before it can take a softmax, then Z; the tiled path holds one tile of scores, m and ℓ for each row, and Z.'),
      this.cards, this.sentence);
  }

  show(run, { n, dv, tile }) {
    const card = (key, title, value, note) => h('div', { class: 'stat-card', dataset: { stat: key } },
      h('span', { class: 'stat-title' }, title), h('strong', { class: 'stat-value', dataset: { value }, text: `${fmt(value)} floats` }), h('span', { class: 'stat-expected', text: note }));
    this.cards.replaceChildren(
      card('plain', ['Plain path: ', tex('n^2 + n\\,d_v')], run.fullPeakFloats, `n = ${n}, d_v = ${dv}: every score, then Z`),
      card('tiled', ['Tiled path: ', tex('B + 2n + n\\,d_v')], run.peakFloats, `B = ${tile}: one tile of scores, m and ℓ per row, Z`));
    this.sentence.textContent = run.peakFloats < run.fullPeakFloats
      ? `Here the tiles hold ${fmt(run.peakFloats)} floats where the plain path holds ${fmt(run.fullPeakFloats)}. The scores grow as n², the tiled path’s floats as n: at thousands of tokens the n × n scores are what does not fit, and what the tiles save. The arithmetic is the same n² either way.`
      : `At so small an n, m and ℓ for each row cost as much as the scores they replace: ${fmt(run.peakFloats)} floats against ${fmt(run.fullPeakFloats)}. The scores grow as n², the tiled path’s floats as n: at thousands of tokens the n × n scores are what does not fit, and what the tiles save.`;
  }
}
