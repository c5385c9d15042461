// Issue 12: practice mode's marking (web/calc/practice/practice-check.js) on the core's real results:
// right, carried, each named mistake, hints with the learner's own operands, and the answer.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { checkPractice, exerciseResults, learnerRowSums, PRACTICE_STEPS, STEP_VALUES } from '../../web/calc/practice/practice-check.js';

const Q = [[1, 1], [0, 1], [-1, 0]];
const K = [[1, 0], [0, 1], [-1, 0]];
const V = [[1, 0], [0, 1], [1, 1]];
const EXERCISE_V = [[0, 0], [2, 0], [0, 2]];

const round = (x, p = 3) => (x === -Infinity ? null : Number(x.toFixed(p)));
// A result's steps, rounded as a learner would type them (masked −∞ left empty: it is given).
const typed = (result, steps = PRACTICE_STEPS, p = 3) =>
  Object.fromEntries(steps.map((s) => [s, STEP_VALUES[s](result).map((row) => row.map((x) => round(x, p)))]));
const statuses = (marks, step) => marks[step].cells.flat().map((c) => c.status);

describe('practice checking', () => {
  let attn;
  before(async () => { attn = await loadAttention(); });
  const mark = (inputs, answers, precision = 3) => {
    const { result, mistakes } = exerciseResults(attn, inputs);
    return checkPractice({ state: inputs, result, mistakes, answers, precision });
  };

  for (const [name, v, mask] of [['worked example', V, 'none'], ['worked example, causal', V, 'causal'], ['exercise 1', EXERCISE_V, 'none'], ['exercise 1, causal', EXERCISE_V, 'causal']]) {
    it(`the ${name} typed as the core's values to 3 decimals is all right, every step done`, () => {
      const inputs = { q: Q, k: K, v, mask };
      const marks = mark(inputs, typed(attn.attention(inputs)));
      for (const step of PRACTICE_STEPS) {
        assert.ok(marks[step].done, `${step}: ${marks[step].right} of ${marks[step].total}`);
        assert.ok(statuses(marks, step).every((s) => s === 'right' || s === 'given'), `${step}: ${statuses(marks, step)}`);
      }
      // Under the causal mask the hidden keys' masked scores are given, not typed.
      assert.equal(marks.scaled.total, mask === 'causal' ? 6 : 9);
    });
  }

  it('nothing typed is empty, not wrong, and no step is done', () => {
    const marks = mark({ q: Q, k: K, v: V, mask: 'none' }, {});
    for (const step of PRACTICE_STEPS) {
      assert.ok(statuses(marks, step).every((s) => s === 'empty'));
      assert.equal(marks[step].right, 0);
      assert.equal(marks[step].done, false);
    }
  });

  it('d_k scaling, no scale and transposed scores are named', () => {
    // d_k = 3 and uneven scores, so 1/d_k, 1 and 1/√d_k differ in every cell.
    const inputs = { q: [[1, 2, 0], [0, 1, 3], [2, 0, 1]], k: [[1, 0, 1], [2, 1, 0], [0, 1, 1]], v: V, mask: 'none' };
    const { mistakes } = exerciseResults(attn, inputs);
    const cases = [['scale-dk', 'scaledBeforeMask', /scaled by d_k instead of √d_k/], ['no-scale', 'scaledBeforeMask', /not scaled/], ['transposed', 'scores', /transposed QKᵀ/]];
    for (const [key, step, message] of cases) {
      const marks = mark(inputs, typed(mistakes[key], [step]));
      const wrong = marks[step].cells.flat().filter((c) => c.status === 'wrong');
      assert.ok(wrong.length > 0, key);
      for (const cell of wrong) {
        assert.equal(cell.mistake, key);
        assert.match(cell.message, message);
      }
    }
  });

  it('the mask after the softmax is named on the weights it leaves unnormalised, and on the exp of a hidden key', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'causal' };
    const { mistakes } = exerciseResults(attn, inputs);
    const marks = mark(inputs, typed(mistakes['mask-after-softmax'], ['weights', 'exp']));
    // Row 2 sees keys 1 and 2: zeroing A₂₃ afterwards leaves A₂₁, A₂₂ unnormalised.
    assert.equal(marks.weights.cells[1][0].mistake, 'mask-after-softmax');
    assert.match(marks.weights.cells[1][0].message, /mask applied after the softmax/);
    assert.equal(marks.exp.cells[0][1].mistake, 'mask-after-softmax', 'exp₁₂ of a hidden key is not 0');
  });

  it('the row max not subtracted is said on the exp step, and counts as right', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const { result } = exerciseResults(attn, inputs);
    const exp = result.scaled.map((row) => row.map((x) => round(Math.exp(x))));
    const marks = mark(inputs, { exp });
    const cell = marks.exp.cells[0][0]; // e^0.707 = 2.028 instead of e^0 = 1
    assert.equal(cell.status, 'right');
    assert.equal(cell.mistake, 'no-row-max');
    assert.match(cell.message, /row max not subtracted.*weights come out the same/);
  });

  it('a column sum taken for a row sum is named', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const { result } = exerciseResults(attn, inputs);
    const rowSum = result.exp.map((_, i) => [round(result.exp.reduce((s, row) => s + row[i], 0))]);
    const marks = mark(inputs, { rowSum });
    const named = marks.rowSum.cells.flat().filter((c) => c.mistake === 'column-sum');
    assert.ok(named.length >= 1, JSON.stringify(marks.rowSum.cells));
    assert.match(named[0].message, /column sum/);
  });

  it('carried rounding counts as right and says so: exercise 1, z₁₂ from the learner\'s rounded A₁ is 0.216, not 0.217', () => {
    const inputs = { q: Q, k: K, v: EXERCISE_V, mask: 'none' };
    const weights = typed(attn.attention(inputs), ['weights']).weights; // row 1: 0.446, 0.446, 0.108
    const marks = mark(inputs, { weights, output: [[0.892, 0.216], [null, null], [null, null]] });
    assert.equal(marks.output.cells[0][0].status, 'right');
    const cell = marks.output.cells[0][1];
    assert.equal(cell.status, 'carried');
    assert.match(cell.message, /carried from your own numbers/);
    assert.match(cell.message, /0\.217/, 'and it gives the value from the exact numbers');
    assert.equal(marks.output.right, 2);
    // Without the learner's weights the same 0.216 is wrong: the carry is theirs.
    assert.equal(mark(inputs, { output: [[0.892, 0.216], [null, null], [null, null]] }).output.cells[0][1].status, 'wrong');
  });

  it('a right method on a wrong earlier entry is carried, and the message says the earlier entry is wrong', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const marks = mark(inputs, { exp: [[1, null, null], [null, null, null], [null, null, null]], rowSum: [[2.25], [null], [null]], weights: [[0.444, null, null], [null, null, null], [null, null, null]] });
    assert.equal(marks.rowSum.cells[0][0].status, 'wrong');
    assert.equal(marks.weights.cells[0][0].status, 'carried');
    assert.match(marks.weights.cells[0][0].message, /earlier entry is wrong/);
  });

  it('a hint that builds on an earlier entry marked wrong says so, and names the mistake where it is one', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const { result } = exerciseResults(attn, inputs);
    // Row sum 1 typed as column sum 1, the lesson's slip; exp₁₂ typed wrong with no name.
    const column = round(result.exp.reduce((s, row) => s + row[0], 0));
    const marks = mark(inputs, { rowSum: [[column], [null], [null]], exp: [[null, 5, null], [null, null, null], [null, null, null]] });
    assert.equal(marks.rowSum.cells[0][0].mistake, 'column-sum');
    const shown = column.toFixed(3);
    assert.match(marks.weights.cells[0][0].hint, new RegExp(`\\(uses your row sum₁ ${shown}, which is a column sum\\)$`));
    assert.match(marks.weights.cells[0][1].hint, new RegExp(`\\(uses your exp₁₂ 5.000, which is marked wrong, and your row sum₁ ${shown}, which is a column sum\\)$`));
    // Earlier entries that are right, or not made, add nothing; nor does another row's.
    assert.doesNotMatch(marks.weights.cells[1][0].hint, /uses your/);
    assert.doesNotMatch(mark(inputs, { rowSum: [[round(result.rowSum[0])], [null], [null]] }).weights.cells[0][0].hint, /uses your/);
    // The output's hint names a wrong weight it builds on, named by its mistake.
    const after = mark({ ...inputs, mask: 'causal' }, { weights: typed(attn.attention({ ...inputs, mask: 'causal', maskAfterSoftmax: true }), ['weights']).weights });
    assert.match(after.output.cells[1][0].hint, /uses your A₂₁ [\d.]+, which is the mask applied after the softmax/);
  });

  it('the hint is the formula with the learner\'s own operands, and the answer is the core\'s value', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const marks = mark(inputs, { exp: [[1, 1, 0.243], [null, null, null], [null, null, null]], rowSum: [[2.243], [null], [null]] });
    const a12 = marks.weights.cells[0][1];
    assert.equal(a12.hint, 'A₁₂ = exp₁₂ / row sum₁ = 1.000 / 2.243');
    assert.equal(a12.answer, '0.446');
    assert.equal(marks.rowSum.cells[0][0].hint, 'row sum₁ = exp₁₁ + exp₁₂ + exp₁₃ = 1.000 + 1.000 + 0.243');
    assert.equal(marks.scores.cells[2][0].hint, 'score₃₁ = q₃·k₁ = (−1)·1 + 0·0');
    // An operand not entered yet is a ?, and the hint says what that means.
    assert.match(marks.weights.cells[1][0].hint, /^A₂₁ = exp₂₁ \/ row sum₂ = \? \/ \? \(\? is an entry you have not made yet\)$/);
  });

  it('the precision decides: 0.4 for 0.446 is right at 1 decimal, wrong at 3', () => {
    const inputs = { q: Q, k: K, v: V, mask: 'none' };
    const answers = { weights: [[0.4, null, null], [null, null, null], [null, null, null]] };
    assert.equal(mark(inputs, answers, 1).weights.cells[0][0].status, 'right');
    assert.equal(mark(inputs, answers, 3).weights.cells[0][0].status, 'wrong');
    assert.match(mark(inputs, answers, 3).weights.cells[0][0].message, /^Not right: 0\.400 is not A₁₁ to 3 decimals/);
  });

  it('the learner\'s rows of A are summed for the check they confirm', () => {
    const sums = learnerRowSums({ weights: [[0.446, 0.446, 0.108], [0.5, 0.5, 0.1], [0.2, null, 0.3]] }, { n: 3, m: 3 });
    assert.equal(sums[0].one, true);
    assert.equal(sums[1].one, false);
    assert.equal(sums[2], null);
  });
});
