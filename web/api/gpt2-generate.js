// GPT-2 generating text (FlatGpt2.generate, gpt2-model.js), driving the core's decoder
// (bindings/gpt2.cpp: gpt2DecoderOpen, gpt2DecoderStep, gpt2DecoderFree; src/gpt2/decode.hpp) one
// token at a time from here, so that each token is reported and timed as it comes and an
// AbortSignal is honoured between tokens. The core reads the prompt when the decoder opens (with
// the KV cache, once) and checks every option's value; it stops at <|endoftext|>, after
// maxNewTokens, or at the context's end.
import { unwrap } from './arguments.js';

/**
 * Generates after `input` (FlatGpt2.input's { ids, endOfTextFirst }) with checked `options`
 * (gpt2-options.js's generateOptionsOf). `model` gives the module, the model's handle and
 * whether it is still open. Resolves to { ids, tokens, msPerToken, cacheBytes }, the new tokens
 * only; the decoder is freed however it ends.
 */
export async function generateTokens(model, input, options) {
  const { core, handle, disposed } = model;
  const { maxNewTokens, temperature, topK, seed, cache, signal, onToken } = options;
  signal?.throwIfAborted();
  // Opening reads the prompt: the first token's time counts it (the time to the first token).
  let started = performance.now();
  const { value: decoder } = unwrap(core.gpt2DecoderOpen(handle, {
    ids: Int32Array.from(input.ids), endOfTextFirst: input.endOfTextFirst, maxNewTokens, temperature, topK, seed, cache,
  }));
  const ids = [], tokens = [], times = [];
  let cacheBytes = 0;
  try {
    for (;;) {
      // A task boundary, not a microtask: a message carrying an abort (the GPT-2 panel's worker),
      // a click or a timer gets its turn before the next token.
      await nextTask();
      signal?.throwIfAborted();
      if (disposed()) throw new Error('this GPT-2 model was disposed while it generated');
      started ??= performance.now();
      const step = unwrap(core.gpt2DecoderStep(decoder)).value;
      const took = performance.now() - started;
      started = null;
      if (step === null) break; // the prompt filled the context, or the last step was done
      ids.push(step.id);
      tokens.push(step.token);
      times.push(took);
      cacheBytes = step.cacheBytes;
      onToken?.({ id: step.id, token: step.token, probability: step.probability, ms: took, cacheBytes });
      if (step.done) break;
    }
  } finally {
    // Freeing the model freed its decoders; the handle may since name another model's.
    if (!disposed()) core.gpt2DecoderFree(decoder);
  }
  return { ids, tokens, msPerToken: msPerToken(times), cacheBytes };
}

// The mean time of the tokens after the first, each of which reads one new position (the first
// also read the prompt); the first's alone when it is the only one; 0 for none.
function msPerToken(times) {
  if (times.length <= 1) return times[0] ?? 0;
  return times.slice(1).reduce((a, b) => a + b, 0) / (times.length - 1);
}

// Resolves in a later task. setImmediate where there is one (Node); else a message to a fresh
// channel, which browsers never clamp as they clamp nested setTimeout(0) to 4 ms.
function nextTask() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
