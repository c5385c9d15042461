import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'A course on attention',
  base: '/course/',
  vue: {
    // <attention-calc> is a custom element, not a Vue component: Vue renders it as it is, and
    // hydration finds the same element on the page that the static HTML has.
    template: { compilerOptions: { isCustomElement: (tag) => tag === 'attention-calc' } },
  },
  // `vitepress dev` serves the package as it is: its dependency optimizer (Vite 5's) would move
  // the code away from the files it names beside itself.
  vite: { optimizeDeps: { exclude: ['attention-calc'] } },
});
