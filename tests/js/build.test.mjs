// Properties of the built modules: SIMD where promised, none in the fallback, and no eval.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';

const file = (name) => new URL(`../../web/wasm/${name}`, import.meta.url);
const disassemble = (name) => execFileSync('wasm-objdump', ['-d', file(name).pathname], { maxBuffer: 1 << 28 }).toString();

it('the SIMD module uses f32x4 instructions', () => {
  const f32x4 = disassemble('attention-simd.wasm').match(/\bf32x4\.\w+/g) ?? [];
  assert.ok(f32x4.length > 20, `only ${f32x4.length} f32x4 instructions`);
  assert.ok(f32x4.includes('f32x4.mul') && f32x4.includes('f32x4.add'));
});

it('the scalar module has no SIMD instruction at all', () => {
  const asm = disassemble('attention-scalar.wasm');
  assert.ok(asm.length > 10000, 'disassembly is suspiciously short');
  assert.deepEqual(asm.match(/\b(v128|[if](8|16|32|64)x\d+)\.\w+/g), null);
  // And a validator with SIMD disabled accepts it.
  execFileSync('wasm-validate', ['--disable-simd', file('attention-scalar.wasm').pathname]);
  assert.throws(() => execFileSync('wasm-validate', ['--disable-simd', file('attention-simd.wasm').pathname], { stdio: 'pipe' }));
});

it('the ES modules contain no eval or new Function (they run under a CSP without unsafe-eval)', () => {
  for (const name of ['attention-simd.mjs', 'attention-scalar.mjs']) {
    const js = readFileSync(file(name), 'utf8');
    assert.doesNotMatch(js, /\beval\(|new Function\(/, name);
    assert.match(js, /export default/, `${name} is an ES module`);
  }
});
