// The training benchmark of issue 13 (part of `npm run bench`; alone: node tools/train-bench.mjs):
//   - one training step of the default learned-heads model in the core (wasm SIMD), against
//     tfjs-backend-wasm training the same model with its autodiff and Adam, in one thread;
//   - the time from a fresh seed until the issue's goals hold, in wasm in Node (3 seeds);
//   - native steps per second (tools/train.cpp, built by tools/build.sh native).
import { execFileSync } from 'node:child_process';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

import { loadAttention } from '../web/attention.js';
import { mulberry32 } from '../web/shared/random.js';

// tfjs-core's main bundle registers no gradients; its ES module files do, but import each other
// without the .js extension Node requires. This resolve hook adds it, for those files only.
// (tfjs keeps its registries on globalThis, so the main bundle sees what they register.)
register(`data:text/javascript,${encodeURIComponent(`
  export async function resolve(specifier, context, next) {
    const inTfjsCore = context.parentURL?.includes('/@tensorflow/tfjs-core/dist/');
    if (inTfjsCore && specifier.startsWith('.') && !specifier.endsWith('.js')) return next(specifier + '.js', context);
    return next(specifier, context);
  }`)}`);
await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VOCABULARY = 28; // a–z, space, BOS
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The same model in tfjs: E, P, per layer W_QKV and W_O, U; causal softmax attention per head.
// Embeddings are oneHot · E: tfjs-backend-wasm has no kernel for gather's gradient.
function tfjsModel({ layers, heads, dModel: d, context: n, batch }, learningRate) {
  const dh = d / heads;
  const w = (r, c, s) => tf.variable(tf.randomNormal([r, c], 0, s));
  const E = w(VOCABULARY, d, 0.5), P = w(n, d, 0.5), U = w(d, VOCABULARY, 1 / Math.sqrt(d));
  const blocks = Array.from({ length: layers }, () => ({ qkv: w(d, 3 * d, 1 / Math.sqrt(d)), o: w(d, d, 1 / Math.sqrt(d)) }));
  const causal = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([n, n]), -1, 0)), -1e9));
  const optimizer = tf.train.adam(learningRate, 0.9, 0.98, 1e-8);
  const random = mulberry32(99);
  const ids = Int32Array.from({ length: batch * n }, (_, i) => (i % n === 0 ? VOCABULARY - 1 : Math.floor(random() * 27)));
  // oneHot's float32 output is wrong on tfjs-backend-wasm 4.22 (bit patterns of int 1): cast instead.
  const oneHot = (indices) => tf.cast(tf.oneHot(tf.tensor1d(indices, 'int32'), VOCABULARY), 'float32');
  const x = oneHot(ids);
  const targets = oneHot(ids.map((_, i) => (i % n === n - 1 ? 0 : ids[i + 1])));
  const weights = tf.tensor2d(Float32Array.from(ids, (_, i) => (i % n === n - 1 ? 0 : 1)), [batch * n, 1]);
  const loss = () => {
    let h = tf.add(tf.reshape(tf.matMul(x, E), [batch, n, d]), P);
    for (const b of blocks) {
      const qkv = tf.reshape(tf.matMul(tf.reshape(h, [batch * n, d]), b.qkv), [batch, n, 3 * d]);
      const outs = [];
      for (let i = 0; i < heads; i++) {
        const q = tf.slice(qkv, [0, 0, i * dh], [batch, n, dh]);
        const k = tf.slice(qkv, [0, 0, d + i * dh], [batch, n, dh]);
        const v = tf.slice(qkv, [0, 0, 2 * d + i * dh], [batch, n, dh]);
        const s = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), causal);
        outs.push(tf.matMul(tf.softmax(s), v));
      }
      h = tf.add(h, tf.reshape(tf.matMul(tf.reshape(tf.concat(outs, 2), [batch * n, d]), b.o), [batch, n, d]));
    }
    const logp = tf.logSoftmax(tf.matMul(tf.reshape(h, [batch * n, d]), U));
    return tf.div(tf.neg(tf.sum(tf.mul(tf.mul(targets, logp), weights))), tf.sum(weights));
  };
  return { step: () => tf.dispose(optimizer.minimize(loss, true)), loss: () => tf.tidy(() => loss().dataSync()[0]) };
}

async function perStep(step, count) {
  step();
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let k = 0; k < count; k++) step();
    rounds.push((performance.now() - t) / count);
  }
  return median(rounds);
}

// Native steps per second: tools/train.cpp without writing, over its first 1000 steps.
function nativeStepsPerSecond() {
  try {
    const out = execFileSync(join(ROOT, 'build-native', 'attn_train'), ['--steps', '1000', '--eval-every', '1000', '--no-write']).toString();
    return Number(out.match(/\(([\d.]+) steps\/s\)/)[1]);
  } catch (error) {
    console.log(`native training: skipped (${error.message.split('\n')[0]}); run tools/build.sh native first`);
    return null;
  }
}

/** Runs the three measurements; tf must already be on its wasm backend, one thread. */
export async function trainingBench({ quick = false } = {}) {
  const attn = await loadAttention({ simd: true });
  await attn.loadLearned();
  const trainer = attn.createTrainer();
  const config = { ...trainer.model().config, batch: 32 };
  const oursMs = await perStep(() => trainer.step(1), quick ? 5 : 20);
  trainer.dispose();
  const baseline = tfjsModel(config, 5e-3);
  const tfjsStart = baseline.loss();
  const tfjsMs = await perStep(baseline.step, quick ? 3 : 10);
  // The baseline does learn: on its one fixed batch, the loss falls from about ln 28.
  const tfjsAfter = baseline.loss();
  if (!(tfjsAfter < tfjsStart)) throw new Error(`the tfjs baseline did not learn (loss ${tfjsStart} → ${tfjsAfter})`);
  console.log(`training step, ${config.layers} layers × ${config.heads} heads, d ${config.dModel}, context ${config.context}, batch ${config.batch}:`);
  console.log(`  attention-calc wasm SIMD ${oursMs.toFixed(2)} ms, tfjs-backend-wasm ${tfjsMs.toFixed(2)} ms: ${(tfjsMs / oursMs).toFixed(2)}× faster` +
    ` (tfjs loss on its batch ${tfjsStart.toFixed(3)} → ${tfjsAfter.toFixed(3)})`);

  const seeds = quick ? [1] : [1, 2, 3];
  const { checkEvery } = attn.learnedGoals();
  const runs = [];
  for (const seed of seeds) {
    const t = attn.createTrainer({ seed });
    const start = performance.now();
    let goals, met = false;
    while (!met && t.model().config.steps < 8000) {
      t.step(checkEvery);
      const model = t.model();
      ({ scores: goals, met } = attn.learnedGoals(model));
      model.dispose();
    }
    const steps = t.model().config.steps;
    runs.push({ seed, steps, seconds: met ? (performance.now() - start) / 1000 : null, goals });
    console.log(`  seed ${seed}: goals ${met ? `met after ${steps} steps, ${runs.at(-1).seconds.toFixed(1)} s` : `not met in ${steps} steps`} ${JSON.stringify(goals)}`);
    t.dispose();
  }
  const times = runs.map((r) => r.seconds ?? Infinity);
  const native = nativeStepsPerSecond();
  if (native) console.log(`  native: ${native.toFixed(0)} steps/s`);
  return { config, oursMs, tfjsMs, speedup: tfjsMs / oursMs, runs, medianSeconds: median(times), nativeStepsPerSecond: native };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const require = createRequire(import.meta.url);
  setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'))}/`);
  setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  console.log(JSON.stringify(await trainingBench({ quick: process.argv.includes('--quick') }), null, 1));
}
