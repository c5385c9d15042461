// Compiled (never run) by tests/js/types.test.mjs with Vue's types: the tag's entry in Vue's
// GlobalComponents, as vue-tsc reads it for a template's <attention-calc>.
import type {} from 'attention-calc/vue';
import type { GlobalComponents } from 'vue';

type Props = InstanceType<GlobalComponents['attention-calc']>['$props'];
export const props: Props = { panels: 'weights', mode: 'practice', 'onAttention-change': (e) => console.log(e.detail.result.weights) };
