// The benchmark: this project's attention against the libraries a course would otherwise use,
// side by side in one Node process, one thread, f32, single head, d = 64.
//   npm run bench                 (installs, builds, then runs this)
//   node tools/bench.mjs --quick  (n ≤ 1024, fewer rounds: a smoke run)
//   node tools/bench.mjs --report (rewrite docs/ from docs/performance.json)
// It prints figures and writes docs/performance.{json,svg,md}; it is not a test and asserts no
// speed. Every implementation's output is first checked against a float64 reference.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-web';

import { loadAttention } from '../web/attention.js';
import { attentionOpModel, matmulSoftmaxModel } from './bench/onnx-model.mjs';
import { trainingBench } from './train-bench.mjs';
import { naiveAttention, optimizedAttention } from './bench/plain-js.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const QUICK = process.argv.includes('--quick');
const SIZES = QUICK ? [64, 256, 1024] : [64, 256, 1024, 2048, 4096];
const D = 64;
const ROUNDS = QUICK ? 3 : 7;
const MIN_ROUND_MS = QUICK ? 30 : 80;
const flops = (n, causal = false) => 4 * n * n * D * (causal ? 0.5 : 1); // QKᵀ and AV; causal: half the pairs

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Median milliseconds per call over ROUNDS rounds, each long enough to time reliably.
async function time(fn) {
  await fn();
  let reps = 1;
  for (;;) {
    const t = performance.now();
    for (let r = 0; r < reps; r++) await fn();
    if (performance.now() - t >= MIN_ROUND_MS || reps >= 1 << 16) break;
    reps *= 2;
  }
  const rounds = [];
  for (let k = 0; k < ROUNDS; k++) {
    const t = performance.now();
    for (let r = 0; r < reps; r++) await fn();
    rounds.push((performance.now() - t) / reps);
  }
  return median(rounds);
}

function random(length, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

// Float64 attention for a few sampled query rows: the correctness check before any timing.
function referenceRows(q, k, v, n, rows, causal) {
  return rows.map((i) => {
    const s = new Float64Array(n);
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      if (causal && j > i) { s[j] = -Infinity; continue; }
      let dot = 0;
      for (let t = 0; t < D; t++) dot += q[i * D + t] * k[j * D + t];
      s[j] = dot / Math.sqrt(D);
      max = Math.max(max, s[j]);
    }
    let sum = 0;
    for (let j = 0; j < n; j++) sum += s[j] = Math.exp(s[j] - max);
    const z = new Float64Array(D);
    for (let j = 0; j < n; j++) for (let t = 0; t < D; t++) z[t] += (s[j] / sum) * v[j * D + t];
    return z;
  });
}

function check(name, out, want, rows) {
  let worst = 0;
  rows.forEach((i, r) => {
    for (let t = 0; t < D; t++) worst = Math.max(worst, Math.abs(out[i * D + t] - want[r][t]));
  });
  if (!(worst < 1e-4)) throw new Error(`${name}: output differs from the float64 reference by ${worst}`);
  return worst;
}

async function main() {
  const simd = await loadAttention({ simd: true });
  const scalar = await loadAttention({ simd: false });

  // Peak: the same mul+add micro-kernel, timed here.
  const peakIters = 2e7;
  const peakMs = await time(() => simd.peakMulAdd(peakIters));
  const peak = simd.peakMulAdd(1) * peakIters / peakMs / 1e6;
  console.log(`measured f32x4 mul+add peak in V8: ${peak.toFixed(1)} GFLOP/s\n`);

  setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'))}/`);
  setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';

  const rows = [];
  for (const n of SIZES) {
    const q = random(n * D, 1), k = random(n * D, 2), v = random(n * D, 3);
    const sample = [0, 1, Math.floor(n / 2), n - 1];
    const wantDense = referenceRows(q, k, v, n, sample, false);
    const wantCausal = referenceRows(q, k, v, n, sample, true);
    const tq = tf.tensor2d(q, [n, D]), tk = tf.tensor2d(k, [n, D]), tv = tf.tensor2d(v, [n, D]);
    const ortSession = async (bytes) => ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const shape4 = [1, 1, n, D];
    const feeds4 = { Q: new ort.Tensor('float32', q, shape4), K: new ort.Tensor('float32', k, shape4), V: new ort.Tensor('float32', v, shape4) };
    const feeds2 = { Q: new ort.Tensor('float32', q, [n, D]), K: new ort.Tensor('float32', k, [n, D]), V: new ort.Tensor('float32', v, [n, D]), scale: new ort.Tensor('float32', Float32Array.of(1 / Math.sqrt(D)), [1]) };
    const ortDense = await ortSession(attentionOpModel(n, D, false));
    const ortCausal = await ortSession(attentionOpModel(n, D, true));
    const ortGraph = await ortSession(matmulSoftmaxModel(n, D));
    const tfRun = (transposeB) => () => tf.tidy(() => {
      const s = transposeB ? tf.matMul(tq, tk, false, true) : tf.matMul(tq, tf.transpose(tk));
      return tf.matMul(tf.softmax(tf.mul(s, 1 / Math.sqrt(D))), tv);
    });
    const tfOut = (transposeB) => { const t = tfRun(transposeB)(); const out = t.dataSync(); t.dispose(); return out; };

    const impls = [
      ['attention-calc, wasm SIMD, dense', false, () => simd.attentionOutput({ q, k, v, n, d: D })],
      ['attention-calc, wasm SIMD, causal', true, () => simd.attentionOutput({ q, k, v, n, d: D, causal: true })],
      ['attention-calc, wasm scalar, dense', false, () => scalar.attentionOutput({ q, k, v, n, d: D })],
      ['onnxruntime-web, Attention op', false, async () => (await ortDense.run(feeds4)).Y.data],
      ['onnxruntime-web, Attention op, causal', true, async () => (await ortCausal.run(feeds4)).Y.data],
      ['onnxruntime-web, MatMul-Softmax-MatMul', false, async () => (await ortGraph.run(feeds2)).Y.data],
      ['tfjs-backend-wasm, matMul(q, transpose(k))', false, () => tfOut(false)],
      ['tfjs-backend-wasm, matMul(q, k, false, true)', false, () => tfOut(true)],
      ['plain JavaScript, optimized', false, () => optimizedAttention(q, k, v, n, D, false)],
      ['plain JavaScript, teaching-style triple loop', false, () => naiveAttention(q, k, v, n, D), n <= 1024],
    ];
    for (const [name, causal, run, enabled = true] of impls) {
      if (!enabled) continue;
      let error, ms;
      try {
        error = check(`${name} at n = ${n}`, await run(), causal ? wantCausal : wantDense, sample);
        ms = await time(run);
      } catch (failure) {
        // A library that cannot run this size is reported, not hidden.
        // The library's own message, without the source paths of its build machine.
        const text = String(failure.message ?? failure).split('\n')[0];
        const message = (text.match(/ERROR_MESSAGE: .*\)\s*(.+)$/)?.[1] ?? text).slice(0, 160);
        rows.push({ n, name, causal, failed: message });
        console.log(`n = ${String(n).padStart(4)}  ${name.padEnd(46)} failed: ${message}`);
        continue;
      }
      // Rate every implementation by the dense work (4·n²·d), so causal's saving shows as speed.
      const gflops = flops(n) / ms / 1e6;
      rows.push({ n, name, causal, ms, gflops, peakPercent: (100 * gflops) / peak, maxError: error });
      console.log(`n = ${String(n).padStart(4)}  ${name.padEnd(46)} ${ms.toFixed(3).padStart(9)} ms  ${gflops.toFixed(1).padStart(6)} GFLOP/s  ${((100 * gflops) / peak).toFixed(0).padStart(3)} % of peak`);
    }
    tq.dispose(); tk.dispose(); tv.dispose();
    console.log();
  }

  const ours = (n) => rows.find((r) => r.n === n && r.name === 'attention-calc, wasm SIMD, dense');
  for (const r of rows) if (!r.failed) r.ratioToOurs = ours(r.n).ms / r.ms;
  // Read from node_modules: some packages do not export their package.json.
  const version = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  const versions = {
    node: process.version,
    'onnxruntime-web': version('onnxruntime-web'),
    '@tensorflow/tfjs-backend-wasm': version('@tensorflow/tfjs-backend-wasm'),
    emscripten: execFileSync('emcc', ['--version']).toString().match(/\d+\.\d+\.\d+/)?.[0] ?? 'unknown',
  };
  const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
  const native = nativePart();
  console.log();
  const training = await trainingBench({ quick: QUICK });
  report({ peak, rows, versions, machine, quick: QUICK, native, training });
}

// The native half: tools/bench/native.cpp (built by tools/build.sh native, for this machine's
// instruction set) and PyTorch, when Debian's python3-torch is installed.
function nativePart() {
  const args = QUICK ? ['--quick'] : [];
  const run = (cmd, argv, env) => JSON.parse(execFileSync(cmd, argv, { env, maxBuffer: 1 << 24 }).toString());
  let ours;
  try {
    ours = run(join(ROOT, 'build-native', 'attn_bench_native'), args);
  } catch (error) {
    console.log(`native: skipped (${error.message.split('\n')[0]}); run tools/build.sh native first`);
    return null;
  }
  // OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, set on some machines for older OpenBLAS builds, slow a
  // current one: unset for this command only, and the BLAS actually loaded is recorded.
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  let torch;
  try {
    torch = run('/usr/bin/python3', [join(ROOT, 'tools', 'bench', 'torch_attention.py'), ...args], env);
  } catch (error) {
    torch = { skipped: error.message.split('\n')[0] };
  }
  console.log(`native (${ours.arch}, ${ours.lanes} lanes): measured FMA peak ${ours.peak.toFixed(1)} GFLOP/s`);
  for (const r of ours.rows) {
    const gflops = flops(r.n) / r.ms / 1e6;
    r.gflops = gflops;
    r.peakPercent = (100 * gflops) / ours.peak;
    const pt = !r.causal && torch.rows?.find((t) => t.n === r.n);
    if (pt) r.vsTorch = pt.ms / r.ms;
    console.log(`n = ${String(r.n).padStart(4)}  attention-calc native${r.causal ? ', causal' : ''}`.padEnd(56) +
      `${r.ms.toFixed(3).padStart(9)} ms  ${gflops.toFixed(1).padStart(6)} GFLOP/s  ${r.peakPercent.toFixed(0).padStart(3)} % of peak` +
      (pt ? `   PyTorch ${pt.ms.toFixed(3)} ms (${(pt.ms / r.ms).toFixed(2)}×)` : ''));
  }
  if (torch.skipped) console.log(`PyTorch: skipped (${torch.skipped})`);
  return { ours, torch };
}

function report(result) {
  const docs = join(ROOT, 'docs');
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'performance.json'), `${JSON.stringify(result, null, 1)}\n`);
  writeFileSync(join(docs, 'performance.svg'), chart(result));
  const { peak, rows, versions, machine } = result;
  const at = (n, name) => rows.find((r) => r.n === n && r.name === name);
  const goals = [];
  for (const n of [1024, 64]) {
    const dense = at(n, 'attention-calc, wasm SIMD, dense'), causal = at(n, 'attention-calc, wasm SIMD, causal');
    const ortD = at(n, 'onnxruntime-web, Attention op'), ortC = at(n, 'onnxruntime-web, Attention op, causal');
    const naive = at(n, 'plain JavaScript, teaching-style triple loop');
    if (!dense) continue;
    if (n === 1024) {
      goals.push(`| wasm SIMD dense, % of measured peak | ≥ 70 % | ${dense.peakPercent.toFixed(0)} % |`);
      goals.push(`| wasm SIMD dense vs onnxruntime-web Attention | ≥ 1.25× | ${(ortD.ms / dense.ms).toFixed(2)}× |`);
      goals.push(`| wasm SIMD causal vs onnxruntime-web causal | ≥ 2× | ${(ortC.ms / causal.ms).toFixed(2)}× |`);
      if (naive) goals.push(`| wasm SIMD dense vs the teaching-style JS loop | ≥ 30× | ${(naive.ms / dense.ms).toFixed(1)}× |`);
    } else {
      goals.push(`| n = 64 per call vs onnxruntime-web | ≥ 1.5× | ${(ortD.ms / dense.ms).toFixed(2)}× (${(dense.ms * 1000).toFixed(0)} µs vs ${(ortD.ms * 1000).toFixed(0)} µs) |`);
    }
  }
  const native = result.native;
  let nativeSection = 'The native part was skipped (build it with `tools/build.sh native`).';
  if (native) {
    const n1024 = native.ours.rows.find((r) => r.n === 1024 && !r.causal);
    const torch = native.torch.skipped
      ? `PyTorch: skipped (${native.torch.skipped}).`
      : `PyTorch ${native.torch.torch} on ${native.torch.blas}, one thread (\`torch.set_num_threads(1)\`).`;
    nativeSection = `Built for ${native.ours.arch} (${native.ours.lanes} float lanes) by \`tools/build.sh native\`
(\`-march=native\`); measured FMA peak **${native.ours.peak.toFixed(1)} GFLOP/s**. ${torch}

| goal | target | measured |
|---|---|---|
| native dense at n = 1024, % of the FMA peak | ≥ 60 % | ${n1024 ? `${n1024.peakPercent.toFixed(0)} %` : '—'} |
| native dense vs PyTorch, n = 1024 | ≥ 1.3× | ${n1024?.vsTorch ? `${n1024.vsTorch.toFixed(2)}×` : 'skipped'} |

| n | attention-calc native | ms | GFLOP/s | of peak | PyTorch ms | ratio |
|---|---|---|---|---|---|---|
${native.ours.rows.map((r) => `| ${r.n} | ${r.causal ? 'causal' : 'dense'} | ${r.ms.toFixed(3)} | ${r.gflops.toFixed(1)} | ${r.peakPercent.toFixed(0)} % | ${r.causal ? '' : (native.torch.rows?.find((t) => t.n === r.n)?.ms.toFixed(3) ?? '')} | ${r.vsTorch ? `${r.vsTorch.toFixed(2)}×` : ''} |`).join('\n')}`;
  }
  const training = result.training ? trainingSection(result.training) : 'Not measured in this run.';
  const table = rows.map((r) => (r.failed
    ? `| ${r.n} | ${r.name} | failed: ${r.failed.replace(/\|/g, '/')} | | | |`
    : `| ${r.n} | ${r.name} | ${r.ms.toFixed(3)} | ${r.gflops.toFixed(1)} | ${r.peakPercent.toFixed(0)} % | ${r.ratioToOurs.toFixed(2)} |`));
  const md = `# Performance

Generated by \`npm run bench\` (\`tools/bench.mjs\`); do not edit by hand. One Node process, one
thread, f32, one head, d = 64. GFLOP/s count the dense work, 4·n²·d, for every row, so a causal
row that skips the masked half shows as faster. Each time is the median of ${ROUNDS} rounds. Every
output was checked against a float64 reference (sampled rows, |error| < 1e-4) before timing.

Machine: ${result.machine.cpu}, ${machine.cores} cores. ${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')}.
Measured f32x4 mul+add peak in V8 (same run): **${peak.toFixed(1)} GFLOP/s**.

## Goals (issue: fast kernels)

| goal | target | measured |
|---|---|---|
${goals.join('\n')}

## All figures

Ratio: this project's wasm SIMD dense time divided by the row's time (below 1: slower than ours).

| n | implementation | ms | GFLOP/s | of peak | ratio |
|---|---|---|---|---|---|
${table.join('\n')}

![GFLOP/s against n](performance.svg)

## Native

${nativeSection}

## Training the learned-heads model (issue 13)

${training}
`;
  writeFileSync(join(docs, 'performance.md'), md);
  console.log('wrote docs/performance.md, docs/performance.svg, docs/performance.json');
}

// The training figures of tools/train-bench.mjs as Markdown.
function trainingSection(t) {
  const { layers, heads, dModel, context, batch } = t.config;
  const seconds = (x) => (x === null ? 'not met' : `${x.toFixed(1)} s`);
  return `${layers} layers × ${heads} heads, d_model ${dModel}, context ${context}, batch ${batch}; AdamW (tfjs: Adam).

| goal | target | measured |
|---|---|---|
| one training step, wasm SIMD vs tfjs-backend-wasm (autodiff, Adam) | ≥ 3× | ${t.speedup.toFixed(2)}× (${t.oursMs.toFixed(2)} ms vs ${t.tfjsMs.toFixed(2)} ms) |
| fresh seed until the goals hold, wasm in Node, median of ${t.runs.length} | < 30 s | ${seconds(t.medianSeconds === Infinity ? null : t.medianSeconds)} |
| native steps per second | reported | ${t.nativeStepsPerSecond ? t.nativeStepsPerSecond.toFixed(0) : 'skipped'} |

| seed | steps | time | previousToken | induction | firstToken | second/first copy loss |
|---|---|---|---|---|---|---|
${t.runs.map((r) => `| ${r.seed} | ${r.steps} | ${seconds(r.seconds)} | ${r.goals.previousToken.toFixed(2)} | ${r.goals.induction.toFixed(2)} | ${r.goals.firstToken.toFixed(2)} | ${r.goals.ratio.toFixed(3)} |`).join('\n')}`;
}

// GFLOP/s against n (log x), one line per implementation.
function chart({ rows, peak }) {
  const W = 760, H = 420, L = 56, R = 300, T = 20, B = 40;
  const names = [...new Set(rows.map((r) => r.name))];
  const sizes = [...new Set(rows.map((r) => r.n))];
  const top = Math.max(peak, ...rows.filter((r) => !r.failed).map((r) => r.gflops)) * 1.05;
  const x = (n) => L + ((Math.log2(n) - Math.log2(sizes[0])) / Math.max(1, Math.log2(sizes.at(-1)) - Math.log2(sizes[0]))) * (W - L - R);
  const y = (g) => T + (1 - g / top) * (H - T - B);
  const colours = ['#0b5394', '#3d85c6', '#9fc5e8', '#e66100', '#f1a340', '#b35806', '#5e3c99', '#b2abd2', '#1a9850', '#a6d96a'];
  const parts = [`<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<line x1="${L}" y1="${y(peak)}" x2="${W - R}" y2="${y(peak)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${W - R - 4}" y="${y(peak) - 4}" font-size="11" text-anchor="end" fill="#555">measured peak ${peak.toFixed(1)}</text>`];
  for (let g = 0; g <= top; g += 10) parts.push(`<text x="${L - 6}" y="${y(g) + 4}" font-size="11" text-anchor="end">${g}</text>`, `<line x1="${L}" x2="${W - R}" y1="${y(g)}" y2="${y(g)}" stroke="#eee"/>`);
  for (const n of sizes) parts.push(`<text x="${x(n)}" y="${H - B + 16}" font-size="11" text-anchor="middle">${n}</text>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 6}" font-size="12" text-anchor="middle">n (tokens), d = 64</text>`,
    `<text x="14" y="${(T + H - B) / 2}" font-size="12" transform="rotate(-90 14 ${(T + H - B) / 2})" text-anchor="middle">GFLOP/s</text>`);
  names.forEach((name, i) => {
    const pts = rows.filter((r) => r.name === name && !r.failed).map((r) => `${x(r.n).toFixed(1)},${y(r.gflops).toFixed(1)}`);
    const c = colours[i % colours.length];
    parts.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${c}" stroke-width="2"/>`);
    parts.push(`<rect x="${W - R + 16}" y="${T + i * 20}" width="12" height="12" fill="${c}"/>`, `<text x="${W - R + 34}" y="${T + i * 20 + 10}" font-size="11">${name}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`;
}

// --report: rewrite docs/ from the last docs/performance.json without measuring again.
if (process.argv.includes('--report')) {
  const result = JSON.parse(readFileSync(join(ROOT, 'docs', 'performance.json'), 'utf8'));
  report(result);
} else {
  await main();
}
