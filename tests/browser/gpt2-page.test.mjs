// The GPT-2 panel on the lesson's page (index.html) as a learner meets it: #gpt2 and a reload
// open at its section, the text typed there survives a reload, following a head shows its effect
// beside the maps, no empty band above its heading; and, on any page, "Copy as PyTorch" loads the
// model that is open, the lesson's check says what the lesson expects before what the model has,
// and bad files are said in plain sentences. Fixture: build-fixtures/gpt2/d64-f32 (3 layers of
// 4 heads, GPT-2's tokenizer), made by `bash tools/build.sh fixtures`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';

import { GPT2_SENTENCE, clause, lessonCheck, modelLoading, openError, pytorchScript } from '../../web/labs/gpt2/gpt2-lesson.js';
import { noProblemsAfterEach, openPage } from './chromium.mjs';
import { coursePage, servedWeb } from './served.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const MODEL = `${FIXTURES}d64-f32/model.safetensors`;
const CONFIG = `${FIXTURES}d64-f32/config.json`;
const PANEL = 'Exercise 4: look inside GPT-2';

describe('the GPT-2 panel on the lesson\'s page', () => {
  const env = servedWeb();
  noProblemsAfterEach();
  let page, context;
  beforeEach(async () => {
    ({ page, context } = await openPage(env.browser, { contextOptions: { viewport: { width: 1280, height: 800 } } }));
  });
  afterEach(async () => {
    await context.close();
  });

  const lab = () => page.getByRole('group', { name: PANEL });
  const heads = (layer = 2) => lab().getByRole('img', { name: `GPT-2 layer ${layer} head 0`, exact: true }).waitFor({ timeout: 30_000 });
  // Where the GPT-2 section's top is on the screen, once the page has held it there.
  const sectionTop = () => page.evaluate(() => document.getElementById('gpt2').getBoundingClientRect().top);
  const atSection = () => page.waitForFunction(() => {
    const top = document.getElementById('gpt2').getBoundingClientRect().top;
    return top >= -1 && top < 40;
  }, null, { timeout: 30_000 });

  it('index.html#gpt2 opens at the GPT-2 section, and the hash keeps the section', async () => {
    await page.goto(`${env.url}index.html#gpt2`);
    await lab().waitFor({ timeout: 30_000 });
    await atSection();
    await page.waitForTimeout(1500); // the page lets go once still: it stays there
    assert.ok(Math.abs(await sectionTop()) < 40, `the section's top is at ${await sectionTop()} px`);
    assert.match(await page.evaluate(() => location.hash), /^#gpt2&q=/);
  });

  it('the "GPT-2" link, then a reload, opens at the GPT-2 section', async () => {
    await page.goto(`${env.url}index.html`);
    await page.evaluate(() => document.querySelector('#calculator').ready);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'GPT-2' }).click();
    await atSection();
    assert.match(await page.evaluate(() => location.hash), /^#gpt2&/);
    await page.reload();
    await lab().waitFor({ timeout: 30_000 });
    await atSection();
    await page.waitForTimeout(1500);
    assert.ok(Math.abs(await sectionTop()) < 40, `after the reload the section's top is at ${await sectionTop()} px`);
  });

  it('the text typed into the panel, and its <|endoftext|> box, survive a reload (in the hash, with the rest of the page\'s state)', async () => {
    await page.goto(`${env.url}index.html#gpt2`);
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await heads();
    const text = 'A dog & a cat ran';
    await lab().getByLabel('Text GPT-2 reads').fill(text);
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    await lab().getByLabel('Start with <|endoftext|>').check();
    await page.waitForFunction(() => location.hash.includes('gpt2-eot=1'));
    const hash = await page.evaluate(() => location.hash);
    assert.match(hash, /^#gpt2&q=.*&gpt2-text=A\+dog\+%26\+a\+cat\+ran&gpt2-eot=1$/);
    await page.reload();
    // The stored model opens again by itself, on the kept text.
    await lab().locator('.token-strip .token').first().filter({ hasText: '<|endoftext|>' }).waitFor({ timeout: 30_000 });
    assert.equal(await lab().getByLabel('Text GPT-2 reads').inputValue(), text);
    assert.equal(await lab().getByLabel('Start with <|endoftext|>').isChecked(), true);
    // Back to the lesson's sentence: the hash drops the panel's part.
    await lab().getByLabel('Start with <|endoftext|>').uncheck();
    await lab().getByLabel('Text GPT-2 reads').fill(GPT2_SENTENCE);
    await lab().getByLabel('Text GPT-2 reads').press('Enter');
    await page.waitForFunction(() => !location.hash.includes('gpt2-'));
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    });
  });

  it('following a head shows its effect beside the maps, where the learner clicked; no empty band above the heading', async () => {
    await page.goto(`${env.url}index.html#gpt2`);
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await heads();
    const follow = lab().getByRole('button', { name: 'Follow GPT-2 layer 2 head 3 in the text' });
    await follow.scrollIntoViewIfNeeded();
    await follow.click();
    assert.equal(await follow.getAttribute('aria-pressed'), 'true');
    const readout = lab().locator('.look-readout');
    assert.match(await readout.textContent(), /GPT-2 layer 2 head 3/);
    const [button, said, strip] = await Promise.all([follow, readout, lab().locator('.token-strip')].map((l) => l.boundingBox()));
    for (const [what, box] of [['the readout', said], ['the token strip', strip]]) {
      assert.ok(box.y >= 0 && box.y + box.height <= 800, `${what} is on the screen (at ${box.y} px)`);
    }
    assert.ok(Math.abs(button.y - said.y) < 700, `the readout (${said.y} px) is near the button (${button.y} px)`);
    // The heading sits at the top of its section: no empty band above it.
    const gap = await page.evaluate(() => {
      const element = document.getElementById('gpt2');
      const heading = element.shadowRoot.querySelector('.gpt2-lab h2');
      return heading.getBoundingClientRect().top - element.getBoundingClientRect().top;
    });
    assert.ok(gap < 40, `${gap} px between the section's top and its heading`);
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    });
  });

  it('at 390 px too, the followed head\'s tokens and what switching a head off changed stay in sight while the maps scroll', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${env.url}index.html#gpt2`);
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await heads();
    await lab().locator('figure.learned-head').getByRole('checkbox', { name: 'Switch off GPT-2 layer 2 head 3' }).check();
    await lab().locator('.gpt2-ablation-echo').filter({ hasText: 'Switching off 2.3' }).waitFor({ timeout: 20_000 });
    const follow = lab().getByRole('button', { name: 'Follow GPT-2 layer 2 head 3 in the text' });
    await follow.scrollIntoViewIfNeeded();
    await follow.click();
    assert.match(await lab().locator('.look-readout').textContent(), /GPT-2 layer 2 head 3/);
    for (const [what, l] of [['the readout', lab().locator('.look-readout')], ['the token strip', lab().locator('.token-strip')], ['the ablation line', lab().locator('.gpt2-ablation-echo')]]) {
      const box = await l.boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= 800, `${what} is on the screen (at ${box.y} px)`);
    }
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    });
  });

  it('"Copy as PyTorch" loads the learner\'s own file (its safetensors with its config.json), not openai-community/gpt2', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url });
    await page.goto(await coursePage(context, env.url, '<attention-calc panels="gpt2"></attention-calc>'));
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await heads();
    await lab().getByRole('button', { name: 'Copy as PyTorch' }).click();
    await lab().getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    const script = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(script, /^# The model: your own file \(model\.safetensors\), loaded from the safetensors with its config\.json, not from the Hub\.$/m);
    for (const part of ['weights = "model.safetensors"', 'GPT2Config.from_json_file("config.json")', 'load_file(weights)', 'AutoModelForCausalLM.from_config(config, attn_implementation="eager")']) {
      assert.ok(script.includes(part), part);
    }
    assert.ok(!/from_pretrained\("openai-community\/gpt2"/.test(script.replace('GPT2TokenizerFast.from_pretrained("openai-community/gpt2")', '')), 'the model is not loaded from the Hub');
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    });
  });

  it('a text file renamed .safetensors is "not a safetensors file"; a file cut short is said with one full stop, no capital mid-sentence, numbers with separators', async () => {
    await page.goto(await coursePage(context, env.url, '<attention-calc panels="gpt2"></attention-calc>'));
    await lab().waitFor();
    const message = lab().locator('.cell-message');
    const bytes = readFileSync(MODEL);
    for (const [name, buffer, said] of [
      ['notes.safetensors', Buffer.from('These are my notes, not a model at all.\n'), /^This is not a safetensors file: it does not begin with a safetensors header \(a text file renamed \.safetensors, or a file of another kind\)\. Download model\.safetensors again/],
      ['model.safetensors', bytes.subarray(0, bytes.length >> 1), /^This file is incomplete: the file ends at byte \d{1,3}(,\d{3})+ but tensor .* needs bytes up to \d{1,3}(,\d{3})+: the download was probably cut short\. Download model\.safetensors again/],
    ]) {
      await lab().locator('input[type=file]').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
      await message.filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
      const text = await message.textContent();
      assert.match(text, said, text);
      assert.doesNotMatch(text, /\.\.|: [A-Z][a-z]|\d{5}/, text);
      await lab().locator('input[type=file]').evaluate((input) => { input.closest('section').querySelector('.cell-message').textContent = ''; });
    }
  });

  it('the lesson\'s check says what the lesson expects, then what this model has', async () => {
    await page.goto(await coursePage(context, env.url, '<attention-calc panels="gpt2"></attention-calc>'));
    await lab().locator('input[type=file]').setInputFiles([MODEL, CONFIG]);
    await heads();
    for (const layer of ['0', '1', '2']) {
      await lab().getByRole('combobox', { name: 'Layer' }).selectOption(layer);
      await heads(Number(layer));
      const said = await lab().locator('.gpt2-check').textContent();
      assert.match(said, new RegExp(`^The lesson expects a previous-token head and an attention sink in layer ${layer}\\. This model has (both|neither|an? [a-z-]+ [a-z]+ \\(${layer}\\.\\d, [\\d.]+\\)) there`));
      assert.doesNotMatch(said, /which the lesson expects/);
    }
    await page.evaluate(async () => {
      const dir = await navigator.storage.getDirectory();
      await dir.removeEntry('attention-calc-gpt2', { recursive: true }).catch(() => {});
    });
  });
});

describe('the GPT-2 panel\'s words (no browser)', () => {
  it('the script loads the open model: from_pretrained on a Hub repository, else the file with its config.json or the panel\'s numbers', () => {
    const hub = modelLoading({ name: 'model.safetensors', url: 'https://huggingface.co/distilbert/distilgpt2/resolve/main/model.safetensors', configGiven: true });
    assert.match(hub.header, /distilbert\/distilgpt2 from the Hugging Face Hub \(from_pretrained\)/);
    assert.equal(hub.code, 'model = GPT2LMHeadModel.from_pretrained("distilbert/distilgpt2", revision="main", attn_implementation="eager")');
    const bare = modelLoading({ name: 'mine.safetensors', url: null, configGiven: false, config: { layers: 6, heads: 4, dModel: 256, context: 128 } });
    assert.match(bare.code, /weights = "mine\.safetensors"/);
    assert.match(bare.code, /GPT2Config\(n_layer=6, n_head=4, n_embd=256, n_positions=128, vocab_size=50257\)/);
    const small = modelLoading({ name: 'tiny.safetensors', url: null, configGiven: false, config: { layers: 2, heads: 2, dModel: 32, context: 32, vocabSize: 96 } });
    assert.match(small.code, /vocab_size=96\)/, 'the open model\'s own vocabulary');
    const served = modelLoading({ name: 'x', url: 'https://example.org/m/model.safetensors', configGiven: true });
    assert.match(served.code, /urlretrieve\("https:\/\/example\.org\/m\/model\.safetensors"\)/);
    assert.match(served.code, /urlretrieve\("https:\/\/example\.org\/m\/config\.json"\)/);
    assert.match(pytorchScript({ text: 'a', layer: 0, endOfTextFirst: false }), /openai-community\/gpt2 from the Hugging Face Hub/);
  });

  it('messages: one full stop, a clause in lower case, separators', () => {
    assert.equal(clause('The file ends at byte 1234567 but needs 2345678.'), 'the file ends at byte 1,234,567 but needs 2,345,678');
    assert.equal(clause('GPT-2 stopped.'), 'GPT-2 stopped');
    assert.equal(clause('a header of 2338328219631577000 bytes'), 'a header of 2,338,328,219,631,577,000 bytes');
    for (const m of ['this file is not a safetensors file: its first 8 bytes do not give the length of a safetensors header',
      'This file is not a safetensors file: its first 8 bytes do not give the length of a safetensors header (the format allows up to 100 MB).']) {
      assert.match(openError(new Error(m), {}), /^This is not a safetensors file: it does not begin with a safetensors header/);
    }
    assert.doesNotMatch(openError(new Error('The file ends at byte 100000 but tensor "wte.weight" needs bytes up to 200000: the download was probably cut short.'), {}), /\.\.|: [A-Z]/);
    assert.equal(typeof lessonCheck, 'function');
  });
});
