// GPT-2's run() options through the JS API, in both wasm builds: heads switched off (ablate, zero
// and mean), the logit lens and direct logit attribution against the float64 references of
// tools/make_gpt2_fixtures.py, and what holds whatever the weights: the lens's last layer is
// next, the attribution's parts sum to the logit, switching a head off changes only what comes
// after it. Every bad option is refused in words that name it, and the model keeps working.
// Needs build-fixtures/gpt2 (tools/build.sh fixtures) and the GPT-2 wasm modules.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../web/attention.js';
import { BUILDS } from './helpers.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const ready = existsSync(`${FIXTURES}index.json`);
const index = ready ? JSON.parse(readFileSync(`${FIXTURES}index.json`, 'utf8')) : { checkpoints: [] };
const reference = (name) => JSON.parse(readFileSync(`${FIXTURES}${name}/reference.json`, 'utf8'));
const modelBytes = (name) => readFileSync(`${FIXTURES}${name}/model.safetensors`);

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const partsOf = (a) => sum(a.heads.flat()) + sum(a.mlps) + a.embeddings + a.biases;
const worst = (got, want) => Math.max(...got.map((x, i) => Math.abs(x - want[i])));

// The reference's cases with interventions (tools/make_gpt2_fixtures.py): each case holds
//   lens:        [layer][{ id, probability }] × 5
//   attribution: { token (the likeliest next), heads, mlps, embeddings, biases, logit }
// and the first two of at most 24 tokens
//   ablations:   [{ ablate: [{ layer, head, mode }], attentions, next, attribution (of the same token) }]
// Those with a text are read through Gpt2Model (the others are ids the tokenizer cannot make).
const interventionCases = (ref) => ref.cases.filter((c) => c.text !== null && (c.ablations || c.lens || c.attribution));

function checkTop(got, want, label) {
  assert.deepEqual(got.map((t) => t.id), want.map((t) => t.id), `${label}: ids`);
  got.forEach((t, i) => assert.ok(Math.abs(t.probability - want[i].probability) <= 1e-4, `${label}: p(${t.id}) ${t.probability} against ${want[i].probability}`));
}

function checkAttribution(got, want, label) {
  assert.deepEqual(Object.keys(got).sort(), ['biases', 'embeddings', 'heads', 'logit', 'mlps']);
  assert.ok(worst(got.heads.flat(), want.heads.flat()) <= 1e-3, `${label}: heads`);
  assert.ok(worst(got.mlps, want.mlps) <= 1e-3, `${label}: mlps`);
  for (const key of ['embeddings', 'biases', 'logit']) assert.ok(Math.abs(got[key] - want[key]) <= 1e-3, `${label}: ${key} ${got[key]} against ${want[key]}`);
}

describe('GPT-2 run() with ablate, lens and attribute', { skip: !ready && 'build-fixtures/gpt2 is not made (tools/build.sh fixtures)' }, () => {
  for (const build of BUILDS) {
    describe(`${build.name} build`, () => {
      let attn;
      before(async () => { attn = await loadAttention({ simd: build.simd }); });

      it('matches the float64 references: ablation zero and mean, the lens, the attribution', async (t) => {
        let checked = 0;
        for (const checkpoint of index.checkpoints) {
          const ref = reference(checkpoint.name);
          const cases = interventionCases(ref);
          if (cases.length === 0) continue;
          const model = await attn.openGpt2(modelBytes(checkpoint.name), { heads: ref.headsOption ?? undefined });
          try {
            for (const c of cases) {
              const label = `${checkpoint.name} ${c.name}`;
              const base = { endOfTextFirst: c.endOfTextFirst };
              if (c.lens) {
                const run = model.run(c.text, { ...base, lens: true });
                run.lens.forEach((guesses, l) => checkTop(guesses, c.lens[l], `${label} lens ${l}`));
                checked++;
              }
              if (c.attribution) {
                const run = model.run(c.text, { ...base, attribute: c.attribution.token });
                checkAttribution(run.attribution, c.attribution, label);
                checked++;
              }
              for (const a of c.ablations ?? []) {
                const what = `${label} ablate ${JSON.stringify(a.ablate)}`;
                const run = model.run(c.text, { ...base, ablate: a.ablate, attribute: c.attribution?.token });
                checkTop(run.next, a.next, what);
                if (a.attentions) {
                  let w = 0;
                  run.layers.forEach((layer, l) => layer.heads.forEach((head, h) => head.weights.forEach((row, i) => {
                    w = Math.max(w, worst(row, a.attentions[l][h][i]));
                  })));
                  assert.ok(w <= 1e-4, `${what}: attention weights differ by up to ${w}`);
                }
                if (a.attribution) checkAttribution(run.attribution, a.attribution, what);
                checked++;
              }
            }
          } finally {
            model.dispose();
          }
        }
        if (checked === 0) t.skip('the fixtures hold no intervention references (tools/make_gpt2_fixtures.py)');
      });

      it('the lens ends at next; the attribution\'s parts sum to the logit; no option, no extra field', async () => {
        const ref = reference('d64-f32');
        const model = await attn.openGpt2(modelBytes('d64-f32'), { heads: 4 });
        const { layers, heads } = model.config;
        try {
          for (const c of ref.cases.filter((x) => x.text !== null)) {
            const plain = model.run(c.text, { endOfTextFirst: c.endOfTextFirst });
            assert.deepEqual(Object.keys(plain).sort(), ['ids', 'layers', 'next', 'tokens']);
            for (const token of [plain.next[0].id, plain.next[4].id, 0, 50256]) {
              const run = model.run(c.text, { endOfTextFirst: c.endOfTextFirst, lens: true, attribute: token, ablate: [] });
              assert.deepEqual(run.next, plain.next, `${c.name}: the same forward pass`);
              assert.deepEqual(run.layers, plain.layers);
              assert.equal(run.lens.length, layers);
              for (const guesses of run.lens) {
                assert.equal(guesses.length, 5);
                assert.ok(guesses.every((g, i) => g.probability > 0 && g.probability <= 1 && typeof g.token === 'string' && (i === 0 || g.probability <= guesses[i - 1].probability)));
                assert.deepEqual(Object.keys(guesses[0]).sort(), ['id', 'probability', 'token']);
              }
              checkTop(run.lens.at(-1), plain.next, `${c.name}: lens[layers − 1] is next`);
              const a = run.attribution;
              assert.equal(a.heads.length, layers);
              assert.ok(a.heads.every((row) => row.length === heads));
              assert.equal(a.mlps.length, layers);
              assert.ok(Math.abs(partsOf(a) - a.logit) <= 1e-3, `${c.name} token ${token}: the parts sum to ${partsOf(a)}, the logit is ${a.logit}`);
            }
            // 'top' attributes next[0], in the same pass, with heads switched off or not.
            for (const ablate of [[], [{ layer: 2, head: 1 }]]) {
              const top = model.run(c.text, { endOfTextFirst: c.endOfTextFirst, attribute: 'top', ablate, layers: [] });
              const named = model.run(c.text, { endOfTextFirst: c.endOfTextFirst, attribute: top.next[0].id, ablate, layers: [] });
              assert.deepEqual(top.attribution, named.attribution, `${c.name}: 'top' is next[0]`);
            }
            // The logits' order is next's: the top token's logit is the largest of the five.
            const logits = plain.next.map((t) => model.run(c.text, { endOfTextFirst: c.endOfTextFirst, attribute: t.id, layers: [] }).attribution.logit);
            assert.ok(logits.every((x, i) => i === 0 || x <= logits[i - 1] + 1e-5), `${c.name}: logits ${logits}`);
            // softmax: p1 / p0 = exp(logit1 − logit0).
            const ratio = plain.next[1].probability / plain.next[0].probability;
            assert.ok(Math.abs(Math.log(ratio) - (logits[1] - logits[0])) <= 1e-3, `${c.name}: the logits' gap against the probabilities'`);
          }
        } finally {
          model.dispose();
        }
      });

      it('switching a head off changes only what comes after it; its own weights stay its pattern; zero and mean differ', async () => {
        const model = await attn.openGpt2(modelBytes('d64-f32'), { heads: 4 });
        const { layers } = model.config;
        const text = reference('d64-f32').cases[0].text;
        try {
          const plain = model.run(text, { lens: true });
          for (const mode of ['zero', 'mean']) {
            const last = model.run(text, { ablate: [{ layer: layers - 1, head: 2, mode }], lens: true });
            assert.deepEqual(last.layers, plain.layers, `${mode}: the last layer's head off, every attention pattern as before`);
            assert.notDeepEqual(last.next.map((t) => t.probability), plain.next.map((t) => t.probability), `${mode}: next moved`);
            assert.deepEqual(last.lens.slice(0, -1), plain.lens.slice(0, -1), `${mode}: the earlier layers' lens as before`);
            const first = model.run(text, { ablate: [{ layer: 0, head: 1, mode }] });
            assert.deepEqual(first.layers[0], plain.layers[0], `${mode}: layer 0's own patterns as before, the ablated head's too`);
            assert.notDeepEqual(first.layers[1], plain.layers[1], `${mode}: layer 1 reads the changed residual`);
          }
          const zero = model.run(text, { ablate: [{ layer: 1, head: 0 }] });
          assert.deepEqual(model.run(text, { ablate: [{ layer: 1, head: 0, mode: 'zero' }] }), zero, "mode defaults to 'zero'");
          assert.notDeepEqual(model.run(text, { ablate: [{ layer: 1, head: 0, mode: 'mean' }] }).next, zero.next);
          // Two heads at once, named in either order, switch off the same.
          const both = model.run(text, { ablate: [{ layer: 0, head: 1 }, { layer: 2, head: 3, mode: 'mean' }] });
          assert.deepEqual(model.run(text, { ablate: [{ layer: 2, head: 3, mode: 'mean' }, { layer: 0, head: 1 }] }), both);
          // The caller's array is read, not kept or changed.
          const ablate = [{ layer: 0, head: 0, note: 'kept as given' }];
          model.run(text, { ablate });
          assert.deepEqual(ablate, [{ layer: 0, head: 0, note: 'kept as given' }]);
        } finally {
          model.dispose();
        }
      });

      it('each bad option is refused in words that name it; the model keeps working', async () => {
        const model = await attn.openGpt2(modelBytes('d64-f32'), { heads: 4 });
        const text = reference('d64-f32').cases[0].text;
        const before = model.run(text, { lens: true, attribute: 262 });
        const cases = [
          [{ ablate: { layer: 0, head: 0 } }, /^ablate must be an array of heads to switch off, such as \[\{ layer: 5, head: 1, mode: 'zero' \}\] \(got an object\)$/],
          [{ ablate: [5] }, /^ablate\[0\] must be a head to switch off, such as \{ layer: 5, head: 1 \} \(got 5\)$/],
          [{ ablate: [null] }, /^ablate\[0\] must be a head/],
          [{ ablate: [{ layer: 3, head: 0 }] }, /^ablate holds layer 3 head 0: GPT-2's layers here are numbered 0 to 2$/],
          [{ ablate: [{ layer: -1, head: 0 }] }, /^ablate holds layer -1 head 0: GPT-2's layers here are numbered 0 to 2$/],
          [{ ablate: [{ layer: 1.5, head: 0 }] }, /^ablate holds layer 1\.5 head 0: GPT-2's layers here are numbered 0 to 2$/],
          [{ ablate: [{ head: 0 }] }, /^ablate holds layer undefined head 0: GPT-2's layers/],
          [{ ablate: [{ layer: 0, head: 4 }] }, /^ablate holds layer 0 head 4: each layer's heads here are numbered 0 to 3$/],
          [{ ablate: [{ layer: 0, head: '1' }] }, /^ablate holds layer 0 head "1": each layer's heads here are numbered 0 to 3$/],
          [{ ablate: [{ layer: 1, head: 2 }, { layer: 1, head: 2, mode: 'mean' }] }, /^ablate holds layer 1 head 2 twice: name each head once$/],
          [{ ablate: [{ layer: 0, head: 0, mode: 'max' }] }, /^ablate holds layer 0 head 0 with mode "max": mode must be 'zero' or 'mean'$/],
          [{ lens: 'yes' }, /^lens must be true or false \(got "yes"\)$/],
          [{ attribute: 50257 }, /^attribute is token 50257, but this model's vocabulary has 50,257 tokens, numbered 0 to 50,256/],
          [{ attribute: -1 }, /^attribute must be a token id, a whole number from 0 to 50,256, or 'top' \(got -1\)$/],
          [{ attribute: 2.5 }, /^attribute must be a token id/],
          [{ attribute: ' mat' }, /^attribute must be a token id, a whole number from 0 to 50,256, or 'top' \(got " mat"\)$/],
          [{ get ablate() { throw new RangeError('no'); } }, /^ablate could not be read/],
        ];
        try {
          for (const [options, message] of cases) {
            assert.throws(() => model.run(text, options), (error) => {
              assert.ok(error instanceof Error);
              assert.match(error.message, message, error.message);
              assert.doesNotMatch(error.message, /RuntimeError|Aborted|BindingError|std::/, error.message);
              return true;
            });
          }
          assert.deepEqual(model.run(text, { lens: true, attribute: 262 }), before, 'the model still runs the same');
        } finally {
          model.dispose();
        }
      });
    });
  }
});
