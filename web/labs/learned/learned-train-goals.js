// The in-browser trainer's chart schedule, shared by its worker (learned-worker.js) and the panel
// (learned-train.js). The goals themselves, their evaluation set, the steps between measurements
// and the step at which training gives up are the core's (src/learned/goals.hpp), read through
// attn.learnedGoals().

/** Steps per point of the loss curve: each point is the mean of their batches. */
export const PROGRESS_EVERY = 50;
