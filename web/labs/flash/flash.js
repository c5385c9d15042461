// FlashAttention's online softmax (issue 40 §2): one query row meets K and V one tile of B keys
// at a time, keeping a running max m, sum ℓ and output O, and ends with the same row of Z without
// ever holding the n × n scores. Every number is the core's (tiledAttention, attention); the
// parts in this folder only draw them.
import { adoptStyles, h } from '../../shared/dom.js';
import { registerFormulas } from '../../shared/tex.js';
import { FORMULAS } from '../../vendor/tex-formulas-next-labs.js';
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
    this.status = h('p', { class: 'calc-status', role: 'status', text: 'Loading the flash lab’s module…' });
    this.element = h('section', { class: 'lab flash-lab', role: 'group', 'aria-label': 'FlashAttention’s online softmax', part: 'flash' },
      h('h2', { text: 'FlashAttention: the same output without the n × n matrix' }),
      this.status);
    // The lab's rules join the stylesheets of the root it is put in, once it is there.
    queueMicrotask(() => {
      const root = this.element.getRootNode();
      if (root instanceof ShadowRoot || root instanceof Document) adoptStyles(root, flashStyles);
    });
    // tiledAttention is in the next labs' wasm module, fetched only for these labs: loaded here,
    // not by the element, so that the lesson's labs' embed does not grow.
    const inputs = () => {
      const state = calculator?.();
      return state ? structuredClone({ q: state.q, k: state.k, v: state.v, causal: Boolean(state.causal) }) : null;
    };
    this.ready = attn.loadNextLabs().then(() => {
      this.steps = new TileSteps({ attn, onError, calculator: calculator && inputs });
      this.curve = new MemoryCurvePart({ attn, onError });
      this.status.replaceWith(...this.steps.elements, this.curve.element);
    }, (error) => {
      this.status.textContent = `The flash lab could not load its module: ${error.message}`;
      this.status.setAttribute('role', 'alert');
      this.status.classList.add('error');
      onError(error.message);
    });
  }
}
