// Issue 14, the view: "Look inside a trained model" (panels="learned") in headless Chromium under
// the strict CSP. The shipped checkpoint's heads on the default text; on generated repeated
// strings, each head's caption carries exactly the role labels its scores earn (the scores
// computed here, in Node, by the same core); text the model cannot read; following a head from a
// focused token; hover and keyboard readouts; the text alternative; keyboard reach; axe-core in
// both themes; 360 px and a 320 px column; dist/ embedded alone; the heads of a model in training.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, beforeEach, describe, it } from 'node:test';

import { startServer } from '../../tools/serve.mjs';
import { loadAttention } from '../../web/attention.js';
import { format } from '../../web/shared/format.js';
import { ROLE_THRESHOLD as THRESHOLD } from '../../web/labs/head-views/learned-roles.js';
import { colour } from '../../web/shared/heatmap.js';
import { axeViolations, openPage } from './chromium.mjs';
import { coursePage, servedPages } from './served.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const PANEL = 'Look inside a trained model';
const NAMES = ['Layer 1 head 1', 'Layer 1 head 2', 'Layer 2 head 1', 'Layer 2 head 2'];
const ROLES = [['previousToken', 'previous-token head'], ['induction', 'induction head'], ['firstToken', 'attention sink']];
// Six repeated strings of distinct letters (a prefix, s, s again, filler; 32 characters), as the
// trainer's evaluation makes them: the ones this test has always typed.
const REPEATED = [
  'uhx dqizoswlfycqizoswlfycvmbgrta', 'kjmxwtzndcrsqaihfvyihfvyplub oeg', 'qwstzdkary gcbzdkary gcbiunehfpl',
  'mqvfjdscxip bkwuzvfjdscxip bkwuz', 'cuonxgdlytjpfmviuonxgdlytjpfmviz', 'cwpzaxyvlegqkiu mzaxyvlegqkiu mh',
];

describe('look inside a trained model', () => {
  const env = servedPages();
  let page, problems, context, model;
  before(async () => {
    model = await (await loadAttention()).learnedModel();
  });
  beforeEach(() => ({ page, problems, context } = env));

  const lab = (p = page) => p.getByRole('group', { name: PANEL });
  const map = (name, p = page) => lab(p).getByRole('img', { name, exact: true });
  const textBox = () => lab().getByLabel('Text the model reads');
  // The panel on a course page of its own; resolves once its heads are drawn.
  const open = async (attrs = '', p = page, c = context, base = env.url) => {
    await p.goto(await coursePage(c, base, `<main><h1>A lesson</h1><attention-calc panels="learned"${attrs}></attention-calc></main>`));
    await p.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      await document.querySelector('attention-calc').ready;
    });
    await map('Layer 2 head 2', p).waitFor({ timeout: 30_000 });
  };
  // The text the heads are drawn on, read back from the token strip.
  const shownText = () => lab().locator('.token-strip .token').evaluateAll((boxes) => boxes.slice(1).map((b) => (b.textContent === '␣' ? ' ' : b.textContent)).join(''));
  const type = async (text) => {
    await textBox().fill(text);
    await textBox().press('Enter');
  };
  const caption = (name) => lab().locator('figure.learned-head').filter({ has: page.getByRole('img', { name, exact: true }) }).locator('figcaption');

  it('renders the shipped checkpoint\'s four heads on the default text: named "Layer L head H", layers as rows and heads as columns, tokens as labels, and says where the weights come from', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await open();
    const text = await textBox().inputValue();
    assert.match(text, /^([a-z]{8,12}) \1$/, 'the default is a random string, repeated');
    assert.equal(await shownText(), text);
    const run = model.run(text);
    const boxes = [];
    for (const name of NAMES) {
      const m = map(name);
      assert.equal(await m.count(), 1, name);
      // One cell per query and key (and the legend), the tokens as row and column labels.
      assert.equal(await m.locator('rect').count(), run.tokens.length ** 2 + 1 + 2, `${name}: cells, legend, focus row, cursor`);
      const labels = await m.locator('text').allTextContents();
      assert.ok(labels.filter((t) => t === '⟨bos⟩').length === 2 && labels.includes('␣'), `${name} labels: ${labels.slice(0, 5)}`);
      boxes.push(await m.boundingBox());
    }
    // Layers as rows, heads as columns (two columns fit at 1280 px).
    assert.ok(Math.abs(boxes[0].y - boxes[1].y) < 1 && boxes[1].x > boxes[0].x + boxes[0].width, 'layer 1: head 2 right of head 1');
    assert.ok(boxes[2].y > boxes[0].y + boxes[0].height && Math.abs(boxes[2].x - boxes[0].x) < 1, 'layer 2 below layer 1');
    // The default text shows all three behaviours at once.
    const captions = (await Promise.all(NAMES.map((n) => caption(n).textContent()))).join(' | ');
    for (const [, label] of ROLES) assert.ok(captions.includes(label), `${label} in ${captions}`);
    // Each map is described by its caption, which reads as one sentence.
    assert.equal(await map('Layer 1 head 1').getAttribute('aria-describedby'), await caption('Layer 1 head 1').getAttribute('id'));
    const l1h1 = run.layers[0].heads[0];
    assert.equal(await caption('Layer 1 head 1').textContent(),
      `Layer 1 head 1: previous-token head. Scores: previous token ${format(l1h1.previousToken, 3)}, induction ${format(l1h1.induction, 3)}, first token ${format(l1h1.firstToken, 3)}`);
    const status = await lab().locator('.learned-source').textContent();
    assert.match(status, /^Heads of the shipped checkpoint \(2 layers of 2 heads, d_model 32, trained from seed 1 for 4,000 steps\)\.$/);
    const honesty = await lab().locator('.learned-honesty').textContent();
    assert.match(honesty, /learned by this project’s own trainer on generated text .* not taken from GPT-2: no GPT-2 weights ship with this project/);
    assert.match(honesty, /What carries over to GPT-2, as the lesson says: .*previous token.*attention sinks.*induction heads/);
    assert.match(await lab().textContent(), new RegExp(`A score of at least ${THRESHOLD} earns the head its label`));
    await page.screenshot({ path: 'test-results/learned-panel-1280.png', fullPage: true }).catch(() => {});
    assert.deepEqual(problems, []);
  });

  it('on generated repeated strings, each caption has exactly the labels its measured scores earn, and at least one head is a previous-token head, one an induction head, one an attention sink', async () => {
    await open();
    for (const text of REPEATED) {
      await type(text);
      assert.equal(await shownText(), text);
      const run = model.run(text);
      const found = new Set();
      for (const [l, layer] of run.layers.entries()) {
        for (const [i, head] of layer.heads.entries()) {
          const name = `Layer ${l + 1} head ${i + 1}`;
          const said = await caption(name).textContent();
          for (const [key, label] of ROLES) {
            assert.equal(said.includes(label), head[key] >= THRESHOLD, `"${text}", ${name}: ${key} ${head[key]} and "${said}"`);
            assert.ok(said.includes(format(head[key], 3)), `${name} shows its ${key} score ${format(head[key], 3)}: "${said}"`);
            if (head[key] >= THRESHOLD) found.add(label);
          }
        }
      }
      assert.deepEqual([...found].sort(), ROLES.map(([, label]) => label).sort(), `"${text}"`);
    }
    assert.deepEqual(problems, []);
  });

  it('text the model cannot read is marked in place, said in words and reported; the last heads stay, dimmed; lower case is offered where it helps', async () => {
    await open();
    const good = await textBox().inputValue();
    const errors = [];
    await page.exposeFunction('learnedError', (m) => errors.push(m));
    await page.evaluate(() => document.querySelector('attention-calc').addEventListener('error', (e) => window.learnedError(e.detail.message)));

    await type('The cat sat on the mat!');
    assert.equal(await textBox().getAttribute('aria-invalid'), 'true');
    const marks = lab().locator('.text-echo mark');
    assert.deepEqual(await marks.allTextContents(), ['T (not in the vocabulary)', '! (not in the vocabulary)']);
    assert.ok(await lab().locator('.text-echo').isVisible());
    const message = await lab().locator('.cell-message').textContent();
    assert.match(message, new RegExp(`^The model does not know 2 characters: “T” at 1, “!” at 23\\. Showing the last valid text’s heads \\(“${good}”\\), dimmed, until this is fixed\\.$`));
    assert.equal(await shownText(), good, 'the last readable text\'s heads stay');
    assert.ok(await lab().evaluate((e) => e.classList.contains('stale')));
    assert.ok(await lab().getByRole('button', { name: 'Make it lower case' }).isHidden(), 'lower case would not help with "!"');
    await page.waitForFunction(() => true);
    assert.match(errors.at(-1), /character 1 is "T", which the model does not know/);

    await type('a'.repeat(36));
    assert.equal(await lab().locator('.text-echo mark.too-long').count(), 4);
    assert.deepEqual(await lab().locator('.text-echo mark.too-long .sr-only').allTextContents(), Array(4).fill(' (past the 32nd character)'));
    assert.match(await lab().locator('.cell-message').textContent(), /^It reads at most 32 characters\./);

    await type('');
    assert.match(await lab().locator('.cell-message').textContent(), /^The text is empty\./);

    await type('The Cat');
    await lab().getByRole('button', { name: 'Make it lower case' }).focus();
    await page.keyboard.press('Enter');
    assert.equal(await textBox().inputValue(), 'the cat');
    assert.ok(await textBox().evaluate((e) => e.getRootNode().activeElement === e), 'the button hid itself: focus is on the text');
    assert.equal(await textBox().getAttribute('aria-invalid'), null);
    assert.equal(await shownText(), 'the cat');
    assert.ok(!(await lab().evaluate((e) => e.classList.contains('stale'))));
    assert.equal(await lab().locator('.cell-message').textContent(), '');
    // Empty, the alert region stays in the accessibility tree (display: none would take it out).
    assert.notEqual(await lab().locator('.cell-message').evaluate((e) => getComputedStyle(e).display), 'none');
    assert.deepEqual(problems, []);
  });

  it('presets: the lesson\'s sentence (cut to 32 characters, and said so), a repeated phrase, another random string, and the learner\'s own text back', async () => {
    await open();
    const presets = lab().getByRole('group', { name: 'Text presets' });
    // Before the learner has typed anything, "Your own text" readies the field and keeps the heads.
    const before = await shownText();
    await presets.getByRole('button', { name: 'Your own text' }).click();
    assert.equal(await shownText(), before);
    assert.equal(await textBox().getAttribute('aria-invalid'), null);
    assert.ok(await textBox().evaluate((e) => e.getRootNode().activeElement === e));
    assert.match(await lab().locator('.preset-note').textContent(), /^Type your own text in the field above/);
    await presets.getByRole('button', { name: 'The lesson’s sentence' }).click();
    assert.equal(await shownText(), 'the cat sat on the mat because');
    assert.match(await lab().locator('.preset-note').textContent(), /“The cat sat on the mat because it was tired”, in lower case and cut at “because”/);
    assert.equal(await presets.getByRole('button', { name: 'The lesson’s sentence' }).getAttribute('aria-pressed'), 'true');
    await presets.getByRole('button', { name: 'A repeated phrase' }).click();
    assert.equal(await shownText(), 'quick fox quick fox quick fox');
    const first = await presets.getByRole('button', { name: 'A random string, repeated' }).click().then(shownText);
    const second = await presets.getByRole('button', { name: 'A random string, repeated' }).click().then(shownText);
    assert.notEqual(first, second);
    assert.match(second, /^([a-z]{8,12}) \1$/);
    await textBox().fill('my own words');
    await textBox().press('Enter');
    assert.equal(await presets.getByRole('button', { name: 'Your own text' }).getAttribute('aria-pressed'), 'true');
    await presets.getByRole('button', { name: 'A repeated phrase' }).click();
    await presets.getByRole('button', { name: 'Your own text' }).click();
    assert.equal(await shownText(), 'my own words');
    assert.deepEqual(problems, []);
  });

  it('following a head: from the focused token the text highlights where it looks most; for the induction head, the token after the previous occurrence', async () => {
    await open();
    const text = await textBox().inputValue();
    const half = (text.length - 1) / 2; // "s s": the second copy starts at position half + 2
    const strip = lab().getByRole('slider', { name: 'Focused token' });
    const most = () => lab().locator('.token-strip .token.most').getAttribute('data-position').then(Number);
    const focus = async () => Number(await strip.getAttribute('aria-valuenow'));
    // At first: the strongest induction head, from the last repeated token.
    assert.equal(await focus(), text.length);
    assert.equal(await lab().getByRole('button', { name: 'Follow layer 2 head 2 in the text' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await most(), half + 1, 'the token after the previous occurrence of the last letter');
    assert.match(await lab().locator('.look-readout').textContent(), /so an induction head looks at the token after it: .* exactly where this head looks\.$/);
    // Keyboard: the focused token moves with the arrow keys; the induction head follows it. The
    // keys stay in the widget, so a slide deck listening on the document does not turn the slide.
    await page.evaluate(() => { window.keysSeen = []; document.addEventListener('keydown', (e) => window.keysSeen.push(e.key)); });
    await strip.focus();
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await page.evaluate(() => window.keysSeen), []);
    assert.equal(await focus(), text.length - 1);
    assert.equal(await most(), half);
    await page.keyboard.press('Home');
    assert.equal(await focus(), 0);
    assert.match(await strip.getAttribute('aria-valuetext'), /^“⟨bos⟩” at position 0; Layer 2 head 2 looks most at “⟨bos⟩” at position 0/);
    await page.keyboard.press('End');
    assert.equal(await focus(), text.length);
    // Another head, by its button: the previous-token head looks at the token before.
    await lab().getByRole('button', { name: 'Follow layer 1 head 1 in the text' }).click();
    assert.equal(await most(), text.length - 1);
    assert.equal(await lab().getByRole('button', { name: 'Follow layer 2 head 2 in the text' }).getAttribute('aria-pressed'), 'false');
    // A click on a heatmap's cell follows that head from the cell's query.
    const m = map('Layer 2 head 1');
    await m.scrollIntoViewIfNeeded();
    const cell = await m.locator('rect').nth(5 * (text.length + 1) + 2).boundingBox();
    await page.mouse.click(cell.x + cell.width / 2, cell.y + cell.height / 2);
    assert.equal(await focus(), 5);
    assert.equal(await lab().getByRole('button', { name: 'Follow layer 2 head 1 in the text' }).getAttribute('aria-pressed'), 'true');
    // The highlight is where the head's weights are largest, as the core computed them, not
    // where a role says it should be.
    const run = model.run(text);
    const argmax = (row) => row.indexOf(Math.max(...row));
    assert.equal(await most(), argmax(run.layers[1].heads[0].weights[5]));
    // Enter on a focused heatmap follows it too, from its cursor's row (the focused token at first).
    await map('Layer 1 head 2').focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    assert.deepEqual(await page.evaluate(() => window.keysSeen), []);
    assert.equal(await lab().getByRole('button', { name: 'Follow layer 1 head 2 in the text' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await focus(), 4);
    assert.equal(await most(), argmax(run.layers[0].heads[1].weights[4]));
    assert.deepEqual(problems, []);
  });

  it('hovering a cell, or moving over the cells with the keyboard, says the query token, the key token and the weight', async () => {
    await open();
    const text = await textBox().inputValue();
    const run = model.run(text);
    const n = run.tokens.length;
    const m = map('Layer 1 head 1');
    await m.scrollIntoViewIfNeeded();
    const readout = lab().locator('figure.learned-head[data-layer="1"][data-head="1"] .head-readout');
    const cell = await m.locator('rect').nth(4 * n + 3).boundingBox();
    await page.mouse.move(cell.x + cell.width / 2, cell.y + cell.height / 2);
    const label = (t) => (t === '<bos>' ? '⟨bos⟩' : t === ' ' ? '␣' : t);
    assert.equal(await readout.textContent(), `Query “${label(run.tokens[4])}” (position 4), key “${label(run.tokens[3])}” (position 3): weight ${format(run.layers[0].heads[0].weights[4][3], 3)}.`);
    const hidden = await m.locator('rect').nth(2 * n + 7).boundingBox();
    await page.mouse.move(hidden.x + hidden.width / 2, hidden.y + hidden.height / 2);
    assert.match(await readout.textContent(), /^Query .* \(position 2\), key .* \(position 7\): hidden by the causal mask/);
    // Keyboard: the cursor starts on the focused token's own cell and moves with the arrows.
    await page.mouse.move(0, 0);
    await m.focus();
    const focus = n - 1;
    assert.match(await readout.textContent(), new RegExp(`^Query .* \\(position ${focus}\\), key .* \\(position ${focus}\\): weight`));
    await page.keyboard.press('ArrowLeft');
    assert.equal(await readout.textContent(), `Query “${label(run.tokens[focus])}” (position ${focus}), key “${label(run.tokens[focus - 1])}” (position ${focus - 1}): weight ${format(run.layers[0].heads[0].weights[focus][focus - 1], 3)}.`);
    assert.deepEqual(problems, []);
  });

  // Issue 25 §5: a hatch stroke in each of 465 hidden cells cluttered the 31 × 31 maps.
  it('the causal mask is one flat grey staircase over the hidden cells, not a hatch of strokes', async () => {
    await open();
    const m = map('Layer 1 head 1');
    const check = await m.evaluate((svg) => {
      const mask = svg.querySelectorAll('path.masked');
      const cells = [...svg.querySelectorAll('rect')];
      const n = Math.round(Math.sqrt(cells.length - 3)); // n × n cells, the legend, focus row, cursor
      const wrong = [];
      const path = mask[0];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const r = cells[i * n + j];
          const point = svg.createSVGPoint();
          point.x = Number(r.getAttribute('x')) + Number(r.getAttribute('width')) / 2;
          point.y = Number(r.getAttribute('y')) + Number(r.getAttribute('height')) / 2;
          if (path.isPointInFill(point) !== j > i) wrong.push(`${i},${j}`);
        }
      }
      return { paths: mask.length, moves: (path.getAttribute('d').match(/M/g) ?? []).length, stroke: getComputedStyle(path).stroke, n, wrong: wrong.slice(0, 5) };
    });
    assert.equal(check.paths, 1);
    assert.equal(check.moves, 1, 'one region, not a stroke per cell');
    assert.equal(check.stroke, 'none');
    assert.ok(check.n > 20, `${check.n} tokens`);
    assert.deepEqual(check.wrong, [], 'it covers exactly the cells above the diagonal');
    assert.deepEqual(problems, []);
  });

  it('each heatmap has a text alternative: the top weights of every token', async () => {
    await open();
    const text = await textBox().inputValue();
    const run = model.run(text);
    const details = lab().locator('figure.learned-head[data-layer="2"][data-head="2"] details');
    await details.getByText('Layer 2 head 2: top weights of each token (text)').click();
    const rows = details.locator('tbody tr');
    await rows.first().waitFor(); // the table is drawn when the details open (their toggle event)
    assert.equal(await rows.count(), run.tokens.length);
    const w = run.layers[1].heads[1].weights;
    const last = run.tokens.length - 1;
    const best = w[last].indexOf(Math.max(...w[last]));
    assert.match(await rows.nth(last).locator('td').textContent(), new RegExp(`^${best} . \\(${format(w[last][best], 2)}\\), `));
    assert.equal(await rows.nth(0).textContent(), '0 ⟨bos⟩0 ⟨bos⟩ (1.00)');
    assert.deepEqual(problems, []);
  });

  it('every control is reachable with Tab: the text, the presets, the focused token, each heatmap, its follow button and its text alternative', async () => {
    await open();
    await textBox().focus();
    const reached = [];
    for (let k = 0; k < 30; k++) {
      reached.push(await page.evaluate(() => {
        const a = document.querySelector('attention-calc').shadowRoot.activeElement;
        return a ? a.getAttribute('aria-label') ?? a.textContent.trim().slice(0, 60) : null;
      }));
      await page.keyboard.press('Tab');
    }
    for (const want of ['Text the model reads', 'A random string, repeated', 'The lesson’s sentence', 'A repeated phrase', 'Your own text', 'Focused token',
      ...NAMES, ...NAMES.map((n) => `Follow ${n.toLowerCase()} in the text`), ...NAMES.map((n) => `${n}: top weights of each token (text)`)]) {
      assert.ok(reached.includes(want), `${want} in ${reached.join(' / ')}`);
    }
    assert.deepEqual(problems, []);
  });

  it('no axe-core violations in light and dark, with a valid and with an unreadable text', async () => {
    for (const theme of ['light', 'dark']) {
      const a = await openPage(env.browser, { bypassCSP: true });
      try {
        await open(` theme="${theme}"`, a.page, a.context);
        const run = async () => (await axeViolations(a.page)).violations;
        assert.deepEqual(await run(), [], theme);
        await lab(a.page).getByLabel('Text the model reads').fill('Hello, World');
        await lab(a.page).getByLabel('Text the model reads').press('Enter');
        await lab(a.page).locator('details').first().evaluate((d) => { d.open = true; });
        assert.deepEqual(await run(), [], `${theme}, unreadable text`);
        assert.deepEqual(a.problems, []);
      } finally {
        await a.context.close();
      }
    }
  });

  it('fits a 360 px screen and a 320 px column: anything wider scrolls in its own box', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await open();
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
    await page.screenshot({ path: 'test-results/learned-panel-360.png', fullPage: true }).catch(() => {});
    // A 320 px column on a wide screen.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(await coursePage(context, env.url, '<div style="width:320px"><attention-calc panels="learned"></attention-calc></div>', { csp: false }));
    await page.evaluate(async () => {
      await customElements.whenDefined('attention-calc');
      await document.querySelector('attention-calc').ready;
    });
    await map('Layer 2 head 2').waitFor();
    const fit = await page.locator('attention-calc').evaluate((e) => {
      const box = e.getBoundingClientRect();
      const out = [];
      // An SVG clips its own content; the SVG itself must sit in a scroller.
      for (const el of e.shadowRoot.querySelectorAll('*')) {
        if (el.ownerSVGElement) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= box.right + 1) continue;
        let scroller = el.parentElement;
        while (scroller && !['auto', 'scroll', 'hidden'].includes(getComputedStyle(scroller).overflowX)) scroller = scroller.parentElement;
        if (!scroller || scroller.getBoundingClientRect().right > box.right + 1) out.push(`${el.localName}.${el.className?.baseVal ?? el.className}`);
      }
      return { width: box.width, scrollWidth: e.scrollWidth, out };
    });
    assert.equal(fit.width, 320);
    assert.deepEqual(fit.out, []);
    assert.ok(fit.scrollWidth <= 320, `${fit.scrollWidth} px`);
    assert.deepEqual(problems, []);
  });

  it('shows the heads of a model training in this browser, says which model they come from, and goes back to the shipped checkpoint on reset', async () => {
    await open();
    const source = lab().locator('.learned-source');
    await lab().getByRole('button', { name: 'Train in this browser' }).click();
    await page.waitForFunction(() => /^Heads of the model trained in this browser, seed 1, step \d+/
      .test(document.querySelector('attention-calc').shadowRoot.querySelector('.learned-source').textContent), null, { timeout: 60_000 });
    for (const name of NAMES) assert.equal(await map(name).count(), 1);
    // A new text: the trainer's model runs on it too.
    await type('abcdefgh abcdefgh');
    await page.waitForFunction(() => {
      const root = document.querySelector('attention-calc').shadowRoot;
      return /^Heads of the model trained in this browser/.test(root.querySelector('.learned-source').textContent)
        && [...root.querySelectorAll('.token-strip .token')].length === 18;
    }, null, { timeout: 30_000 });
    assert.doesNotMatch(await source.textContent(), /before your edit/);
    await lab().getByRole('button', { name: 'Reset' }).click();
    assert.match(await source.textContent(), /^Heads of the shipped checkpoint/);
    const run = model.run('abcdefgh abcdefgh');
    assert.ok((await caption('Layer 2 head 2').textContent()).includes(format(run.layers[1].heads[1].induction, 3)));
    // The same tokens: the maps were recoloured in place, every cell to the shipped weights.
    for (const [l, i] of [[0, 0], [1, 1]]) {
      const fills = await map(`Layer ${l + 1} head ${i + 1}`).locator('rect').evaluateAll((rects, n) => rects.slice(0, n * n).map((r) => r.getAttribute('fill')), 18);
      assert.deepEqual(fills, run.layers[l].heads[i].weights.flat().map(colour));
    }
    assert.deepEqual(problems, []);
  });
});

describe('the learned panel from dist/, embedded alone', { skip: !existsSync(DIST) && 'dist/ is not built' }, () => {
  let server, url, browser;
  before(async () => {
    ({ server, url } = await startServer({ root: DIST }));
    browser = await (await import('./chromium.mjs')).launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('<attention-calc panels="learned"> alone, under the strict CSP: the heads render, the checkpoint comes from dist/', async () => {
    const { page, problems, context } = await openPage(browser);
    try {
      const requests = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(await coursePage(context, url, '<attention-calc panels="learned"></attention-calc>'));
      const panel = page.getByRole('group', { name: PANEL });
      for (const name of NAMES) await panel.getByRole('img', { name, exact: true }).waitFor({ timeout: 30_000 });
      assert.match(await panel.locator('.learned-source').textContent(), /^Heads of the shipped checkpoint/);
      assert.ok(requests.includes(`${url}learned-heads.bin`), `the checkpoint at the URL attention.js asks for: ${requests.filter((r) => /learned/.test(r)).join(', ')}`);
      assert.deepEqual(requests.filter((r) => !r.startsWith(url)), []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
