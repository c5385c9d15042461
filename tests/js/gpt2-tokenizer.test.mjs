// The C++ GPT-2 tokenizer (src/gpt2/tokenizer.cpp) against gpt-3-encoder's encode(), which issue 26
// makes the reference: on the lesson's sentence and named cases, on 10,000 fast-check strings
// (full Unicode, lone surrogates, word-like ASCII with runs of whitespace, and mixtures), and on
// bytes that are not UTF-8 (against encode() of what TextDecoder makes of them). The C++ runs
// natively, as build-native/gpt2_tokenize, spawned once per batch (tools/build.sh native builds it).
// The seed is fixed and printed (FC_SEED=… overrides it, FC_RUNS=… the number of strings).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import gpt3Encoder from 'gpt-3-encoder';

const SEED = Number(process.env.FC_SEED ?? 20261201);
const RUNS = Number(process.env.FC_RUNS ?? 10000);
const TOOL = new URL('../../build-native/gpt2_tokenize', import.meta.url).pathname;

// One line per input: a JSON string, or 'x' and the bytes in hex; one line of ids (or an error) per input.
function tokenizeInCpp(lines) {
  assert.ok(existsSync(TOOL), `${TOOL} is missing: run tools/build.sh native`);
  const run = spawnSync(TOOL, [], { input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(run.status, 0, `gpt2_tokenize failed: ${run.stderr}`);
  const out = run.stdout.split('\n');
  assert.equal(out.pop(), '');
  assert.equal(out.length, lines.length);
  return out.map((line) => JSON.parse(line));
}

function assertSameAsPackage(texts, label) {
  const ours = tokenizeInCpp(texts.map((text) => JSON.stringify(text)));
  texts.forEach((text, i) => {
    assert.deepEqual(ours[i], gpt3Encoder.encode(text), `${label} ${i}: ${JSON.stringify(text)} (FC_SEED=${SEED})`);
  });
}

const NAMED = [
  'The cat sat on the mat because it was tired',
  "I'm sure they'll say it's what we've done, isn't it? You'd RE'S 'S 'll've",
  " '' 's ''s x's",
  'a  b   c\n\nd\n \n  \t x  ', '   ', '\n', '\r\n\r\n', ' \t\u00a0\u3000 end', 'trailing \n',
  'Pi is 3.14159, 1,000,000 and ²½ ٣ ⅧⅫ', '２０２６年',
  'café naïve Zürich déjà vu, Ångström, ΑΒΓ, привет', 'e\u0301 combining',
  '机器学习很有趣。東京 한국어 ไทย',
  'I ❤️ 🐈‍⬛ 🇫🇷! 👩‍👩‍👧‍👦', '<|endoftext|>', 'a<|endoftext|>b', '',
  'a \u0085b', 'a \ufeffb', 'x\u001c\u001dy', 'lone \ud800 and \udfff surrogates \ud83d',
  '"," ",\'\' ],[ "],"',
  'x'.repeat(500), '!'.repeat(300), ' '.repeat(200) + 'word',
];

describe('GPT-2 tokenizer against gpt-3-encoder', () => {
  it("gives the package's ids on the lesson's sentence and the named cases", () => {
    assert.deepEqual(gpt3Encoder.encode(NAMED[0]), [464, 3797, 3332, 319, 262, 2603, 780, 340, 373, 10032]);
    assertSameAsPackage(NAMED, 'named case');
  });

  it(`gives the package's ids on ${RUNS} fast-check strings (seed ${SEED})`, () => {
    const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
    const word = fc.constantFrom('the', 'cat', "'s", "'ll", "n't", 'RE', '42', '3.5', ',', '!!', '...', '"', "'", 'é', '日本', '🙂');
    const space = fc.constantFrom(' ', '  ', '\n', '\n\n', '\t', ' \n ', '\u00a0', '\u3000', '\r\n');
    const wordLike = fc.array(fc.oneof(word, space, fc.string({ unit: 'grapheme-ascii', maxLength: 6 })), { maxLength: 30 })
      .map((parts) => parts.join(''));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),            // any code point
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), loneSurrogate), maxLength: 20 }),
      fc.string({ unit: 'binary-ascii', maxLength: 60 }),
      wordLike,
      fc.array(fc.oneof(wordLike, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 4 }).map((p) => p.join('')),
    );
    assertSameAsPackage(fc.sample(text, { seed: SEED, numRuns: RUNS }), 'fast-check string');
  });

  it('reads bytes that are not UTF-8 as TextDecoder does, then gives the package\'s ids', () => {
    const bytes = fc.sample(fc.uint8Array({ maxLength: 40 }), { seed: SEED, numRuns: 1000 });
    bytes.push(Uint8Array.of(0xff), Uint8Array.of(0xe2, 0x82), Uint8Array.of(0xed, 0xa0, 0x80), Uint8Array.of(0x20, 0xf0, 0x9f, 0x98, 0x41));
    const ours = tokenizeInCpp(bytes.map((b) => 'x' + Buffer.from(b).toString('hex')));
    const decoder = new TextDecoder();
    bytes.forEach((b, i) => {
      assert.deepEqual(ours[i], gpt3Encoder.encode(decoder.decode(b)), `bytes ${Buffer.from(b).toString('hex')} (FC_SEED=${SEED})`);
    });
  });
});
