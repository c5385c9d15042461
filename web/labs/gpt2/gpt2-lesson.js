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
const headName = (layer, head) => `${layer}.${head}`;

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
  if (found.previousToken && found.firstToken) {
    parts.push(`Layer ${layer} has ${a('previousToken')} (${headName(layer, found.previousToken.head)}, ${format(found.previousToken.score, 2)}) and ${a('firstToken')} (${headName(layer, found.firstToken.head)}, ${format(found.firstToken.score, 2)}), as the lesson expects.`);
  } else {
    const has = ['previousToken', 'firstToken'].filter((k) => found[k]);
    const missing = ['previousToken', 'firstToken'].filter((k) => !found[k]);
    let said = has.length
      ? `Layer ${layer} has ${a(has[0])} (${headName(layer, found[has[0]].head)}, ${format(found[has[0]].score, 2)}) but no ${ROLE[missing[0]].label}`
      : `Layer ${layer} has neither ${a('previousToken')} nor ${a('firstToken')}`;
    said += `, which the lesson expects: no head of this layer scores ${ROLE_THRESHOLD} or more on ${missing.map((k) => ROLE[k].score).join(' or ')}`;
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

// A failed open, in the learner's words, with what to do next.
export function openError(error, { url }) {
  const message = error?.message ?? String(error);
  if (/not a safetensors file|cut short|header/i.test(message)) {
    return `This is not a GPT-2 model.safetensors file, or it is incomplete: ${message}. Download model.safetensors again from Hugging Face (openai-community/gpt2, Files) and open that file.`;
  }
  if (url && /the download (ended|stopped) at byte/.test(message)) {
    return `The download of GPT-2 from ${url} stopped before its end: the connection was cut, or the server sent less than it said (${message}). Try again, or download model.safetensors yourself and open it with the button above.`;
  }
  if (url && (error instanceof TypeError || /fetch|network|CORS/i.test(message))) {
    return `GPT-2 could not be downloaded from ${url}: the server did not answer, it does not let this page read the file (CORS), or this page’s Content-Security-Policy does not allow that address. Download model.safetensors yourself and open it with the button above.`;
  }
  if (/worker stopped/i.test(message)) {
    return `GPT-2 stopped: ${message}. Close other tabs and open it again, or try a smaller model (distilgpt2).`;
  }
  if (/memory/i.test(message)) {
    return `GPT-2 does not fit in this browser tab’s memory: ${message}. Close other tabs, or try a smaller model (distilgpt2).`;
  }
  return `GPT-2 could not be opened: ${message}. ${url ? 'Check the address, or download model.safetensors and open it with the button above.' : 'Check that it is model.safetensors from openai-community/gpt2 (or distilgpt2, gpt2-medium) and open it again.'}`;
}

/**
 * A complete Hugging Face transformers script that computes and plots the same layer's heads on the
 * same text (eager attention, so that output_attentions holds the weights), and prints the same
 * five next tokens. A JSON string is also a valid Python string literal.
 */
export function pytorchScript({ text, layer, endOfTextFirst }) {
  return `# GPT-2 layer ${layer}'s heads on your text, as attention-calc's panel shows them
# (layers and heads counted from 0). Needs: pip install torch transformers matplotlib
import math

import matplotlib.pyplot as plt
import torch
from transformers import GPT2LMHeadModel, GPT2TokenizerFast

name = "openai-community/gpt2"  # or "distilgpt2", "gpt2-medium"
tokenizer = GPT2TokenizerFast.from_pretrained(name)
model = GPT2LMHeadModel.from_pretrained(name, attn_implementation="eager")
model.eval()

text = ${JSON.stringify(text)}
layer = ${layer}
ids = tokenizer(text)["input_ids"]
${endOfTextFirst ? 'ids = [tokenizer.eos_token_id] + ids  # "Start with <|endoftext|>", as TransformerLens does' : '# No <|endoftext|> first, as in Hugging Face (TransformerLens adds one)'}
with torch.no_grad():
    outputs = model(torch.tensor([ids]), output_attentions=True)

weights = outputs.attentions[layer][0]  # (heads, tokens, tokens), rows are queries
labels = [tokenizer.decode([i]).replace(" ", "\u2423") for i in ids]
heads = weights.shape[0]
columns = 4
rows = math.ceil(heads / columns)
figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 4 * rows), squeeze=False)
for head, ax in enumerate(axes.flat):
    if head >= heads:
        ax.axis("off")
        continue
    ax.imshow(weights[head].numpy(), cmap="viridis", vmin=0, vmax=1)
    ax.set_title(f"GPT-2 layer {layer} head {head}")
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
figure.tight_layout()
plt.show()

probabilities = outputs.logits[0, -1].softmax(-1)
for p, i in zip(*probabilities.topk(5)):
    print(repr(tokenizer.decode([int(i)])), f"{float(p):.3f}")
`;
}

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
