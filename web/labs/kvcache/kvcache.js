// The KV cache and grouped heads (issue 40 §3): decoding one token at a time from a growing
// cache, h query heads sharing h_kv K/V heads, and real models' cache sizes. Each part is a
// module of this folder; every number is the core's (decodeStep, groupedAttention, kvCacheBytes).
import { adoptStyles, h } from '../../shared/dom.js';
import { DecodeSteps } from './kv-decode.js';
import { GroupedHeads } from './kv-grouped.js';
import { ModelTable } from './kv-models.js';
import { kvcacheStyles } from './kvcache-styles.js';

export class KvCacheLab {
  /**
   * @param {object} o
   * @param {import('../../attention.js').Attention} o.attn
   * @param {(message: string) => void} [o.onError]
   * @param {() => ({ q: number[][], k: number[][], v: number[][] } | null)} [o.calculator]
   *   the element's calculator Q, K and V: the prompt the decoding starts from
   */
  constructor({ attn, onError = () => {}, calculator = null }) {
    this.decode = new DecodeSteps({ attn, onError, calculator });
    this.grouped = new GroupedHeads({ attn, onError });
    this.models = new ModelTable({ attn, onError });
    this.element = h('section', { class: 'lab kvcache-lab', role: 'group', 'aria-label': 'KV cache and grouped heads', part: 'kvcache' },
      h('h2', { text: 'Decoding with a KV cache, and grouped heads' }),
      this.decode.element,
      this.grouped.element,
      this.models.element);
    // The lab's rules join the stylesheets of the root it is put in, once it is there (the shelf
    // puts it in place as soon as it is built).
    queueMicrotask(() => {
      const root = this.element.getRootNode();
      if (root instanceof ShadowRoot || root instanceof Document) adoptStyles(root, kvcacheStyles);
    });
  }
}
