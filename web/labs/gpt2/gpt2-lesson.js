// What the GPT-2 panel says about a run, in the lesson's words, from the measured numbers alone:
// a token as a label, the heads that earn each role (the learned panel's rules, learned-roles.js),
// the lesson's check, a failed open with what to do next, and the PyTorch script that computes the
// same heads. No DOM: gpt2-panel.js shows these.
import { format } from '../../shared/format.js';
import { ROLES, ROLE_THRESHOLD } from '../head-views/learned-roles.js';

export const GPT2_SENTENCE = 'The cat sat on the mat because it was tired';

/** A GPT-2 token as a label: a leading space as ␣, a new line as ↵, <|endoftext|> as it is. */
export function gpt2Label(token) {
  return token.replace(/^ /, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥') || '␣';
}

/** "5.1": a head as the literature names it, layer and head counted from 0. */
export const headName = (layer, head) => `${layer}.${head}`;

const ROLE = Object.fromEntries(ROLES.map((r) => [r.key, r]));

/**
 * The heads of a run that earn a role, strongest first: [{ layer, head, score }].
 * @param {import('../../attention.js').Gpt2Run} run
 */
export function headsWithRole(run, key, layers = run.layers.map((_, l) => l)) {
  const found = [];
  for (const l of layers) {
    run.layers[l].heads.forEach((d, i) => {
      if (d[key] !== null && d[key] >= ROLE_THRESHOLD) found.push({ layer: l, head: i, score: d[key] });
    });
  }
  return found.sort((a, b) => b.score - a.score || a.layer - b.layer || a.head - b.head);
}

// The strongest head of a layer on one score (null scores skipped), or null.
function strongest(run, layer, key) {
  let best = null;
  run.layers[layer].heads.forEach((d, i) => {
    if (d[key] !== null && (!best || d[key] > best.score)) best = { layer, head: i, score: d[key] };
  });
  return best;
}

const listHeads = (heads, most = 4) => heads.slice(0, most).map((x) => `${headName(x.layer, x.head)} (${format(x.score, 2)})`).join(', ')
  + (heads.length > most ? ` and ${heads.length - most} more` : '');

/**
 * The lesson's check, in words, from the run's scores: does `layer` have a previous-token head
 * and an attention sink, and if not, where else in the model do they appear; and the induction
 * heads when a token repeats.
 */
export function lessonCheck(run, layer) {
  const all = run.layers.every((l) => l.heads.length > 0);
  const parts = [];
  const found = {};
  for (const key of ['previousToken', 'firstToken']) found[key] = headsWithRole(run, key, [layer])[0] ?? null;
  const a = (key) => `${key === 'firstToken' ? 'an' : 'a'} ${ROLE[key].label}`;
  // What the lesson expects first, then what this model has: never a sentence that reads as if
  // the lesson expected the absence.
  const expects = `The lesson expects ${a('previousToken')} and ${a('firstToken')} in layer ${layer}.`;
  const named = (k) => `${a(k)} (${headName(layer, found[k].head)}, ${format(found[k].score, 2)})`;
  const missing = ['previousToken', 'firstToken'].filter((k) => !found[k]);
  if (missing.length === 0) {
    parts.push(`${expects} This model has both there: ${named('previousToken')} and ${named('firstToken')}.`);
  } else {
    const has = ['previousToken', 'firstToken'].filter((k) => found[k]);
    let said = has.length
      ? `${expects} This model has ${named(has[0])} there, but no ${ROLE[missing[0]].label}`
      : `${expects} This model has neither there`;
    said += `: no head of layer ${layer} scores ${ROLE_THRESHOLD} or more on ${missing.map((k) => ROLE[k].score).join(' or ')}`;
    const best = missing.map((k) => ({ k, best: strongest(run, layer, k) })).filter((x) => x.best);
    if (best.length) said += ` (highest: ${best.map(({ k, best: b }) => `${ROLE[k].score} ${format(b.score, 2)} in ${headName(layer, b.head)}`).join('; ')})`;
    parts.push(`${said}.`);
    for (const k of missing) {
      if (!all) {
        parts.push(`Only this layer was run on this text (it is long), so other layers are not searched for ${a(k)}.`);
        continue;
      }
      const elsewhere = headsWithRole(run, k).filter((x) => x.layer !== layer);
      parts.push(elsewhere.length
        ? `Elsewhere in this model, ${ROLE[k].label}s: ${listHeads(elsewhere)}.`
        : `No head in any layer of this model is ${a(k)} on this text.`);
    }
  }
  const repeats = run.layers[layer].heads.some((d) => d.induction !== null);
  if (repeats) {
    const here = headsWithRole(run, 'induction', [layer]);
    const elsewhere = all ? headsWithRole(run, 'induction').filter((x) => x.layer !== layer) : [];
    parts.push(here.length
      ? `Induction heads in layer ${layer} (induction score ${ROLE_THRESHOLD} or more): ${listHeads(here)}.`
      : `No head of layer ${layer} scores ${ROLE_THRESHOLD} or more on induction${elsewhere.length ? `; elsewhere: ${listHeads(elsewhere)}` : ''}.`);
  }
  return parts.join(' ');
}

export const megabytes = (bytes) => `${format(bytes / 1e6, bytes < 1e7 ? 1 : 0)} MB`;
export const duration = (s) => (s < 60 ? `${Math.max(1, Math.round(s))} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`);

const AGAIN = 'Download model.safetensors again from Hugging Face (openai-community/gpt2, Files) and open that file.';

/**
 * A message from the API or the core made fit to follow a colon mid-sentence: its first letter in
 * lower case (unless it starts an acronym), no full stop at its end (the sentence around it has
 * its own), and numbers of five digits or more with separators (1,234,567).
 */
export function clause(message) {
  let said = String(message ?? '').trim().replace(/[.\s]+$/, '');
  if (/^[A-Z][a-z]/.test(said)) said = said[0].toLowerCase() + said.slice(1);
  // Only a number standing alone: not a port, a path or a version inside an address.
  return said.replace(/(?<=^|[\s(])\d{5,}(?=$|[\s):;]|[.,](?!\d))/g, (digits) => BigInt(digits).toLocaleString('en-US'));
}

/** A sentence from a clause: its first letter in upper case, one full stop at its end. */
export const sentence = (message) => {
  const said = clause(message);
  return `${said[0]?.toUpperCase() ?? ''}${said.slice(1)}.`;
};

// The API's and the core's words for a file that breaks the format, before the reason.
const NOT_SAFETENSORS = /^this file is not a safetensors file(, or it is cut short)?: /i;
// Reasons that mean the file is of another kind altogether (its first bytes are no header).
const OTHER_KIND = /do not give the length|header length of 0/i;
// The core's guess at what the file is instead ("It is a ZIP archive, as PyTorch's
// pytorch_model.bin is: download model.safetensors instead."): said as it is.
const WHAT_IT_IS = /\s(It (is|starts like) [^]*)$/;

// A failed open, in the learner's words, with what to do next.
export function openError(error, { url }) {
  const message = error?.message ?? String(error);
  if (NOT_SAFETENSORS.test(message)) {
    const why = message.replace(NOT_SAFETENSORS, '');
    const kind = WHAT_IT_IS.exec(why)?.[1];
    if (OTHER_KIND.test(why)) {
      return `This is not a safetensors file: it does not begin with a safetensors header${kind ? `. ${kind}` : ` (a text file renamed .safetensors, or a file of another kind). ${AGAIN}`}`;
    }
    return `This is not a whole safetensors file: ${clause(why)}. ${AGAIN}`;
  }
  if (/cut short|ends at byte/i.test(message)) return `This file is incomplete: ${clause(message)}. ${AGAIN}`;
  if (url && /the download (ended|stopped) at byte/.test(message)) {
    return `The download of GPT-2 from ${url} stopped before its end: the connection was cut, or the server sent less than it said (${clause(message)}). Try again, or download model.safetensors yourself and open it with the button above.`;
  }
  if (url && (error instanceof TypeError || /fetch|network|CORS/i.test(message))) {
    return `GPT-2 could not be downloaded from ${url}: the server did not answer, it does not let this page read the file (CORS), or this page’s Content-Security-Policy does not allow that address. Download model.safetensors yourself and open it with the button above.`;
  }
  if (/worker stopped/i.test(message)) {
    return `GPT-2 stopped: ${clause(message)}. Close other tabs and open it again, or try a smaller model (distilgpt2).`;
  }
  if (/memory/i.test(message)) {
    return `GPT-2 does not fit in this browser tab’s memory: ${clause(message)}. Close other tabs, or try a smaller model (distilgpt2).`;
  }
  return `GPT-2 could not be opened: ${clause(message)}. ${url ? 'Check the address, or download model.safetensors and open it with the button above.' : 'Check that it is model.safetensors from openai-community/gpt2 (or distilgpt2, gpt2-medium) and open it again.'}`;
}

export { modelLoading, pytorchScript } from './gpt2-script.js';

/** A head's strongest role on this text: { role, score, earned }, or null without scores. */
export function strongestRole(head) {
  let best = null;
  for (const r of ROLES) if (head[r.key] !== null && (!best || head[r.key] > best.score)) best = { role: r, score: head[r.key] };
  return best && { ...best, earned: best.score >= ROLE_THRESHOLD };
}

// The all-heads table's letter for each role, short enough for 12 heads across a page.
const ROLE_LETTER = { previousToken: 'P', firstToken: 'S', induction: 'I' };

/** What the all-heads table says of one head: "P 0.62" (previous token), "S 0.81" (sink), "I 0.55" (induction), or "– 0.31" (no role). */
export function gridText(head) {
  const best = strongestRole(head);
  if (!best) return '–';
  return `${best.earned ? ROLE_LETTER[best.role.key] : '–'} ${format(best.score, 2)}`;
}
