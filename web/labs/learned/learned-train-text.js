// What the training half of the learned-heads panel says in words: a model's curves as text, the
// goals' rows, and the comparison of the scaled and unscaled models beside the lesson's claim.
// No DOM: learned-train.js shows these.
import { PROGRESS_EVERY } from './learned-train-goals.js';

const LESSON_CLAIM = 'The lesson says: forgetting the scale with large d_k makes training sluggish, because the softmax saturates.';

export const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
export const percent = (x) => `${Math.round(x * 100)} %`;
export const seconds = (s) => `${s.toFixed(1)} s`;

/** The goals' rows: [name, threshold, (goals) => [text, met]], for the measured goals of a model. */
export function goalRows(thresholds) {
  return [
    ['previous-token score, layer 1', `≥ ${thresholds.previousToken}`, (g) => [f2(g.previousToken), g.previousToken >= thresholds.previousToken]],
    ['induction score, layer 2', `≥ ${thresholds.induction}`, (g) => [f2(g.induction), g.induction >= thresholds.induction]],
    ['attention-sink score', `≥ ${thresholds.firstToken}`, (g) => [f2(g.firstToken), g.firstToken >= thresholds.firstToken]],
    ['second copy\'s loss / first copy\'s, on these strings', `≤ ${percent(thresholds.ratio)}`, (g) => [
      `${percent(g.ratio)}${Number.isFinite(g.lossSecondCopy) ? ` (${f2(g.lossSecondCopy)} / ${f2(g.lossFirstCopy)} nats)` : ''}`, g.ratio <= thresholds.ratio]],
  ];
}

// The text alternative of one model's curves: the latest values, the drop, the goals. `several`:
// two models are shown; `chance`: the loss of a uniform guess, or null.
export function describeModel(m, { several, chance }) {
  const last = m.points.at(-1);
  const who = several ? `${m.choice[0].toUpperCase()}${m.choice.slice(1)}: ` : '';
  const at = several ? 'at' : 'At';
  if (!last) return `${who}${at} step 0${chance ? ` (both copies start near ${f2(chance.loss)} nats, a uniform guess)` : ''}.`;
  const drop = m.phase === null
    ? 'the second copy\'s loss has not yet fallen below half the first copy\'s.'
    : `the second copy's loss fell below half the first copy's at step ${m.phase}.`;
  return `${who}${at} step ${last.step}, on its training batches (the mean of the last ${PROGRESS_EVERY} steps'), first copy ${f2(last.first)} nats, second copy ${f2(last.second)} nats; ${drop}`;
}

// With both models: what was measured, whatever it shows, beside the lesson's claim. `a`: the
// model with √d_k, `b` the one without; `config`: the models' size, or null.
export function comparisonText(a, b, { config, seed, goals }) {
  const dk = config ? config.dModel / config.heads : null;
  const said = (m) => (m.done?.met ? `met the goals after ${m.done.step} steps (${seconds(m.done.seconds)})`
    : m.done ? `did not meet them within ${m.done.step} steps`
      : m.error ? 'failed' : `has not met them yet (step ${m.step})`);
  let verdict = '';
  if (a.done?.met && b.done?.met) {
    verdict = a.done.step === b.done.step ? ' Both took the same number of steps here.'
      : a.done.step < b.done.step ? ' Here the scaled model learned faster, as the lesson says.'
        : ` Here the unscaled model met them first.${smallDk(dk)}`;
  } else if (a.done?.met && b.done && !b.done.met) {
    const { maxSteps } = goals;
    verdict = ` Here only the scaled model met them${b.done.step >= maxSteps ? ` within ${maxSteps.toLocaleString('en-US')} steps` : ''}: without the scale, training was too sluggish, as the lesson says.`;
  } else if (b.done?.met && a.done && !a.done.met) {
    verdict = ` Here only the unscaled model met them.${smallDk(dk)}`;
  } else if (a.error || b.error) {
    verdict = ` ${a.error ? 'The scaled' : 'The unscaled'} model's training failed, so this run compares nothing.`;
  }
  return `Measured from seed ${seed}: the model with √d_k ${said(a)}; the model with no scaling ${said(b)} (seconds: each model's own share of the worker's time).${verdict} ${LESSON_CLAIM}`;
}

// Why an unscaled model can keep up at this size.
function smallDk(dk) {
  return dk === null ? ' The lesson\'s warning is about large d_k.'
    : ` At this size d_k = ${dk}, so unscaled scores are only √${dk} ≈ ${Math.sqrt(dk).toFixed(1)} times larger than scaled ones; the lesson's warning is about large d_k.`;
}
