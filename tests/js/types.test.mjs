// The published types compile, strictly, against what an author writes (types/usage.ts), and a
// deliberate misuse fails: the types are checked, not just present.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const USAGE = fileURLToPath(new URL('./types/usage.ts', import.meta.url));
const FLAGS = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--skipLibCheck', 'false'];

const compile = (file) => spawnSync(process.execPath, [TSC, ...FLAGS, file], { encoding: 'utf8' });

test('issue 11: attention.d.ts and attention-calc.d.ts compile strictly against an author\'s code', () => {
  const run = compile(USAGE);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('issue 11: the element\'s types reject a misuse (a string where the state wants a pitfall name)', () => {
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
