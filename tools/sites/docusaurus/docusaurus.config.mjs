const baseUrl = '/course/';

export default {
  title: 'A course on attention',
  url: 'https://example.org',
  baseUrl,
  onBrokenLinks: 'throw',
  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false, pages: false }]],
  // The package, imported by a client module: webpack copies the files the element names.
  clientModules: ['./src/attention-calc.mjs'],
};
