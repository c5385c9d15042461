// Timing in rounds, shared by the benchmarks: how many calls make a round, a round's time, and
// rounds taken in turns between several sides.

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** How many calls of fn make a round of at least minRoundMs, long enough to time reliably. */
export async function callsPerRound(fn, minRoundMs) {
  await fn();
  let reps = 1;
  for (;;) {
    const t = performance.now();
    for (let r = 0; r < reps; r++) await fn();
    if (performance.now() - t >= minRoundMs || reps >= 1 << 16) return reps;
    reps *= 2;
  }
}

// Milliseconds per call of one round of reps calls.
export async function timeRound(fn, reps) {
  const t = performance.now();
  for (let r = 0; r < reps; r++) await fn();
  return (performance.now() - t) / reps;
}

// Rounds that take turns: one round of each function, then the next round of each, so every
// comparison sees the same moment of the host. On a shared virtual machine the host's state
// changes for minutes at a time (the same code ran 1.7× slower for a while), which moves every
// median taken alone; a ratio of two rounds timed side by side does not move with it.
// Returns, per function, the milliseconds per call of each round (of at least minRoundMs).
export async function timeTakingTurns(fns, rounds, minRoundMs) {
  const reps = [];
  for (const fn of fns) reps.push(await callsPerRound(fn, minRoundMs));
  const times = fns.map(() => []);
  for (let k = 0; k < rounds; k++) {
    // Each round starts with the next function, so no side always runs first.
    for (let i = 0; i < fns.length; i++) {
      const f = (k + i) % fns.length;
      times[f].push(await timeRound(fns[f], reps[f]));
    }
  }
  return times;
}

// The median of a per-round figure with its lowest and highest round.
export const summary = (xs) => ({ median: median(xs), low: Math.min(...xs), high: Math.max(...xs) });
