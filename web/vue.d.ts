// Vue 3's typing of the <attention-calc> tag in templates (vue-tsc, Volar): its attributes and
// events. Tell Vue's compiler that the tag is a custom element (isCustomElement), then:
//
//   import 'attention-calc';
//   import type {} from 'attention-calc/vue';   // once, anywhere in the project
//
//   <attention-calc panels="weights" @attention-change="(e) => e.detail.result" />
import type { DefineComponent } from 'vue';
import type { AttentionCalcAttributes, AttentionCalcEventMap } from './attention-calc.js';

export type AttentionCalcVueProps = AttentionCalcAttributes & {
  'onAttention-change'?: (event: AttentionCalcEventMap['attention-change']) => void;
  'onAttention-calc-resize'?: (event: AttentionCalcEventMap['attention-calc-resize']) => void;
  'onAttention-calc-gpt2-text'?: (event: AttentionCalcEventMap['attention-calc-gpt2-text']) => void;
  onError?: (event: AttentionCalcEventMap['error']) => void;
};

declare module 'vue' {
  interface GlobalComponents {
    'attention-calc': DefineComponent<AttentionCalcVueProps>;
  }
}
