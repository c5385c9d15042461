// Issue 13: the learned-heads JS API (attn.learnedModel, attn.createTrainer) under Node, on both
// WebAssembly builds: the shipped checkpoint reaches the goals on the core's evaluation set
// (attn.learnedGoals), training is deterministic, and bad input raises a clear Error.
import assert from 'node:assert/strict';
import { describe, it, before } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { readFileSync } from 'node:fs';
import { BUILDS } from './helpers.mjs';

const SYMBOLS = 'abcdefghijklmnopqrstuvwxyz ';
// The shipped checkpoint's record, written by tools/train.cpp with the checkpoint.
const RECORD = JSON.parse(readFileSync(new URL('../../web/learned-heads.json', import.meta.url), 'utf8'));

for (const build of BUILDS) {
  describe(`${build.name} build`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
      await attn.loadLearned();
    });

    it('the shipped checkpoint reaches the goals, with the numbers its record (written natively) reports', async () => {
      const model = await attn.learnedModel();
      assert.equal(await attn.learnedModel(), model, 'fetched once, then shared');
      assert.deepEqual(
        { ...model.config },
        { layers: 2, heads: 2, dModel: 32, context: 33, vocabulary: SYMBOLS, scale: 'sqrt', seed: 1, steps: 4000 },
      );
      const { thresholds, scores: g, met } = attn.learnedGoals(model);
      assert.ok(g.previousToken >= thresholds.previousToken, `a layer-1 previous-token head: ${JSON.stringify(g)}`);
      assert.ok(g.induction >= thresholds.induction, `a layer-2 induction head: ${JSON.stringify(g)}`);
      assert.ok(g.firstToken >= thresholds.firstToken, `an attention sink: ${JSON.stringify(g)}`);
      assert.ok(g.ratio <= thresholds.ratio, `second copy's loss ≤ ${thresholds.ratio * 100} % of the first's: ${JSON.stringify(g)}`);
      assert.equal(met, true);
      // tools/train.cpp measured the same set natively and wrote 6 significant digits.
      const { evaluation, heads } = RECORD;
      const close = (measured, recorded, what) => assert.ok(Math.abs(measured - recorded) <= 5e-6 * Math.abs(recorded), `${what}: ${measured} here, ${recorded} natively`);
      close(g.lossFirstCopy, evaluation.lossFirstCopy, 'lossFirstCopy');
      close(g.lossSecondCopy, evaluation.lossSecondCopy, 'lossSecondCopy');
      close(g.ratio, evaluation.ratio, 'ratio');
      const best = (layer, key) => Math.max(...heads.filter((h) => layer === undefined || h.layer === layer).map((h) => h[key]));
      close(g.previousToken, best(1, 'previousToken'), 'previousToken');
      close(g.induction, best(2, 'induction'), 'induction');
      close(g.firstToken, best(undefined, 'firstToken'), 'firstToken');
      assert.equal(met, evaluation.goalsMet);
    });

    it('learnedGoals() gives the core\'s goals, evaluation set and schedule; an untrained model meets none', () => {
      const goals = attn.learnedGoals();
      assert.deepEqual(goals, {
        thresholds: { previousToken: 0.7, induction: 0.7, firstToken: 0.3, ratio: 0.15 },
        seed: RECORD.evaluation.seed, sequences: RECORD.evaluation.sequences, checkEvery: 250, maxSteps: RECORD.training.decaySteps,
      });
      const trainer = attn.createTrainer({ seed: 1 });
      const untrained = trainer.model();
      const { thresholds, scores: g, met } = attn.learnedGoals(untrained);
      assert.ok(g.previousToken < thresholds.previousToken && g.induction < thresholds.induction && g.ratio > thresholds.ratio, JSON.stringify(g));
      assert.equal(met, false);
      untrained.dispose();
      assert.throws(() => attn.learnedGoals(untrained), { message: 'this model was disposed' });
      assert.throws(() => attn.learnedGoals(trainer), { message: /^learnedGoals takes a model from learnedModel\(\) or trainer\.model\(\)/ });
      trainer.dispose();
    });

    it('run() gives BOS-first tokens, one loss per prediction, causal weights rows summing to 1', async () => {
      const model = await attn.learnedModel();
      const r = model.run('abcdefgh abcdefgh');
      assert.deepEqual(r.tokens, ['<bos>', ...'abcdefgh abcdefgh']);
      assert.equal(r.loss.length, 17);
      assert.ok(r.loss.every((x) => Number.isFinite(x) && x >= 0));
      assert.equal(r.layers.length, 2);
      for (const layer of r.layers) {
        assert.equal(layer.heads.length, 2);
        for (const h of layer.heads) {
          assert.equal(h.weights.length, 18);
          h.weights.forEach((row, i) => {
            assert.ok(row.slice(i + 1).every((w) => w === 0), `row ${i} is causal`);
            assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `row ${i} sums to 1`);
          });
          for (const key of ['previousToken', 'firstToken', 'induction']) assert.ok(h[key] >= 0 && h[key] <= 1);
        }
      }
      // Text without a repeated token has no induction score (null, never NaN); BOS alone none at all.
      assert.equal(model.run('abc').layers[1].heads[0].induction, null);
      const empty = model.run('');
      assert.deepEqual(empty.tokens, ['<bos>']);
      assert.deepEqual(empty.loss, []);
      assert.equal(empty.layers[0].heads[0].previousToken, null);
    });

    it('the lesson sentence runs on its first 32 characters; longer text and other characters raise clear Errors', async () => {
      const model = await attn.learnedModel();
      const sentence = 'the cat sat on the mat because it was tired';
      assert.equal(model.run(sentence.slice(0, 32)).tokens.length, 33);
      assert.throws(() => model.run(sentence),
        { message: 'the text has 43 characters, but the model reads at most 32 (its context is 33 tokens, one of them BOS)' });
      assert.throws(() => model.run('The cat'),
        { message: 'character 1 is "T", which the model does not know: it reads only the letters a to z and the space' });
      assert.throws(() => model.run('a, b'), { message: /^character 2 is ",", which the model does not know/ });
      assert.throws(() => model.run('café'), { message: /^character 4 is a non-ASCII character/ });
      assert.throws(() => model.run(42), { message: 'run takes a string of the letters a to z and spaces (got 42)' });
    });

    it('two trainers from one seed take identical steps; trainer.model() is a snapshot', () => {
      const options = { seed: 5, dModel: 16, context: 17, batch: 8 };
      const a = attn.createTrainer(options), b = attn.createTrainer(options);
      const ra = a.step(20), rb = b.step(20);
      assert.deepEqual(ra, rb);
      assert.equal(ra.step, 20);
      for (const key of ['loss', 'lossFirstCopy', 'lossSecondCopy']) assert.ok(Number.isFinite(ra[key]) && ra[key] > 0);
      const snapshot = a.model();
      assert.deepEqual({ ...snapshot.config }, { layers: 2, heads: 2, dModel: 16, context: 17, vocabulary: SYMBOLS, scale: 'sqrt', seed: 5, steps: 20 });
      const before = snapshot.run('abcabc').loss;
      a.step(5);
      assert.deepEqual(snapshot.run('abcabc').loss, before, 'later steps leave the snapshot as it was');
      assert.notDeepEqual(a.model().run('abcabc').loss, before);
      assert.deepEqual(attn.createTrainer({ ...options, seed: 6 }).step(1).loss === ra.loss, false);
      for (const t of [a, b, snapshot]) t.dispose();
      assert.throws(() => a.step(), { message: 'this trainer was disposed' });
      assert.throws(() => snapshot.run('a'), { message: 'this model was disposed' });
    });

    it("scale: 'none' trains unscaled scores (the lesson's pitfall), a different model from 'sqrt'", () => {
      const options = { seed: 4, dModel: 16, context: 17, batch: 4 };
      const unscaled = attn.createTrainer({ ...options, scale: 'none' }), scaled = attn.createTrainer(options);
      assert.equal(unscaled.model().config.scale, 'none');
      assert.equal(scaled.model().config.scale, 'sqrt');
      // The same seed draws the same initial weights and data: only the scale differs.
      assert.notEqual(unscaled.step(3).loss, scaled.step(3).loss);
      unscaled.dispose();
      scaled.dispose();
    });

    it('bad trainer options raise clear Errors', () => {
      const cases = [
        [{ heads: 3 }, 'dModel (32) must be a multiple of heads (3): each head gets dModel / heads dimensions'],
        [{ layers: 0 }, 'layers must be a whole number from 1 to 4 (got 0)'],
        [{ dModel: 1.5 }, 'dModel must be a whole number (got 1.5)'],
        [{ dModel: 256 }, 'dModel must be a whole number from 4 to 128 (got 256)'],
        [{ context: 6 }, 'context must be a whole number from 7 to 55 (got 6)'],
        [{ context: 56 }, 'context must be a whole number from 7 to 55 (got 56)'],
        [{ batch: 1000 }, 'batch must be a whole number from 1 to 256 (got 1000)'],
        [{ learningRate: -1 }, 'learningRate must be a number greater than 0 and at most 1 (got -1)'],
        [{ learningRate: 2 }, 'learningRate must be a number greater than 0 and at most 1 (got 2)'],
        [{ learningRate: NaN }, 'learningRate must be a number greater than 0 and at most 1 (got NaN)'],
        [{ learningRate: '0.1' }, 'learningRate must be a number (got "0.1")'],
        [{ scale: 1 }, `scale must be a string such as 'sqrt' (got 1)`],
        [{ scale: 'half' }, `scale must be 'sqrt' (1/√d_k) or 'none' (got "half")`],
        [{ seed: -1 }, 'seed must be a whole number ≥ 0 (got -1)'],
        [{ lr: 0.1 }, 'createTrainer has no option "lr" (its options: seed, layers, heads, dModel, context, batch, learningRate, scale)'],
        ['fast', 'createTrainer takes an options object such as { seed: 1 } (got "fast")'],
      ];
      for (const [options, message] of cases) assert.throws(() => attn.createTrainer(options), { message }, JSON.stringify(options));
      // The longest context trains past the step where distinct-letter sequences join the data.
      const longest = attn.createTrainer({ dModel: 8, context: 55, batch: 1 });
      assert.equal(longest.step(1600).step, 1600);
      longest.dispose();
      const t = attn.createTrainer({ dModel: 8, context: 9, batch: 2 });
      assert.throws(() => t.step(0), { message: 'k must be a whole number from 1 to 100000 (got 0)' });
      assert.throws(() => t.step('10'), { message: 'k must be a whole number (got "10")' });
      assert.throws(() => t.step(2 ** 32 + 1), { message: 'k must be a whole number from 1 to 100000 (got 4294967297)' });
      t.dispose();
    });

    it('training and disposing leave the heap flat', () => {
      const run = () => {
        const t = attn.createTrainer({ dModel: 8, context: 9, batch: 2 });
        t.step(2);
        const m = t.model();
        m.run('ab ab');
        m.dispose();
        t.dispose();
      };
      run();
      const start = attn.heapBytesInUse();
      for (let i = 0; i < 20; i++) run();
      assert.equal(attn.heapBytesInUse(), start);
    });
  });
}

it('the learned heads are a module of their own, loaded on first use; createTrainer before it says what to do', async () => {
  // A fresh instance (another base URL string for the same folder), which has not loaded it yet.
  const attn = await loadAttention({ baseUrl: './wasm/?fresh' });
  assert.throws(() => attn.createTrainer(), {
    message: "createTrainer needs the learned heads' module, which loads on first use: await attn.learnedModel() or attn.loadLearned() first",
  });
  await attn.loadLearned();
  assert.equal(attn.createTrainer({ dModel: 8, context: 9 }).step(1).step, 1);
});

it('a missing or broken checkpoint rejects with a clear Error, and a later call can succeed', async () => {
  const attn = await loadAttention();
  await assert.rejects(attn.learnedModel({ url: './no-such-checkpoint.bin' }), { message: /^attention-calc: could not load .*no-such-checkpoint\.bin: / });
  await assert.rejects(attn.learnedModel({ url: './attention.js' }), { message: /is not a usable checkpoint: the file is not a learned-heads checkpoint$/ });
  await assert.rejects(attn.learnedModel({ url: 42 }), { message: 'url must be a string or a URL (got 42)' });
});

// The in-browser trainer's worker (web/labs/learned-worker.js), run here with a stand-in for the
// worker's global scope. Its trainers are wrapped: the scaled one jumps to the last step (so it
// finishes at once), the unscaled one throws on its third step as a diverged run does.
it('the training worker frees a finished or failed model\'s trainer, and posts no runs of a failed model', async () => {
  const posted = [];
  const disposed = [];
  globalThis.self = { postMessage: (message) => posted.push(message) };
  const attn = await loadAttention();
  await attn.loadLearned();
  const { maxSteps } = attn.learnedGoals();
  const proto = Object.getPrototypeOf(attn);
  const createTrainer = proto.createTrainer;
  proto.createTrainer = function wrapped(options) {
    const real = createTrainer.call(this, options);
    let calls = 0;
    return {
      step(n) {
        calls += 1;
        if (options.scale === 'none' && calls === 3) throw new Error('the loss is not finite');
        const r = real.step(n);
        return options.scale === 'sqrt' && calls === 3 ? { ...r, step: maxSteps } : r;
      },
      model: () => real.model(),
      dispose() {
        disposed.push(options.scale);
        real.dispose();
      },
    };
  };
  try {
    await import('../../web/labs/learned-worker.js');
    const until = async (what) => {
      for (let k = 0; k < 500 && !what(); k++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(what(), JSON.stringify(posted.map((m) => [m.type, m.key])));
    };
    self.onmessage({ data: { type: 'start', seed: 1, models: [{ key: 'sqrt', scale: 'sqrt' }, { key: 'none', scale: 'none' }], text: 'abc abc' } });
    await until(() => posted.some((m) => m.type === 'done' && m.key === 'sqrt') && posted.some((m) => m.type === 'error' && m.key === 'none'));
    assert.deepEqual(disposed.sort(), ['none', 'sqrt'], 'both trainers went back to the heap');
    const before = posted.length;
    self.onmessage({ data: { type: 'text', text: 'ab ab' } });
    await until(() => posted.length > before);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(posted.slice(before).map((m) => [m.type, m.key]), [['run', 'sqrt']], 'the finished model shows new text; the failed one never again');
  } finally {
    proto.createTrainer = createTrainer;
    delete globalThis.self;
  }
});
