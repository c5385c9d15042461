// Mask controls: the causal checkbox, a padding toggle per token, and a grid where each cell
// hides or shows one key for one query. The grid shows the combined mask and why each key is
// hidden, as the core reports it (attn.maskReasons).
import { h, sub } from '../shared/dom.js';

const WHY = { causal: 'hidden by the causal mask', padding: 'hidden: padding token', custom: 'hidden by you' };

export class MaskControls {
  /**
   * @param {(causal: boolean) => void} o.onCausal
   * @param {(j: number, padded: boolean) => void} o.onPadding
   * @param {(i: number, j: number) => void} o.onCell     a grid cell was clicked
   */
  constructor({ onCausal, onPadding, onCell }) {
    this.causal = h('input', { type: 'checkbox', on: { change: () => onCausal(this.causal.checked) } });
    this.padding = h('div', { class: 'padding-toggles', role: 'group', 'aria-label': 'Padding tokens' });
    this.padding.addEventListener('change', (e) => onPadding(Number(e.target.dataset.j), e.target.checked));
    this.grid = h('table', { class: 'mask-grid' });
    this.grid.addEventListener('click', (e) => {
      const cell = e.target.closest('button[data-i]');
      if (cell) onCell(Number(cell.dataset.i), Number(cell.dataset.j));
    });
    this.element = h('div', { class: 'masks' },
      h('div', { class: 'control-row' },
        h('label', { class: 'toggle' }, this.causal, ' Causal mask'),
        h('span', { class: 'hint', text: 'token i sees only tokens 1…i' })),
      h('p', { class: 'label', text: 'Padding (hide a token from every query):' }),
      this.padding,
      h('details', { class: 'mask-details' },
        h('summary', { text: 'Mask grid: click a cell to hide or show a key for one query' }),
        this.grid));
  }

  /** `reasons`: the core's hiddenBy grid for the state's mask (n×n lists of rules). */
  update(state, reasons, { readonly = false } = {}) {
    const n = state.q.length;
    this.causal.checked = state.causal;
    this.causal.disabled = readonly;
    if (this.padding.children.length !== n) {
      this.padding.replaceChildren(...Array.from({ length: n }, (_, j) =>
        h('label', { class: 'toggle' }, h('input', { type: 'checkbox', dataset: { j }, 'aria-label': `Padding token ${j + 1}` }), ` ${j + 1}`)));
    }
    [...this.padding.querySelectorAll('input')].forEach((box, j) => {
      box.checked = state.padding[j];
      box.disabled = readonly;
    });
    if (this.grid.rows.length !== n + 1) this.#build(n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const button = this.grid.rows[i + 1].cells[j + 1].firstChild;
        const why = reasons[i][j];
        button.textContent = why.length ? '✕' : '✓';
        // Coloured by the first rule that hides it (causal, padding, then custom).
        button.className = why.length ? `hidden-by-${why[0]}` : 'visible';
        button.setAttribute('aria-pressed', String(why.length > 0));
        button.title = why.length ? why.map((rule) => WHY[rule]).join('; ') : 'visible';
        button.disabled = readonly;
      }
    }
  }

  #build(n) {
    const head = h('tr', {}, h('td', { class: 'corner', text: 'q \\ k' }), Array.from({ length: n }, (_, j) => h('th', { scope: 'col', text: `k${sub(j + 1)}` })));
    const rows = Array.from({ length: n }, (_, i) =>
      h('tr', {}, h('th', { scope: 'row', text: `q${sub(i + 1)}` }),
        Array.from({ length: n }, (_, j) => h('td', {}, h('button', { type: 'button', 'aria-label': `Mask query ${i + 1} key ${j + 1}`, dataset: { i, j } })))));
    this.grid.replaceChildren(head, ...rows);
  }
}
