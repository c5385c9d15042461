// GPT-2 generating text through the JS API, in both wasm builds: greedy generation gives the
// float64 reference's ids exactly; every token is the one a whole forward pass over the text so
// far puts first (so the KV cache is exact), with its probability; the cache and cache: false give
// the same text; a seed repeats its text; the context's end stops generation without an error;
// an AbortSignal stops it between tokens and the decoder is freed; every bad argument is refused
// in words naming it, and the model keeps working. Needs build-fixtures/gpt2 (tools/build.sh
// fixtures) and the GPT-2 wasm modules (tools/build.sh wasm).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../web/attention.js';
import { loadGpt2Core, openFlatGpt2 } from '../../web/api/gpt2.js';
import { BUILDS } from './helpers.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const WASM = new URL('../../web/wasm/', import.meta.url);
const ready = existsSync(`${FIXTURES}index.json`);
const reference = (name) => JSON.parse(readFileSync(`${FIXTURES}${name}/reference.json`, 'utf8'));
const modelBytes = (name) => readFileSync(`${FIXTURES}${name}/model.safetensors`);
const END_OF_TEXT = 50256;
const SENTENCE = 'The cat sat on the mat because it was tired';

// The reference's greedy generations (tools/make_gpt2_fixtures.py): [{ name, ids (the prompt,
// 50256 first when endOfTextFirst), endOfTextFirst, maxNewTokens, newIds, stoppedBy ("count",
// "context" or "endOfText") }], on prompts whose top two logits stand apart at every step.
const generationsOf = (ref) => ref.generation ?? [];

describe('GPT-2 generates text', { skip: !ready && 'build-fixtures/gpt2 is not made (tools/build.sh fixtures)' }, () => {
  for (const build of BUILDS) {
    describe(`${build.name} build`, () => {
      let core, attn, flat, model, config;
      before(async () => {
        core = await loadGpt2Core(WASM, build.simd === 'relaxed' ? 'relaxed' : build.simd ? 'simd' : 'scalar');
        flat = await openFlatGpt2({ core: async () => core }, modelBytes('d64-f32'), { heads: 4 });
        config = flat.config;
        attn = await loadAttention({ simd: build.simd });
        model = await attn.openGpt2(modelBytes('d64-f32'), { heads: 4 });
      });
      after(() => {
        flat?.dispose();
        model?.dispose();
      });

      it('greedy: each token is the first of a whole run over the text so far, with its probability; the cache grows by a token a step', async () => {
        const input = flat.input(SENTENCE, { endOfTextFirst: false });
        const reported = [];
        const result = await flat.generate(input, { maxNewTokens: 8, onToken: (t) => reported.push(t) });
        assert.ok(result.ids.length >= 1 && result.ids.length <= 8);
        assert.equal(result.ids.length, result.tokens.length);
        assert.deepEqual(reported.map((t) => t.id), result.ids);
        assert.deepEqual(reported.map((t) => t.token), result.tokens);
        const perToken = 2 * config.layers * config.dModel * 4;
        let ids = [...input.ids];
        reported.forEach((t, k) => {
          const run = flat.run({ ids, tokens: ids.map(String), endOfTextFirst: false }, { layers: [] });
          // The same token, or one tied with it within float32's error (this prompt's top two logits
          // are not all 0.01 apart, as the reference's generation prompts are).
          const tied = run.next.find((x) => x.id === t.id);
          assert.ok(t.id === run.next[0].id || (tied && Math.abs(tied.probability - run.next[0].probability) <= 1e-5), `token ${k}: ${t.id}, a whole run puts ${run.next[0].id} first`);
          assert.ok(Math.abs(t.probability - run.next[0].probability) <= 1e-4, `token ${k}: p ${t.probability} against ${run.next[0].probability}`);
          assert.ok(typeof t.token === 'string' && t.token.length > 0);
          assert.ok(Number.isFinite(t.ms) && t.ms >= 0, `ms ${t.ms}`);
          assert.equal(t.cacheBytes % perToken, 0, `cacheBytes ${t.cacheBytes} is a whole number of tokens' keys and values`);
          const held = t.cacheBytes / perToken;
          assert.ok(held >= input.ids.length && held <= ids.length + 1, `token ${k}: the cache holds ${held} tokens for ${ids.length} read`);
          if (k > 0) assert.equal(t.cacheBytes - reported[k - 1].cacheBytes, perToken, 'one more token in the cache each step');
          ids = [...ids, t.id];
        });
        assert.equal(result.cacheBytes, reported.at(-1).cacheBytes);
        // The first token's time includes reading the prompt; msPerToken is the mean of the rest.
        const later = reported.slice(1);
        const mean = later.length ? later.reduce((a, t) => a + t.ms, 0) / later.length : reported[0].ms;
        assert.ok(Math.abs(result.msPerToken - mean) < 1e-9, `msPerToken ${result.msPerToken}, the later steps' mean ${mean}`);
        if (result.ids.includes(END_OF_TEXT)) assert.equal(result.ids.at(-1), END_OF_TEXT, '<|endoftext|> ends the text');
      });

      it('without the cache, the same tokens and no cache bytes; Gpt2Model.generate is FlatGpt2\'s with the cache', async () => {
        // The lesson's sentence after <|endoftext|>: a greedy prompt of the reference, its top two
        // logits 0.01 apart at each of 8 steps, so the two ways cannot part at a near tie.
        for (const endOfTextFirst of [true]) {
          const input = flat.input(SENTENCE, { endOfTextFirst });
          const cached = await flat.generate(input, { maxNewTokens: 8 });
          const uncached = await flat.generate(input, { maxNewTokens: 8, cache: false });
          assert.deepEqual(uncached.ids, cached.ids);
          assert.equal(uncached.cacheBytes, 0);
          assert.ok(cached.cacheBytes > 0);
          const reported = [];
          const api = await model.generate(SENTENCE, { maxNewTokens: 8, endOfTextFirst, onToken: (t) => reported.push(t) });
          assert.deepEqual(api.ids, cached.ids);
          assert.deepEqual(api.tokens, cached.tokens);
          assert.equal(api.cacheBytes, cached.cacheBytes);
          // The report: { id, token, probability, ms }, nothing more.
          assert.deepEqual(Object.keys(reported[0]).sort(), ['id', 'ms', 'probability', 'token']);
          assert.deepEqual(Object.keys(api).sort(), ['cacheBytes', 'ids', 'msPerToken', 'tokens']);
        }
      });

      it('greedy generation gives the float64 reference\'s ids exactly, with and without the cache, stopping where it stopped', async (t) => {
        let checked = 0;
        for (const checkpoint of ['tiny-f32', 'd64-f32', 'd64-bf16', 'd128-f16', 'prefixed-f16']) {
          const ref = reference(checkpoint);
          const cases = generationsOf(ref);
          if (cases.length === 0) continue;
          const m = await openFlatGpt2({ core: async () => core }, modelBytes(checkpoint), { heads: ref.headsOption ?? undefined });
          try {
            for (const c of cases) {
              const label = `${checkpoint} ${c.name}`;
              const input = { ids: c.ids, tokens: c.ids.map(String), endOfTextFirst: c.endOfTextFirst };
              for (const cache of [true, false]) {
                const got = await m.generate(input, { maxNewTokens: c.maxNewTokens, cache });
                assert.deepEqual(got.ids, c.newIds, `${label}, cache ${cache}`);
              }
              if (c.stoppedBy === 'context') assert.equal(c.ids.length + c.newIds.length, m.config.context, label);
              if (c.stoppedBy === 'endOfText') assert.equal(c.newIds.at(-1), END_OF_TEXT, label);
              // Through the API, where the prompt is a text that tokenizes to the same ids.
              const text = ref.cases.find((x) => x.name === c.name)?.text;
              if (text && ref.cases.find((x) => x.name === c.name).ids.join() === c.ids.join()) {
                const api = await attn.openGpt2(modelBytes(checkpoint), { heads: ref.headsOption ?? undefined });
                try {
                  assert.deepEqual((await api.generate(text, { maxNewTokens: c.maxNewTokens, endOfTextFirst: c.endOfTextFirst })).ids, c.newIds, `${label} through Gpt2Model`);
                } finally {
                  api.dispose();
                }
              }
              checked++;
            }
          } finally {
            m.dispose();
          }
        }
        if (checked === 0) t.skip('the fixtures hold no generation reference (tools/make_gpt2_fixtures.py)');
      });

      it('the context\'s end stops generation: a prompt plus maxNewTokens past it is not an error', async () => {
        const long = ' the'.repeat(config.context - 3).trim();
        const input = flat.input(long, { endOfTextFirst: false });
        assert.equal(input.ids.length, config.context - 3);
        for (const cache of [true, false]) {
          const result = await flat.generate(input, { maxNewTokens: 20, cache });
          assert.ok(result.ids.length <= 3, `${result.ids.length} tokens after ${input.ids.length} in a context of ${config.context}`);
          assert.ok(result.ids.length >= 1);
        }
        const full = flat.input(' the'.repeat(config.context).trim(), { endOfTextFirst: false });
        assert.equal(full.ids.length, config.context);
        const none = await flat.generate(full, { maxNewTokens: 5 });
        assert.deepEqual(none.ids, []);
        assert.equal(none.msPerToken, 0);
        await assert.rejects(model.generate(' the'.repeat(config.context + 6), { maxNewTokens: 1 }), { message: /the text is \d+ tokens long, more than this model's context of 64 tokens/ });
      });

      it('sampling: the same seed gives the same text, another seed another; topK 1 is greedy', async () => {
        const input = flat.input(SENTENCE, { endOfTextFirst: true });
        const options = { maxNewTokens: 12, temperature: 1.5, topK: 200 };
        const first = await flat.generate(input, { ...options, seed: 7 });
        const again = await flat.generate(input, { ...options, seed: 7 });
        assert.deepEqual(again.ids, first.ids);
        const others = [];
        for (const seed of [8, 9, 10]) others.push((await flat.generate(input, { ...options, seed })).ids);
        assert.ok(others.some((ids) => ids.join() !== first.ids.join()), 'three other seeds all gave seed 7\'s text');
        const greedy = await flat.generate(input, { maxNewTokens: 12 });
        const top1 = await flat.generate(input, { maxNewTokens: 12, temperature: 2, topK: 1, seed: 3 });
        assert.deepEqual(top1.ids, greedy.ids);
        // Sampled tokens' probabilities are the model's own (temperature 1), as whole runs give them.
        let ids = [...input.ids];
        const reported = [];
        await flat.generate(input, { ...options, seed: 7, onToken: (t) => reported.push(t) });
        for (const t of reported) {
          const run = flat.run({ ids, tokens: ids.map(String), endOfTextFirst: true }, { layers: [] });
          // The token's probability, where the top 5 hold it; always at most the first's.
          const listed = run.next.find((x) => x.id === t.id);
          if (listed) assert.ok(Math.abs(listed.probability - t.probability) <= 1e-4, `p(${t.id}) ${t.probability} against ${listed.probability}`);
          assert.ok(t.probability > 0 && t.probability <= run.next[0].probability + 1e-6);
          ids = [...ids, t.id];
        }
        const api = await model.generate(SENTENCE, { ...options, endOfTextFirst: true, seed: 7 });
        assert.deepEqual(api.ids, first.ids);
      });

      it('an AbortSignal stops it between tokens; the decoder is freed however generation ends', async () => {
        const input = flat.input(SENTENCE, { endOfTextFirst: false });
        await flat.generate(input, { maxNewTokens: 4 }); // the heap's working size, once
        const heap = core.gpt2HeapInUse();
        for (let round = 0; round < 3; round++) {
          const controller = new AbortController();
          const seen = [];
          await assert.rejects(flat.generate(input, { maxNewTokens: 30, onToken: (t) => {
            seen.push(t.id);
            if (seen.length === 2) controller.abort();
          }, signal: controller.signal }), { name: 'AbortError' });
          assert.equal(seen.length, 2, 'no token after the abort');
        }
        // A reason of the caller's own; an abort from a timer, while the steps yield to it.
        const reason = new Error('stopped by the learner');
        const controller = new AbortController();
        await assert.rejects(flat.generate(input, { maxNewTokens: 2, signal: AbortSignal.abort(reason) }), (error) => error === reason);
        const timed = flat.generate(input, { maxNewTokens: 60, cache: false, signal: controller.signal });
        setTimeout(() => controller.abort(reason), 0);
        await assert.rejects(timed, (error) => error === reason);
        // An onToken that throws ends generation with its error.
        await assert.rejects(flat.generate(input, { maxNewTokens: 5, onToken: () => { throw new Error('from onToken'); } }), { message: 'from onToken' });
        await assert.rejects(model.generate(SENTENCE, { maxNewTokens: 5, signal: AbortSignal.abort() }), { name: 'AbortError' });
        assert.equal(core.gpt2HeapInUse(), heap, 'every decoder was freed');
        const after = await flat.generate(input, { maxNewTokens: 4 });
        assert.equal(after.ids.length, 4);
      });

      it('each bad argument is refused in words that name it; the model keeps working', async () => {
        const before = await model.generate(SENTENCE, { maxNewTokens: 3 });
        const cases = [
          [undefined, /generate needs maxNewTokens/],
          [{}, /generate needs maxNewTokens/],
          ['fast', /generate takes an options object such as \{ maxNewTokens: 20 \}/],
          [{ maxNewTokens: 0 }, /^maxNewTokens must be at least 1/],
          [{ maxNewTokens: 2.5 }, /^maxNewTokens must be a whole number of tokens to generate \(got 2\.5\)/],
          [{ maxNewTokens: -1 }, /^maxNewTokens must be a whole number/],
          [{ maxNewTokens: 65 }, /^maxNewTokens must be at most this model's context, 64 tokens \(got 65\)$/],
          [{ maxNewTokens: '5' }, /^maxNewTokens must be a whole number .*\(got "5"\)/],
          [{ maxNewTokens: 3, temperature: -1 }, /^temperature must be a finite number, 0 \(greedy\) or more/],
          [{ maxNewTokens: 3, temperature: NaN }, /^temperature must be a finite number, 0 \(greedy\) or more \(got NaN\)/],
          [{ maxNewTokens: 3, temperature: Infinity }, /^temperature must be a finite number/],
          [{ maxNewTokens: 3, temperature: '1' }, /^temperature must be a finite number/],
          [{ maxNewTokens: 3, temperature: 1, topK: 0 }, /^topK must be at least 1/],
          [{ maxNewTokens: 3, topK: 1.5 }, /^topK must be a whole number/],
          [{ maxNewTokens: 3, seed: -1 }, /^seed must be a whole number/],
          [{ maxNewTokens: 3, seed: 2 ** 32 }, /^seed must be a whole number from 0 to 4,294,967,295 \(got 4,294,967,296\)/],
          [{ maxNewTokens: 3, seed: 0.5 }, /^seed must be a whole number/],
          [{ maxNewTokens: 3, endOfTextFirst: 1 }, /^endOfTextFirst must be true or false/],
          [{ maxNewTokens: 3, signal: {} }, /^signal must be an AbortSignal/],
          [{ maxNewTokens: 3, onToken: 'log' }, /^onToken must be a function/],
          [{ get maxNewTokens() { throw new RangeError('no'); } }, /^maxNewTokens could not be read/],
        ];
        for (const [options, message] of cases) {
          await assert.rejects(model.generate(SENTENCE, options), (error) => {
            assert.ok(error instanceof Error);
            assert.match(error.message, message, error.message);
            assert.doesNotMatch(error.message, /RuntimeError|Aborted|BindingError|undefined|std::/, error.message);
            return true;
          });
        }
        await assert.rejects(model.generate('  ', { maxNewTokens: 3 }), { message: /the text is empty/ });
        await assert.rejects(model.generate(42, { maxNewTokens: 3 }), { message: /text must be a string/ });
        await assert.rejects(flat.generate(flat.input(SENTENCE, { endOfTextFirst: false }), { maxNewTokens: 3, cache: 'no' }), { message: /^cache must be true or false/ });
        assert.deepEqual((await model.generate(SENTENCE, { maxNewTokens: 3 })).ids, before.ids, 'the model still generates the same');
      });

      it('a model disposed while it generates stops it, in words', async () => {
        const m = await attn.openGpt2(modelBytes('d64-f32'), { heads: 4 });
        const generating = m.generate(SENTENCE, { maxNewTokens: 40, onToken: () => m.dispose() });
        await assert.rejects(generating, { message: /this GPT-2 model was disposed/ });
        await assert.rejects(m.generate(SENTENCE, { maxNewTokens: 2 }), { message: /this GPT-2 model was disposed/ });
        assert.equal((await flat.generate(flat.input(SENTENCE, { endOfTextFirst: false }), { maxNewTokens: 2 })).ids.length, 2, 'another model is untouched');
      });
    });
  }

  // d64-f32 with ln_f's weight 0 and bias 1: the final LayerNorm passes only its bias, so every
  // logit is the sum of a wte row, and wte[50256] set to 3 puts <|endoftext|> first everywhere.
  it('generation stops at <|endoftext|>, which is then the last id, with the cache and without', async () => {
    const bytes = Buffer.from(modelBytes('d64-f32'));
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
    const floats = (name) => {
      const [begin, end] = header[name].data_offsets;
      return new Float32Array(bytes.buffer, bytes.byteOffset + 8 + headerLength + begin, (end - begin) / 4);
    };
    floats('ln_f.weight').fill(0);
    floats('ln_f.bias').fill(1);
    const d = header['wte.weight'].shape[1];
    floats('wte.weight').subarray(END_OF_TEXT * d).fill(3);
    const core = await loadGpt2Core(WASM, 'simd');
    const flat = await openFlatGpt2({ core: async () => core }, new Uint8Array(bytes), { heads: 4 });
    const attn = await loadAttention({ simd: true });
    const model = await attn.openGpt2(new Uint8Array(bytes), { heads: 4 });
    try {
      const input = flat.input(SENTENCE, { endOfTextFirst: false });
      for (const cache of [true, false]) {
        const seen = [];
        const result = await flat.generate(input, { maxNewTokens: 10, cache, onToken: (t) => seen.push(t) });
        assert.deepEqual(result.ids, [END_OF_TEXT], `cache: ${cache}`);
        assert.deepEqual(seen.map((t) => t.id), [END_OF_TEXT]);
      }
      const api = await model.generate(SENTENCE, { maxNewTokens: 10 });
      assert.deepEqual(api.ids, [END_OF_TEXT]);
      assert.deepEqual(api.tokens, ['<|endoftext|>']);
    } finally {
      flat.dispose();
      model.dispose();
    }
  });

  // tiny-f32's vocabulary (96 tokens) has no <|endoftext|>: it stops only at the count or the context.
  it('a model whose vocabulary is smaller than GPT-2\'s generates within it', async () => {
    const core = await loadGpt2Core(WASM, 'simd');
    const ref = reference('tiny-f32');
    const flat = await openFlatGpt2({ core: async () => core }, modelBytes('tiny-f32'), { heads: ref.headsOption ?? undefined });
    try {
      const c = ref.cases[0];
      const input = { ids: c.ids, tokens: c.ids.map(String), endOfTextFirst: c.endOfTextFirst };
      const result = await flat.generate(input, { maxNewTokens: 5 });
      assert.equal(result.ids.length, Math.min(5, flat.config.context - c.ids.length));
      assert.ok(result.ids.every((id) => id >= 0 && id < flat.config.vocabSize));
      let ids = [...c.ids];
      for (const id of result.ids) {
        assert.equal(id, flat.run({ ids, tokens: ids.map(String), endOfTextFirst: c.endOfTextFirst }, { layers: [] }).next[0].id);
        ids = [...ids, id];
      }
    } finally {
      flat.dispose();
    }
  });
});
