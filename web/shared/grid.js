// An editable matrix: one <input> per cell, named "Q row i column j". Arrow keys and Enter move
// between cells; the matrix is one Tab stop (a roving tabindex, the ARIA grid pattern), so Tab
// goes on to the next matrix. Pasting several numbers replaces the whole matrix. While a cell
// has focus a "±" key (Change sign) shows beside the caption: a phone's decimal keypad (iOS's)
// has no minus key, so a touch there makes the number negative, and focus stays in the cell.
//
// A cell's text is committed on Enter, when focus leaves it, on a paste, or after COMMIT_MS
// without a keystroke. Text that may still become a number ('-', '1e') is not called wrong
// until it is committed, so the learner sees no error flash while typing -0.5 or 1e-3.
import { h } from './dom.js';
import { formatInput } from './format.js';
import { parseMatrixText, parseNumber } from './parse.js';

let nextId = 0;

/** How long typing must pause before the text counts as committed. */
export const COMMIT_MS = 300;

export class MatrixGrid {
  /**
   * @param {object} o
   * @param {string} o.name        'Q', 'K' or 'V': the start of each cell's accessible name
   * @param {Node}   o.caption     what the figure caption shows
   * @param {(i: number, j: number, value: number) => void} o.onCell     a cell now holds a valid number
   * @param {(rows: number[][]) => void} o.onPaste                       a whole matrix was pasted
   * @param {(i: number, j: number) => void} o.onValidityChange           a cell became invalid (or
   *        unfinished, such as '-') or valid again
   * @param {() => void} [o.onCommit]   the learner committed the text (Enter, blur, paste, a pause)
   * @param {(i: number, j: number, row?: string, col?: string) => string} [o.cellLabel]
   *        a cell's accessible name (0-based i, j, and the row and column labels if any);
   *        default "Q row 1 column 1"
   */
  constructor({ name, caption, onCell, onPaste, onValidityChange, onCommit = () => {}, cellLabel }) {
    this.name = name;
    this.cellLabel = cellLabel ?? ((i, j) => `${name} row ${i + 1} column ${j + 1}`);
    this.onCell = onCell;
    this.onPaste = onPaste;
    this.onValidityChange = onValidityChange;
    this.onCommit = onCommit;
    // "i,j" → message, for cells whose text is not a number; '' while it is unfinished and
    // uncommitted (its message waits for the commit).
    this.invalid = new Map();
    this.notice = '';      // about the grid as a whole, such as a paste that did not fit
    this.idle = null;      // the pending commit after a pause in typing
    this.commitNext = false; // a single pasted number commits as soon as it is in the cell
    this.dirty = false;      // typed into since the last commit
    this.typingIn = null;    // the cell the learner is typing in (focused, typed into), or null
    this.inputs = [];
    this.stop = [0, 0];      // the one cell Tab reaches: the last one focused
    this.messageId = `grid-message-${++nextId}`;
    this.table = h('table', { class: 'grid', role: 'grid', 'aria-label': name });
    this.message = h('p', { class: 'cell-message', id: this.messageId, role: 'alert' });
    // Not a Tab stop: a keyboard has its '-' key, and Tab goes on to the next matrix.
    this.signKey = h('button', {
      type: 'button', class: 'sign-key', text: '±', 'aria-label': 'Change sign', tabIndex: -1,
      on: {
        // A pointer changes the sign as it presses, as a keypad's key does, and before any blur
        // (iOS may take focus from the cell on a tap): focus stays in the cell, and a phone's
        // keyboard stays open. A click with no pointer (detail 0: assistive technology) too.
        pointerdown: (e) => {
          e.preventDefault();
          if (e.button === 0) this.#changeSign();
        },
        mousedown: (e) => e.preventDefault(),
        click: (e) => { if (e.detail === 0) this.#changeSign(); },
      },
    });
    this.element = h('figure', { class: 'matrix input-matrix' }, h('figcaption', {}, caption, this.signKey), this.table, this.message);
    this.table.addEventListener('input', (e) => this.#onInput(e.target));
    this.table.addEventListener('keydown', (e) => this.#onKeyDown(e));
    this.table.addEventListener('paste', (e) => this.#onPaste(e));
    this.table.addEventListener('focusin', (e) => {
      e.target.select?.();
      if (e.target.dataset?.i !== undefined) this.#rove(Number(e.target.dataset.i), Number(e.target.dataset.j));
      this.element.classList.toggle('signing', e.target instanceof HTMLInputElement && !e.target.readOnly);
    });
    this.table.addEventListener('focusout', () => {
      this.element.classList.remove('signing');
      this.typingIn = null;
      this.commit();
    });
  }

  /** The first problem, e.g. 'Q row 1 column 1: “abc” is not a number', or ''. */
  get error() {
    return [...this.invalid.values()].find(Boolean) ?? '';
  }

  /** Forgets every cell's problem and the notice: the grid is about to show a new state. */
  reset() {
    this.invalid.clear();
    this.notice = '';
    this.dirty = false;
    this.typingIn = null;
    clearTimeout(this.idle);
  }

  /** The text typed so far counts: an unfinished number now gets its message. */
  commit() {
    clearTimeout(this.idle);
    this.idle = null;
    if (!this.dirty) return;
    this.dirty = false;
    const named = [];
    for (const [key, message] of this.invalid) {
      if (message) continue;
      const [i, j] = key.split(',').map(Number);
      const input = this.inputs[i]?.[j];
      if (!input) {
        this.invalid.delete(key);
        continue;
      }
      this.invalid.set(key, `${this.labelOf(i, j)}: ${parseNumber(input.value).message}`);
      named.push([i, j]);
    }
    this.#showMessage();
    for (const [i, j] of named) this.onValidityChange(i, j);
    this.onCommit();
  }

  /**
   * Shows `values`; a cell being typed into keeps its text while it means the same number.
   * Optional labels name the rows and columns (such as tokens and features) in headers.
   */
  update(values, { readonly = false, rowLabels = null, colLabels = null } = {}) {
    const rows = values.length, cols = values[0].length;
    const labels = JSON.stringify([rowLabels, colLabels]);
    if (this.inputs.length !== rows || this.inputs[0].length !== cols || labels !== this.labels) {
      this.labels = labels;
      this.#build(rows, cols, rowLabels, colLabels);
    }
    for (const [key] of this.invalid) {
      const [i, j] = key.split(',').map(Number);
      if (i >= rows || j >= cols) this.invalid.delete(key);
    }
    values.forEach((row, i) =>
      row.forEach((x, j) => {
        const input = this.inputs[i][j];
        input.readOnly = readonly;
        if (this.invalid.has(`${i},${j}`)) return;
        const typed = parseNumber(input.value);
        if (!typed.ok || typed.value !== x) input.value = formatInput(x);
      }),
    );
    this.#showMessage();
  }

  /** Marks row `i` (or nothing, with -1) as the one an explanation refers to. */
  highlightRow(i) {
    this.inputs.forEach((row, r) => row.forEach((input) => input.classList.toggle('related', r === i)));
  }

  /** A message about the grid as a whole (a paste that did not fit), until the next edit. */
  notify(message) {
    this.notice = message;
    this.#showMessage();
  }

  focusCell(i, j) {
    this.inputs[i]?.[j]?.focus();
  }

  #build(rows, cols, rowLabels, colLabels) {
    this.labelOf = (i, j) => this.cellLabel(i, j, rowLabels?.[i], colLabels?.[j]);
    this.inputs = Array.from({ length: rows }, (_, i) =>
      Array.from({ length: cols }, (_, j) =>
        h('input', {
          type: 'text',
          inputmode: 'decimal',
          autocomplete: 'off',
          spellcheck: 'false',
          'aria-label': this.labelOf(i, j),
          dataset: { i, j },
        }),
      ),
    );
    const header = colLabels
      ? h('thead', {}, h('tr', {}, rowLabels ? h('td', { class: 'corner' }) : null, colLabels.map((text) => h('th', { scope: 'col', text }))))
      : null;
    this.stop = [Math.min(this.stop[0], rows - 1), Math.min(this.stop[1], cols - 1)];
    this.inputs.flat().forEach((input) => { input.tabIndex = -1; });
    this.inputs[this.stop[0]][this.stop[1]].tabIndex = 0;
    this.table.replaceChildren(...[header, ...this.inputs.map((row, i) =>
      h('tr', {}, rowLabels ? h('th', { scope: 'row', text: rowLabels[i] }) : null, row.map((input) => h('td', {}, input))))].filter(Boolean));
  }

  // The focused cell becomes the grid's Tab stop.
  #rove(i, j) {
    const [pi, pj] = this.stop;
    if (this.inputs[pi]?.[pj]) this.inputs[pi][pj].tabIndex = -1;
    this.stop = [i, j];
    this.inputs[i][j].tabIndex = 0;
  }

  #onInput(input) {
    if (!(input instanceof HTMLInputElement) || input.dataset.i === undefined) return;
    const i = Number(input.dataset.i), j = Number(input.dataset.j);
    const parsed = parseNumber(input.value);
    const key = `${i},${j}`;
    const wasInvalid = this.invalid.has(key);
    this.notice = '';
    this.dirty = true;
    this.typingIn = input;
    if (parsed.ok) {
      this.invalid.delete(key);
      this.#showMessage();
      this.onCell(i, j, parsed.value);
      if (wasInvalid) this.onValidityChange(i, j);
    } else {
      this.invalid.set(key, parsed.unfinished ? '' : `${this.labelOf(i, j)}: ${parsed.message}`);
      this.#showMessage();
      this.onValidityChange(i, j);
    }
    clearTimeout(this.idle);
    if (this.commitNext) {
      this.commitNext = false;
      this.commit();
    } else {
      this.idle = setTimeout(() => this.commit(), COMMIT_MS);
    }
  }

  // "±": the focused cell's number, or the text typed so far, with its sign changed ('' → '−',
  // '2.5' → '−2.5', '−2.5' and '+2.5' → '2.5' and '−2.5'), read as if typed.
  #changeSign() {
    const [i, j] = this.stop;
    const input = this.inputs[i]?.[j];
    if (!input || input.readOnly) return;
    if (input.getRootNode().activeElement !== input) input.focus();
    const text = input.value.trim();
    input.value = /^[-−–]/.test(text) ? text.slice(1) : `−${text.replace(/^\+/, '')}`;
    input.setSelectionRange(input.value.length, input.value.length);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }

  #showMessage() {
    this.message.textContent = this.error || this.notice;
    this.inputs.flat().forEach((input) => {
      const bad = Boolean(this.invalid.get(`${input.dataset.i},${input.dataset.j}`));
      // "true", not an empty value: ARIA reads aria-invalid="" as false.
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      if (bad) input.setAttribute('aria-describedby', this.messageId);
      else input.removeAttribute('aria-describedby');
    });
  }

  #onKeyDown(e) {
    const input = e.target;
    if (!(input instanceof HTMLInputElement) || e.altKey || e.ctrlKey || e.metaKey) return;
    const i = Number(input.dataset.i), j = Number(input.dataset.j);
    const rows = this.inputs.length, cols = this.inputs[0].length;
    const all = input.selectionStart === 0 && input.selectionEnd === input.value.length;
    const atStart = all || (input.selectionStart === 0 && input.selectionEnd === 0);
    const atEnd = all || input.selectionStart === input.value.length;
    let target = null;
    if (e.key === 'ArrowUp') target = [i - 1, j];
    else if (e.key === 'ArrowDown' || (e.key === 'Enter' && !e.shiftKey)) target = [i + 1, j];
    else if (e.key === 'Enter' && e.shiftKey) target = [i - 1, j];
    else if (e.key === 'ArrowLeft' && atStart) target = j > 0 ? [i, j - 1] : [i - 1, cols - 1];
    else if (e.key === 'ArrowRight' && atEnd) target = j < cols - 1 ? [i, j + 1] : [i + 1, 0];
    if (e.key === 'Enter') this.commit();
    if (!target) return;
    const [ti, tj] = target;
    if (ti < 0 || ti >= rows) return;
    e.preventDefault();
    this.focusCell(ti, tj);
  }

  #onPaste(e) {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    // A single number pastes into the cell as usual, and counts as committed at once; anything
    // with separators (or brackets) is a matrix.
    if (!/[\s;,\t\n[\]{}]/.test(text.trim())) {
      this.commitNext = text !== '' && !e.target.readOnly;
      return;
    }
    e.preventDefault();
    const parsed = parseMatrixText(text);
    if (!parsed.ok) {
      this.notify(`Could not paste into ${this.name}: ${parsed.message}`);
      return;
    }
    this.reset();
    this.onPaste(parsed.rows);
  }
}
