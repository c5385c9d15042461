#!/usr/bin/env node
// Renumbers relaxed SIMD's fused multiply-add from the prototype's opcode to the final one.
//
// Emscripten 3.1.6's LLVM 14 emits `f32x4.relaxed_fma` (from __builtin_wasm_fma_f32x4) as
// 0xfd 0xaf, the relaxed-SIMD proposal's opcode of its day. The proposal later renumbered it to
// 0xfd 0x105 (`f32x4.relaxed_madd`), which is what engines run today; both computations are
// a * b + c with the operands in the same order. Both LEB128 encodings take two bytes, so the
// rewrite is in place. The walk decodes every instruction's immediates, so no constant's bytes are
// mistaken for an opcode, and it refuses any other prototype relaxed opcode rather than pass on a
// module no engine would read the same way.
//
// The relaxed build runs with the SIMD build's Emscripten glue (web/api/modules.js): given both
// glue files, this checks that they differ in nothing but the .wasm's name, and fails otherwise.
//
// Usage: node tools/relaxed-opcodes.mjs <module.wasm> [<its glue.mjs> <the SIMD build's glue.mjs>]
//   (rewrites the .wasm; prints the count)
import fs from 'node:fs';

const PROTOTYPE_FMA_F32X4 = 0xaf;
const FINAL_MADD_F32X4 = 0x105;
// LLVM 14's other relaxed-SIMD opcodes, which this build must not emit (see kernels/simd.hpp).
const PROTOTYPE_OTHERS = new Set([0xa2, 0xa5, 0xa6, 0xb0, 0xb2, 0xb3, 0xb4, 0xc5, 0xc6, 0xcf,
  0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);
const VALTYPES = new Set([0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f]);

class Reader {
  constructor(bytes, pos = 0) { this.bytes = bytes; this.pos = pos; }
  byte() {
    if (this.pos >= this.bytes.length) throw new Error('relaxed-opcodes: the module ends early');
    return this.bytes[this.pos++];
  }
  u32() {
    let result = 0, shift = 0, b;
    do { b = this.byte(); result += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return result;
  }
  skipLeb() { while (this.byte() & 0x80); }
  skip(n) { this.pos += n; }
}

function memarg(r) { r.u32(); r.u32(); }

// Skips one instruction's immediates; returns the SIMD sub-opcode's position for 0xfd.
function instruction(r, rewrites) {
  const op = r.byte();
  switch (op) {
    case 0x02: case 0x03: case 0x04: case 0x06: // block, loop, if, try: a block type
      if (!VALTYPES.has(r.bytes[r.pos])) r.skipLeb(); else r.skip(1);
      return;
    case 0x07: case 0x08: case 0x09: case 0x18: case 0x0c: case 0x0d: case 0x10: case 0x12:
    case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: case 0xd2:
      r.u32();
      return;
    case 0x0e: { const n = r.u32(); for (let i = 0; i <= n; ++i) r.u32(); return; }
    case 0x11: case 0x13: r.u32(); r.u32(); return;
    case 0x1c: { const n = r.u32(); r.skip(n); return; }
    case 0x3f: case 0x40: case 0xd0: r.skip(1); return;
    case 0x41: case 0x42: r.skipLeb(); return;
    case 0x43: r.skip(4); return;
    case 0x44: r.skip(8); return;
    case 0xfc: {
      const sub = r.u32();
      if (sub === 8) { r.u32(); r.skip(1); } else if (sub === 10) r.skip(2);
      else if (sub === 11) r.skip(1);
      else if (sub === 12 || sub === 14) { r.u32(); r.u32(); } else if (sub >= 9 && sub <= 17) r.u32();
      return;
    }
    case 0xfd: {
      const at = r.pos;
      const sub = r.u32();
      if (sub <= 11 || sub === 92 || sub === 93) memarg(r);
      else if (sub === 12 || sub === 13) r.skip(16);
      else if (sub >= 21 && sub <= 34) r.skip(1);
      else if (sub >= 84 && sub <= 91) { memarg(r); r.skip(1); } else if (sub === PROTOTYPE_FMA_F32X4) {
        if (r.pos - at !== 2) throw new Error('relaxed-opcodes: an fma opcode not in two bytes');
        rewrites.push(at);
      } else if (PROTOTYPE_OTHERS.has(sub)) {
        throw new Error(`relaxed-opcodes: prototype relaxed opcode 0x${sub.toString(16)} has no rewrite`);
      }
      return;
    }
    case 0xfe: { const sub = r.u32(); if (sub === 3) r.skip(1); else memarg(r); return; }
    default:
      if (op >= 0x28 && op <= 0x3e) memarg(r);
      else if (op > 0xd2 && op !== 0xfc) throw new Error(`relaxed-opcodes: unknown opcode 0x${op.toString(16)}`);
  }
}

export function renumberRelaxed(bytes) {
  const r = new Reader(bytes, 8);
  const rewrites = [];
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 10) {
      const count = r.u32();
      for (let f = 0; f < count; ++f) {
        const bodySize = r.u32();
        const bodyEnd = r.pos + bodySize;
        const groups = r.u32();
        for (let g = 0; g < groups; ++g) { r.u32(); r.skip(1); }
        while (r.pos < bodyEnd) instruction(r, rewrites);
        if (r.pos !== bodyEnd) throw new Error('relaxed-opcodes: a function body overruns its size');
      }
    }
    r.pos = end;
  }
  for (const at of rewrites) {
    bytes[at] = 0x80 | (FINAL_MADD_F32X4 & 0x7f);
    bytes[at + 1] = FINAL_MADD_F32X4 >> 7;
  }
  return rewrites.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  const bytes = fs.readFileSync(file);
  const count = renumberRelaxed(bytes);
  fs.writeFileSync(file, bytes);
  console.log(`relaxed-opcodes: ${file}: ${count} f32x4.relaxed_madd`);
  const [glue, simdGlue] = process.argv.slice(3);
  if (glue) {
    const name = (path) => path.split('/').pop().replace(/\.mjs$/, '.wasm');
    const own = fs.readFileSync(glue, 'utf8').replaceAll(name(glue), name(simdGlue));
    if (own !== fs.readFileSync(simdGlue, 'utf8')) {
      console.error(`relaxed-opcodes: ${glue} differs from ${simdGlue} in more than the .wasm's name, so the relaxed build cannot share the SIMD build's glue`);
      process.exitCode = 1;
    }
  }
}
