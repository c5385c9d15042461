// Why positions must be injected (issue 40 §1): attention alone is permutation-equivariant, so
// shuffling the tokens only shuffles Z's rows; each way of injecting positions breaks that, and
// RoPE and ALiBi keep something of their own. Every number is the core's (positionalAttention).
import { h } from '../../shared/dom.js';
import { seedInput } from '../../shared/seed-input.js';
import { registerFormulas } from '../../shared/tex.js';
import { FORMULAS } from '../../vendor/tex-formulas-next-labs.js';
import { nextLab } from '../next/lab-shell.js';
import { seededRows } from '../next/seeded-rows.js';
import { KeepsView } from './pos-keeps.js';
import { ShuffleView } from './pos-shuffle.js';
import { positionsStyles } from './positions-styles.js';

// This lab's formulas, typeset at build time into a file of their own (tools/render-tex.mjs).
registerFormulas(FORMULAS);

// The lesson's sentence, in the calculator's small d.
const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
const D = 4;

export class PositionsLab {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} [o.onError]
   */
  constructor({ attn, onError = () => {} }) {
    this.seed = 1;
    this.inputs = seededInputs(this.seed);
    // positionalAttention is in the next labs' module.
    ({ element: this.element, ready: this.ready } = nextLab({
      attn, onError, name: 'positions', label: 'Why positions must be injected', heading: 'Why positions must be injected',
      what: 'the positions lab', styles: positionsStyles,
      build: () => {
        const inputs = () => this.inputs;
        this.shuffle = new ShuffleView({ attn, tokens: TOKENS, inputs, onError });
        this.keeps = new KeepsView({ attn, tokens: TOKENS, inputs });
        const seed = seedInput({ label: 'Seed of Q, K and V', value: this.seed, onChange: (s) => {
          this.seed = s;
          this.inputs = seededInputs(s);
          this.shuffle.update();
          this.keeps.update();
        } });
        return [h('p', {}, `“${TOKENS.join(' ')}”: six tokens, each with a q, k and v of d = ${D} numbers drawn from a seed (inputs only: every number below is the core’s). `,
          h('label', { class: 'seed-box' }, 'Seed ', seed)), this.shuffle.element, this.keeps.element];
      },
    }));
  }
}

// Q, K and V for the six tokens, from one seed.
function seededInputs(seed) {
  return { q: seededRows(seed * 3, TOKENS.length, D), k: seededRows(seed * 3 + 1, TOKENS.length, D), v: seededRows(seed * 3 + 2, TOKENS.length, D) };
}
