// Properties of the build: the built modules (SIMD where promised, none in the fallback, no
// eval); the CMake options of a user's plain build and of the project's own (tools/build.sh),
// which configures on every run so that a changed option takes effect; the bootstrap's pinned,
// checksummed xsimd and xtl.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { wasmRelaxedSimdSupported } from '../../web/attention.js';

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

const MODULES = ['attention', 'calculator', 'learned', 'gpt2', 'next-labs'];

it('each relaxed-SIMD module multiplies and adds with f32x4.relaxed_madd, and validates only where relaxed SIMD does', () => {
  for (const name of MODULES) {
    const relaxed = disassemble(`${name}-relaxed.wasm`);
    const madd = relaxed.match(/\bf32x4\.relaxed_madd\b/g)?.length ?? 0;
    assert.ok(madd >= 50, `${name}-relaxed.wasm: only ${madd} f32x4.relaxed_madd`);
    // relaxed_madd is the one relaxed instruction (tools/relaxed-opcodes.mjs refuses the others).
    assert.deepEqual([...new Set(relaxed.match(/\b[if]\d+x\d+\.relaxed_\w+/g))], ['f32x4.relaxed_madd'], name);
    assert.equal(disassemble(`${name}-simd.wasm`).match(/\brelaxed_\w+/g), null, `${name}-simd.wasm has no relaxed instruction`);
    const path = file(`${name}-relaxed.wasm`).pathname;
    execFileSync('wasm-validate', ['--enable-exceptions', '--enable-relaxed-simd', path]);
    assert.throws(() => execFileSync('wasm-validate', ['--enable-exceptions', path], { stdio: 'pipe' }), name);
    // It runs with the SIMD build's glue (api/modules.js): web/wasm/ has no glue of its own for it.
    assert.equal(existsSync(file(`${name}-relaxed.mjs`)), false, name);
  }
});

it('tools/relaxed-opcodes.mjs renumbers the prototype fma and leaves every other byte, constants included', async () => {
  const { renumberRelaxed } = await import('../../tools/relaxed-opcodes.mjs');
  // (func (result v128) v128.const (its 16 bytes hold 0xfd 0xaf 0x01) … f32x4.relaxed_fma (prototype)).
  const lookalike = [0xfd, 0xaf, 1, 0xfd, 0xaf, 1, 0xfd, 0xaf, 1, 0xfd, 0xaf, 1, 0xfd, 0xaf, 1, 0];
  const body = [0, 0xfd, 12, ...lookalike, 0xfd, 12, ...new Array(16).fill(0), 0xfd, 12, ...new Array(16).fill(0), 0xfd, 0xaf, 1, 11];
  const module = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
    10, body.length + 2, 1, body.length, ...body]);
  const before = Uint8Array.from(module);
  assert.equal(renumberRelaxed(module), 1);
  const changed = [...module.keys()].filter((i) => module[i] !== before[i]);
  assert.deepEqual(changed.map((i) => [before[i], module[i]]), [[0xaf, 0x85], [1, 2]]);
  assert.equal(changed[0], module.length - 3, 'only the instruction, not the constant that looks like it');
  // Where the engine runs relaxed SIMD (Node 20 with its flag), the result is a valid module.
  if (wasmRelaxedSimdSupported()) assert.ok(WebAssembly.validate(module) && !WebAssembly.validate(before));
  // Any other prototype relaxed instruction is refused, not passed on with its old meaning.
  const swizzle = Uint8Array.from(before);
  swizzle[swizzle.length - 3] = 0xa2;
  assert.throws(() => renumberRelaxed(swizzle), /prototype relaxed opcode 0xa2/);
});

it('the ES modules contain no eval or new Function (they run under a CSP without unsafe-eval)', () => {
  for (const name of ['attention-simd.mjs', 'attention-scalar.mjs']) {
    const js = readFileSync(file(name), 'utf8');
    assert.doesNotMatch(js, /\beval\(|new Function\(/, name);
    assert.match(js, /export default/, `${name} is an ES module`);
  }
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'attn-build-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The cache entries and the compile flags of a configured (not built) build directory. */
function configured(dir) {
  const cache = readFileSync(join(dir, 'CMakeCache.txt'), 'utf8');
  const option = (name) => cache.match(new RegExp(`^${name}:BOOL=(\\w+)$`, 'm'))?.[1];
  const entry = (name) => cache.match(new RegExp(`^${name}:\\w+=(.*)$`, 'm'))?.[1];
  const flags = (target) => {
    const file = join(dir, 'CMakeFiles', `${target}.dir`, 'flags.make');
    // The compiler's flags, include directories and definitions, on one line.
    return existsSync(file) ? [...readFileSync(file, 'utf8').matchAll(/^CXX_(?:FLAGS|INCLUDES|DEFINES) = (.*)$/gm)].map((m) => m[1]).join(' ') : null;
  };
  return { option, cache: entry, flags };
}

describe('CMake options: a user\'s plain build and the project\'s own', () => {
  const run = (cmd, args, env = {}) => {
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
    assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const realCmake = execFileSync('bash', ['-c', 'command -v cmake'], { encoding: 'utf8' }).trim();
  // The project seen through symbolic links, so that its build directories are the scratch
  // folder's own: tools/build.sh finds them (with their CMakeCache.txt) where it always does.
  const tree = join(scratch, 'tree');
  mkdirSync(tree);
  for (const entry of readdirSync(ROOT)) {
    if (!entry.startsWith('build') && entry !== '.git') symlinkSync(join(ROOT, entry), join(tree, entry));
  }
  // tools/build.sh runs this `cmake` from PATH: it records every call and runs a configure of
  // build-native for real; it builds nothing.
  const bin = join(scratch, 'bin');
  const log = join(scratch, 'cmake-calls.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'cmake'), `#!/usr/bin/env bash
echo "$*" >> "${log}"
for a in "$@"; do [[ $a == --build ]] && exit 0; done
[[ " $* " == *" -B build-native "* ]] || exit 0
exec "${realCmake}" "$@"
`);
  chmodSync(join(bin, 'cmake'), 0o755);
  const dir = join(tree, 'build-native');
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  const buildSh = (target) => run('bash', [join(tree, 'tools/build.sh'), target], { PATH: `${bin}:${process.env.PATH}` });

  it('a plain `cmake -S . -B build` is portable and warning-tolerant: no -march=native, no -Werror', () => {
    run(realCmake, ['-S', tree, '-B', dir]);
    const { option, flags } = configured(dir);
    assert.equal(option('ATTN_STRICT'), 'OFF');
    assert.equal(option('ATTN_NATIVE_ARCH'), 'OFF');
    assert.match(flags('attn_core'), /-Wall/);
    assert.doesNotMatch(flags('attn_core'), /-Werror|-march=native/);
    assert.equal(flags('attn_core_native'), null, 'no -march=native core');
    assert.doesNotMatch(flags('attn_bench_native'), /-march=native/);
  });

  it('tools/build.sh configures on every run, even over an existing CMakeCache.txt: its strict options take effect', () => {
    assert.ok(existsSync(join(dir, 'CMakeCache.txt')), 'the plain configure above left a cache');
    for (let pass = 1; pass <= 2; pass++) {
      rmSync(log, { force: true });
      buildSh('native');
      const configure = calls().filter((c) => c.includes('-B build-native'));
      assert.equal(configure.length, 1, `run ${pass}: ${calls().join(' | ')}`);
      assert.match(configure[0], /-DATTN_STRICT=ON/);
      assert.match(configure[0], /-DATTN_NATIVE_ARCH=ON/);
      const { option, flags } = configured(dir);
      assert.equal(option('ATTN_STRICT'), 'ON');
      assert.equal(option('ATTN_NATIVE_ARCH'), 'ON');
      assert.match(flags('attn_core'), /-Werror/);
      assert.match(flags('attn_core_native'), /-march=native/);
      // The native benchmark runs on the -march=native core when the build has one.
      assert.match(flags('attn_bench_native'), /-march=native/);
    }
  });

  it('finds an xsimd 13 installed elsewhere when .deps/ has none, natively and under emcmake (away from the host\'s libc headers)', () => {
    // A prefix laid out as /usr is, with the xsimd and xtl the plain configure above found, and a
    // C library header that em++ must never see.
    const prefix = join(scratch, 'prefix/usr');
    for (const name of ['xsimd', 'xtl']) cpSync(join(configured(dir).cache(`${name}_DIR`), '../../..'), prefix, { recursive: true });
    writeFileSync(join(prefix, 'include/stdio.h'), '#error the host C library reached the compiler\n');
    const none = join(scratch, 'no-deps');
    const native = join(scratch, 'prefix-native');
    run(realCmake, ['-S', tree, '-B', native, `-DATTN_DEPS_DIR=${none}`, `-DCMAKE_PREFIX_PATH=${prefix}`, '-DATTN_BUILD_TESTS=OFF']);
    assert.equal(configured(native).cache('xsimd_DIR'), join(prefix, 'share/cmake/xsimd'));
    assert.match(configured(native).flags('attn_core'), new RegExp(`-isystem ${join(prefix, 'include')}`));
    const wasm = join(scratch, 'prefix-wasm');
    run('emcmake', [realCmake, '-S', tree, '-B', wasm, '-DCMAKE_BUILD_TYPE=Release', `-DATTN_DEPS_DIR=${none}`, `-DCMAKE_PREFIX_PATH=${prefix}`, '-DATTN_BUILD_TESTS=OFF']);
    assert.equal(configured(wasm).cache('xsimd_DIR'), join(prefix, 'share/cmake/xsimd'));
    assert.ok(existsSync(join(wasm, 'third_party/xsimd/xsimd.hpp')), 'the headers are copied into the build tree');
    assert.doesNotMatch(configured(wasm).flags('attn_core'), new RegExp(join(prefix, 'include')));
  });

  it('tools/build.sh configures the one sanitized build, the suite and the fuzzers, on every run, strict and portable', () => {
    for (const target of ['asan', 'fuzz']) {
      rmSync(log, { force: true });
      buildSh(target);
      const configure = calls().filter((c) => c.includes('-B build-'));
      assert.equal(configure.length, 1, `${target}: ${calls().join(' | ')}`);
      assert.match(configure[0], /-B build-asan /);
      assert.match(configure[0], /-DATTN_SANITIZE=ON/);
      assert.match(configure[0], /-DATTN_FUZZ=ON/);
      assert.match(configure[0], /-DATTN_BUILD_TESTS=ON/);
      assert.match(configure[0], /-DATTN_STRICT=ON/);
      assert.match(configure[0], /-DATTN_NATIVE_ARCH=OFF/);
    }
  });
});

describe('tools/bootstrap.sh: xsimd and xtl pinned by version and SHA-256', () => {
  const script = readFileSync(join(ROOT, 'tools/bootstrap.sh'), 'utf8');
  const pins = [...script.matchAll(/^\s*"(\S+)\s+(\S+)\s+(pool\/\S+\.deb)\s+([0-9a-f]{64})\s+(\w+)"$/gm)]
    .map(([, name, version, file, sha256, dir]) => ({ name, version, file, sha256, dir }));

  it('pins an exact version, its pool file and a SHA-256 for each package', () => {
    assert.deepEqual(pins.map((p) => p.name), ['libxsimd-dev', 'xtl-dev']);
    for (const p of pins) assert.match(p.file, new RegExp(`/${p.name}_${p.version.replace(/\./g, '\\.')}_(amd64|all)\\.deb$`));
  });

  // A copy of the script in a project of its own: its .deps/, and npm's stamp already current.
  const project = (edit = (text) => text) => {
    const where = mkdtempSync(join(scratch, 'project-'));
    mkdirSync(join(where, 'tools'));
    mkdirSync(join(where, 'node_modules'));
    writeFileSync(join(where, 'tools/bootstrap.sh'), edit(script));
    cpSync(join(ROOT, 'package-lock.json'), join(where, 'package-lock.json'));
    cpSync(join(ROOT, 'package-lock.json'), join(where, 'node_modules/.bootstrap-lock'));
    return where;
  };
  const bootstrap = (where) => spawnSync('bash', [join(where, 'tools/bootstrap.sh')], { encoding: 'utf8' });

  it('with the stamps of its pins in .deps/ it fetches nothing', () => {
    const where = project();
    for (const p of pins) {
      mkdirSync(join(where, '.deps', p.dir), { recursive: true });
      writeFileSync(join(where, '.deps', p.dir, '.pinned'), `${p.name} ${p.version} ${p.sha256}\n`);
    }
    const r = bootstrap(where);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /fetching/);
  });

  it('fetches the pinned .deb, checks its SHA-256 and refuses one that differs, leaving .deps/ as it was', () => {
    const xtl = pins.find((p) => p.name === 'xtl-dev');
    const wrong = xtl.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const where = project((text) => text.replace(xtl.sha256, wrong));
    // The right xsimd is stamped; xtl is an older unpack that must survive the refusal.
    const xsimd = pins.find((p) => p.name === 'libxsimd-dev');
    mkdirSync(join(where, '.deps/xsimd'), { recursive: true });
    writeFileSync(join(where, '.deps/xsimd/.pinned'), `${xsimd.name} ${xsimd.version} ${xsimd.sha256}\n`);
    mkdirSync(join(where, '.deps/xtl'), { recursive: true });
    writeFileSync(join(where, '.deps/xtl/kept'), 'an earlier unpack');
    const r = bootstrap(where);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, new RegExp(`xtl-dev ${xtl.version} .* has SHA-256 ${xtl.sha256}, not the pinned ${wrong}\\. Refusing to unpack it\\.`));
    assert.equal(readFileSync(join(where, '.deps/xtl/kept'), 'utf8'), 'an earlier unpack');
    assert.ok(!existsSync(join(where, '.deps/xtl/usr')), 'nothing unpacked');
    // With the right pin it unpacks the headers, stamped.
    writeFileSync(join(where, 'tools/bootstrap.sh'), script);
    const again = bootstrap(where);
    assert.equal(again.status, 0, again.stderr);
    assert.ok(existsSync(join(where, '.deps/xtl/usr/include/xtl/xtl_config.hpp')));
    assert.equal(readFileSync(join(where, '.deps/xtl/.pinned'), 'utf8').trim(), `xtl-dev ${xtl.version} ${xtl.sha256}`);
    assert.ok(!existsSync(join(where, '.deps/xtl/kept')), 'the earlier unpack is replaced whole');
  });
});
