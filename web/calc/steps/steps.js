// The lesson's steps as labelled matrices: scores, scaled, masked, exp, row sums, weights (with
// a heatmap), output. Each computed cell is focusable and named "Scores row i column j" etc.;
// focusing, hovering or tapping it asks for its explanation. The weights and the output are the
// result, shown beside the inputs (resultElement); the five steps before them, in `element`, can
// be shown one at a time (stepper.js).
import { h, sub } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { heatmapSvg } from '../../shared/heatmap.js';
import { Stepper } from './stepper.js';
import { STEPS } from './lesson-steps.js';
import { tex } from '../../shared/tex.js';

/** The steps shown as the result, beside the inputs. */
export const RESULT_STEPS = new Set(['weights', 'output']);

let cellIds = 0; // ids for aria-describedby, unique in any one shadow root or page

// Where the mouse last was. When the page scrolls (focusing a cell scrolls it into view), the
// browser fires mouseover for whatever slid under a pointer that stood still; that is not the
// learner pointing, and must not replace the explanation of the cell they focused.
let lastMouse = null;
globalThis.window?.addEventListener('mousemove', (e) => { lastMouse = [e.clientX, e.clientY]; }, { capture: true, passive: true });
const pointerMoved = (e) => lastMouse === null || e.clientX !== lastMouse[0] || e.clientY !== lastMouse[1];

export class StepsView {
  /**
   * @param {(step: string, i: number, j: number) => void} onExplain
   * @param {(svg: SVGElement) => void} onSaveHeatmap
   */
  constructor({ onExplain, onSaveHeatmap }) {
    this.onExplain = onExplain;
    this.tables = new Map();
    this.captions = new Map();
    this.heatmapBox = h('div', { class: 'heatmap-box' });
    this.saveButton = h('button', { type: 'button', class: 'small', text: 'Save heatmap as SVG', on: { click: () => onSaveHeatmap(this.heatmapBox.querySelector('svg')) } });
    this.element = h('div', { class: 'steps' });
    this.resultElement = h('div', { class: 'steps result-steps' });
    this.figures = new Map();
    STEPS.forEach((step, index) => {
      const caption = h('span', { class: 'step-tex' });
      const table = h('table', { class: 'grid computed', dataset: { step: step.key } });
      this.tables.set(step.key, table);
      this.captions.set(step.key, caption);
      const panel = step.key === 'weights' ? 'weights' : 'steps';
      const figure = h('figure', { class: `matrix step step-${step.key}`, part: panel === 'weights' ? 'weights' : null, dataset: { panel } },
        h('figcaption', {}, h('span', { class: 'step-number', text: `${index + 1}` }), caption, h('span', { class: 'step-note', text: step.note })),
        table);
      if (step.key === 'weights') figure.append(this.heatmapBox, this.saveButton);
      this.figures.set(step.key, figure);
      (RESULT_STEPS.has(step.key) ? this.resultElement : this.element).append(figure);
    });
    this.stepper = new Stepper({ steps: STEPS, figures: this.figures, elsewhere: RESULT_STEPS });
    this.mode = null;
    for (const box of [this.element, this.resultElement]) {
      box.addEventListener('focusin', (e) => this.#explainFrom(e.target));
      box.addEventListener('mouseover', (e) => {
        if (!pointerMoved(e)) return;
        this.#explainFrom(e.target);
      });
      box.addEventListener('click', (e) => this.#explainFrom(e.target, true));
      box.addEventListener('keydown', (e) => this.#onKeyDown(e));
    }
  }

  /** onlyWeights: update the weights alone (the other steps are hidden). */
  update(result, state, precision = 3, { onlyWeights = false } = {}) {
    this.stepper.update(result.weights.length, state.pitfall);
    if (this.mode !== state.pitfall) {
      this.mode = state.pitfall;
      for (const step of STEPS) this.captions.get(step.key).replaceChildren(tex(step.tex(state.pitfall)));
    }
    for (const step of STEPS) {
      if (onlyWeights && step.key !== 'weights') continue;
      const values = step.values(result);
      const table = this.tables.get(step.key);
      const rows = values.length, cols = values[0].length;
      if (table.rows.length !== rows + 1 || table.rows[0].cells.length !== cols + 1) this.#build(table, step, rows, cols);
      values.forEach((row, i) =>
        row.forEach((x, j) => {
          const cell = table.rows[i + 1].cells[j + 1];
          cell.firstChild.textContent = format(x, precision);
          cell.classList.toggle('masked', x === -Infinity || (step.key !== 'rowSum' && step.key !== 'output' && result.hidden[i][j]));
          cell.classList.toggle('fully-masked', result.fullyMasked[i]);
        }),
      );
    }
    this.heatmapBox.replaceChildren(heatmapSvg(result.weights, result.hidden));
  }

  #build(table, step, rows, cols) {
    const header = h('tr', {}, h('td', { class: 'corner' }));
    for (let j = 0; j < cols; j++) {
      const label = step.cols === null ? 'Σ' : step.cols === '' ? `${j + 1}` : `${step.cols}${sub(j + 1)}`;
      header.append(h('th', { scope: 'col', text: label }));
    }
    const body = [header];
    for (let i = 0; i < rows; i++) {
      const tr = h('tr', {}, h('th', { scope: 'row', text: `${step.rows}${sub(i + 1)}` }));
      for (let j = 0; j < cols; j++) {
        const name = step.key === 'rowSum' ? `Row sum row ${i + 1}` : `${step.name} row ${i + 1} column ${j + 1}`;
        const value = h('span', { id: `value-${++cellIds}` });
        tr.append(h('td', {
          tabindex: i === 0 && j === 0 ? '0' : '-1',
          'aria-label': name,
          'aria-describedby': value.id,
          dataset: { step: step.key, i, j },
        }, value));
      }
      body.push(tr);
    }
    table.replaceChildren(...body);
  }

  #explainFrom(target, tapped = false) {
    const cell = target.closest?.('td[data-step]');
    if (!cell) return;
    if (tapped && cell.getRootNode().activeElement !== cell) cell.focus({ preventScroll: true });
    this.onExplain(cell.dataset.step, Number(cell.dataset.i), Number(cell.dataset.j));
  }

  // Arrow keys move between the cells of one step; each step is a single Tab stop.
  #onKeyDown(e) {
    const cell = e.target.closest?.('td[data-step]');
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!cell || !moves[e.key]) return;
    const table = cell.closest('table');
    const i = Number(cell.dataset.i) + moves[e.key][0], j = Number(cell.dataset.j) + moves[e.key][1];
    const next = table.querySelector(`td[data-i="${i}"][data-j="${j}"]`);
    if (!next) return;
    e.preventDefault();
    cell.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }
}
