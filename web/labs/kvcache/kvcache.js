// The KV cache and grouped heads (issue 40 §3): decoding one token at a time from a growing
// cache, h query heads sharing h_kv K/V heads, and real models' cache sizes. Each part is a
// module of this folder; every number is the core's (decodeStep, groupedAttention, kvCacheBytes).
import { registerFormulas } from '../../shared/tex.js';
import { FORMULAS } from '../../vendor/tex-formulas-next-labs.js';
import { nextLab } from '../next/lab-shell.js';
import { DecodeSteps } from './kv-decode.js';
import { GroupedHeads } from './kv-grouped.js';
import { ModelTable } from './kv-models.js';
import { kvcacheStyles } from './kvcache-styles.js';

// This lab's formulas, typeset at build time into a file of their own (tools/render-tex.mjs).
registerFormulas(FORMULAS);

export class KvCacheLab {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} [o.onError]
   * @param {() => ({ q: number[][], k: number[][], v: number[][] } | null)} [o.calculator]
   *   the element's calculator state (its Q, K and V are the prompt the decoding starts from)
   */
  constructor({ attn, onError = () => {}, calculator = null }) {
    const prompt = () => {
      const state = calculator?.();
      return state ? structuredClone({ q: state.q, k: state.k, v: state.v }) : null;
    };
    // decodeStep, groupedAttention and kvCacheBytes are in the next labs' module.
    ({ element: this.element, ready: this.ready } = nextLab({
      attn, onError, name: 'kvcache', label: 'KV cache and grouped heads', heading: 'Decoding with a KV cache, and grouped heads',
      what: 'the KV-cache lab', styles: kvcacheStyles,
      build: () => {
        this.decode = new DecodeSteps({ attn, onError, calculator: calculator && prompt });
        this.grouped = new GroupedHeads({ attn, onError });
        this.models = new ModelTable({ attn, onError });
        return [this.decode.element, this.grouped.element, this.models.element];
      },
    }));
  }
}
