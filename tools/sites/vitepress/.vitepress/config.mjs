import { defineConfig } from 'vitepress';

const base = '/course/';

export default defineConfig({
  title: 'A course on attention',
  base,
  // The element loads its wasm and stylesheet from beside its own script, so it is loaded from
  // public/attention-calc/ (a copy of the package's dist/), not bundled. A <script> tag, since
  // Vite imports nothing from public/, and a <script> in a Markdown page would be taken as the
  // page's Vue script. VitePress adds `base` to links, not to the head: it is written here.
  head: [['script', { type: 'module', src: `${base}attention-calc/attention-calc.js` }]],
  vue: {
    // <attention-calc> is a custom element, not a Vue component: Vue renders it as it is, and
    // hydration finds the same element on the page that the static HTML has.
    template: { compilerOptions: { isCustomElement: (tag) => tag === 'attention-calc' } },
  },
});
