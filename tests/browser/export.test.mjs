// "Copy as PyTorch", "Copy as NumPy" and "Copy as LaTeX" in every mode. The copied scripts are run
// with Debian's python3-torch and python3-numpy (the NumPy one also where torch cannot be imported)
// and must print the weights and outputs the page shows, to the page's precision;
// the copied LaTeX must parse with KaTeX and write the mask term, the scale and the place of the
// mask that the page used. States come from links (the URL hash) and the element's attributes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import katex from 'katex';

import { fromHash, toHash } from '../../web/calc/state.js';
import { openPage } from './chromium.mjs';
import { coursePage, servedWeb } from './served.mjs';

// Debian's interpreter: a `python3` earlier on PATH may be one without torch.
const PYTHON = '/usr/bin/python3';
const RUNNER = fileURLToPath(new URL('../support/run_snippets.py', import.meta.url));
const missing = (name) => `python3-${name} is missing: ${PYTHON} cannot import ${name}. Install it with \`apt-get install python3-${name}\` (tools/bootstrap.sh does).`;
const NO_TORCH = missing('torch');

/**
 * Runs the scripts in one Debian python3 (torch imported once) → [{ stdout, error }]. With
 * `withoutTorch`, torch cannot be imported and a warning (a nan made on the way) is an error.
 */
function runSnippets(scripts, { withoutTorch = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [RUNNER, ...(withoutTorch ? ['--without-torch'] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', (e) => reject(new Error(e.code === 'ENOENT' ? NO_TORCH : e.message)));
    child.on('close', (code) => {
      if (/No module named '?torch/.test(err)) reject(new Error(NO_TORCH));
      else if (/No module named '?numpy/.test(err)) reject(new Error(missing('numpy')));
      else if (code !== 0) reject(new Error(`${RUNNER} failed (exit ${code}):\n${err}`));
      else resolve(JSON.parse(out));
    });
    child.stdin.end(JSON.stringify(scripts));
  });
}

// 'A = tensor([[0.330, 0.670], …])' (PyTorch) or 'A = [[0.330 0.670]\n […]]' (NumPy) → rows of
// numeric strings, nan and inf included.
function printedMatrix(output, name) {
  const match = output.match(new RegExp(`^${name} = (?:tensor\\()?(\\[\\[[\\s\\S]*?\\]\\])`, 'm'));
  assert.ok(match, `the script prints no ${name}:\n${output}`);
  return match[1].split(/\],?\s*\[/).map((row) => row.match(/-?(?:\d+\.?\d*|nan|inf)/g));
}

// The LaTeX pmatrix after `prefix` → rows of entries.
function texMatrix(latex, prefix) {
  const start = latex.indexOf(`${prefix}\\begin{pmatrix}`);
  assert.ok(start >= 0, `the LaTeX has no “${prefix}\\begin{pmatrix}”:\n${latex}`);
  const body = latex.slice(start + prefix.length + '\\begin{pmatrix}'.length, latex.indexOf('\\end{pmatrix}', start));
  return body.split('\\\\').map((row) => row.split('&').map((x) => x.trim()));
}

// A number as the page writes it (typographic minus) or as Python or LaTeX do.
const value = (text) => ({ 'nan': NaN, 'inf': Infinity, '-inf': -Infinity }[text] ?? Number(text.replace('−', '-')));

function assertSameNumbers(got, shown, what) {
  assert.equal(got.length, shown.length, `${what}: ${got.length} rows, the page shows ${shown.length}`);
  shown.forEach((row, i) => {
    assert.equal(got[i].length, row.length, `${what} row ${i + 1}: ${got[i].length} entries, the page shows ${row.length}`);
    row.forEach((text, j) => {
      // Equal once both are rounded to the page's precision (0.000 and -0.000 are the same). Both
      // sides compute in float32, so a value a hair from a rounding boundary could differ in the
      // last digit; none of these states has one.
      assert.ok(value(got[i][j]) === value(text), `${what} row ${i + 1} column ${j + 1}: ${got[i][j]}, the page shows ${text}`);
    });
  });
}

const SCALES = { sqrt: '\\frac{QK^\\top}{\\sqrt{d_k}}', dk: '\\frac{QK^\\top}{d_k}', none: 'QK^\\top' };

const WORKED = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1';
const FOUR = 'q=0.5,-1.2,2;1,0,-0.3;-0.7,1.5,0.2;2,1,-1&k=1,0.4,-0.5;-1,2,0;0.3,-0.8,1.1;0,1,1&v=1,0;0,1;1,1;-0.5,2';
const EIGHT = `q=${Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (__, j) => (((i * 7 + j * 3) % 11) - 5) / 4).join(',')).join(';')}`
  + `&k=${Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (__, j) => (((i * 5 + j * 2) % 9) - 4) / 3).join(',')).join(';')}`
  + `&v=${Array.from({ length: 8 }, (_, i) => Array.from({ length: 3 }, (__, j) => (((i + 1) * (j + 2)) % 7) - 3.5).join(',')).join(';')}`;

/**
 * Each state, opened from a link (`hash`) or the element's attributes, with what its LaTeX must
 * say: the scale (sqrt, dk, none, or the TeX of a custom factor), the mask ('none', 'before' the
 * softmax as + M, 'after' it as ⊙ (1 − H)), and the queries whose rows it defines as 0 (1-based;
 * `noKey` when the page's queries that see no key differ: after the softmax, no row needs defining),
 * and `weight11`, A₁₁ as the page must show it, where it is known (the 0.355).
 */
const CASES = [
  { name: 'no mask, 1/√d_k (the worked example)', hash: WORKED, scale: 'sqrt', mask: 'none', empty: [] },
  { name: 'causal mask', hash: `${WORKED}&causal=1`, scale: 'sqrt', mask: 'before', empty: [] },
  { name: 'padding mask, n = 4, d_k = 3 ≠ d_v = 2', hash: `${FOUR}&pad=4`, scale: 'sqrt', mask: 'before', empty: [] },
  { name: 'LaTeX writes the mask term (custom hidden cells)', hash: `${WORKED}&hide=1-3,2-1,3-2`, scale: 'sqrt', mask: 'before', empty: [] },
  { name: 'fully masked row is 0 in the snippet', hash: `${WORKED}&hide=2-1,2-2,2-3`, scale: 'sqrt', mask: 'before', empty: [2] },
  { name: 'LaTeX says rows that see no key are defined as 0 (causal + padding + hidden cells)', hash: `${FOUR}&causal=1&pad=1&hide=2-2,4-3`, scale: 'sqrt', mask: 'before', empty: [1, 2] },
  { name: 'LaTeX writes the mask after the softmax in that pitfall', hash: `${WORKED}&causal=1&hide=3-1&pitfall=mask-after-softmax`, scale: 'sqrt', mask: 'after', empty: [] },
  { name: 'mask after the softmax, a query that sees no key', hash: `${FOUR}&pad=2&hide=1-1,1-3,1-4&pitfall=mask-after-softmax`, scale: 'sqrt', mask: 'after', empty: [], noKey: [1] },
  { name: 'mask after the softmax with no mask on', hash: `${WORKED}&pitfall=mask-after-softmax`, scale: 'sqrt', mask: 'none', empty: [] },
  { name: 'LaTeX writes the scale actually used (1/d_k, padding, d_k = 4, d_v = 1)', hash: 'q=1,2,0,-1;0.5,0,1,1;-1,1,2,0&k=2,0,1,1;0,-1,1,2;1,1,-1,0&v=1;-2;0.5&pad=2&pitfall=scale-dk', scale: 'dk', mask: 'before', empty: [] },
  { name: 'LaTeX writes no scale in that pitfall (causal, d_k = 3, d_v = 5)', hash: 'q=1,2,0;0.5,0,1;-1,1,2&k=2,0,1;0,-1,1;1,1,-1&v=1,0,2,-1,0.5;-2,1,0,0,1;0.5,0.5,-1,2,0&causal=1&pitfall=no-scale', scale: 'none', mask: 'before', empty: [] },
  { name: 'custom scale 0.1 kept (scale="0.1" on the element)', attributes: 'scale="0.1"', scale: '0.1\\,QK^\\top', mask: 'none', empty: [], weight11: '0.355' },
  { name: 'custom scale 3e-7 with a mask, set by the element\'s attributes', attributes: 'q="2,1;0,3;-1,1" k="1,1;0,2;3,-1" v="1,2;3,4;-1,0" mask="0,1,0;0,0,0;1,0,1" scale="3e-7"', scale: '3 \\times 10^{-7}\\,QK^\\top', mask: 'before', empty: [] },
  { name: 'custom scale from a link, padding, hidden cells and a query that sees no key', hash: `${WORKED}&pad=2&hide=3-1,3-3&pitfall=custom-scale&scale=2.5`, scale: '2.5\\,QK^\\top', mask: 'before', empty: [3] },
  { name: 'the page\'s precision: precision="5" on the element, causal mask', attributes: 'precision="5" mask="causal"', scale: 'sqrt', mask: 'before', empty: [], weight11: '1.00000' },
  { name: '8 tokens, d_k = 8, d_v = 3, causal and padding', hash: `${EIGHT}&causal=1&pad=8`, scale: 'sqrt', mask: 'before', empty: [] },
  { name: 'scores of 100 unscaled: the NumPy softmax subtracts the row max, so exp does not overflow', hash: 'q=100,0;0,100;50,50&k=1,0;0,1;1,1&v=1,0;0,1;1,1&pitfall=no-scale', scale: 'none', mask: 'none', empty: [] },
];

describe('Copy as PyTorch, Copy as NumPy and Copy as LaTeX, in every mode', () => {
  const env = servedWeb();
  // Per case: what the page showed and copied, then what its snippet printed.
  const seen = new Map();
  let python = null; // the runners' promise, settled once every case is read

  // Links open one after another in one page, as a learner pastes them into the address bar;
  // attribute states each in a course page of their own. → the page, a count of the console
  // errors and exceptions before the state, and whether the page is the case's own.
  let linkPage = null;
  async function open(c) {
    if (c.hash) {
      if (!linkPage) {
        linkPage = await openPage(env.browser);
        await linkPage.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
        await linkPage.page.goto(env.url);
        await linkPage.page.waitForSelector('body[data-ready]');
        assert.equal(await linkPage.page.getAttribute('body', 'data-ready'), 'relaxed');
      }
      const { page, problems } = linkPage;
      const from = problems.length;
      const { state, error } = fromHash(c.hash);
      assert.equal(error, undefined, `the case's link: ${error}`);
      await page.evaluate((hash) => { location.hash = hash; }, c.hash);
      await page.waitForFunction((hash) => document.querySelector('attention-calc').hash === hash, toHash(state));
      return { page, problems, from, own: false };
    }
    const { context, page, problems } = await openPage(env.browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
    await page.goto(await coursePage(context, env.url, `<attention-calc ${c.attributes}></attention-calc>`));
    await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      await document.querySelector('attention-calc').ready;
    });
    return { page, problems, from: 0, own: true };
  }

  // The weights and outputs as the page shows them, which pairs the core hid, and any problem
  // the page reports with the state.
  const shown = (page) => page.evaluate(() => {
    const calc = document.querySelector('attention-calc');
    const read = (step) => {
      const rows = [];
      for (const td of calc.shadowRoot.querySelectorAll(`td[data-step="${step}"]`)) {
        (rows[Number(td.dataset.i)] ??= [])[Number(td.dataset.j)] = td.textContent;
      }
      return rows;
    };
    return {
      status: calc.shadowRoot.querySelector('.calc-status').textContent,
      weights: read('weights'),
      output: read('output'),
      hidden: calc.result.hidden,
      fullyMasked: calc.result.fullyMasked,
    };
  });

  // Clicks a copy button → the text copied, from the clipboard or, where the page could not
  // copy, from the text box it shows instead.
  async function copied(page, label) {
    await page.evaluate(() => { document.querySelector('attention-calc').shadowRoot.querySelector('.share-status').textContent = ''; });
    await page.getByRole('button', { name: label }).click();
    const status = page.getByRole('status').filter({ hasText: `${label}:` });
    await status.waitFor();
    if ((await status.textContent()).endsWith('✓')) return page.evaluate(() => navigator.clipboard.readText());
    return page.getByRole('textbox', { name: 'Exported text' }).inputValue();
  }

  before(async () => {
    for (const c of CASES) {
      try {
        const { page, problems, from, own } = await open(c);
        const view = await shown(page);
        const snippet = await copied(page, 'Copy as PyTorch');
        const numpy = await copied(page, 'Copy as NumPy');
        const latex = await copied(page, 'Copy as LaTeX');
        seen.set(c, { view, snippet, numpy, latex, problems: problems.slice(from) });
        if (own) await page.context().close();
      } catch (error) {
        seen.set(c, { error });
      }
    }
    await linkPage?.context.close();
    const cases = CASES.filter((c) => seen.get(c).snippet);
    // Each script run where it is meant to run: PyTorch's and NumPy's with torch, NumPy's also
    // with NumPy alone.
    const runs = (key, into, options) => runSnippets(cases.map((c) => seen.get(c)[key]), options).then((results) => {
      cases.forEach((c, i) => { seen.get(c)[into] = results[i]; });
    });
    python = Promise.all([runs('snippet', 'run'), runs('numpy', 'numpyRun'), runs('numpy', 'numpyAloneRun', { withoutTorch: true })]);
    python.catch(() => {}); // reported by the tests below, each of which awaits it
  });

  it('python3-torch and python3-numpy are installed (CI installs them)', async () => {
    await python;
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const { error, view, snippet, latex, problems } = seen.get(c);
      if (error) throw error;
      assert.deepEqual(problems, [], 'no console error, no uncaught exception');
      assert.equal(view.status, '', `the page reports a problem with the state: ${view.status}`);
      if (c.weight11) assert.equal(view.weights[0][0], c.weight11, 'the page itself');
      assert.deepEqual(view.fullyMasked.flatMap((x, i) => (x ? [i + 1] : [])), c.noKey ?? c.empty, 'the queries that see no key');

      // PyTorch: the lesson's function, run; what it prints is what the page shows.
      assert.match(snippet, /^def attention\(Q, K, V, causal=False, mask=None\):$/m, 'built on the lesson\'s attention function');
      if (c.empty.length) assert.match(snippet, /defines th(at row|ose rows) of A \(and so of Z\) as 0/, 'the fully masked step is explained');
      await python;
      const { stdout, error: failed } = seen.get(c).run;
      assert.equal(failed, null, `the snippet failed:\n${failed}\n--- snippet ---\n${snippet}`);
      assertSameNumbers(printedMatrix(stdout, 'A'), view.weights, 'A printed by the snippet');
      assertSameNumbers(printedMatrix(stdout, 'Z'), view.output, 'Z printed by the snippet');

      // NumPy (exercise 2): NumPy alone, a softmax that subtracts the row max, the same numbers;
      // then, where torch is there, the comparison with the PyTorch snippet's function.
      const { numpy } = seen.get(c);
      const [alone, optional] = numpy.split(/^# --- Optional: .*$/m);
      assert.ok(optional, `the NumPy script has its optional PyTorch block:\n${numpy}`);
      assert.doesNotMatch(alone, /torch/, 'the NumPy script before its optional block uses NumPy alone');
      assert.match(alone, /^import numpy as np$/m);
      assert.match(alone, /^def softmax\(scores\):\n(    #.*\n)*.*row max[\s\S]*?\n    e = np\.exp\(scores - scores\.max\(axis=-1, keepdims=True\)\)$/m, 'the softmax subtracts the row max, saying why');
      assert.match(alone, /^def attention\(Q, K, V, causal=False, mask=None\):$/m, 'built on the lesson\'s attention function');
      if (c.empty.length) assert.match(alone, /defines th(at row|ose rows) of A \(and so of Z\) as 0/, 'the fully masked step is explained');
      for (const [run, where] of [[seen.get(c).numpyAloneRun, 'with NumPy alone'], [seen.get(c).numpyRun, 'with torch installed']]) {
        assert.equal(run.error, null, `the NumPy script failed ${where}:\n${run.error}\n--- script ---\n${numpy}`);
        assertSameNumbers(printedMatrix(run.stdout, 'A'), view.weights, `A printed by the NumPy script ${where}`);
        assertSameNumbers(printedMatrix(run.stdout, 'Z'), view.output, `Z printed by the NumPy script ${where}`);
      }
      assert.match(seen.get(c).numpyAloneRun.stdout, /^PyTorch is not installed: the comparison with the PyTorch snippet is skipped\.$/m);
      const compared = seen.get(c).numpyRun.stdout.match(/^max \|NumPy - PyTorch\| = (\S+): below \S+$/m);
      assert.ok(compared, `the NumPy script compares with PyTorch, below the lesson's 1e-6:\n${seen.get(c).numpyRun.stdout}`);
      assert.ok(Number(compared[1]) < 1e-6, `the difference printed, ${compared[1]}, is below 1e-6`);

      // LaTeX: valid for KaTeX, and the computation the page did.
      assert.doesNotThrow(() => katex.renderToString(latex, { throwOnError: true, strict: 'error', displayMode: true }), 'KaTeX parses the LaTeX');
      const scaled = SCALES[c.scale] ?? c.scale;
      const softmax = `\\operatorname{softmax}\\!\\left(${scaled}${c.mask === 'before' ? ' + M' : ''}\\right)${c.mask === 'after' ? ' \\odot (1 - H)' : ''}`;
      assert.ok(latex.includes(`A = ${softmax} = \\begin{pmatrix}`), `the LaTeX writes A = ${softmax}:\n${latex}`);
      assert.ok(latex.includes(`d_k = ${texMatrix(latex, 'Q = ')[0].length}`), 'the LaTeX gives d_k');
      if (c.mask === 'before') {
        assert.deepEqual(texMatrix(latex, 'M = '), view.hidden.map((row) => row.map((x) => (x ? '-\\infty' : '0'))), 'M is −∞ exactly where the page hides a key');
      } else if (c.mask === 'after') {
        assert.deepEqual(texMatrix(latex, 'H = '), view.hidden.map((row) => row.map((x) => (x ? '1' : '0'))), 'H is 1 exactly where the page hides a key');
        assert.ok(!latex.includes('M = '), 'no −∞ mask before the softmax');
      } else {
        assert.ok(!/[MH] = |\\infty|\\odot/.test(latex), `no mask term without a mask:\n${latex}`);
      }
      const empty = c.empty.join(', ');
      if (c.empty.length) {
        assert.match(latex, new RegExp(`\\\\text\\{Quer(y|ies) ${empty} sees? no key: .* rows? ${empty} of \\} A \\\\text\\{ and \\} Z \\\\text\\{ (is|are) defined as \\} 0`), `the LaTeX says row ${empty} is defined as 0:\n${latex}`);
      } else {
        assert.doesNotMatch(latex, /defined as/);
      }
      assertSameNumbers(texMatrix(latex, `${softmax} = `), view.weights, 'A in the LaTeX');
      assertSameNumbers(texMatrix(latex, 'Z = AV = '), view.output, 'Z in the LaTeX');
    });
  }
});
