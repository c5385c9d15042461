// Messages shown to the learner (web/shared/last-valid.js): the core writes its messages in lower
// case, to be quoted inside others; on the page each one is a sentence with a capital.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { lastValidMessage, sentence } from '../../web/shared/last-valid.js';

it('a message shown to the learner starts with a capital and ends with one full stop', () => {
  assert.equal(sentence('the sentence has 33 words; the lab shows at most 16'), 'The sentence has 33 words; the lab shows at most 16.');
  assert.equal(sentence('a custom scale must be a number greater than 0.'), 'A custom scale must be a number greater than 0.');
  assert.equal(sentence('heads must be a whole number from 1 to 96'), 'Heads must be a whole number from 1 to 96.');
  assert.equal(sentence('entropy: the probabilities sum to 2'), 'Entropy: the probabilities sum to 2.');
  assert.equal(sentence('unknown panel “x”; the panels are formula, controls'), 'Unknown panel “x”; the panels are formula, controls.');
  assert.equal(sentence('Q row 1 column 1: “abc” is not a number'), 'Q row 1 column 1: “abc” is not a number.');
});

it('a first word that is a name from the code or the maths keeps its case', () => {
  for (const name of ['d_model 6 is not divisible by h = 4', 'dModel (6) must be at least 1', 'n and m must be at least 1',
    'q, k and v need one row per token', 'check_attention: V is 2×2', 'attention-calc: could not load x.wasm', '“abc” is not a number']) {
    assert.equal(sentence(name), `${name}.`);
  }
});

it('the last-valid message of a lab starts with a capital: the construct lab\'s sentence of 33 words', () => {
  assert.equal(lastValidMessage('the sentence has 33 words', 'sentence'), 'The sentence has 33 words. Showing the last valid sentence until this is fixed.');
  assert.equal(lastValidMessage('precision must be a whole number from 0 to 8, not 9', 'result', { kept: false }), 'Precision must be a whole number from 0 to 8, not 9.');
});
