// How numbers are written on the page: fixed decimals, a typographic minus, −∞ for masked, and
// large magnitudes in exponent notation so that no number widens its table.

/**
 * From this magnitude on, fixed decimals grow wide ("1234567.000", and past 1e21 toFixed itself
 * gives every digit: 4.4580828316543725e+29): such numbers keep the same count of decimals in
 * exponent notation, 4.458e+29. Smaller ones round to the decimals, so they stay short.
 */
export const EXPONENT_FROM = 1e6;

export function format(x, decimals = 3) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return '—'; // never expected: the core never returns NaN
  const fixed = x.toFixed(decimals);
  if (Math.abs(Number(fixed)) >= EXPONENT_FROM) return x.toExponential(decimals).replace('-', '−');
  // No "−0.000": a value that rounds to zero is written as zero.
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
}

/**
 * An input as the learner typed it, exactly: 1, −0.5 (no padding zeros). Where its digits run
 * long (1e20 as 100000000000000000000, 0.0000012), the exponent form when it is shorter: 1e+20,
 * 1.2e−6.
 */
export function formatInput(x) {
  const plain = String(Object.is(x, -0) ? 0 : x);
  const exponent = x.toExponential();
  return (plain.length > 8 && exponent.length < plain.length ? exponent : plain).replace(/-/g, '−');
}
