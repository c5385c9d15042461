// Small matrices the labs build as inputs for the core.

/** The d×d identity, as rows. */
export function identity(d) {
  return Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1 : 0)));
}
