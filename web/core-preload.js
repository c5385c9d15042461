// The calculator page's early fetch of its core: the build this engine runs, its .wasm and glue
// requested while the page's own modules load. A <link rel=preload> written in the HTML cannot
// choose between the relaxed-SIMD, SIMD and scalar builds, and a wrong guess would cost a
// second build's bytes.
import { bestBuild, glueBuild } from './api/wasm-features.js';

const build = bestBuild();
const links = [
  { rel: 'modulepreload', href: `wasm/attention-${glueBuild(build)}.mjs` },
  { rel: 'preload', href: `wasm/attention-${build}.wasm`, as: 'fetch', crossOrigin: 'anonymous' },
];
for (const attributes of links) document.head.append(Object.assign(document.createElement('link'), attributes));
