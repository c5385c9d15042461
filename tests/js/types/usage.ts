// Compiled (never run) by tests/js/types.test.mjs: what a TypeScript author writes against the
// package's types. A wrong or missing type fails the compile.
import { loadAttention } from '../../../web/attention.js';
import type { Gpt2AblatedHead, Gpt2Attribution, Gpt2Generation, Gpt2Model, Gpt2Run, Gpt2Token } from '../../../web/attention.js';
import type { AttentionCalcElement, CalculatorState } from '../../../web/attention-calc.js';

export async function weightsOf(): Promise<number[][]> {
  const attn = await loadAttention({ simd: false });
  const result = attn.attention({ q: [[1, 1], [0, 1]], k: [[1, 0], [0, 1]], v: [[1, 0], [0, 1]], mask: 'causal' });
  return result.weights;
}

// Issue 15: the union mask, the core's reasons per cell, the pitfall scales by name.
export async function reasonsOf(): Promise<string[]> {
  const attn = await loadAttention();
  const r = attn.attention({ q: [[1]], k: [[1]], v: [[1]], mask: { causal: true, keys: [false], hidden: [[0]] }, scale: 'dk' });
  const why: readonly ('causal' | 'padding' | 'custom')[] = r.hiddenBy[0][0];
  const before: number = r.scaledBeforeMask[0][0];
  const grid = attn.maskReasons({ mask: 'causal', n: 2 });
  console.log(before, attn.limits().maxExactCount);
  return [...why, ...grid[0][1]];
}

export function listen(): void {
  const calc = document.querySelector('attention-calc');
  if (!calc) return;
  const element: AttentionCalcElement = calc; // HTMLElementTagNameMap knows the tag
  element.addEventListener('attention-change', (e) => {
    const first: number = e.detail.result.weights[0][0];
    const causal: boolean = element.state.causal;
    console.log(first, causal, e.detail.inputs.maskAfterSoftmax);
  });
  element.addEventListener('error', (e) => console.log(e.detail.message.toUpperCase()));
  element.addEventListener('attention-calc-resize', (e) => console.log(e.detail.width + e.detail.height));
  const state: CalculatorState = { ...element.state, pitfall: 'scale-dk' };
  element.state = state;
  element.hash = 'q=1,1;0,1';
  void element.ready.then(() => element.result?.output);
}

// Issue 26: GPT-2 from a file the learner picks, or a course's URL.
export async function previousTokenHeads(file: File): Promise<string[]> {
  const attn = await loadAttention({ labs: false });
  const controller = new AbortController();
  const model = await attn.openGpt2(file, { onProgress: (loaded, total) => console.log(loaded / total), signal: controller.signal, config: { n_head: 12 } });
  const dtype: 'F32' | 'F16' | 'BF16' = model.config.dtype;
  const ids: number[] = model.tokenize('The cat sat').ids;
  const run = model.run('The cat sat on the mat because it was tired', { endOfTextFirst: true, layers: [5] });
  const next: string = run.next[0].token;
  const found = run.layers[5].heads.flatMap((h, i) => ((h.previousToken ?? 0) > 0.4 ? [`5.${i} ${h.weights[1][0]}`] : []));
  console.log(dtype, ids, next, model.memoryBytes);
  model.dispose();
  return found;
}

// Issue 38: a head switched off, the logit lens, direct logit attribution, and generation.
export async function handsOn(model: Gpt2Model): Promise<string> {
  const ablate: Gpt2AblatedHead[] = [{ layer: 5, head: 1 }, { layer: 5, head: 5, mode: 'mean' }];
  const run: Gpt2Run = model.run('The cat sat on the mat because it was tired', { ablate, lens: true, attribute: 2603 });
  const guess: Gpt2Token | undefined = run.lens?.[5][0];
  const parts: Gpt2Attribution | undefined = run.attribution;
  const sum = parts ? parts.heads.flat().reduce((a, b) => a + b, 0) + parts.mlps.reduce((a, b) => a + b, 0) + parts.embeddings + parts.biases : 0;
  const controller = new AbortController();
  const generated: Gpt2Generation = await model.generate('The cat sat', {
    maxNewTokens: 20, temperature: 0.8, topK: 40, seed: 1, signal: controller.signal,
    onToken: ({ id, token, probability, ms }) => console.log(id, token, probability.toFixed(3), ms.toFixed(1)),
  });
  const greedy = await model.generate('The cat sat', { maxNewTokens: 5, endOfTextFirst: true });
  console.log(guess?.token, sum - (parts?.logit ?? 0), generated.msPerToken, generated.cacheBytes, greedy.ids);
  return generated.tokens.join('');
}

// Issue 29: the learned heads' goals, from the core, and a model's scores against them.
export async function goalsOf(): Promise<boolean> {
  const attn = await loadAttention();
  const model = await attn.learnedModel();
  const { thresholds, maxSteps, scores, met } = attn.learnedGoals(model);
  const ratio: number = thresholds.ratio;
  const second: number | undefined = scores?.lossSecondCopy;
  console.log(ratio, maxSteps, second);
  return met ?? false;
}
