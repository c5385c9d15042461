// The npm package as an author installs it: `npm pack` → a fresh project → `npm install` of the
// tarball, offline → a page that imports the element, bundled with esbuild, with the package's
// asset folders copied beside the bundle (the README's "Install from npm") → Chromium.
// Relies on dist/ (npm test builds it first; otherwise: tools/build.sh dist).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

import { startServer } from '../../tools/serve.mjs';
import { readFixture } from '../js/helpers.mjs';
import { launchChromium, openPage } from './chromium.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const spec = readFixture('worked-example.json');
const shown = (x) => {
  const fixed = x.toFixed(3);
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
};

// npm that cannot reach any registry, with an empty cache of its own: whatever it needs
// beyond the tarball fails the install instead of being fetched.
const npm = (args, cwd, cache) => execFileSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
  cwd,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: cache, npm_config_update_notifier: 'false' },
});

describe('the npm package, packed, installed offline and bundled', { timeout: 60_000 }, () => {
  let tmp, app, packed, server, url, browser;
  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/attention-calc.js')), 'dist/ is missing: run tools/build.sh dist');
    tmp = mkdtempSync(join(tmpdir(), 'attention-calc-package-'));
    const cache = join(tmp, 'npm-cache');
    [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], ROOT, cache));
    app = join(tmp, 'course');
    mkdirSync(join(app, 'src'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'course', private: true, type: 'module' }));
    npm(['install', join(tmp, packed.filename)], app, cache);

    // The course page: its own script imports the element; esbuild bundles it into public/.
    const pkg = join(app, 'node_modules/attention-calc');
    const pub = join(app, 'public');
    writeFileSync(join(app, 'src/course.js'), "import 'attention-calc';\n");
    await build({
      absWorkingDir: app,
      entryPoints: ['src/course.js'],
      outdir: 'public',
      bundle: true,
      format: 'esm',
      logLevel: 'silent', // no --external:'node:*': dist/ has no Node-only import left to leave out
    });
    // The element finds its wasm and workers beside its script, which is now the
    // bundle: every folder of the package's dist/ goes there (cp -r …/dist/*/ public/).
    for (const entry of readdirSync(join(pkg, 'dist'), { withFileTypes: true })) {
      if (entry.isDirectory()) cpSync(join(pkg, 'dist', entry.name), join(pub, entry.name), { recursive: true });
    }
    writeFileSync(join(pub, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
    writeFileSync(join(pub, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title>'
      + '<link rel="icon" href="icon.svg"><script type="module" src="course.js"></script></head>'
      + '<body><attention-calc panels="weights"></attention-calc></body></html>');
    ({ server, url } = await startServer({ root: pub }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the tarball holds dist/ and the types, exports the element and attention.js, and needs nothing else at run time', () => {
    const files = packed.files.map((f) => f.path);
    for (const path of ['dist/attention-calc.js', 'dist/wasm/attention-relaxed.wasm', 'dist/wasm/attention-simd.wasm', 'dist/wasm/calculator-simd.wasm',
      'dist/wasm/attention-scalar.wasm', 'dist/attention.js', 'dist/attention.d.ts', 'dist/attention-calc.d.ts', 'dist/learned-heads.bin']) {
      assert.ok(files.includes(path), `the tarball holds ${path}`);
    }
    assert.ok(!files.some((f) => /^(src|bindings|tests|tools|web)\//.test(f)), 'sources, tests and web/ stay out of the tarball');
    // Issue 28: one copy of each file (the wasm, the checkpoint), and no demo page.
    assert.deepEqual(files.filter((f) => /\.(wasm|bin)$/.test(f) && !f.startsWith('dist/')), []);
    for (const page of ['dist/index.html', 'dist/main.js', 'dist/embed.html']) assert.ok(!files.includes(page), `${page} is not in the tarball`);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/attention-calc/package.json'), 'utf8'));
    assert.equal(manifest.private, undefined, 'a private package cannot be published');
    assert.deepEqual(manifest.dependencies ?? {}, {}, 'KaTeX and the rest are copied into dist/ at build time');
    assert.equal(manifest.types, './dist/attention-calc.d.ts');
    assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')), ['attention-calc']);
  });

  it('dist/ imports nothing of Node, so a site\'s bundler takes it as it is (webpack, in Docusaurus: "UnhandledSchemeError: Reading from node:fs/promises")', () => {
    const dist = join(app, 'node_modules/attention-calc/dist');
    const scripts = readdirSync(dist, { recursive: true }).filter((f) => /\.m?js$/.test(f));
    assert.ok(scripts.length > 0);
    for (const file of scripts) {
      assert.doesNotMatch(readFileSync(join(dist, file), 'utf8'), /\bimport\s*\(\s*["'`]node:|\bfrom\s*["'`]node:|\brequire\s*\(\s*["'`]node:/, `dist/${file}`);
    }
  });

  it("attention-calc/attention.js, imported by name under Node, computes the worked example's weights", () => {
    writeFileSync(join(app, 'weights.mjs'), "import { loadAttention } from 'attention-calc/attention.js';\n"
      + `const spec = ${JSON.stringify({ Q: spec.Q, K: spec.K, V: spec.V })};\n`
      + 'const attn = await loadAttention();\n'
      + 'console.log(JSON.stringify(attn.attention({ q: spec.Q, k: spec.K, v: spec.V }).weights));\n');
    const weights = JSON.parse(execFileSync(process.execPath, ['weights.mjs'], { cwd: app, encoding: 'utf8' }));
    weights.flat().forEach((x, t) => assert.ok(Math.abs(x - spec.no_mask.weights.flat()[t]) < 1e-6, `weight ${t}: ${x}`));
  });

  it('attention-calc/attention.js loads the learned heads it ships (learnedModel(): learned-heads.bin beside it) under Node', () => {
    writeFileSync(join(app, 'learned.mjs'), "import { loadAttention } from 'attention-calc/attention.js';\n"
      + 'const attn = await loadAttention();\n'
      + 'const model = await attn.learnedModel();\n'
      + "console.log(typeof model.run);\n");
    assert.equal(execFileSync(process.execPath, ['learned.mjs'], { cwd: app, encoding: 'utf8' }).trim(), 'function');
  });

  it("a page bundled with esbuild, the package's folders beside the bundle, shows the worked example's weights in Chromium", { timeout: 30_000 }, async () => {
    const { context, page, problems } = await openPage(browser);
    const fetched = [];
    page.on('response', (r) => fetched.push([r.status(), new URL(r.url()).pathname]));
    try {
      await page.goto(url);
      // Without its files the element never gets defined: wait a bounded time, then say what was missing.
      const started = await page.evaluate(() => Promise.race([
        customElements.whenDefined('attention-calc').then(() => document.querySelector('attention-calc').ready).then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 15_000)),
      ]));
      assert.deepEqual(fetched.filter(([status]) => status !== 200), [], 'every file the page asked for was served');
      assert.ok(started, 'the element started');
      const w = page.locator('attention-calc');
      for (let i = 1; i <= 3; i++) {
        for (let j = 1; j <= 3; j++) {
          assert.equal(await w.getByLabel(`Weights row ${i} column ${j}`, { exact: true }).textContent(),
            shown(spec.no_mask.weights[i - 1][j - 1]), `weights row ${i} column ${j}`);
        }
      }
      // An embed without a lab loads the calculator's half of the core (issue 25).
      assert.ok(fetched.some(([, path]) => /^\/wasm\/calculator-relaxed\.wasm$/.test(path)), 'the wasm came from beside the bundle');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
