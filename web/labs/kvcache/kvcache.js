// The KV cache and grouped heads (issue 40 §3): decoding one token at a time from a growing
// cache, h query heads sharing h_kv K/V heads, and real models' cache sizes. Each part is a
// module of this folder; every number is the core's (decodeStep, groupedAttention, kvCacheBytes).
import { adoptStyles, h } from '../../shared/dom.js';
import { registerFormulas } from '../../shared/tex.js';
import { FORMULAS } from '../../vendor/tex-formulas-next-labs.js';
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
    this.status = h('p', { class: 'calc-status', role: 'status', text: 'Loading the KV-cache lab’s module…' });
    this.element = h('section', { class: 'lab kvcache-lab', role: 'group', 'aria-label': 'KV cache and grouped heads', part: 'kvcache' },
      h('h2', { text: 'Decoding with a KV cache, and grouped heads' }),
      this.status);
    // The lab's rules join the stylesheets of the root it is put in, once it is there (the shelf
    // puts it in place as soon as it is built).
    queueMicrotask(() => {
      const root = this.element.getRootNode();
      if (root instanceof ShadowRoot || root instanceof Document) adoptStyles(root, kvcacheStyles);
    });
    // decodeStep, groupedAttention and kvCacheBytes are in a wasm module of their own, fetched
    // only for this lab: loaded here, not by the element, so that the lesson's labs' embed does
    // not grow. `ready` resolves once the parts are drawn (or the module failed to load).
    const prompt = () => {
      const state = calculator?.();
      return state ? structuredClone({ q: state.q, k: state.k, v: state.v }) : null;
    };
    this.ready = attn.loadNextLabs().then(() => {
      this.decode = new DecodeSteps({ attn, onError, calculator: calculator && prompt });
      this.grouped = new GroupedHeads({ attn, onError });
      this.models = new ModelTable({ attn, onError });
      this.status.replaceWith(this.decode.element, this.grouped.element, this.models.element);
    }, (error) => {
      this.status.textContent = `The KV-cache lab could not load its module: ${error.message}`;
      this.status.setAttribute('role', 'alert');
      this.status.classList.add('error');
      onError(error.message);
    });
  }
}
