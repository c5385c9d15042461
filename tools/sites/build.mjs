// Builds real sites that embed <attention-calc> as a course author would, from this project's
// npm package: `npm pack`, and the tarball installed here. The sites with a bundler import it; the
// reveal.js deck and the iframe's page copy its dist/, as a page without a build step does.
//
//   vitepress/    VitePress (Vue), a Markdown page, base /course/: the theme imports the package
//   docusaurus/   Docusaurus, classic preset (React), a Markdown page, baseUrl /course/: a client
//                 module imports the package
//   reveal/       a reveal.js deck whose second slide holds the widget
//   iframe/       a lesson page of a platform that takes only an <iframe> (frame.html)
//   vite/         Vite (vanilla), base /course/: `import 'attention-calc'` and the tags, nothing
//                 copied by hand (issue 28: Vite finds the package's files and copies them)
//   vite-react/   Vite with React 19 and TSX, base /course/: the component imports the package
//                 and its JSX types (attention-calc/react); `tsc` checks it before the build
//   webpack/      webpack 5, the same page: the bundle and what webpack copied, under /course/
//   astro/        Astro, static output, base /course: a component imports the package in its
//                 frontmatter (in Node, at build time) and in a <script> (in the browser)
//   next/         Next.js, app router, basePath /course: `next build` here (next/.next/); the test
//                 serves it with `next start`, rendering on the server
//   next-webpack  the same Next.js site built by webpack (`next build --webpack`, next/.next-webpack/)
//
// Each site is written to .out/<site>/, to be served from its root: the site itself is under
// course/. The generators are pinned in package.json + package-lock.json; docs/embedding.md
// shows each site's files as the snippets to paste. Used by tests/browser/sites.test.mjs.
//
//   node tools/sites/build.mjs [--force]
//
// Idempotent: `npm ci` runs only when package-lock.json changed, the tarball is installed
// only when the package's contents changed, and a site is rebuilt only when its files or the
// package changed. Needs dist/ (tools/build.sh dist).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(HERE, '../..');
const OUT = join(HERE, '.out');
const MODULES = join(HERE, 'node_modules');
const PACKAGE = join(MODULES, 'attention-calc');

export const SITES = ['vitepress', 'docusaurus', 'reveal', 'iframe', 'vite', 'vite-react', 'webpack', 'next', 'next-webpack', 'astro'];
// A site built from another's folder.
const SOURCE = { 'next-webpack': 'next' };
/** The environment `next build` and `next start` take for a Next.js site: where its build goes. */
export const nextEnv = (site) => ({ NEXT_DIST_DIR: site === 'next-webpack' ? '.next-webpack' : '.next' });

const GENERATED = new Set(['vitepress/.vitepress/cache', 'docusaurus/.docusaurus', 'vite/node_modules', 'vite-react/node_modules', 'next/.next', 'next/.next-webpack', 'next/next-env.d.ts', 'astro/.astro', 'astro/node_modules']);

const sha = (...parts) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex');
const readStamp = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

// npm with no prompts, no audit and no update check; its output is kept for errors only.
function npm(args, cwd) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

// A generator's command; a failure says what it printed (tsc prints its errors on stdout).
function run(bin, args, env = {}) {
  try {
    execFileSync(join(MODULES, '.bin', bin), args, {
      cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_UPDATE_NOTIFIER: '1', DOCUSAURUS_NO_UPDATE_NOTIFIER: '1', NEXT_TELEMETRY_DISABLED: '1', ASTRO_TELEMETRY_DISABLED: '1', ...env },
    });
  } catch (error) {
    throw new Error(`${bin} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, { cause: error });
  }
}

// A site's own files, for its stamp: everything in its folder but what the build writes there.
function sourceFiles(dir) {
  return readdirSync(join(HERE, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (GENERATED.has(path)) return [];
    return entry.isDirectory() ? sourceFiles(path) : [path];
  }).sort();
}

const copy = (from, to) => {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
};

const BUILDERS = {
  vitepress(out) {
    run('vitepress', ['build', 'vitepress', '--outDir', join(out, 'course')]);
  },
  docusaurus(out) {
    run('docusaurus', ['build', 'docusaurus', '--out-dir', join(out, 'course')]);
  },
  reveal(out) {
    const course = join(out, 'course');
    mkdirSync(join(course, 'reveal/theme'), { recursive: true });
    for (const file of ['index.html', 'deck.js']) cpSync(join(HERE, 'reveal', file), join(course, file));
    // The deck's files from the reveal.js package: its module, its stylesheet and one theme.
    const reveal = join(MODULES, 'reveal.js/dist');
    for (const file of ['reveal.mjs', 'reveal.css', 'theme/white.css']) cpSync(join(reveal, file), join(course, 'reveal', file));
    copy(join(PACKAGE, 'dist'), join(course, 'attention-calc'));
  },
  vite(out) {
    run('vite', ['build', 'vite', '--base', '/course/', '--outDir', join(out, 'course'), '--emptyOutDir', '--logLevel', 'warn']);
  },
  'vite-react'(out) {
    run('tsc', ['-p', 'vite-react']);
    run('vite', ['build', 'vite-react', '--base', '/course/', '--outDir', join(out, 'course'), '--emptyOutDir', '--logLevel', 'warn']);
  },
  webpack(out) {
    execFileSync(process.execPath, [join(HERE, 'webpack/build.mjs'), join(out, 'course')], { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
  },
  next(out) {
    run('next', ['build', 'next'], nextEnv('next'));
    // Served by `next start next` from next/.next/: the output folder only records the build.
    mkdirSync(join(out, 'course'), { recursive: true });
    writeFileSync(join(out, 'course', 'built-by-next.txt'), 'next build wrote tools/sites/next/.next/; serve it with next start\n');
  },
  'next-webpack'(out) {
    run('next', ['build', 'next', '--webpack'], nextEnv('next-webpack'));
    mkdirSync(join(out, 'course'), { recursive: true });
    writeFileSync(join(out, 'course', 'built-by-next.txt'), 'next build --webpack wrote tools/sites/next/.next-webpack/; serve it with next start\n');
  },
  astro(out) {
    run('astro', ['build', '--root', 'astro', '--outDir', join(out, 'course')]);
  },
  iframe(out) {
    // The widget's host serves dist/ at /course/attention-calc/; the platform's page (another
    // origin, served by the test) holds only the iframe.
    copy(join(PACKAGE, 'dist'), join(out, 'course/attention-calc'));
    cpSync(join(HERE, 'iframe/lesson.html'), join(out, 'lesson.html'));
  },
};

/** The exact version a generator is pinned to (known before anything is installed). */
export const versionOf = (name) => JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).dependencies[name];

/**
 * Builds what changed. → { out: { <site>: folder }, built: [sites rebuilt], seconds: { step: s } }
 */
export function buildSites({ force = false, log = () => {} } = {}) {
  if (!existsSync(join(ROOT, 'dist/attention-calc.js'))) throw new Error('dist/ is missing: run tools/build.sh dist');
  const seconds = {};
  const timed = (name, fn) => {
    const start = performance.now();
    fn();
    seconds[name] = Number(((performance.now() - start) / 1000).toFixed(1));
    log(`${name}: ${seconds[name]} s`);
  };

  // 1. The generators, as locked. The stamp lives in node_modules/, so it goes with it.
  const lock = sha(readFileSync(join(HERE, 'package-lock.json')));
  const lockStamp = join(MODULES, '.attention-calc-sites-lock');
  if (force || readStamp(lockStamp) !== lock) {
    timed('npm ci', () => npm(['ci', '--ignore-scripts'], HERE));
    writeFileSync(lockStamp, lock);
  }

  // 2. This project as an author gets it: packed, and the tarball installed (not saved, so the
  // lockfile holds the generators alone).
  mkdirSync(join(OUT, 'pack'), { recursive: true });
  let packed;
  timed('npm pack', () => {
    [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', join(OUT, 'pack')], ROOT));
  });
  const packageStamp = join(MODULES, '.attention-calc-package');
  if (force || readStamp(packageStamp) !== packed.integrity) {
    timed('npm install <tarball>', () => npm(['install', '--no-save', '--ignore-scripts', join(OUT, 'pack', packed.filename)], HERE));
    // webpack's persistent cache (Docusaurus keeps one here) takes a package in node_modules to
    // be unchanged while its version is: a new tarball of the same version would be ignored.
    rmSync(join(MODULES, '.cache'), { recursive: true, force: true });
    writeFileSync(packageStamp, packed.integrity);
  }

  // 3. Each site whose files, generator or package changed.
  const out = {};
  const built = [];
  for (const site of SITES) {
    out[site] = join(OUT, site);
    const files = sourceFiles(SOURCE[site] ?? site);
    const stamp = sha(lock, packed.integrity, readFileSync(fileURLToPath(import.meta.url)),
      ...files.flatMap((f) => [f, readFileSync(join(HERE, f))]));
    const stampFile = join(OUT, `${site}.stamp`);
    if (!force && readStamp(stampFile) === stamp && existsSync(join(out[site], 'course'))) continue;
    rmSync(out[site], { recursive: true, force: true });
    timed(`build ${site}`, () => BUILDERS[site](out[site]));
    writeFileSync(stampFile, stamp);
    built.push(site);
  }
  return { out, built, seconds };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { out, built } = buildSites({ force: process.argv.includes('--force'), log: (line) => console.log(line) });
  console.log(built.length ? `built: ${built.join(', ')}` : 'nothing changed');
  for (const [site, dir] of Object.entries(out)) console.log(`  ${site}: ${relative(process.cwd(), dir)}/`);
}
