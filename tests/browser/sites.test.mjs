// <attention-calc> in real sites, built by tools/sites/build.mjs with generators installed from
// npm (VitePress, Docusaurus, Vite, webpack, Next.js, Astro, reveal.js) and a lesson page of an iframe-only platform, each
// consuming this project's packed npm package. Each site is served at the sub-path /course/;
// docs/embedding.md shows the sites' files as the snippets to paste.
// The first run installs the generators (about a minute and a half) and builds every site;
// later runs rebuild only what changed. Relies on dist/ (tools/build.sh dist).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startServer } from '../../tools/serve.mjs';
import { buildSites, nextEnv, SITES, versionOf } from '../../tools/sites/build.mjs';
import { readFixture } from '../js/helpers.mjs';
import { launchChromium, openPage } from './chromium.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const spec = readFixture('worked-example.json');
const shown = (x) => {
  const fixed = x.toFixed(3);
  return (Number(fixed) === 0 ? fixed.replace('-', '') : fixed).replace('-', '−');
};

/**
 * Starts a site's own server (`vite`, `vitepress dev`, `next start`) from tools/sites/ and resolves,
 * once its output matches `ready`, with { match, stop }. The servers print their URL in colour.
 */
function launch(bin, args, ready, env = {}) {
  const child = spawn(join(ROOT, 'tools/sites/node_modules/.bin', bin), args,
    { cwd: join(ROOT, 'tools/sites'), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, detached: true });
  // The whole group: `next start` forks the server that holds the port.
  const stop = () => { try { process.kill(-child.pid); } catch { /* already gone */ } };
  let said = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      said += chunk;
      const match = ready.exec(said.replace(/\x1b\[[0-9;]*m/g, ''));
      if (match) resolve({ match, stop });
    });
    child.on('exit', (code) => reject(new Error(`${bin} ${args[0]} exited (${code}): ${said}`)));
  });
}

describe('<attention-calc> in sites built with generators from npm', { timeout: 300_000 }, () => {
  const served = {};
  let out, browser, page, problems, context, responses;
  const started = performance.now();
  before(async () => {
    // Issue 28: what the install and the builds cost this run (all cached: npm pack alone).
    let built, seconds;
    ({ out, built, seconds } = buildSites());
    console.log(`sites: ${built.length ? `built ${built.join(', ')}` : 'every site cached'}; ${Object.entries(seconds).map(([step, s]) => `${step} ${s} s`).join(', ')}`);
    for (const site of SITES) served[site] = await startServer({ root: out[site] });
    browser = await launchChromium();
  }, { timeout: 300_000 });
  after(async () => {
    console.log(`sites.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
    await browser?.close();
    for (const { server } of Object.values(served)) server.close();
  });
  beforeEach(async () => {
    // The sites' own inline scripts (theme switches, hydration data) are theirs to allow:
    // serve.mjs's header is the widget's strict policy, not the host's.
    ({ context, page, problems } = await openPage(browser, { bypassCSP: true }));
    // The browser asks each origin for /favicon.ico: the static host's file, not the site's.
    await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
    responses = [];
    page.on('response', (r) => responses.push([r.status(), r.url()]));
  });
  afterEach(async () => {
    await context.close();
  });

  // The first widget in `scope` (a page or a frame) once it started, and its weights as shown.
  async function weightsShown(scope) {
    // Without its script the element is never defined: wait a bounded time, then say why.
    const started = await scope.locator('attention-calc').first().evaluate((e) => Promise.race([
      customElements.whenDefined('attention-calc').then(() => {
        e.scrollIntoView();
        return e.ready;
      }).then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 20_000)),
    ]));
    assert.ok(started, `the element started (${problems.join('; ') || 'no console error'})`);
    const w = scope.locator('attention-calc').first();
    const rows = [];
    for (let i = 1; i <= 3; i++) {
      const row = [];
      for (let j = 1; j <= 3; j++) row.push(await w.getByLabel(`Weights row ${i} column ${j}`, { exact: true }).textContent());
      rows.push(row);
    }
    return rows;
  }
  const expected = (weights) => weights.map((row) => row.map(shown));

  // Every file the site asked its own host for lies under its base path and was served.
  function assertUnderBase(site) {
    const mine = responses.filter(([, url]) => url.startsWith(served[site].url));
    assert.ok(mine.length > 0);
    assert.deepEqual(mine.filter(([status, url]) => status >= 400 || !new URL(url).pathname.startsWith('/course/')), [],
      'every request to the site is under /course/ and answered');
    // A widget without a lab loads the calculator's module, one with a lab the full core: from the
    // copy of dist/.
    assert.ok(mine.some(([, url]) => /\/course\/attention-calc\/wasm\/(calculator|attention)-relaxed\.wasm$/.test(url)),
      `the wasm came from the site, under the base path: ${mine.map(([, url]) => url).join(', ')}`);
  }

  // A page-wide key listener, as a site's search shortcut or a slide deck has, then 0.5 and
  // ArrowRight typed in Q row 1 column 1: the cell gets them, the page hears nothing.
  async function typeInCell() {
    await page.evaluate(() => {
      window.heard = [];
      for (const type of ['keydown', 'keyup']) document.addEventListener(type, (e) => window.heard.push(`${type} ${e.key}`));
    });
    const cell = page.locator('attention-calc').getByLabel('Q row 1 column 1', { exact: true });
    await cell.click();
    await cell.selectText();
    await page.keyboard.type('0.5');
    assert.equal(await cell.inputValue(), '0.5', 'the . reached the cell');
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await page.evaluate(() => window.heard.splice(0)), [], 'no key reached the page');
  }

  it(`VitePress ${versionOf('vitepress')}: a Markdown page under base /course/, its theme importing the package: the worked example, the labs, training, no hydration warning, and keys typed in a cell stay there`, { timeout: 90_000 }, async () => {
    await bundledSite(served.vitepress.url);
    await typeInCell();
    assert.deepEqual(problems, [], 'no console error (Vue reports a hydration mismatch there)');
  });

  it('VitePress dev server: the same page works in `vitepress dev`, with the package left out of its dependency optimizer', { timeout: 90_000 }, async () => {
    const { match: [, url], stop } = await launch('vitepress', ['dev', 'vitepress', '--port', '0'], /Local:\s+(http:\S+)/);
    try {
      assert.ok(url.endsWith('/course/'), url);
      await bundledSite(url.slice(0, -'course/'.length));
    } finally {
      stop();
    }
  });

  it(`Docusaurus ${versionOf('@docusaurus/core')} (classic preset): a Markdown page under baseUrl /course/, a client module importing the package: the worked example, the labs, training, no hydration error, and keys typed in a cell stay there`, { timeout: 90_000 }, async () => {
    await bundledSite(served.docusaurus.url);
    await typeInCell();
    assert.deepEqual(problems, [], 'no console error (React reports a hydration mismatch there)');
  });

  for (const [site, intro] of [['vitepress', 'course/intro.html'], ['docusaurus', 'course/intro']]) {
    it(`${site === 'vitepress' ? 'VitePress' : 'Docusaurus'}: reached by the site's own navigation from another page (no page load), the widget starts and shows the worked example`, async () => {
      await page.goto(`${served[site].url}${intro}`);
      await page.evaluate(() => (window.samePage = true));
      await page.getByRole('link', { name: 'Attention weights' }).first().click();
      await page.locator('attention-calc').first().waitFor({ state: 'attached' });
      assert.deepEqual(await weightsShown(page), expected(spec.no_mask.weights));
      assert.equal(await page.evaluate(() => window.samePage), true, 'the site navigated without loading a page');
      assert.deepEqual(problems, []);
    });
  }

  // Each site's own dark-mode switch: VitePress puts a class dark on <html>, Docusaurus
  // data-theme="dark"; theme="auto" (the default) follows either.
  for (const [site, toggle] of [['vitepress', { role: 'switch', name: /switch to (dark|light) theme/i }], ['docusaurus', { role: 'button', name: /dark and light mode/i }]]) {
    it(`${site === 'vitepress' ? 'VitePress' : 'Docusaurus'}: the site's own dark-mode switch turns the widget dark, and back`, async () => {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${served[site].url}course/`);
      await weightsShown(page);
      const paper = () => page.locator('attention-calc').first().evaluate((e) => getComputedStyle(e).backgroundColor);
      const WHITE = 'rgb(255, 255, 255)', DARK = 'rgb(21, 24, 28)';
      assert.equal(await paper(), WHITE);
      const button = page.getByRole(toggle.role, { name: toggle.name }).first();
      await button.click();
      await page.waitForFunction((dark) => getComputedStyle(document.querySelector('attention-calc')).backgroundColor === dark, DARK, { timeout: 3000 });
      // VitePress goes back to light; Docusaurus by way of "system" (light here).
      for (let clicks = 0; clicks < 2 && await paper() !== WHITE; clicks++) {
        await button.click();
        await page.waitForTimeout(100);
      }
      assert.equal(await paper(), WHITE, 'and back');
      assert.deepEqual(problems, []);
    });
  }

  it(`reveal.js ${versionOf('reveal.js')}: the widget on a slide fits the slide and shows the worked example; 0.5 and ArrowRight typed in a cell keep the slide, Escape still opens the overview`, async () => {
    await page.goto(`${served.reveal.url}course/#/1`);
    assert.deepEqual(await weightsShown(page), expected(spec.no_mask.weights));
    const slide = () => page.evaluate(() => [location.hash, Boolean(document.querySelector('.slides > section.present attention-calc'))]);
    assert.deepEqual(await slide(), ['#/1', true]);
    // The deck's 42 px centred type and its scaled stage leave the widget inside its slide.
    const { widget, stage } = await page.evaluate(() => ({
      widget: document.querySelector('attention-calc').getBoundingClientRect().toJSON(),
      stage: document.querySelector('.slides').getBoundingClientRect().toJSON(),
    }));
    assert.ok(widget.left >= stage.left - 1 && widget.right <= stage.right + 1 && widget.bottom <= stage.bottom + 1,
      `the widget (${JSON.stringify(widget)}) lies inside the deck's stage (${JSON.stringify(stage)})`);
    const cell = page.locator('attention-calc').getByLabel('Q row 1 column 1', { exact: true });
    await cell.click();
    await cell.selectText();
    await page.keyboard.type('0.5');
    await page.keyboard.press('ArrowRight');
    assert.equal(await cell.inputValue(), '0.5', 'the . reached the cell (reveal.js blacks out the deck on .)');
    assert.deepEqual(await slide(), ['#/1', true], 'still on the widget\'s slide');
    assert.equal(await page.locator('.reveal.paused').count(), 0, 'the deck is not paused');
    // A key the widget does not use still reaches the deck.
    await page.keyboard.press('Escape');
    await page.locator('.reveal.overview').waitFor();
    assertUnderBase('reveal');
    assert.deepEqual(problems, []);
  });

  it('iframe-only platform: a lesson page holding only the iframe shows the state of its link, and no key typed in the frame reaches the page', async () => {
    // The platform's page, on an origin of its own (another port), its iframe pointing at the
    // widget's host.
    const lesson = readFileSync(join(out.iframe, 'lesson.html'), 'utf8')
      .replace('https://example.org/', served.iframe.url);
    const dir = mkdtempSync(join(tmpdir(), 'attention-calc-platform-'));
    writeFileSync(join(dir, 'lesson.html'), lesson);
    const platform = await startServer({ root: dir });
    try {
      await page.goto(`${platform.url}lesson.html`);
      const frame = page.frameLocator('iframe');
      await frame.locator('body[data-ready="yes"]').waitFor();
      assert.deepEqual(await weightsShown(frame), expected(spec.causal.weights), 'the causal mask of the link\'s hash');
      await page.evaluate(() => {
        window.heard = [];
        document.addEventListener('keydown', (e) => window.heard.push(e.key));
      });
      const cell = frame.getByLabel('Q row 1 column 1', { exact: true });
      await cell.click();
      await cell.selectText();
      await page.keyboard.type('0.5');
      await page.keyboard.press('ArrowRight');
      assert.equal(await cell.inputValue(), '0.5');
      assert.deepEqual(await page.evaluate(() => window.heard), []);
      assertUnderBase('iframe');
      assert.deepEqual(problems, []);
    } finally {
      platform.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Issue 28: a site whose bundler handles the package by itself: `import 'attention-calc'` and
  // the tags, nothing copied by hand. The first widget shows the worked example; the second's
  // labs load (the learned heads' checkpoint and, once training starts, the worker and its
  // wasm); every file comes from the site under /course/, as the bundler copied it; nothing 404s
  // and nothing is logged as an error.
  const LABS = ['Multi-head attention', 'Cost', 'The √d_k experiment', 'Look inside a trained model'];
  async function bundledSite(base) {
    await page.goto(`${base}course/`);
    const widgets = page.locator('attention-calc');
    const started = await page.evaluate(() => Promise.race([
      customElements.whenDefined('attention-calc').then(() => Promise.all([...document.querySelectorAll('attention-calc')].map((e) => {
        e.scrollIntoView();
        return e.ready;
      }))).then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), 30_000)),
    ]));
    assert.ok(started, `the elements started (${problems.join('; ') || 'no console error'})`);
    const first = widgets.first();
    for (let i = 1; i <= 3; i++) {
      for (let j = 1; j <= 3; j++) {
        assert.equal(await first.getByLabel(`Weights row ${i} column ${j}`, { exact: true }).textContent(),
          shown(spec.no_mask.weights[i - 1][j - 1]), `weights row ${i} column ${j}`);
      }
    }
    const labs = widgets.nth(1);
    for (const name of LABS) await labs.getByRole('group', { name, exact: true }).waitFor({ timeout: 20_000 });
    await labs.locator('figure.learned-head').first().waitFor({ timeout: 20_000 }); // the checkpoint loaded
    const train = labs.getByRole('button', { name: 'Train in this browser' });
    await train.waitFor({ timeout: 20_000 });
    await train.click();
    await page.waitForFunction(() => document.querySelectorAll('attention-calc')[1].shadowRoot.querySelector('.train-progress')?.textContent.includes('steps/s'), null, { timeout: 30_000 });
    const mine = responses.filter(([, url]) => url.startsWith(base));
    // (Next's basePath page is /course itself.)
    assert.deepEqual(mine.filter(([status, url]) => status >= 400 || !/^\/course(\/|$)/.test(new URL(url).pathname)), [],
      'every request to the site is under /course/ and answered');
    const wasm = mine.filter(([, url]) => url.endsWith('.wasm')).map(([, url]) => new URL(url).pathname);
    // A page with a lab loads the full core for every widget on it (issue 25), and the learned heads'.
    // (webpack names a file by its content's hash alone, 20 hex digits, Docusaurus's webpack 16:
    // two different files, then. Astro names the page's copies name.hash.wasm and its worker's
    // name-hash.wasm: the same two files.)
    const files = new Set(wasm.map((p) => p.replace(/[-.][\w-]{8}\.wasm$/, '.wasm')));
    assert.equal(files.size, 2, `the full core's and the learned heads' wasm, from the site: ${wasm.join(', ')}`);
    if (!/\/[0-9a-f]{16,20}\.wasm$/.test(wasm[0])) {
      // Chromium runs the relaxed-SIMD build.
      assert.ok(wasm.some((p) => /\/attention-relaxed[^/]*\.wasm$/.test(p)) && wasm.some((p) => /\/learned-relaxed[^/]*\.wasm$/.test(p)), wasm.join(', '));
    }
    assert.deepEqual(problems, []);
  }

  it(`Vite ${versionOf('vite')}, production build: \`import 'attention-calc'\` alone; the worked example, the labs, training; every file copied by Vite`, { timeout: 90_000 }, async () => {
    await bundledSite(served.vite.url);
  });

  it(`Vite ${versionOf('vite')} with React ${versionOf('react')} and TSX, production build (after \`tsc\`): the tag with a ref and a typed onattention-change handler; the worked example, the labs, training`, { timeout: 90_000 }, async () => {
    await bundledSite(served['vite-react'].url);
    // React passed the element's event to the component's handler, and the ref reached the element.
    const said = page.getByText(/^The first query gives the first key/);
    await assert.doesNotReject(said.filter({ hasText: shown(spec.no_mask.weights[0][0]) }).waitFor({ timeout: 5_000 }));
    await page.evaluate(() => {
      const calc = document.querySelector('attention-calc');
      calc.hash = calc.hash.replace(/^q=[^;&]*/, 'q=2,0,0'); // the first query, changed
    });
    const changed = await page.evaluate(() => document.querySelector('attention-calc').result.weights[0][0]);
    await said.filter({ hasText: changed.toFixed(3) }).waitFor({ timeout: 5_000 });
    assert.deepEqual(problems, []);
  });

  it(`webpack ${versionOf('webpack')}, production build: \`import 'attention-calc'\` alone; the worked example, the labs, training; every file copied by webpack`, { timeout: 90_000 }, async () => {
    await bundledSite(served.webpack.url);
  });

  // The GPT-2 panel's own files: its worker, GPT-2's module and tokenizer, found by the bundler.
  // The course's model (the fixture with GPT-2's layout, 3 layers of 4 heads) on the site.
  for (const site of ['vite', 'webpack', 'vite-react']) {
    it(`the GPT-2 panel in the ${site} build: a course's model.safetensors (gpt2-src) opens in the panel's worker and every head's heatmap shows, each file from the site`, { timeout: 90_000 }, async () => {
      const base = served[site].url;
      await context.route(`${base}course/models/**`, (route) => route.fulfill({
        path: join(ROOT, 'build-fixtures/gpt2/d64-f32', new URL(route.request().url()).pathname.split('/').pop()),
      }));
      await page.goto(`${base}course/`);
      await page.evaluate(() => {
        const panel = document.createElement('attention-calc');
        panel.setAttribute('panels', 'gpt2');
        panel.setAttribute('gpt2-src', 'models/model.safetensors');
        // At the top, and eager: the widgets above it grow as they start, and would push a lazy
        // one at the bottom out of view again.
        panel.setAttribute('loading', 'eager');
        document.body.prepend(panel);
      });
      const lab = page.getByRole('group', { name: 'Exercise 4: look inside GPT-2' });
      await lab.getByRole('img', { name: 'GPT-2 layer 2 head 3', exact: true }).waitFor({ timeout: 45_000 }).catch(async (error) => {
        throw new Error(`${error.message}\nThe panel says: ${await lab.locator('.cell-message').textContent().catch(() => '(no panel)')}`);
      });
      assert.equal(await lab.locator('figure.learned-head').count(), 4);
      assert.match(await lab.locator('.gpt2-next li').first().textContent(), /\(\d+\.\d%\)$/);
      const mine = responses.filter(([, url]) => url.startsWith(base));
      assert.deepEqual(mine.filter(([status, url]) => status >= 400 || !new URL(url).pathname.startsWith('/course/')), []);
      const names = mine.map(([, url]) => new URL(url).pathname);
      assert.ok(names.some((p) => /gpt2-relaxed[^/]*\.wasm$/.test(p) || /\/[0-9a-f]{20}\.wasm$/.test(p)), `GPT-2's wasm from the site: ${names.join(', ')}`);
      assert.ok(names.some((p) => /gpt2-tokenizer[^/]*\.bin$/.test(p) || /\/[0-9a-f]{20}\.bin$/.test(p)), `GPT-2's tokenizer from the site: ${names.join(', ')}`);
      assert.deepEqual(problems, []);
    });
  }

  it('the strict CSP (script-src \'self\' \'wasm-unsafe-eval\', style-src \'self\') holds in the Vite and webpack builds: no inline script or style, no data: URL, no eval', { timeout: 120_000 }, async () => {
    await context.close();
    ({ context, page, problems } = await openPage(browser)); // the server's CSP header, enforced
    await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
    page.on('response', (r) => responses.push([r.status(), r.url()]));
    for (const site of ['vite', 'webpack']) {
      await bundledSite(served[site].url);
      await page.goto('about:blank');
    }
  });

  for (const [site, bundler] of [['next', 'Turbopack'], ['next-webpack', 'webpack']]) {
    it(`Next.js ${versionOf('next')} with ${bundler}, app router, rendered on the server (\`next build${site === 'next' ? '' : ' --webpack'}\`, \`next start\`): a client component's \`import 'attention-calc'\`; the worked example, the labs, training, no hydration warning`, { timeout: 120_000 }, async () => {
      const port = await new Promise((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address();
          probe.close(() => resolve(free));
        });
      });
      const { stop } = await launch('next', ['start', 'next', '--port', String(port), '--hostname', '127.0.0.1'], /Ready in/, { NEXT_TELEMETRY_DISABLED: '1', ...nextEnv(site) });
      try {
        // The page as the server rendered it holds the tags, before any script ran.
        const html = await (await fetch(`http://127.0.0.1:${port}/course`)).text();
        assert.equal(html.match(/<attention-calc\b/g)?.length, 2, 'the server rendered both tags');
        await bundledSite(`http://127.0.0.1:${port}/`);
      } finally {
        stop();
      }
    });
  }

  it(`Astro ${versionOf('astro')}, static: a component imports the package in its frontmatter (in Node, at build time) and in a <script>; the worked example, the labs, training`, { timeout: 90_000 }, async () => {
    const html = readFileSync(join(out.astro, 'course/index.html'), 'utf8');
    assert.equal(html.match(/data-server-import="ok"/g)?.length, 2, 'the frontmatter imported the element class in Node');
    await bundledSite(served.astro.url);
  });

  it('Vite\'s dev server: the same page works in `vite` (the dependency optimizer moves the package\'s code; its files are still found)', { timeout: 90_000 }, async () => {
    const { match: [, url], stop } = await launch('vite', ['vite', '--port', '0', '--base', '/course/'], /Local:\s+(http:\S+)/);
    try {
      assert.ok(url.endsWith('/course/'), url);
      await bundledSite(url.slice(0, -'course/'.length));
    } finally {
      stop();
    }
  });

  it('docs/embedding.md shows each site\'s snippet exactly as the sites are built from it', () => {
    const doc = readFileSync(join(ROOT, 'docs/embedding.md'), 'utf8');
    for (const file of ['vitepress/.vitepress/config.mjs', 'vitepress/.vitepress/theme/index.mjs', 'vitepress/index.md',
      'docusaurus/docusaurus.config.mjs', 'docusaurus/src/attention-calc.mjs', 'docusaurus/docs/index.md', 'reveal/index.html', 'reveal/deck.js', 'iframe/lesson.html',
      'vite/main.js', 'vite/index.html']) {
      const text = readFileSync(join(ROOT, 'tools/sites', file), 'utf8').trimEnd();
      assert.ok(doc.includes(text), `docs/embedding.md holds tools/sites/${file} verbatim`);
    }
  });
});
