const baseUrl = '/course/';

export default {
  title: 'A course on attention',
  url: 'https://example.org',
  baseUrl,
  onBrokenLinks: 'throw',
  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false, pages: false }]],
  // The element loads its wasm and stylesheet from beside its own script, so it is loaded from
  // static/attention-calc/ (a copy of the package's dist/), not bundled, and only in the browser.
  scripts: [{ src: `${baseUrl}attention-calc/attention-calc.js`, type: 'module' }],
};
