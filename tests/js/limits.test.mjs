// Limits live in one place (issue 15): src/limits.hpp. The binding exports them, and attention.js
// checks against what it exports: this test reads the header itself and fails when either side
// drifts from it (a limit added to the header but not exported, a number copied into JS).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';

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
    // What is left is a property of the build, not a limit of the header.
    assert.deepEqual(Object.keys(exported), ['maxPeakIterations']);
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

  it('attention.js holds no copy of a limit: no literal of one in its checks', () => {
    const source = readFileSync(new URL('../../web/attention.js', import.meta.url), 'utf8');
    // toRange(…, lo, hi) with a number literal as its upper bound: a limit copied into JS.
    const copies = [...source.matchAll(/toRange\([^\n]*, \d+\)\)/g)].map((m) => m[0]);
    assert.deepEqual(copies, []);
    for (const value of [65536, 4096, 4194304, 1024, 100000, 2048]) {
      assert.ok(!new RegExp(`\\b${value}\\b`).test(source.replace(/^\s*(\/\/|\*).*$/gm, '')), `${value} appears in attention.js's code`);
    }
  });
});
