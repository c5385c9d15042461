// The seeded inputs of the labs past the lesson, drawn as the calculator's random preset draws its Q, K and V
// (mulberry32, uniform in −2 … 2, one decimal): the same numbers on every machine, short to read
// and to type over. Inputs only; every number computed from them is the core's.
import { mulberry32 } from '../../shared/random.js';

/** rows × cols numbers from `seed`, row by row. */
export function seededRows(seed, rows, cols) {
  const rand = mulberry32(seed);
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((rand() * 4 - 2) * 10) / 10 + 0)); // + 0: never −0
}
