// Typesets, at build time, every formula the widget shows, so that no TeX engine runs in the
// browser: KaTeX (from npm, in Node) turns each one into MathML, which browsers draw natively
// with no stylesheet or web font. Writes web/vendor/tex-formulas.js, a build output that
// web/shared/tex.js imports.
//   node tools/render-tex.mjs
//
// The formulas are fixed strings in the code (no live numbers), found where they are used:
// the literal arguments of tex(…) (both branches of a ternary), `tex: (…) => '…'` step captions,
// and the values of *_TEX tables. A formula this scan misses is shown as its TeX source, with a
// console error, so tests catch it.
import katex from 'katex';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
// Every module of the calculator, the labs and their shared parts, in their folders by job.
const SOURCES = ['calc', 'labs', 'shared'].flatMap((dir) => readdirSync(join(WEB, dir), { recursive: true })
  .filter((name) => name.endsWith('.js')).sort().map((name) => join(WEB, dir, name)))
  .filter((path) => path !== join(WEB, 'shared', 'tex.js'));
const OUT = join(WEB, 'vendor', 'tex-formulas.js');

const LITERAL = /'((?:[^'\\\n]|\\.)*)'/g;
// A JS single-quoted literal's value (the sources only use \\ and \' escapes in formulas).
const unquote = (body) => body.replace(/\\(.)/g, '$1');

/** The text from `start` to the parenthesis that closes the one just before it. */
function argumentsAt(source, start) {
  let depth = 1, i = start, quote = null;
  for (; i < source.length && depth > 0; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
  }
  return source.slice(start, i - 1);
}

/** Top-level pieces of an argument list, split at commas outside brackets and strings. */
function splitArguments(args) {
  const pieces = [];
  let depth = 0, quote = null, start = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (c === ',' && depth === 0) { pieces.push(args.slice(start, i)); start = i + 1; }
  }
  return [...pieces, args.slice(start)];
}

/** [[expression, display]] used in one source file. */
function formulasIn(source) {
  const found = [];
  for (const call of source.matchAll(/\btex\(/g)) {
    const [expression, options = ''] = splitArguments(argumentsAt(source, call.index + call[0].length));
    const display = /display:\s*true/.test(options);
    for (const [, body] of expression.matchAll(LITERAL)) found.push([unquote(body), display]);
    // tex(formula) inside a helper `const row = (name, formula, …) =>`: the literals that the
    // helper's calls pass in that place.
    const parameter = expression.trim();
    if (!/^[A-Za-z_$][\w$]*$/.test(parameter)) continue;
    for (const helper of source.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*\(([^)]*)\)\s*=>/g)) {
      const place = helper[2].split(',').map((p) => p.trim()).indexOf(parameter);
      if (place < 0 || helper.index > call.index) continue;
      for (const use of source.matchAll(new RegExp(`\\b${helper[1]}\\(`, 'g'))) {
        const given = splitArguments(argumentsAt(source, use.index + use[0].length))[place] ?? '';
        for (const [, body] of given.matchAll(LITERAL)) found.push([unquote(body), display]);
      }
    }
  }
  for (const [, body] of source.matchAll(/\btex:\s*\([^)]*\)\s*=>\s*'((?:[^'\\\n]|\\.)*)'/g)) found.push([unquote(body), false]);
  for (const table of source.matchAll(/\b[A-Z_]+_TEX\s*=\s*\{/g)) {
    const body = argumentsAt(source, table.index + table[0].length);
    for (const [, value] of body.matchAll(/:\s*'((?:[^'\\\n]|\\.)*)'/g)) found.push([unquote(value), false]);
  }
  return found;
}

// The labs past the lesson (issue 40) keep their formulas in a file of their own, which only
// their chunks import (registerFormulas in web/shared/tex.js): an embed of the lesson's labs
// downloads none of them.
const NEXT_LABS = ['kvcache', 'positions', 'flash'].map((lab) => join(WEB, 'labs', lab) + '/');
const NEXT_OUT = join(WEB, 'vendor', 'tex-formulas-next-labs.js');
const formulas = new Map(), nextFormulas = new Map();
for (const file of SOURCES) {
  const into = NEXT_LABS.some((dir) => file.startsWith(dir)) ? nextFormulas : formulas;
  for (const [expression, display] of formulasIn(readFileSync(file, 'utf8'))) {
    const key = `${display ? 'display' : 'inline'}:${expression}`;
    if (!formulas.has(key) && !into.has(key)) {
      into.set(key, katex.renderToString(expression, { displayMode: display, output: 'mathml', throwOnError: true, strict: 'error' }));
    }
  }
}
mkdirSync(join(WEB, 'vendor'), { recursive: true });
const write = (out, map, whose) => writeFileSync(out, `// Generated by tools/render-tex.mjs from the formulas in ${whose}: do not edit.\n`
  + '// KaTeX\'s MathML for each, keyed by "display:" or "inline:" and the TeX source.\n'
  + `export const FORMULAS = new Map(${JSON.stringify([...map], null, 0)});\n`);
write(OUT, formulas, 'web/calc and web/labs');
write(NEXT_OUT, nextFormulas, 'the labs past the lesson (web/labs/kvcache, positions, flash)');
console.log(`${OUT}: ${formulas.size} formulas; ${NEXT_OUT}: ${nextFormulas.size}`);
