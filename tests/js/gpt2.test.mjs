// Issue 26: GPT-2 through attn.openGpt2, in both wasm builds, against the float64 PyTorch GPT-2 of
// tools/make_gpt2_fixtures.py (checked there against an independent NumPy forward): every head's
// weights within 1e-4, rows summing to 1, the role scores recomputed from the weights, the same
// top-5 ids with probabilities within 1e-3. Files are opened as a Blob (a File's byte stream), as bytes
// and by URL from a local server that counts the bytes it sends. Needs build-fixtures/gpt2
// (tools/build.sh fixtures; npm test makes it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, openAsBlob, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../../web/attention.js';
import { BUILDS } from './helpers.mjs';

const FIXTURES = fileURLToPath(new URL('../../build-fixtures/gpt2/', import.meta.url));
const ready = existsSync(`${FIXTURES}index.json`);
const index = ready ? JSON.parse(readFileSync(`${FIXTURES}index.json`, 'utf8')) : { checkpoints: [] };
const reference = (name) => JSON.parse(readFileSync(`${FIXTURES}${name}/reference.json`, 'utf8'));
const modelPath = (name) => `${FIXTURES}${name}/model.safetensors`;

// The learned heads' definitions (src/head_scores.hpp), recomputed here from the weights.
function roles(w, ids) {
  const n = ids.length;
  if (n < 2) return { previousToken: null, firstToken: null, induction: null };
  let prev = 0, first = 0, ind = 0, count = 0;
  for (let i = 1; i < n; i++) {
    prev += w[i][i - 1];
    first += w[i][0];
    for (let j = i - 1; j >= 0; j--) {
      if (ids[j] === ids[i]) {
        ind += w[i][j + 1];
        count++;
        break;
      }
    }
  }
  return { previousToken: prev / (n - 1), firstToken: first / (n - 1), induction: count ? ind / count : null };
}

function checkRun(run, want, label) {
  assert.deepEqual(run.ids, want.ids, `${label}: ids`);
  assert.equal(run.layers.length, want.attentions.length);
  let worst = 0;
  run.layers.forEach((layer, l) => layer.heads.forEach((head, h) => {
    const expected = want.attentions[l][h];
    head.weights.forEach((row, i) => {
      const sum = row.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `${label} layer ${l} head ${h} row ${i} sums to ${sum}`);
      row.forEach((x, j) => {
        if (j > i) assert.equal(x, 0, `${label}: causal zero at ${l}.${h} [${i}][${j}]`);
        worst = Math.max(worst, Math.abs(x - expected[i][j]));
      });
    });
    const r = roles(head.weights, run.ids);
    for (const key of ['previousToken', 'firstToken', 'induction']) {
      if (r[key] === null) assert.equal(head[key], null, `${label} ${l}.${h} ${key}`);
      else assert.ok(Math.abs(head[key] - r[key]) < 1e-6, `${label} ${l}.${h} ${key}: ${head[key]} against ${r[key]}`);
    }
  }));
  assert.ok(worst <= 1e-4, `${label}: attention weights differ by up to ${worst}`);
  assert.deepEqual(run.next.map((t) => t.id), want.next.map((t) => t.id), `${label}: top-5 ids`);
  run.next.forEach((t, i) => assert.ok(Math.abs(t.probability - want.next[i].probability) <= 1e-3, `${label}: p(${t.id}) ${t.probability} against ${want.next[i].probability}`));
  assert.ok(run.next.every((t) => typeof t.token === 'string' && t.token.length > 0));
  return worst;
}

// A local server for model files that counts what it sends; `ranges: false` ignores Range.
// The first bytes of a safetensors file holding gpt2-xl's shapes in F32 (6.2 GB), and its length:
// enough for a server to claim the whole file without having it.
function gpt2XlStart() {
  const d = 1600, vocab = 50257, context = 1024, layers = 48;
  const shapes = [['wte.weight', [vocab, d]], ['wpe.weight', [context, d]], ['ln_f.weight', [d]], ['ln_f.bias', [d]]];
  for (let l = 0; l < layers; l++) {
    shapes.push([`h.${l}.ln_1.weight`, [d]], [`h.${l}.ln_1.bias`, [d]], [`h.${l}.attn.c_attn.weight`, [d, 3 * d]], [`h.${l}.attn.c_attn.bias`, [3 * d]],
      [`h.${l}.attn.c_proj.weight`, [d, d]], [`h.${l}.attn.c_proj.bias`, [d]], [`h.${l}.ln_2.weight`, [d]], [`h.${l}.ln_2.bias`, [d]],
      [`h.${l}.mlp.c_fc.weight`, [d, 4 * d]], [`h.${l}.mlp.c_fc.bias`, [4 * d]], [`h.${l}.mlp.c_proj.weight`, [4 * d, d]], [`h.${l}.mlp.c_proj.bias`, [d]]);
  }
  const header = {};
  let at = 0;
  for (const [name, shape] of shapes) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return { start: Buffer.concat([length, json]), size: 8 + json.length + at };
}

function fileServer() {
  const log = [];
  const state = { ranges: true, fail: null };
  const xl = gpt2XlStart();
  const server = createServer((req, res) => {
    if (req.url === '/gpt2-xl/model.safetensors') {
      // Only what a reader of the header may ask for exists; any later range is logged and refused.
      const [, b, e] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '') ?? [];
      log.push([Number(b), Number(e) + 1]);
      if (b === undefined || Number(b) >= xl.start.length) {
        res.writeHead(416).end();
        return;
      }
      const end = Math.min(Number(e), xl.start.length - 1);
      res.writeHead(206, { 'Content-Range': `bytes ${b}-${end}/${xl.size}`, 'Content-Length': end + 1 - Number(b) });
      res.end(xl.start.subarray(Number(b), end + 1));
      return;
    }
    let bytes;
    try {
      bytes = readFileSync(fileURLToPath(new URL(`../../build-fixtures/gpt2/${decodeURIComponent(req.url.slice(1))}`, import.meta.url)));
    } catch {
      res.writeHead(404, 'Not Found').end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (state.fail && m && Number(m[1]) >= state.fail) {
      res.writeHead(503, 'Service Unavailable').end();
      return;
    }
    if (state.ranges && m) {
      const begin = Number(m[1]), end = Math.min(Number(m[2]), bytes.length - 1);
      log.push([begin, end + 1]);
      res.writeHead(206, { 'Content-Range': `bytes ${begin}-${end}/${bytes.length}`, 'Content-Length': end + 1 - begin });
      res.end(bytes.subarray(begin, end + 1));
    } else if (state.chunked) {
      // No Content-Length: the body in pieces, as a server that streams (tools/serve.mjs) sends it.
      log.push([0, bytes.length]);
      res.writeHead(200);
      for (let at = 0; at < bytes.length; at += 1 << 20) res.write(bytes.subarray(at, at + (1 << 20)));
      res.end();
    } else {
      log.push([0, bytes.length]);
      res.writeHead(200, { 'Content-Length': bytes.length }).end(bytes);
    }
  });
  return { server, log, state };
}

describe('GPT-2 through attn.openGpt2', { skip: !ready && 'build-fixtures/gpt2 is not made (tools/build.sh fixtures)' }, () => {
  for (const build of BUILDS) {
    describe(`${build.name} build`, () => {
      let attn;
      before(async () => { attn = await loadAttention({ simd: build.simd }); });

      for (const checkpoint of index.checkpoints) {
        it(`${checkpoint.name}: config, every head within 1e-4, top-5 within 1e-3, roles from the weights`, async () => {
          const ref = reference(checkpoint.name);
          // Blob slices for the F32 files, bytes for the others.
          const source = checkpoint.name.endsWith('f32') ? await openAsBlob(modelPath(checkpoint.name)) : readFileSync(modelPath(checkpoint.name));
          const progress = [];
          const model = await attn.openGpt2(source, { heads: ref.headsOption ?? undefined, onProgress: (loaded, total) => progress.push([loaded, total]) });
          try {
            assert.deepEqual({ ...model.config }, ref.config);
            const total = ref.file.readBytes;
            assert.deepEqual(progress.at(0), [0, total]);
            assert.deepEqual(progress.at(-1), [total, total]);
            assert.ok(progress.every(([l], i) => i === 0 || l >= progress[i - 1][0]), 'progress only rises');
            for (const c of ref.cases) {
              if (c.text === null) continue; // ids the tokenizer cannot make
              const text = c.text;
              const tokenized = model.tokenize(text);
              assert.deepEqual(tokenized.ids, c.endOfTextFirst ? c.ids.slice(1) : c.ids, `${c.name}: tokenize`);
              const run = model.run(text, { endOfTextFirst: c.endOfTextFirst });
              assert.equal(run.tokens.length, run.ids.length);
              if (c.endOfTextFirst) assert.equal(run.tokens[0], '<|endoftext|>');
              checkRun(run, c, `${checkpoint.name} ${c.name}`);
            }
          } finally {
            model.dispose();
          }
        });
      }

      it('layers names the layers whose weights come back; the rest are heads: []', async () => {
        const ref = reference('d64-f32');
        const model = await attn.openGpt2(readFileSync(modelPath('d64-f32')), { config: { n_head: 4 } });
        const c = ref.cases.find((x) => x.text && !x.endOfTextFirst);
        const run = model.run(c.text, { layers: [2, 0, 2] });
        assert.deepEqual(run.layers.map((l) => l.heads.length), [4, 0, 4]);
        assert.deepEqual(run.next, model.run(c.text).next, 'the next tokens do not depend on what is kept');
        for (const [options, message] of [
          [{ layers: [3] }, /layers holds 3: GPT-2's layers here are numbered 0 to 2/],
          [{ layers: 'all' }, /layers must be an array/],
          [{ endOfTextFirst: 'yes' }, /endOfTextFirst must be true or false/],
        ]) assert.throws(() => model.run(c.text, options), { message });
        assert.throws(() => model.run('   '), { message: /the text is empty/ });
        assert.throws(() => model.run('word '.repeat(70)), { message: /the text is \d+ tokens long, more than this model's context of 64 tokens/ });
        assert.throws(() => model.run(42), { message: /text must be a string/ });
        model.dispose();
        assert.throws(() => model.run(c.text), { message: /this GPT-2 model was disposed/ });
        model.dispose(); // twice is harmless
      });

      it('each head\'s weights are rows made from its matrix (n×n Float32Array) when first read, and read as rows everywhere', async () => {
        const ref = reference('d64-f32');
        const model = await attn.openGpt2(readFileSync(modelPath('d64-f32')), { config: { n_head: 4 } });
        const c = ref.cases.find((x) => x.text && !x.endOfTextFirst);
        const run = model.run(c.text, { layers: [1] });
        const n = run.ids.length;
        const head = run.layers[1].heads[2];
        assert.ok(head.matrix instanceof Float32Array && head.matrix.length === n * n);
        // No head's rows are made before its weights are read, and reading one head's makes no other's.
        const made = (h) => Object.getOwnPropertyDescriptor(h, 'weights').get === undefined;
        assert.deepStrictEqual(run.layers[1].heads.map(made), [false, false, false, false]);
        assert.ok(Array.isArray(head.weights) && head.weights.length === n);
        assert.deepStrictEqual(run.layers[1].heads.map(made), [false, false, true, false]);
        const asRows = Array.from({ length: n }, (_, i) => Array.from(head.matrix.subarray(i * n, (i + 1) * n)));
        assert.deepStrictEqual(head.weights, asRows);
        assert.deepStrictEqual(JSON.parse(JSON.stringify(run.layers[1].heads[2].weights)), asRows);
        assert.deepStrictEqual(structuredClone(run.layers[1].heads[0]).weights, Array.from({ length: n }, (_, i) => Array.from(run.layers[1].heads[0].matrix.subarray(i * n, (i + 1) * n))));
        assert.deepStrictEqual([...head.weights].map((row) => row.length), Array(n).fill(n));
        // A row is one array once read: changed in place or replaced, it stays as the caller left it.
        assert.equal(head.weights[n - 1], head.weights[n - 1]);
        head.weights[n - 1][0] = 42;
        assert.equal(head.weights[n - 1][0], 42);
        head.weights[0] = ['mine'];
        assert.deepStrictEqual(head.weights[0], ['mine']);
        assert.equal(head.matrix[0], asRows[0][0], 'the matrix is not the rows: changing a row leaves it');
        model.dispose();
      });

      it('onRead gives the header and the tensors read, at their offsets: written there, they open as the same model', async () => {
        const file = readFileSync(modelPath('d64-f32'));
        const copy = new Uint8Array(file.length);
        let read = 0;
        const sizes = new Set();
        const model = await attn.openGpt2(await openAsBlob(modelPath('d64-f32')), {
          heads: 4,
          onRead: (offset, bytes, fileSize) => { copy.set(bytes, offset); read += bytes.length; sizes.add(fileSize); },
        });
        assert.deepEqual([...sizes], [file.length]);
        const headerEnd = 8 + Number(file.readBigUInt64LE(0));
        assert.deepEqual(copy.subarray(0, headerEnd), new Uint8Array(file.subarray(0, headerEnd)), 'the header, with its length, comes first');
        // Only what the model needs is read: the attn.bias buffers are left out.
        assert.ok(read < file.length, `${read} of ${file.length} bytes read`);
        const reopened = await attn.openGpt2(copy, { heads: 4 });
        const text = reference('d64-f32').cases.find((x) => x.text).text;
        assert.deepEqual(reopened.run(text), model.run(text));
        await assert.rejects(attn.openGpt2(file, { onRead: 'keep' }), { message: /onRead must be a function/ });
        model.dispose();
        reopened.dispose();
      });

      it('a Blob is read through its byte stream, in slices where it has none, and a read that fails is said', async () => {
        const path = modelPath('d64-f32');
        const blob = await openAsBlob(path);
        const text = reference('d64-f32').cases.find((x) => x.text).text;
        const streamed = await attn.openGpt2(blob, { heads: 4 });
        // The pieces come through one buffer: each piece's memory is handed back to the reader for
        // the next (its ArrayBuffer then detached), so reading asks for no new memory.
        const pieces = [];
        (await attn.openGpt2(blob, { heads: 4, onRead: (offset, bytes) => { if (offset > 0) pieces.push(bytes); } })).dispose();
        assert.ok(pieces.length > 1, `${pieces.length} pieces`);
        assert.deepEqual(pieces.slice(0, -1).filter((piece) => piece.buffer.byteLength > 0), [], 'every piece but the last was handed back');
        // A Blob whose stream has no bytes reader ("byob"), as in engines without one: read in slices.
        class PlainStreamBlob extends Blob {
          stream() {
            const reader = super.stream().getReader();
            return new ReadableStream({ async pull(controller) { const { done, value } = await reader.read(); if (done) controller.close(); else controller.enqueue(value); } });
          }
        }
        const bytes = readFileSync(path);
        const sliced = await attn.openGpt2(new PlainStreamBlob([bytes]), { heads: 4 });
        assert.deepEqual(sliced.run(text), streamed.run(text));
        // A stream that fails midway (a file changed or gone on disk) is said, with the engine's words.
        class FailingBlob extends Blob {
          slice(...args) { const part = super.slice(...args); return part.size > 1000 ? new FailingBlob([part]) : part; }
          stream() {
            let sent = 0;
            return new ReadableStream({ type: 'bytes', pull: (controller) => {
              if (sent > 0) { controller.error(new DOMException('The requested file could not be read.', 'NotReadableError')); return; }
              const view = controller.byobRequest.view;
              sent = Math.min(view.length, Math.ceil(this.size / 2));
              view.fill(0, 0, sent);
              controller.byobRequest.respond(sent);
            } });
          }
        }
        await assert.rejects(attn.openGpt2(new FailingBlob([bytes]), { heads: 4 }),
          { message: /^the file changed or could not be read: \d+ bytes asked for at byte \d+, \d+ read \(The requested file could not be read\.\)$/ });
        streamed.dispose();
        sliced.dispose();
      });

      it('bad files are refused in plain words, and an open model keeps working', async () => {
        const good = readFileSync(modelPath('tiny-f32'));
        const model = await attn.openGpt2(good, { heads: 2 });
        const text = reference('tiny-f32').cases[0].text;
        const before = model.run(text).next;
        const headerLength = Number(good.readBigUInt64LE(0));
        const header = JSON.parse(good.subarray(8, 8 + headerLength).toString('utf8'));
        const withHeader = (edit) => {
          const h = structuredClone(header);
          edit(h);
          const json = Buffer.from(JSON.stringify(h));
          const length = Buffer.alloc(8);
          length.writeBigUInt64LE(BigInt(json.length));
          return new Uint8Array(Buffer.concat([length, json, good.subarray(8 + headerLength)]));
        };
        const nanWeights = new Uint8Array(good);
        const wte = header['wte.weight'].data_offsets[0] + 8 + headerLength;
        new DataView(nanWeights.buffer).setFloat32(wte + 12, NaN, true);
        const bert = withHeader((h) => {
          for (const key of Object.keys(h)) if (key !== '__metadata__') { h[`bert.encoder.${key}`] = h[key]; delete h[key]; }
        });
        const cases = [
          ['an empty file', new Uint8Array(0), /not a safetensors file: it is 0 bytes long/],
          ['a header length past the end', (() => { const b = new Uint8Array(good.subarray(0, 64)); new DataView(b.buffer).setBigUint64(0, 1000n, true); return b; })(), /cut short|past|ends/],
          ['a header that is not JSON', withHeader(() => {}).map((x, i) => (i === 8 ? 0x78 : x)), /not JSON|JSON/],
          ['a truncated file', good.subarray(0, good.length - 100), /cut short|ends at byte/],
          ['overlapping offsets', withHeader((h) => { const [b] = h['wte.weight'].data_offsets, [pb, pe] = h['wpe.weight'].data_offsets; h['wpe.weight'].data_offsets = [b + 4, b + 4 + pe - pb]; }), /overlap/],
          ['a shape that disagrees with its bytes', withHeader((h) => { h['ln_f.weight'].shape = [31]; }), /ln_f\.weight/],
          ['an unknown dtype', withHeader((h) => { h['ln_f.bias'].dtype = 'I64'; }), /I64/],
          ['BERT\'s keys', bert, /GPT-2/],
          ['a NaN weight', nanWeights, /wte\.weight/],
        ];
        for (const [label, bytes, message] of cases) {
          await assert.rejects(attn.openGpt2(bytes, { heads: 2 }), (error) => {
            assert.ok(error instanceof Error, label);
            assert.match(error.message, message, `${label}: ${error.message}`);
            assert.doesNotMatch(error.message, /RuntimeError|Aborted|SyntaxError|JSON\.parse|undefined|NaN bytes|std::/, `${label}: ${error.message}`);
            return true;
          }, label);
        }
        assert.deepEqual(model.run(text).next, before, 'the open model still runs');
        for (const [source, message] of [[42, /source must be a File or Blob/], [{}, /source must be/]]) {
          await assert.rejects(attn.openGpt2(source), { message });
        }
        await assert.rejects(attn.openGpt2(good, { heads: 3 }), { message: /head/ });
        // The form is JS's to check, the number of heads the core's; both name the option as given.
        await assert.rejects(attn.openGpt2(good, { heads: 1.5 }), { message: 'heads must be a whole number of heads (got 1.5)' });
        await assert.rejects(attn.openGpt2(good, { heads: 4097 }), { message: 'heads must be a whole number of heads from 1 to 4096 (got 4097)' });
        await assert.rejects(attn.openGpt2(good, { config: { n_head: 2 ** 40 } }), { message: 'config.n_head must be a whole number of heads from 1 to 4096 (got 1099511627776)' });
        await assert.rejects(attn.openGpt2(good, { onProgress: 1 }), { message: /onProgress must be a function/ });
        model.dispose();
      });
    });
  }

  // GPT-2 small's real shapes, with random weights (tools/make_gpt2_fixtures.py --small-shaped,
  // 548 MB, made here once and never committed), opened once in the SIMD build.
  it('a GPT-2-small-shaped file: the real shapes, and a heap within 1.15× the weights while it opens', { timeout: 240_000 }, async () => {
    const dir = fileURLToPath(new URL('../../build-fixtures/gpt2-small-shaped/', import.meta.url));
    const path = `${dir}model.safetensors`;
    if (!existsSync(path)) {
      // Debian's interpreter, with its torch and numpy (another python3 may come first on PATH).
      execFileSync('/usr/bin/python3', [fileURLToPath(new URL('../../tools/make_gpt2_fixtures.py', import.meta.url)), '--small-shaped', path, '--no-reference'], { stdio: 'inherit' });
    }
    const attn = await loadAttention({ simd: true });
    let last = null;
    const model = await attn.openGpt2(await openAsBlob(path), { onProgress: (loaded, total) => { last = [loaded, total]; } });
    try {
      assert.deepEqual({ ...model.config }, { layers: 12, heads: 12, dModel: 768, context: 1024, vocabSize: 50257, dtype: 'F32', parameters: 124_439_808 });
      const weightBytes = model.config.parameters * 4;
      assert.equal(last[0], last[1]);
      assert.ok(last[1] === weightBytes, `read ${last[1]} bytes of tensors, the weights are ${weightBytes}`);
      const peak = model.memoryBytes / weightBytes;
      console.log(`GPT-2 small's shape: the wasm heap is ${(model.memoryBytes / 1e6).toFixed(1)} MB for ${(weightBytes / 1e6).toFixed(1)} MB of weights (${peak.toFixed(3)}×)`);
      assert.ok(peak <= 1.15, `the heap peaked at ${peak.toFixed(3)}× the weights`);
      const run = model.run('The cat sat on the mat because it was tired', { layers: [5] });
      assert.deepEqual(run.ids, [464, 3797, 3332, 319, 262, 2603, 780, 340, 373, 10032]);
      assert.equal(run.layers[5].heads.length, 12);
      assert.ok(run.layers[5].heads.every((h) => h.weights.length === 10 && h.weights.every((row) => Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5)));
      assert.equal(run.next.length, 5);
      assert.ok(model.memoryBytes / weightBytes <= 1.15, 'a 10-token run stays within the bound too');
      // Every layer's weights at 400 tokens would be 23 million numbers: refused, in words; one
      // layer's are returned.
      const long = ' the'.repeat(400);
      assert.throws(() => model.run(long), { message: /12 layers of 12 heads at 400 tokens would return 23,040,000 attention weights, more than the 16,777,216 one run returns/ });
      assert.equal(model.run(long, { layers: [0] }).layers[0].heads[0].weights.length, 400);
    } finally {
      model.dispose();
    }
  });

  describe('by URL, from a server that counts the bytes it sends', () => {
    let attn, served, base;
    before(async () => {
      attn = await loadAttention();
      served = fileServer();
      await new Promise((resolve) => served.server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${served.server.address().port}/`;
    });
    after(() => served.server.close());

    // The [begin, end) of every tensor in the file, absolute.
    const tensorsOf = (name) => {
      const bytes = readFileSync(modelPath(name));
      const length = Number(bytes.readBigUInt64LE(0));
      const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8'));
      return Object.entries(header).filter(([k]) => k !== '__metadata__').map(([k, t]) => [k, 8 + length + t.data_offsets[0], 8 + length + t.data_offsets[1]]);
    };
    const overlaps = ([b, e], [, tb, te]) => Math.min(e, te) > Math.max(b, tb);

    it('reads the header, then only the tensors GPT-2 needs: no buffer, no tied lm_head', async () => {
      const name = 'prefixed-f16';
      const ref = reference(name);
      served.log.length = 0;
      const progress = [];
      const model = await attn.openGpt2(`${base}${name}/model.safetensors`, { heads: ref.headsOption ?? undefined, onProgress: (l, t) => progress.push([l, t]) });
      const skipped = tensorsOf(name).filter(([k]) => ref.file.skipped.includes(k));
      assert.ok(skipped.length > 0 && skipped.some(([k]) => k.includes('lm_head')) && skipped.some(([k]) => k.endsWith('attn.bias')));
      for (const range of served.log.slice(1)) {
        const hit = skipped.find((t) => overlaps(range, t));
        assert.equal(hit, undefined, `bytes ${range} include ${hit?.[0]}`);
      }
      const fetched = served.log.reduce((sum, [b, e]) => sum + e - b, 0);
      assert.ok(fetched < ref.file.bytes - ref.file.skippedBytes + 70_000, `${fetched} bytes fetched of ${ref.file.bytes}`);
      assert.deepEqual(progress.at(-1), [ref.file.readBytes, ref.file.readBytes]);
      checkRun(model.run(ref.cases[0].text, { endOfTextFirst: ref.cases[0].endOfTextFirst }), ref.cases[0], `${name} by URL`);
      model.dispose();
    });

    it('a model too large for the tab is refused, in words, before any tensor is fetched', async () => {
      served.log.length = 0;
      await assert.rejects(attn.openGpt2(`${base}gpt2-xl/model.safetensors`), (error) => {
        assert.match(error.message, /6\.\d+ GB/);
        assert.match(error.message, /3\.5 GB of WebAssembly memory a browser tab can give a model/);
        return true;
      });
      const header = gpt2XlStart().start.length;
      assert.ok(served.log.every(([b]) => b < header), `only the header was asked for: ${JSON.stringify(served.log)}`);
    });

    it('a server that ignores Range: one whole download, with progress', async () => {
      served.state.ranges = false;
      served.log.length = 0;
      try {
        const progress = [];
        const ref = reference('d64-f32');
        const model = await attn.openGpt2(new URL(`${base}d64-f32/model.safetensors`), { heads: 4, onProgress: (l, t) => progress.push([l, t]) });
        assert.equal(served.log.length, 1);
        assert.ok(progress.length > 2 && progress.at(-1)[0] === ref.file.readBytes);
        checkRun(model.run(ref.cases[0].text, { endOfTextFirst: ref.cases[0].endOfTextFirst }), ref.cases[0], 'no Range');
        model.dispose();
      } finally {
        served.state.ranges = true;
      }
    });

    it('a server that ignores Range and sends no Content-Length: the file ends where its header says', async () => {
      Object.assign(served.state, { ranges: false, chunked: true });
      try {
        const ref = reference('d64-f32');
        const model = await attn.openGpt2(`${base}d64-f32/model.safetensors`, { heads: 4 });
        checkRun(model.run(ref.cases[0].text, { endOfTextFirst: ref.cases[0].endOfTextFirst }), ref.cases[0], 'chunked');
        model.dispose();
      } finally {
        Object.assign(served.state, { ranges: true, chunked: false });
      }
    });

    it('abort stops the read; a failed request is named', async () => {
      const controller = new AbortController();
      served.log.length = 0;
      const reading = attn.openGpt2(`${base}d64-f32/model.safetensors`, {
        heads: 4, signal: controller.signal,
        onProgress: (loaded) => { if (loaded > 1_000_000) controller.abort(); },
      });
      await assert.rejects(reading, { name: 'AbortError' });
      const fetched = served.log.reduce((sum, [b, e]) => sum + e - b, 0);
      assert.ok(fetched < reference('d64-f32').file.bytes, `${fetched} bytes fetched before the abort`);

      await assert.rejects(attn.openGpt2(`${base}missing/model.safetensors`), (error) => /could not read http:.*missing\/model\.safetensors: the request for bytes 0–65535 answered HTTP 404/.test(error.message) || assert.fail(error.message));
      served.state.fail = 1000;
      try {
        await assert.rejects(attn.openGpt2(`${base}d64-f32/model.safetensors`, { heads: 4 }), { message: /could not read .*: the request for bytes \d+–\d+ answered HTTP 503 Service Unavailable/ });
      } finally {
        served.state.fail = null;
      }
    });
  });
});
