// Practice mode, numbers typed key by key at a learner's pace (the tests of practice.test.mjs
// fill cells): a number may start with '-', '−', '.' or '+', or hold an exponent, and each keystroke
// re-renders. A file of its own because typing at that pace is most of practice mode's time: the
// browser files run two at a time, and two halves share the slots better than one long file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { STEPS, WORKED, cell, cellName, coreResult, inputsOf, practiceSuite, summary } from './practice-page.mjs';

describe('practice mode, typed key by key', () => {
  const { open } = practiceSuite();

  const typeKeys = async (page, c, text, delay = 100) => {
    await c.focus(); // focusing a cell selects its text, so typing replaces it
    await page.keyboard.type(text, { delay });
  };
  const answerOf = (calc, step, i, j) => calc.evaluate((e, [s, a, b]) => e.state.practice.answers[s][a][b], [step, i, j]);
  // The ways one number may be typed (the core's value to 3 decimals): signed, with a leading
  // dot, with '+', as an exponent, with the Unicode minus.
  const typings = (x) => {
    const r = Number(x.toFixed(3));
    const abs = String(Math.abs(r));
    const dotted = abs.replace(/^0\./, '.');
    return r < 0 ? [`-${abs}`, `−${abs}`, `-${dotted}`, r.toExponential(), `−${dotted}`] : [`+${abs}`, dotted, r.toExponential(), `+${dotted}`];
  };

  it('the worked example typed key by key, every cell as -x, −x, .x, +x or an exponent, is all right in every step', async () => {
    const { page, problems, calc } = await open({ hash: `#${WORKED}&practice=1` });
    await cell(calc, 'scores', 0, 0).waitFor();
    const values = await coreResult(page, await inputsOf(calc));
    const typed = [];
    let k = 0;
    for (const step of STEPS) {
      for (const [i, row] of values[step].entries()) {
        for (const [j, x] of row.entries()) {
          const forms = typings(x);
          const text = forms[k++ % forms.length];
          await typeKeys(page, cell(calc, step, i, j), text);
          typed.push([step, i, j, text]);
        }
      }
      await page.keyboard.press('Enter');
    }
    await page.waitForFunction(() => document.querySelector('#calculator').shadowRoot.querySelector('.practice-summary').textContent.startsWith('54 of 54 entries right'));
    assert.match(await summary(calc), /Every step done/);
    for (const [step, i, j, text] of typed) assert.equal(await cell(calc, step, i, j).inputValue(), text, `${step} ${i} ${j}: the learner's text stays`);
    assert.ok(typed.some(([, , , t]) => t.startsWith('−')) && typed.some(([, , , t]) => t.startsWith('.')) && typed.some(([, , , t]) => /e/.test(t)));
    assert.deepEqual(problems, []);
  });

  it('in every step a cell keeps "-0.707", "−1", ".707", "+2", "1e-3", "-.5", "2.5E+0" typed key by key, and the attempt holds that number', async () => {
    const { page, problems, calc } = await open({ hash: `#${WORKED}&practice=1` });
    await cell(calc, 'scores', 0, 0).waitFor();
    const TEXTS = { '-0.707': -0.707, '−1': -1, '.707': 0.707, '+2': 2, '1e-3': 0.001, '-.5': -0.5, '2.5E+0': 2.5 };
    const kept = [];
    for (const step of STEPS) {
      const c = cell(calc, step, 0, 0);
      const entries = [...Object.entries(TEXTS), ['−0.25', -0.25, 400]]; // the last at 400 ms a key: a pause commits mid-number
      for (const [text, value, delay] of entries) {
        await typeKeys(page, c, text, delay);
        await page.keyboard.press('Enter'); // commits, and goes on down
        await page.waitForFunction(([name]) => {
          const input = document.querySelector('#calculator').shadowRoot.querySelector(`[aria-label="${name}"]`);
          return input.hasAttribute('aria-invalid'); // marked right or wrong
        }, [cellName(step, 0, 0)]);
        kept.push(`${step} ${text} → ${await c.inputValue()} = ${await answerOf(calc, step, 0, 0)}`);
        assert.equal(await c.inputValue(), text, `${step}: the text typed stays`);
        assert.equal(await answerOf(calc, step, 0, 0), value, `${step}: ${text} is the number entered`);
      }
    }
    assert.equal(kept.length, STEPS.length * 8);
    assert.deepEqual(problems, []);
  });
});
