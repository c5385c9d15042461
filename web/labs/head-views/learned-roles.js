// What a learned head does, read off the core's numbers: its role labels (a score at or above a
// stated threshold), the token it looks at most from a position, its top weights per query, and
// the position an induction head should look at. Every score comes from model.run(); this file
// only compares and sorts them.

/** A head earns a role's label when that role's score is at least this. */
export const ROLE_THRESHOLD = 0.5;

/** The three measured roles, in the order the captions list their scores. */
export const ROLES = [
  { key: 'previousToken', label: 'previous-token head', score: 'previous token', means: 'the mean weight each token puts on the token just before it' },
  { key: 'induction', label: 'induction head', score: 'induction', means: 'the mean weight a repeated token puts on the token that followed its previous occurrence' },
  { key: 'firstToken', label: 'attention sink', score: 'first token', means: 'the mean weight each token puts on ⟨bos⟩, the first token' },
];

/** Whether a head's score earns a role's label (a score of null, e.g. induction without a repeat, earns none). */
export const earns = (head, role) => head[role.key] !== null && head[role.key] >= ROLE_THRESHOLD;

/** The labels a head's scores earn. */
export function roleLabels(head) {
  return ROLES.filter((r) => earns(head, r)).map((r) => r.label);
}

/** A token as a label: BOS as ⟨bos⟩, the space as ␣. */
export function tokenLabel(token) {
  if (token === '<bos>') return '⟨bos⟩';
  return token === ' ' ? '␣' : token;
}

/** The key that query i weighs most (the earliest on a tie), with its weight. */
export function strongestKey(weights, i) {
  let best = 0;
  for (let j = 1; j <= i; j++) if (weights[i][j] > weights[i][best]) best = j;
  return { key: best, weight: weights[i][best] };
}

/** The `count` heaviest keys of query i, heaviest first: [{ key, weight }]. */
export function topKeys(weights, i, count) {
  return weights[i].slice(0, i + 1).map((weight, key) => ({ key, weight }))
    .sort((a, b) => b.weight - a.weight || a.key - b.key).slice(0, count);
}

/**
 * The latest earlier position of the token at i (BOS never repeats), or −1. An induction head
 * at i looks at the position after it.
 */
export function previousOccurrence(tokens, i) {
  if (i < 1) return -1;
  for (let j = i - 1; j >= 1; j--) if (tokens[j] === tokens[i]) return j;
  return -1;
}

/** The last position whose token occurred before: where an induction head shows best. */
export function lastRepeat(tokens) {
  for (let i = tokens.length - 1; i >= 1; i--) if (previousOccurrence(tokens, i) >= 0) return i;
  return -1;
}
