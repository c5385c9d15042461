// Practice mode in the served page, for the practice test files (practice.test.mjs and
// practice-keys.test.mjs): the suite's hooks, the steps, the accessible names of the learner's
// cells, opening index.html, and the core's own results asked in the page.
import { afterEach } from 'node:test';

import { noProblemsAfterEach, openPage } from './chromium.mjs';
import { servedWeb } from './served.mjs';

// The steps by the result's field names (attention.d.ts), and the lesson's word each cell is named by.
export const STEPS = ['scores', 'scaledBeforeMask', 'scaled', 'exp', 'rowSum', 'weights', 'output'];
const NAMES = { scores: 'scores', scaledBeforeMask: 'scaled', scaled: 'masked', exp: 'exp', rowSum: 'row sum', weights: 'weights', output: 'output' };
export const cellName = (step, i, j) => (step === 'rowSum' ? `Your row sum row ${i + 1}` : `Your ${NAMES[step]} row ${i + 1} column ${j + 1}`);
export const WORKED = 'q=1,1;0,1;-1,0&k=1,0;0,1;-1,0&v=1,0;0,1;1,1&preset=worked';

// Called in a describe(): the served page, each test's browser context closed after it, and no
// console error or uncaught exception in any test's pages. open() opens index.html in a context of
// its own, the calculator drawn; track() takes a context a test opened itself, to close it the
// same way.
export function practiceSuite() {
  const env = servedWeb();
  let context = null;
  afterEach(async () => { await context?.close(); context = null; });
  noProblemsAfterEach();
  const track = (opened) => { context = opened; return opened; };
  async function open({ hash = '', width = 1280, height = 800, colorScheme = 'light', bypassCSP = false } = {}) {
    const { context: opened, page, problems } = await openPage(env.browser, { bypassCSP });
    track(opened);
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme });
    await page.goto(`${env.url}index.html${hash}`);
    const calc = page.locator('#calculator');
    await calc.locator('.calc').waitFor();
    return { page, problems, calc };
  }
  return { env, open, track };
}

export const practise = async (calc) => {
  await calc.getByRole('button', { name: 'Practice', exact: true }).click();
  await calc.getByLabel('Your scores row 1 column 1', { exact: true }).waitFor();
};
export const cell = (calc, step, i, j) => calc.getByLabel(cellName(step, i, j), { exact: true });
export const live = (calc) => calc.locator('.practice-live');
export const summary = (calc) => calc.locator('.practice-summary').textContent();

// The core's results, asked in the page (the module the page loads): the exercise's, or a
// mistake's with other options.
export const coreResult = (page, inputs) => page.evaluate(async (o) => {
  const { loadAttention } = await import('./attention.js');
  const attn = await loadAttention();
  const r = attn.attention(o);
  return { scores: r.scores, scaledBeforeMask: r.scaledBeforeMask, scaled: r.scaled.map((row) => row.map((x) => (x === -Infinity ? null : x))), exp: r.exp, rowSum: r.rowSum.map((s) => [s]), weights: r.weights, output: r.output };
}, inputs);
export const inputsOf = (calc) => calc.evaluate((e) => ({ q: e.state.q, k: e.state.k, v: e.state.v, mask: e.state.causal ? 'causal' : 'none' }));
