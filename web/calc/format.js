// How numbers are written on the page: fixed decimals, a typographic minus, −∞ for masked.

export function format(x, decimals = 3) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return '—'; // never expected: the core never returns NaN
  const fixed = x.toFixed(decimals);
  // No "−0.000": a value that rounds to zero is written as zero.
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
}

/** An input as the learner typed it: 1, −0.5 (no padding zeros). */
export function formatInput(x) {
  return String(Object.is(x, -0) ? 0 : x).replace('-', '−');
}
