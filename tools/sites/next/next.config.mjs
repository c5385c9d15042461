// A Next.js site (app router) under the base path /course: the page is rendered on the server
// (`next build`, then `next start`), and a client component imports the package.
import { fileURLToPath } from 'node:url';

export default {
  basePath: '/course',
  // build.mjs builds the site twice, with Turbopack and with webpack, each into its own folder.
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  // The generators' node_modules live one folder up (tools/sites/), with its lockfile.
  turbopack: { root: fileURLToPath(new URL('..', import.meta.url)) },
};
