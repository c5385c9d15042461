import { inBrowser, withBase } from 'vitepress';
import DefaultTheme from 'vitepress/theme';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    // The element loads its wasm and stylesheet from beside its own script, so it is loaded from
    // public/attention-calc/ (a copy of the package's dist/), not bundled; withBase adds `base`.
    if (inBrowser) import(/* @vite-ignore */ withBase('/attention-calc/attention-calc.js'));
  },
};
