// Input matrices of the lesson's examples (its worked example and its first exercise).
// Only inputs live here: every number derived from them comes from the core.
export const WORKED_EXAMPLE = Object.freeze({
  q: [[1, 1], [0, 1], [-1, 0]],
  k: [[1, 0], [0, 1], [-1, 0]],
  v: [[1, 0], [0, 1], [1, 1]],
});

// The exercise "By hand: a new worked example" changes V only.
export const EXERCISE_V = [[0, 0], [2, 0], [0, 2]];
