// What a paste did to the other matrices, said next to them.

// 'Q' pasted as 4×3 over 3×2 → 'Q is now 4×3, so K and V were resized to match: K got row 4
// and column 3 of zeros; V got row 4 of zeros. …'; '' when nothing else changed.
export function resizeNotice(name, before, after) {
  const span = (what, a, b) => (b - a === 1 ? `${what} ${b}` : `${what}s ${a + 1}–${b}`);
  const others = ['Q', 'K', 'V'].filter((m) => m !== name);
  const changes = others.map((m) => {
    const cols = m === 'V' ? 'dv' : 'dk';
    const grew = [], lost = [];
    for (const [what, key] of [['row', 'n'], ['column', cols]]) {
      if (after[key] > before[key]) grew.push(span(what, before[key], after[key]));
      if (after[key] < before[key]) lost.push(span(what, after[key], before[key]));
    }
    const parts = [grew.length ? `got ${grew.join(' and ')} of zeros` : '', lost.length ? `lost ${lost.join(' and ')}` : ''].filter(Boolean);
    return parts.length ? { m, text: `${m} ${parts.join(' and ')}` } : null;
  }).filter(Boolean);
  if (changes.length === 0) return '';
  const cols = name === 'V' ? after.dv : after.dk;
  const which = changes.map((c) => c.m).join(' and ');
  return `${name} is now ${after.n}×${cols}, so ${which} ${changes.length > 1 ? 'were' : 'was'} resized to match: ${changes.map((c) => c.text).join('; ')}. Check ${changes.length > 1 ? 'them' : 'it'}, or paste ${changes.length > 1 ? 'theirs' : 'its own'} too.`;
}
