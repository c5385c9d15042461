// The issue-13 goals of a learned-heads model: shared by tests/js/learned.test.mjs, the training
// benchmark (train-bench.mjs), the browser tests and the in-browser trainer's worker. The logic
// lives in web/labs/learned-train-goals.js, where the worker can import it; this re-exports it.
export {
  CHECK_EVERY, copyText, generator, GOAL_SEED, GOAL_STRINGS, GOALS, goalsMet, MAX_STEPS, measureGoals, PROGRESS_EVERY,
} from '../web/labs/learned-train-goals.js';
