// Runs webpack 5 through its Node API (webpack-cli wants a newer Node than 20), as
// `webpack --config webpack.config.mjs` would, and copies the page beside the bundle.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import webpack from 'webpack';
import config from './webpack.config.mjs';

const out = process.argv[2];
const stats = await new Promise((resolve, reject) => {
  webpack(config(out), (error, result) => (error ? reject(error) : resolve(result)));
});
const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true });
for (const w of warnings) console.error(`warning: ${w.message}`);
if (stats.hasErrors()) {
  for (const e of errors) console.error(e.message);
  process.exit(1);
}
// A warning is a failure too ("Critical dependency": a computed import, what issue 28 fixed),
// but for webpack's size hints, which are about the site's own budget.
if (warnings.some((w) => !/size limit/.test(w.message))) process.exit(1);
copyFileSync(new URL('./index.html', import.meta.url), join(out, 'index.html'));
