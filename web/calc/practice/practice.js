// Practice mode: the lesson's steps as empty grids the learner fills in ("Your weights row 1
// column 2"), each entry marked by practice-check.js once it is committed against the core's
// numbers, with per-step progress, a hint and the answer for the cell in focus, "Reveal this
// step", the two checks for the learner to confirm, one polite live region that says each
// verdict, and the exercises. The attempt lives in the calculator's state (state.practice), so
// the link holds it; every change goes back through `apply`.
//
// The calculator's own parts (the grid, tex, the number reader, and state.js's presets, mask,
// grid shapes and empty attempt) are passed in, not imported: this module loads only when the
// learner practises. The steps' table (lesson-steps.js) is plain data it imports, as it does dom.js.
import { h, sub } from '../../shared/dom.js';
import { formatInput } from '../../shared/format.js';
import { STEP } from '../steps/lesson-steps.js';
import { checkPractice, exerciseResults, learnerRowSums, PRACTICE_STEPS, STEP_VALUES } from './practice-check.js';

/**
 * Practice mode's exercises: a preset (state.js's PRESETS), plain or causal. The random one is
 * the seeded random preset at 3 tokens and d = 2 with its entries rounded to whole numbers from
 * −2 to 2, so the arithmetic by hand stays hand-sized; the link holds its numbers and its seed.
 */
export const EXERCISES = {
  'worked': { label: 'Worked example', preset: 'worked', causal: false },
  'worked-causal': { label: 'Worked example, causal', preset: 'worked', causal: true },
  'exercise': { label: 'Exercise 1: V = [[0,0],[2,0],[0,2]]', preset: 'exercise', causal: false },
  'exercise-causal': { label: 'Exercise 1, causal', preset: 'exercise', causal: true },
  'random-int': { label: 'Random, small integers (seeded)', preset: 'random', causal: false },
};

/** The exercise a state is, or 'custom' for inputs of the learner's or the author's own. */
export function exerciseOf(state) {
  const plainMask = !state.padding.some(Boolean) && !state.hidden.some((row) => row.some(Boolean));
  const whole = (m) => m.every((row) => row.every(Number.isInteger));
  if (state.preset === 'random' && whole(state.q) && whole(state.k) && whole(state.v)) return 'random-int';
  if (!plainMask || !['worked', 'exercise'].includes(state.preset)) return 'custom';
  return `${state.preset}${state.causal ? '-causal' : ''}`;
}

const sizesOf = (state) => ({ n: state.q.length, m: state.k.length, dv: state.v[0].length });

// The lesson's word for a step: the calculator's cell names, lower-cased.
const word = (step) => STEP[step].name.toLowerCase();

// "Your scores", "Your row sum": the calculator's cell names with "Your ".
const cellName = (step, i, j) => (step === 'rowSum' ? `Your row sum row ${i + 1}` : `Your ${word(step)} row ${i + 1} column ${j + 1}`);
const yourName = (step) => (step === 'rowSum' ? 'Your row sum' : `Your ${word(step)}`);
const stepTitle = (step) => (step === 'rowSum' ? 'row sums' : word(step));

export class PracticeView {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn   the loaded core
   * @param {typeof import('../../shared/grid.js').MatrixGrid} o.MatrixGrid   the calculator's editable grid
   * @param {typeof import('../../shared/tex.js').tex} o.tex
   * @param {typeof import('../../shared/parse.js').parseNumber} o.parseNumber
   * @param {object} o.presets        state.js's PRESETS, which the exercises start from
   * @param {(state: object) => unknown} o.coreMask   state.js's coreMask
   * @param {typeof import('../state.js').answerShape} o.answerShape
   * @param {typeof import('../state.js').emptyPractice} o.emptyPractice
   * @param {(state: object) => void} o.apply      the attempt changed: the calculator's new state
   * @param {(state: object) => void} o.setState   a new exercise replaces the state
   */
  constructor({ attn, MatrixGrid, tex, parseNumber, presets, coreMask, answerShape, emptyPractice, apply, setState }) {
    this.attn = attn;
    this.parseNumber = parseNumber;
    this.coreMask = coreMask;
    this.answerShape = answerShape;
    this.apply = apply;
    this.truth = null; // { key, result, mistakes }: the core's, for the inputs last marked
    // The state of exercise `key` with nothing entered yet (`seed` for the random one).
    const exercise = (key, seed) => {
      const next = presets[EXERCISES[key].preset].make(seed, { n: 3, dk: 2, dv: 2 });
      if (key === 'random-int') for (const m of ['q', 'k', 'v']) next[m] = next[m].map((row) => row.map(Math.round));
      next.causal = EXERCISES[key].causal;
      next.practice = emptyPractice();
      setState(next);
    };
    const onExercise = (key) => { if (key !== 'custom') exercise(key, this.state.seed ?? 1); };
    const onNewExample = () => exercise('random-int', (this.state.seed ?? 0) + 1);
    const onReveal = (step) => this.#reveal(step);
    const onPaste = (step, rows) => this.#change(step, (mine) => {
      rows.forEach((row, i) => row.forEach((x, j) => { mine[i][j] = step === 'scaled' && this.result?.hidden[i][j] ? null : x; }));
    });
    this.pending = new Set(); // "step,i,j" typed but not yet committed: not marked yet
    this.focus = {};          // step → [i, j], the cell the step's feedback is about
    this.asked = {};          // step → 'hint' | 'answer': what the learner asked for that cell
    this.marks = null;
    this.live = h('p', { class: 'practice-live sr-only', role: 'status' });
    this.exerciseSelect = h('select', { 'aria-label': 'Exercise', on: { change: () => onExercise(this.exerciseSelect.value) } },
      Object.entries(EXERCISES).map(([key, e]) => h('option', { value: key, text: e.label })),
      h('option', { value: 'custom', text: 'Your own inputs (edit Q, K, V or the mask)' }));
    this.seedNote = h('span', { class: 'practice-seed' });
    this.newExample = h('button', { type: 'button', class: 'small', text: 'New random example', on: { click: () => onNewExample() } });
    this.summary = h('p', { class: 'practice-summary' });
    this.steps = new Map();
    const figures = PRACTICE_STEPS.map((step, index) => {
      const grid = new MatrixGrid({
        name: yourName(step),
        caption: [h('span', { class: 'step-number', text: `${index + 1}` }), tex(STEP[step].tex('none')), h('span', { class: 'step-note', text: STEP[step].note })],
        cellLabel: (i, j) => cellName(step, i, j),
        onCell: (i, j, value) => this.#entered(step, i, j, value),
        onPaste: (rows) => this.#paste(step, rows, onPaste),
        onValidityChange: (i, j) => this.#unreadable(step, i, j),
        onCommit: () => this.#committed(step),
      });
      grid.table.addEventListener('focusin', (e) => {
        if (e.target.dataset?.i === undefined) return;
        this.#point(step, Number(e.target.dataset.i), Number(e.target.dataset.j));
      });
      const progress = h('span', { class: 'practice-progress' });
      const verdict = h('p', { class: 'practice-verdict' });
      const detail = h('p', { class: 'practice-detail' });
      const hint = h('button', { type: 'button', class: 'small', text: 'Hint', on: { click: () => this.#ask(step, 'hint') } });
      const answer = h('button', { type: 'button', class: 'small', text: 'Answer', on: { click: () => this.#ask(step, 'answer') } });
      const reveal = h('button', { type: 'button', class: 'small', text: 'Reveal this step', on: { click: () => onReveal(step) } });
      this.steps.set(step, { grid, progress, verdict, detail, hint, answer, reveal, built: '' });
      return h('section', { class: `practice-step practice-${step}`, role: 'group', 'aria-label': `Step ${index + 1}: ${stepTitle(step)}` },
        h('div', { class: 'practice-step-head' }, progress),
        grid.element,
        h('div', { class: 'practice-feedback' }, verdict, detail, h('div', { class: 'control-row' }, hint, answer, reveal)));
    });
    this.sumsCheck = h('input', { type: 'checkbox', on: { change: () => this.#render() } });
    this.hullCheck = h('input', { type: 'checkbox', on: { change: () => this.#render() } });
    this.sumsNote = h('span', { class: 'practice-confirm-note' });
    this.hullNote = h('span', { class: 'practice-confirm-note' });
    this.confirm = h('section', { class: 'practice-confirm', role: 'group', 'aria-label': 'Your checks' },
      h('h3', { text: 'Your checks' }),
      h('p', { class: 'hint', text: 'Once your weights and outputs are in, check them as the lesson does, then tick.' }),
      h('p', {}, h('label', { class: 'toggle' }, this.sumsCheck, ' Each row of my A sums to 1'), ' ', this.sumsNote),
      h('p', {}, h('label', { class: 'toggle' }, this.hullCheck, ' Every output of mine lies inside the hull of the values'), ' ', this.hullNote));
    this.element = h('section', { class: 'practice', role: 'group', 'aria-label': 'Practice', part: 'practice', dataset: { panel: 'steps' } },
      h('div', { class: 'results-header' }, h('h2', { text: 'Practice: compute every number by hand' })),
      h('div', { class: 'control-row' }, h('label', { class: 'size' }, 'Exercise ', this.exerciseSelect), this.seedNote, this.newExample),
      h('p', { class: 'hint', text: 'Type each step’s numbers to the decimals asked for; each is checked when you press Enter or Tab, or pause. Focus a cell for its hint and answer.' }),
      this.summary, this.live, ...figures, this.confirm);
  }

  /** Forgets typed text that was not a number, and what was asked: a new exercise is coming. */
  reset() {
    for (const { grid } of this.steps.values()) grid.reset();
    this.pending.clear();
    this.asked = {};
    this.sumsCheck.checked = this.hullCheck.checked = false;
  }

  /**
   * Shows the attempt in `state`, marked against the core's numbers for the inputs of `shown`
   * (the calculator's last valid state while an input has a problem; null when there is none).
   */
  update({ state, shown, precision, readonly }) {
    const truth = shown && this.#truthFor(shown);
    this.state = state;
    this.result = truth?.result ?? null;
    this.marks = truth && checkPractice({ state: shown, result: truth.result, mistakes: truth.mistakes, answers: state.practice.answers, precision });
    this.precision = precision;
    const exercise = exerciseOf(state);
    this.exerciseSelect.value = exercise;
    this.exerciseSelect.querySelector('option[value="custom"]').hidden = exercise !== 'custom';
    this.exerciseSelect.disabled = readonly;
    this.seedNote.textContent = exercise === 'random-int' ? `seed ${state.seed ?? 0}` : '';
    this.newExample.hidden = exercise !== 'random-int' || readonly;
    for (const step of PRACTICE_STEPS) this.#sync(step, this.answerShape(step, sizesOf(state)), state.practice.answers[step]);
    this.#render();
  }

  // The grid of `step` at its size, holding the learner's entries (a cell whose text is not a
  // number keeps its text and its message).
  #sync(step, { rows, cols }, answers) {
    const { grid } = this.steps.get(step);
    const shape = `${rows}×${cols}`;
    const part = this.steps.get(step);
    if (part.built !== shape) {
      part.built = shape;
      const rowLabels = Array.from({ length: rows }, (_, i) => `${STEP[step].rows}${sub(i + 1)}`);
      const colLabels = Array.from({ length: cols }, (_, j) => (step === 'rowSum' ? 'Σ' : step === 'output' ? `${j + 1}` : `k${sub(j + 1)}`));
      grid.reset();
      grid.update(Array.from({ length: rows }, () => Array(cols).fill(0)), { rowLabels, colLabels });
      for (const input of grid.inputs.flat()) input.value = '';
      this.focus[step] = [0, 0];
    }
    grid.inputs.forEach((row, i) => row.forEach((input, j) => {
      const hidden = step === 'scaled' && this.result?.hidden[i]?.[j];
      input.readOnly = Boolean(hidden);
      if (hidden) {
        input.value = '−∞';
        return;
      }
      // Text that is not a number yet, and the cell the learner is typing in, keep their text:
      // the entry came from that text, and rewriting it would throw away a '-' or '.' typed.
      if (grid.invalid.has(`${i},${j}`) || input === grid.typingIn) return;
      const want = answers?.[i]?.[j] ?? null;
      const typed = this.parseNumber(input.value);
      if (want === null) {
        if (typed.ok || input.value === '−∞') input.value = '';
      } else if (!typed.ok || typed.value !== want) {
        input.value = formatInput(want);
      }
    }));
  }

  #render() {
    const marks = this.marks;
    let right = 0, total = 0;
    const done = [];
    for (const [step, part] of this.steps) {
      const m = marks?.[step];
      right += m?.right ?? 0;
      total += m?.total ?? 0;
      const revealed = this.state.practice.revealed.includes(step);
      if (m?.done) done.push(step);
      part.progress.textContent = m ? `${m.right} of ${m.total} right${m.done ? (revealed ? ' · revealed' : ' · ✓ step done') : ''}` : '';
      part.progress.classList.toggle('done', Boolean(m?.done));
      part.grid.inputs.forEach((row, i) => row.forEach((input, j) => {
        const cell = m?.cells[i]?.[j];
        const unread = Boolean(part.grid.invalid.get(`${i},${j}`));
        const status = unread ? 'unreadable' : this.pending.has(`${step},${i},${j}`) ? 'pending' : cell?.status ?? 'empty';
        for (const s of ['right', 'carried', 'wrong', 'given']) input.classList.toggle(s, status === s);
        // The grid marks text that is not a number; a checked entry is true or false.
        if (status === 'wrong' || unread) input.setAttribute('aria-invalid', 'true');
        else if (status === 'right' || status === 'carried') input.setAttribute('aria-invalid', 'false');
        else input.removeAttribute('aria-invalid');
      }));
      this.#renderFeedback(step);
    }
    const revealed = this.state.practice.revealed;
    this.summary.textContent = marks
      ? [
        `${right} of ${total} entries right.`,
        done.length === PRACTICE_STEPS.length ? 'Every step done.' : done.length ? `Steps done: ${done.map(stepTitle).join(', ')}.` : '',
        revealed.length ? `Revealed instead of typed: ${revealed.map(stepTitle).join(', ')}.` : '',
      ].filter(Boolean).join(' ')
      : 'The inputs cannot be computed; fix them to check your numbers.';
    this.#renderConfirm();
  }

  #renderFeedback(step) {
    const part = this.steps.get(step);
    const [i, j] = this.focus[step] ?? [0, 0];
    const cell = this.marks?.[step]?.cells[i]?.[j];
    const name = cellName(step, i, j);
    part.hint.setAttribute('aria-label', `Hint for ${name.toLowerCase()}`);
    part.answer.setAttribute('aria-label', `Answer for ${name.toLowerCase()}`);
    part.hint.disabled = part.answer.disabled = !cell || cell.status === 'given';
    const unread = part.grid.invalid.get(`${i},${j}`);
    part.verdict.className = `practice-verdict ${cell?.status ?? ''}`;
    part.verdict.textContent = !cell ? ''
      : unread ? `${name}: not a number yet.`
        : this.pending.has(`${step},${i},${j}`) ? `${name}: checked when you press Enter or Tab, or pause.`
          : cell.message ? `${name}: ${cell.message}` : '';
    const asked = this.asked[step];
    part.detail.textContent = !cell || !asked ? ''
      : asked === 'hint' ? `Hint: ${cell.hint}` : `Hint: ${cell.hint}. Answer: ${cell.answer}`;
  }

  #renderConfirm() {
    const sizes = { n: this.state.q.length, m: this.state.k.length };
    const sums = learnerRowSums(this.state.practice.answers, sizes, this.precision);
    const fmt = (x) => formatInput(Number(x.toFixed(this.precision)));
    if (!this.sumsCheck.checked) this.sumsNote.textContent = '';
    else if (sums.some((s) => s === null)) this.sumsNote.textContent = 'Fill in every weight first.';
    else {
      const bad = sums.findIndex((s) => !s.one);
      this.sumsNote.textContent = bad < 0
        ? `✓ Confirmed: your rows sum to ${sums.map((s) => fmt(s.sum)).join(', ')}, each 1 within rounding.`
        : `Row ${bad + 1} of your A sums to ${fmt(sums[bad].sum)}, not 1: look at that row again.`;
    }
    const outputs = this.marks?.output;
    if (!this.hullCheck.checked || !outputs) this.hullNote.textContent = '';
    else if (!outputs.done) this.hullNote.textContent = `Not yet: ${outputs.total - outputs.right} of your outputs are empty or not right.`;
    else {
      const inside = this.result.checks.outputInHull.every(Boolean);
      this.hullNote.textContent = inside
        ? '✓ Confirmed: every output is a convex combination of the values, so it lies inside their hull (the core’s check agrees).'
        : 'Not every output lies inside: some row of A does not sum to 1 here.';
    }
  }

  // The core's results for the exercise and its named mistakes, computed again only when the
  // inputs change; null when the core refuses them.
  #truthFor(state) {
    const inputs = { q: state.q, k: state.k, v: state.v, mask: this.coreMask(state) };
    const key = JSON.stringify(inputs);
    if (this.truth?.key !== key) {
      try {
        this.truth = { key, ...exerciseResults(this.attn, inputs) };
      } catch {
        this.truth = { key, result: null, mistakes: {} };
      }
    }
    return this.truth.result ? this.truth : null;
  }

  // --- the learner's entries ----------------------------------------------------------------

  // The attempt with `edit` applied to the step's rows, at the state's sizes.
  // The rows hold the entries that still fit the state's sizes (a resize keeps what it can).
  #change(step, edit) {
    const next = structuredClone(this.state);
    const { rows: n, cols } = this.answerShape(step, sizesOf(next));
    const old = next.practice.answers[step];
    const rows = Array.from({ length: n }, (_, i) => Array.from({ length: cols }, (_, j) => old?.[i]?.[j] ?? null));
    edit(rows);
    next.practice.answers[step] = rows;
    this.apply(next);
  }

  // "Reveal this step": the core's numbers at the precision asked for, and the summary says so.
  #reveal(step) {
    if (!this.result) return;
    const p = this.precision;
    const values = STEP_VALUES[step](this.result);
    this.#change(step, (rows) => values.forEach((row, i) => row.forEach((x, j) => { rows[i][j] = Number.isFinite(x) ? Number(x.toFixed(p)) : null; })));
    if (!this.state.practice.revealed.includes(step)) {
      const next = structuredClone(this.state);
      next.practice.revealed.push(step);
      this.apply(next);
    }
    this.live.textContent = `${yourName(step)}: revealed.`;
  }

  #point(step, i, j) {
    const [pi, pj] = this.focus[step] ?? [];
    if (pi !== i || pj !== j) this.asked[step] = null;
    this.focus[step] = [i, j];
    this.#renderFeedback(step);
  }

  #entered(step, i, j, value) {
    this.pending.add(`${step},${i},${j}`);
    this.focus[step] = [i, j];
    this.#change(step, (rows) => { rows[i][j] = value; });
  }

  // The text stopped being a number: the entry is empty until it is one again. An emptied cell
  // is simply empty, not an error. The grid also calls this when the text becomes a number
  // again ('-' then '-1'); #entered has then recorded the number, which must stay.
  #unreadable(step, i, j) {
    const { grid } = this.steps.get(step);
    if (!grid.invalid.has(`${i},${j}`)) return;
    if (grid.inputs[i]?.[j]?.value.trim() === '') {
      grid.invalid.delete(`${i},${j}`);
      grid.notify('');
    }
    this.pending.add(`${step},${i},${j}`);
    this.focus[step] = [i, j];
    this.#change(step, (rows) => { rows[i][j] = null; });
  }

  // Enter, Tab, leaving the grid or a pause: the step's entries are marked, and the verdict of
  // the cell last typed in is said (politely, in the one live region).
  #committed(step) {
    const mine = [...this.pending].filter((k) => k.startsWith(`${step},`));
    if (mine.length === 0) return;
    for (const k of mine) this.pending.delete(k);
    this.#render();
    const [i, j] = this.focus[step] ?? [0, 0];
    const cell = this.marks?.[step]?.cells[i]?.[j];
    const unread = this.steps.get(step).grid.invalid.get(`${i},${j}`);
    if (unread) this.live.textContent = unread;
    else if (cell && cell.status !== 'empty') this.live.textContent = `${cellName(step, i, j)}: ${cell.message}`;
  }

  #paste(step, rows, onPaste) {
    const { grid } = this.steps.get(step);
    const want = `${grid.inputs.length}×${grid.inputs[0].length}`;
    if (`${rows.length}×${rows[0].length}` !== want) {
      grid.notify(`Could not paste into ${yourName(step).toLowerCase()}: it is ${rows.length}×${rows[0].length}, and this step is ${want}`);
      this.#render(); // the grid's message cleared the marks
      return;
    }
    onPaste(step, rows);
    this.live.textContent = `Pasted into ${yourName(step).toLowerCase()}: ${this.marks?.[step]?.right ?? 0} of ${this.marks?.[step]?.total ?? 0} right.`;
  }

  #ask(step, what) {
    this.asked[step] = what;
    this.#renderFeedback(step);
    this.live.textContent = this.steps.get(step).detail.textContent;
  }
}
