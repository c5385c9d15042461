// Each layer's guess (the logit lens): the final LayerNorm and the unembedding applied to the
// residual stream after each block, at the last token; a table of layers × their three likeliest
// next tokens, the row where the model's final answer first leads marked, and one sentence.
import { h } from '../../shared/dom.js';
import { format } from '../../shared/format.js';
import { scrollBox } from '../widgets/scroll-cue.js';
import { gpt2Label } from './gpt2-lesson.js';

const TOP = 3;

/**
 * Where the model's final answer (lens[layers − 1][0]) shows in the lens: `first`, the first layer
 * whose likeliest token it is (the row marked), and `settled`, the layer from which it stays the
 * likeliest to the end. The last layer's guess is the answer, so both exist.
 */
export function answerLayers(lens) {
  const answer = lens.at(-1)[0].id;
  const leads = (l) => lens[l][0]?.id === answer;
  let settled = lens.length - 1;
  while (settled > 0 && leads(settled - 1)) settled--;
  return { first: lens.findIndex((_, l) => leads(l)), settled };
}

/** The first layer whose likeliest token is the model's final answer: the row the table marks. */
export const firstAnswerLayer = (lens) => answerLayers(lens).first;

/** The table and its sentence, for run.lens ([layer][five guesses]). */
export function lensView(lens) {
  const { first, settled } = answerLayers(lens);
  const answer = lens.at(-1)[0];
  const table = h('table', { class: 'gpt2-table gpt2-lens' },
    h('caption', { class: 'sr-only', text: 'Each layer’s guess for the next token: the three likeliest after each block' }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'After layer' }),
      Array.from({ length: TOP }, (_, k) => h('th', { scope: 'col', text: ['Likeliest', 'Second', 'Third'][k] })))),
    h('tbody', {}, lens.map((guesses, l) => h('tr', { class: l === first ? 'first-answer' : '', dataset: { layer: l } },
      h('th', { scope: 'row', text: l === first ? `${l} (first with the answer)` : String(l) }),
      guesses.slice(0, TOP).map((t) => h('td', { dataset: { id: t.id, probability: t.probability } },
        h('span', { class: 'token', text: gpt2Label(t.token) }), ` ${format(t.probability * 100, 1)} %`))))));
  const where = first === settled
    ? `first leads after layer ${first} and stays the likeliest from there`
    : `first leads after layer ${first}, loses the lead, and keeps it from layer ${settled} on`;
  const said = `Each row reads the residual stream after that layer as if it were the last (the final LayerNorm, then the unembedding): it is what the model would say if it stopped there. The final answer, “${gpt2Label(answer.token)}”, ${where}.`;
  // On a phone the table scrolls in its own box, which says which guesses are out of sight.
  return h('div', { class: 'gpt2-lens-view' }, h('p', { class: 'hint', text: said }),
    scrollBox(table, { label: 'Each layer’s guess', what: (a, b) => (a === b ? `guess ${a + 1}` : `guesses ${a + 1}–${b + 1}`) }));
}
