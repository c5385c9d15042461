// FlashAttention's online softmax (issue 40 §2): one query row meets K and V one tile of B keys
// at a time, keeping a running max m, sum ℓ and output O, and ends with the same row of Z without
// ever holding the n × n scores. Every number is the core's (tiledAttention, attention); the
// parts in this folder only draw them.
import { registerFormulas } from '../../shared/tex.js';
import { FORMULAS } from '../../vendor/tex-formulas-next-labs.js';
import { nextLab } from '../next/lab-shell.js';
import { flashStyles } from './flash-styles.js';
import { MemoryCurvePart } from './flash-curve.js';
import { TileSteps } from './flash-tiles.js';

// This lab's formulas, typeset at build time into the next labs' file (tools/render-tex.mjs).
registerFormulas(FORMULAS);

export class FlashLab {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} [o.onError]
   * @param {() => ({ q: number[][], k: number[][], v: number[][], causal?: boolean } | null)} [o.calculator]
   *   the element's calculator state: its Q, K and V are what the tiles read
   */
  constructor({ attn, onError = () => {}, calculator = null }) {
    const inputs = () => {
      const state = calculator?.();
      return state ? structuredClone({ q: state.q, k: state.k, v: state.v, causal: Boolean(state.causal) }) : null;
    };
    // tiledAttention and attentionPeakFloats are in the next labs' module.
    ({ element: this.element, ready: this.ready } = nextLab({
      attn, onError, name: 'flash', label: 'FlashAttention’s online softmax', heading: 'FlashAttention: the same output without the n × n matrix',
      what: 'the flash lab', styles: flashStyles,
      build: () => {
        this.steps = new TileSteps({ attn, onError, calculator: calculator && inputs });
        this.curve = new MemoryCurvePart({ attn, onError });
        return [...this.steps.elements, this.curve.element];
      },
    }));
  }
}
