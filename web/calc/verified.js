// The badge beside the result: the lesson's NumPy-vs-PyTorch check, live, the f32 core against
// a float64 evaluation of the same input.
import { h } from '../shared/dom.js';

export const verifiedBadge = () => h('span', { class: 'verified', part: 'verified' });

// The core judges the badge (checks.hpp: 1e-5 · max(1, max |V|)). It shows the number it
// judges: where |V| exceeds 1, the difference relative to max |V| (with V₁₁ = 1e30 the absolute
// one is 7e+21, which would look alarming beside a tick); the absolute in its title.
export function showVerified(badge, checks) {
  const { float64MaxAbsDiff: diff, valueScale: scale, verified: ok } = checks;
  const exp = (x) => (x === 0 ? '0' : x.toExponential(1).replace('-', '−'));
  badge.classList.toggle('fail', !ok);
  badge.textContent = `${ok ? '✓ verified' : '⚠ check'}: `
    + (scale > 1 ? `max |f32 − float64| / max |V| = ${exp(diff / scale)}` : `max |f32 − float64| = ${exp(diff)}`);
  badge.title = 'The largest difference between the weights and outputs of the float32 core and a float64 evaluation of the same input (the lesson’s NumPy vs PyTorch exercise), verified when at most 1e−5 × max(1, max |V|).'
    + (scale > 1 ? ` Here max |f32 − float64| = ${exp(diff)} and max |V| = ${exp(scale)}.` : '');
}
