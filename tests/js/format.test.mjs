// How the page writes numbers (web/shared/format.js): the page's decimals, and large magnitudes in
// exponent notation so that a huge value cannot widen its table.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { format, formatInput } from '../../web/shared/format.js';

it('a large magnitude is written compactly with the page\'s decimals: V₁₁ = 1e30 gives Z₁₁ = 4.458e+29, not every digit', () => {
  assert.equal(format(4.4580828316543725e+29), '4.458e+29');
  assert.equal(format(-4.4580828316543725e+29), '−4.458e+29');
  assert.equal(format(4.4580828316543725e+29, 5), '4.45808e+29');
  assert.equal(format(123456789.25), '1.235e+8', 'below 1e21 too, where toFixed writes every digit');
  assert.equal(format(3.4e38, 2), '3.40e+38');
  // Where rounding reaches the threshold, the exponent form too.
  assert.equal(format(999999.9996), '1.000e+6');
  assert.equal(format(999999.9994), '999999.999');
  // Every value a float32 can hold fits in 11 characters at 3 decimals (−999999.999 is the longest).
  for (let e = -45; e <= 38; e++) {
    for (const x of [1.2345 * 10 ** e, -9.87654 * 10 ** e]) assert.ok(format(x).length <= 11, `${x} → ${format(x)}`);
  }
});

it('ordinary and small numbers keep fixed decimals and a typographic minus, never −0.000', () => {
  assert.equal(format(0.33), '0.330');
  assert.equal(format(-0.707107, 2), '−0.71');
  assert.equal(format(123.4567), '123.457');
  assert.equal(format(-0.0001), '0.000');
  assert.equal(format(1e-30), '0.000');
  assert.equal(format(-Infinity), '−∞');
});

it('an input is written exactly as typed, in exponent form only where that is shorter than long digits', () => {
  assert.equal(formatInput(1), '1');
  assert.equal(formatInput(-0.5), '−0.5');
  assert.equal(formatInput(-0), '0');
  assert.equal(formatInput(1234567), '1234567');
  assert.equal(formatInput(0.000001), '0.000001');
  assert.equal(formatInput(1e20), '1e+20', 'not 100000000000000000000');
  assert.equal(formatInput(1e30), '1e+30');
  assert.equal(formatInput(-0.0000012), '−1.2e−6');
  assert.equal(formatInput(0.1234567891), '0.1234567891', 'digits that carry the value stay');
  for (const x of [1e20, -0.0000012, 0.1234567891, 3.4e38]) assert.equal(Number(formatInput(x).replace(/−/g, '-')), x, `${x} is kept exactly`);
});
