// The relaxed-SIMD build against the SIMD build (issue 39 §2), in one Node process, one thread:
// the two builds of the same core side by side, in rounds taken in turns.
//   node --experimental-wasm-relaxed-simd tools/bench-relaxed.mjs [--quick]
//   (npm run bench runs it; Node 20 validates relaxed SIMD only behind that flag)
// - the multiply-add peak: the same chains of peakMulAdd, f32x4.mul + f32x4.add in the SIMD build,
//   f32x4.relaxed_madd in the relaxed one (the FMA peak);
// - dense attention, d = 64, n from 256 to 4096 (attentionOutput), with the relaxed build's share
//   of the FMA peak;
// - GPT-2 small's shape (random weights, build-fixtures/gpt2-small-shaped), the lesson's sentence
//   and 64 and 256 tokens, with every layer's weights returned (run(text)) and with none;
// - the learned heads' training step (trainer.step(1), batch 32).
// It prints figures and ratios; it is not a test and asserts no speed.
import { existsSync, openAsBlob } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadAttention, wasmRelaxedSimdSupported } from '../web/attention.js';
import { describeProcessor, processorRecord } from './bench/processor.mjs';
import { summary, timeTakingTurns } from './bench/turns.mjs';
import { denseFlops } from './bench/work.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 5 : 9;
const MIN_ROUND_MS = QUICK ? 50 : 150;
const D = 64;
const SIZES = QUICK ? [256, 1024] : [256, 1024, 2048, 4096];
const GPT2_MODEL = join(ROOT, 'build-fixtures', 'gpt2-small-shaped', 'model.safetensors');
const SENTENCE = 'The cat sat on the mat because it was tired';
const PEAK_ITERATIONS = 2e7;

const fixed = (x, digits = 2) => x.toFixed(digits);
const range = ({ median, low, high }, digits = 2) => `${fixed(median, digits)} (${fixed(low, digits)}–${fixed(high, digits)})`;

function random(length, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

// Relaxed against SIMD in turns: per round, the SIMD build's ms over the relaxed build's.
async function versus(relaxedRun, simdRun) {
  const [relaxed, simd] = await timeTakingTurns([relaxedRun, simdRun], ROUNDS, MIN_ROUND_MS);
  return { relaxed: summary(relaxed), simd: summary(simd), ratio: summary(relaxed.map((ms, k) => simd[k] / ms)), relaxedRounds: relaxed };
}

// A text of exactly n GPT-2 tokens: the sentence, then " the" until n.
function textOf(model, n) {
  let text = SENTENCE;
  while (model.tokenize(text).ids.length < n) text += ' the';
  if (model.tokenize(text).ids.length !== n) throw new Error(`no text of ${n} tokens`);
  return text;
}

async function main() {
  if (!wasmRelaxedSimdSupported()) {
    throw new Error('this Node does not validate relaxed SIMD: run it as node --experimental-wasm-relaxed-simd tools/bench-relaxed.mjs');
  }
  const relaxed = await loadAttention({ simd: 'relaxed' });
  const simd = await loadAttention({ simd: true });
  const processor = processorRecord();
  console.log(`relaxed-SIMD build (f32x4.relaxed_madd) against the SIMD build (f32x4.mul + f32x4.add), one thread, Node ${process.version}`);
  console.log(`processor: ${describeProcessor(processor)}`);
  console.log(`${ROUNDS} rounds in turns each; a ratio is the SIMD build's time over the relaxed build's, median (lowest–highest round)\n`);

  const peakFlops = simd.peakMulAdd(1) * PEAK_ITERATIONS;
  const peak = await versus(() => relaxed.peakMulAdd(PEAK_ITERATIONS), () => simd.peakMulAdd(PEAK_ITERATIONS));
  const gflops = (ms) => peakFlops / ms / 1e6;
  // The FMA peak is the fastest relaxed round: a peak is the best the loop can do.
  const fmaPeak = gflops(Math.min(...peak.relaxedRounds));
  console.log(`multiply-add peak: relaxed ${fixed(gflops(peak.relaxed.median), 1)} GFLOP/s (best round ${fixed(fmaPeak, 1)}), SIMD ${fixed(gflops(peak.simd.median), 1)} GFLOP/s: ${range(peak.ratio)}×\n`);

  console.log(`dense attention, d = ${D}, attentionOutput (one head, no mask):`);
  for (const n of SIZES) {
    const q = random(n * D, 1), k = random(n * D, 2), v = random(n * D, 3);
    const args = { q, k, v, n, d: D };
    // Both builds give the same numbers within float32 rounding.
    const a = relaxed.attentionOutput(args), b = simd.attentionOutput(args);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    if (!(worst < 1e-5)) throw new Error(`n = ${n}: the builds differ by ${worst}`);
    const r = await versus(() => relaxed.attentionOutput(args), () => simd.attentionOutput(args));
    const share = (100 * denseFlops(n, D) / r.relaxed.median / 1e6) / fmaPeak;
    console.log(`  n = ${String(n).padStart(4)}: relaxed ${fixed(r.relaxed.median, 3)} ms, SIMD ${fixed(r.simd.median, 3)} ms: ${range(r.ratio)}×;` +
      ` relaxed at ${fixed(share, 0)} % of the FMA peak; largest difference ${worst.toExponential(1)}`);
  }

  if (existsSync(GPT2_MODEL)) {
    const models = [await relaxed.openGpt2(await openAsBlob(GPT2_MODEL)), await simd.openGpt2(await openAsBlob(GPT2_MODEL))];
    console.log(`\nGPT-2 small's shape (random weights), model.run:`);
    for (const n of QUICK ? [10] : [10, 64, 256]) {
      const text = textOf(models[0], n);
      for (const [what, options] of [['every layer\'s weights returned', undefined], ['no weights returned', { layers: [] }]]) {
        const r = await versus(() => models[0].run(text, options), () => models[1].run(text, options));
        console.log(`  ${String(n).padStart(3)} tokens, ${what.padEnd(31)}: relaxed ${fixed(r.relaxed.median, 1)} ms, SIMD ${fixed(r.simd.median, 1)} ms: ${range(r.ratio)}×`);
      }
    }
    for (const model of models) model.dispose();
  } else {
    console.log(`\nGPT-2: skipped (${GPT2_MODEL} is made by tools/build.sh fixtures)`);
  }

  await Promise.all([relaxed.loadLearned(), simd.loadLearned()]);
  const trainers = [relaxed.createTrainer(), simd.createTrainer()];
  const step = await versus(() => trainers[0].step(1), () => trainers[1].step(1));
  const model = trainers[0].model();
  const { config } = model;
  model.dispose();
  console.log(`\nlearned heads' training step (${config.layers} layers × ${config.heads} heads, d ${config.dModel}, context ${config.context}):` +
    ` relaxed ${fixed(step.relaxed.median)} ms, SIMD ${fixed(step.simd.median)} ms: ${range(step.ratio)}×`);
  for (const trainer of trainers) trainer.dispose();
}

await main();
