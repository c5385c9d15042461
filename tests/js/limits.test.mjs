// Limits live in one place: src/limits.hpp. The core checks every value against them, and the
// binding exports them for the page's inputs: this test reads the header itself and fails when
// either side drifts from it (a limit added to the header but not exported, a number copied into JS).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { apiCode } from './helpers.mjs';

const HEADER = new URL('../../src/limits.hpp', import.meta.url);

// kMaxRows = 65536; kMaxScoreEntries = std::size_t{1} << 22; kMaxExactCount = (std::uint64_t{1} << 53) - 1
// → { kMaxRows: 65536n, … }, evaluated in BigInt arithmetic (only literals, <<, -, + and parentheses).
function headerLimits() {
  const out = {};
  for (const [, name, expression] of readFileSync(HEADER, 'utf8').matchAll(/inline constexpr std::(?:size_t|uint64_t) (k\w+) = ([^;]+);/g)) {
    const js = expression.replace(/std::(?:size_t|uint64_t)\{(\d+)\}/g, '$1n').replace(/\b(\d+)\b(?!n)/g, '$1n');
    assert.match(js, /^[\d\sn<<()+-]+$/, `${name}: ${expression}`);
    out[name] = Function(`return ${js};`)();
  }
  return out;
}

// kMaxRows → maxRows: the names limits() gives them.
const jsName = (k) => k[1].toLowerCase() + k.slice(2);

const header = headerLimits();

describe('src/limits.hpp, the binding and attention.js agree', () => {
  let attn;
  before(async () => {
    attn = await loadAttention({ simd: false });
  });

  it('limits() holds every limit of the calculator\'s module, equal to the header', () => {
    const exported = { ...attn.limits() };
    const learned = Object.keys(header).filter((k) => /Learned|Training|StepsPerCall/.test(k));
    for (const k of Object.keys(header)) {
      if (learned.includes(k)) continue;
      assert.equal(BigInt(exported[jsName(k)]), header[k], `${k} in limits()`);
      delete exported[jsName(k)];
    }
    assert.deepEqual(Object.keys(exported), [], 'limits() holds nothing the header does not');
    assert.ok(Object.keys(header).length >= 14, 'the header was read');
  });

  it('the checks use the exported numbers, and the core\'s words', () => {
    const L = attn.limits();
    assert.throws(() => attn.attention({ q: { rows: L.maxRows + 1, cols: 1, data: [] }, k: [[1]], v: [[1]] }),
      { message: `Q has ${L.maxRows + 1} rows, over the limit of ${header.kMaxRows}` });
    assert.throws(() => attn.normalMatrix({ rows: 1, cols: Number(header.kMaxNormalSide) + 1 }),
      { message: `cols must be a whole number from 1 to ${header.kMaxNormalSide} (got ${Number(header.kMaxNormalSide) + 1})` });
    assert.equal(attn.normalMatrix({ rows: 1, cols: Number(header.kMaxNormalSide) })[0].length, Number(header.kMaxNormalSide));
    assert.throws(() => attn.scalingExperiment({ dk: Number(header.kMaxScalingDk) + 1 }), { message: new RegExp(`from 1 to ${header.kMaxScalingDk} `) });
    assert.throws(() => attn.timeAttention({ n: Number(header.kMaxTimingN) + 1 }), { message: new RegExp(`from 1 to ${header.kMaxTimingN} `) });
  });

  it('the learned heads\' limits come from the header too', async () => {
    await attn.loadLearned();
    const range = (option, lo, hi) => {
      assert.throws(() => attn.createTrainer({ [option]: Number(hi) + 1 }), { message: `${option} must be a whole number from ${lo} to ${hi} (got ${Number(hi) + 1})` });
    };
    range('layers', 1, header.kMaxLearnedLayers);
    range('heads', 1, header.kMaxLearnedHeads);
    range('dModel', header.kMinLearnedDModel, header.kMaxLearnedDModel);
    range('context', header.kMinTrainingContext, header.kMaxTrainingContext);
    range('batch', 1, header.kMaxTrainingBatch);
    const trainer = attn.createTrainer({ dModel: 8, context: 9, batch: 1 });
    assert.throws(() => trainer.step(Number(header.kMaxStepsPerCall) + 1),
      { message: `k must be a whole number from 1 to ${header.kMaxStepsPerCall} (got ${Number(header.kMaxStepsPerCall) + 1})` });
    trainer.dispose();
  });

  it('the JS API (attention.js and web/api/) holds no copy of a limit: no literal of one in its checks', () => {
    const code = apiCode()
      .replace(/^\s*(\/\/|\*).*$/gm, '') // comment lines
      .replace(/\s\/\/.*$/gm, '') // comments after code
      .replace(/\bHTTP_[A-Z_]+ = \d+/g, '') // an HTTP status code (api/gpt2.js reads files by Range requests)
      .replace(/(\d)_(?=\d)/g, '$1'); // 65_536 is 65536
    // JS checks the form of a count (toWhole); its range is the core's, so no range check is here.
    assert.doesNotMatch(code, /\btoRange\b/);
    assert.ok(code.match(/\btoWhole\(/g).length >= 20, 'the API code was read');
    // Every limit of the header, as a literal or as a power of two; values under 10 say too little.
    const checked = Object.entries(header).filter(([, value]) => value >= 10n);
    assert.ok(checked.length >= 15, 'the header was read');
    for (const [name, value] of checked) {
      const forms = [`\\b${value}\\b`];
      for (const [n, minus] of [[value, ''], [value + 1n, '\\s*-\\s*1']]) {
        const bits = n.toString(2).length - 1;
        if (n === 1n << BigInt(bits)) forms.push(`\\b2\\s*\\*\\*\\s*${bits}\\b${minus}`, `\\b1\\s*<<\\s*${bits}\\b${minus}`);
      }
      for (const form of forms) assert.doesNotMatch(code, new RegExp(form), `${name} (${value}) appears in the JS API's code as /${form}/`);
    }
    // JavaScript's own name for kMaxExactCount is a copy too.
    assert.doesNotMatch(code, /MAX_SAFE_INTEGER/);
  });

  it('a count over maxExactCount is refused in the core\'s words, and the seed boxes stop at that limit', async () => {
    const L = attn.limits();
    const over = (what) => `${what} is over 2^53 − 1 = ${header.kMaxExactCount}, the largest whole number a double holds exactly; use smaller sizes`;
    assert.throws(() => attn.cost({ n: L.maxExactCount + 3, dModel: 4 }), { message: over(`n ${L.maxExactCount + 3}`) });
    assert.throws(() => attn.normalMatrix({ rows: 1, cols: 1, seed: 1e21 }), { message: over('seed 1e+21') });
    assert.equal(attn.normalMatrix({ rows: 1, cols: 1, seed: L.maxExactCount }).length, 1);
    // The core's message, word for word: the same words as its own refusal of a count too large.
    assert.throws(() => attn.parameterCount({ dModel: 2 ** 26 }), { message: /^the parameter count .* is over 2\^53 − 1 = 9007199254740991, the largest whole number a double holds exactly; use smaller sizes$/ });
    const { MAX_SEED } = await import('../../web/shared/seed-input.js');
    assert.equal(BigInt(MAX_SEED), header.kMaxExactCount);
  });
});
