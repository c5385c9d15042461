// The published types compile, strictly, against what an author writes (types/usage.ts), and a
// deliberate misuse fails: the types are checked, not just present.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const USAGE = fileURLToPath(new URL('./types/usage.ts', import.meta.url));
const FLAGS = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--skipLibCheck', 'false'];

const compile = (file) => spawnSync(process.execPath, [TSC, ...FLAGS, file], { encoding: 'utf8' });

test('attention.d.ts and attention-calc.d.ts compile strictly against an author\'s code', () => {
  const run = compile(USAGE);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('the element\'s types reject a misuse (a string where the state wants a pitfall name)', () => {
  const dir = mkdtempSync(join(fileURLToPath(new URL('./types/', import.meta.url)), 'misuse-'));
  try {
    const wrong = join(dir, 'wrong.ts');
    writeFileSync(wrong, readFileSync(USAGE, 'utf8').replaceAll('../../../web/', '../../../../web/').replace("pitfall: 'scale-dk'", "pitfall: 'scale-by-dk'"));
    const run = compile(wrong);
    assert.notEqual(run.status, 0, 'the misuse compiled');
    assert.match(run.stdout, /scale-by-dk/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GPT-2\'s types reject a misuse (an ablation mode that does not exist, generate without maxNewTokens)', () => {
  const dir = mkdtempSync(join(fileURLToPath(new URL('./types/', import.meta.url)), 'misuse-'));
  try {
    const usage = readFileSync(USAGE, 'utf8').replaceAll('../../../web/', '../../../../web/');
    const cases = [
      [usage.replace("mode: 'mean'", "mode: 'resample'"), /resample/],
      [usage.replace('{ maxNewTokens: 5, endOfTextFirst: true }', '{ endOfTextFirst: true }'), /maxNewTokens/],
    ];
    for (const [i, [code, message]] of cases.entries()) {
      assert.notEqual(code, usage, 'the misuse was written in');
      const wrong = join(dir, `wrong-${i}.ts`);
      writeFileSync(wrong, code);
      const run = compile(wrong);
      assert.notEqual(run.status, 0, `misuse ${i} compiled`);
      assert.match(run.stdout, message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Issue 28: the package's types as an author's TypeScript resolves them, under each
// moduleResolution a project may use: its package.json (exports, types, typesVersions) over the
// .d.ts files at their places in dist/ (copied from web/, as tools/dist.mjs does).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DTS = ['attention.d.ts', 'attention-calc.d.ts', 'react.d.ts', 'vue.d.ts'];

function installedTypes() {
  // Outside this checkout: inside it, TypeScript would resolve the package's own name to this
  // checkout's package.json and dist/ (self-reference), not the installed copy.
  const dir = mkdtempSync(join(tmpdir(), 'attention-calc-types-'));
  const pkg = join(dir, 'node_modules/attention-calc');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  for (const file of DTS) copyFileSync(join(ROOT, 'web', file), join(pkg, 'dist', file));
  return dir;
}

const AUTHOR = `import type { AttentionCalcElement } from 'attention-calc';
import { loadAttention } from 'attention-calc/attention.js';
import type { SingleHeadResult } from 'attention-calc/attention.js';
export async function first(e: AttentionCalcElement): Promise<number> {
  const attn = await loadAttention({ baseUrl: 'https://cdn.example/attention-calc/dist/wasm/' });
  const r: SingleHeadResult = attn.attention({ q: [[1]], k: [[1]], v: [[1]] });
  const base: string | null = e.baseUrl;
  console.log(base);
  return r.weights[0][0];
}
`;

for (const [resolution, module] of [['node10', 'commonjs'], ['node16', 'node16'], ['bundler', 'esnext']]) {
  test(`the package's types resolve under moduleResolution ${resolution} (the element from 'attention-calc', the API from 'attention-calc/attention.js')`, () => {
    const dir = installedTypes();
    try {
      // node16 reads an ES module's imports only from an ES module: the author's file is .mts there.
      const file = join(dir, resolution === 'node16' ? 'author.mts' : 'author.ts');
      writeFileSync(file, AUTHOR);
      const run = spawnSync(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom',
        '--module', module, '--moduleResolution', resolution, '--skipLibCheck', 'false', '--ignoreDeprecations', '5.0', file], { encoding: 'utf8', cwd: dir });
      assert.equal(run.status, 0, run.stdout + run.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// React 19's JSX and Vue's GlobalComponents, compiled against the React and Vue that
// tools/sites installs (its lockfile pins them); skipped before that install.
const SITES = join(ROOT, 'tools/sites/node_modules');
const hasReactTypes = existsSync(join(SITES, '@types/react/index.d.ts'));
const hasVue = existsSync(join(SITES, 'vue/package.json'));

test('React 19 JSX knows the attention-calc tag: its attributes, ref and events; a wrong attribute value fails', { skip: !hasReactTypes && 'tools/sites is not installed (node tools/sites/build.mjs)' }, () => {
  const dir = installedTypes();
  try {
    symlinkSync(join(SITES, '@types'), join(dir, 'node_modules/@types'), 'dir');
    symlinkSync(join(SITES, 'react'), join(dir, 'node_modules/react'), 'dir');
    const component = join(dir, 'Lesson.tsx');
    writeFileSync(component, readFileSync(new URL('./types/react.tsx', import.meta.url), 'utf8'));
    const flags = [TSC, '--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--module', 'esnext',
      '--moduleResolution', 'bundler', '--jsx', 'react-jsx', '--skipLibCheck', 'false', '--types', 'react', component];
    const run = spawnSync(process.execPath, flags, { encoding: 'utf8', cwd: dir });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    writeFileSync(component, readFileSync(component, 'utf8').replace('mode="practice"', 'mode="quiz"'));
    const wrong = spawnSync(process.execPath, flags, { encoding: 'utf8', cwd: dir });
    assert.notEqual(wrong.status, 0, 'mode="quiz" compiled');
    assert.match(wrong.stdout, /quiz/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Vue\'s GlobalComponents knows the attention-calc tag', { skip: !hasVue && 'tools/sites is not installed (node tools/sites/build.mjs)' }, () => {
  const dir = installedTypes();
  try {
    for (const name of ['vue', '@vue']) symlinkSync(join(SITES, name), join(dir, 'node_modules', name), 'dir');
    const file = join(dir, 'vue.ts');
    writeFileSync(file, readFileSync(new URL('./types/vue.ts', import.meta.url), 'utf8'));
    const run = spawnSync(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--module', 'esnext',
      '--moduleResolution', 'bundler', '--skipLibCheck', 'true', file], { encoding: 'utf8', cwd: dir });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
