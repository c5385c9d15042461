// A Next.js site (app router) under the base path /course: the page is rendered on the server
// (`next build`, then `next start`), and a client component imports the package.
import { fileURLToPath } from 'node:url';

export default {
  basePath: '/course',
  // The generators' node_modules live one folder up (tools/sites/), with its lockfile.
  turbopack: { root: fileURLToPath(new URL('..', import.meta.url)) },
};
