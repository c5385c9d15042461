// Masks that compose (issue 15): the union form { causal, keys, hidden } beside every older form,
// the core's reason for each hidden cell (result.hiddenBy, attn.maskReasons), the pitfall scales
// computed by the core, and hostile mask objects refused with Errors that name the argument.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';

import { loadAttention } from '../../web/attention.js';
import { BUILDS, apiCode } from './helpers.mjs';

const Q = [[1, 1], [0, 1], [-1, 0]];
const K = [[1, 0], [0, 1], [-1, 0]];
const V = [[1, 0], [0, 1], [1, 1]];
const GRID = [[false, true, false], [true, false, false], [false, false, false]];

for (const build of BUILDS) {
  describe(`${build.name} build`, () => {
    let attn;
    before(async () => {
      attn = await loadAttention({ simd: build.simd });
    });
    const run = (mask, extra = {}) => attn.attention({ q: Q, k: K, v: V, mask, ...extra });

    it('the union of causal, key padding and a grid, with every reason of every cell', () => {
      const r = run({ causal: true, keys: [false, false, true], hidden: GRID });
      assert.deepEqual(r.hiddenBy, [
        [[], ['causal', 'custom'], ['causal', 'padding']],
        [['custom'], [], ['causal', 'padding']],
        [[], [], ['padding']],
      ]);
      assert.deepEqual(r.hidden, r.hiddenBy.map((row) => row.map((why) => why.length > 0)));
      // The same numbers as the union written out as one grid by hand.
      const byHand = run(r.hidden);
      for (const key of ['scaled', 'weights', 'output', 'fullyMasked']) assert.deepEqual(r[key], byHand[key], key);
      assert.deepEqual(byHand.hiddenBy.flat().filter((why) => why.length).map((why) => why.join()), Array(5).fill('custom'));
      // Reason lists are frozen: no caller can change what another cell says.
      assert.ok(Object.isFrozen(r.hiddenBy[0][1]));
    });

    it('every older form is still taken, and equals its union form', () => {
      const same = [
        [undefined, {}], ['none', {}], [null, {}],
        ['causal', { causal: true }],
        [{ keys: [0, 1, 0] }, { keys: Uint8Array.of(0, 1, 0) }],
        [GRID, { hidden: GRID }],
        [GRID.map((row) => Uint8Array.from(row, Number)), { hidden: GRID }],
        [{ causal: true }, { causal: true, keys: [false, false, false] }],
        [{ causal: false, hidden: GRID }, GRID],
      ];
      for (const [old, union] of same) {
        const a = run(old);
        const b = Object.keys(union).length ? run(union) : run('none');
        assert.deepEqual(a, b, `${JSON.stringify(old)} vs ${JSON.stringify(union)}`);
      }
      assert.deepEqual(run('causal').hiddenBy[0], [[], ['causal'], ['causal']]);
      assert.deepEqual(run({ keys: [0, 1, 0] }).hiddenBy.map((row) => row[1]), [['padding'], ['padding'], ['padding']]);
      assert.deepEqual(run('none').hiddenBy.flat(), Array(9).fill([]));
    });

    it('a row the union hides whole is fully masked: weights and output 0, never NaN', () => {
      const r = run({ causal: true, keys: [true, false, false] });
      assert.deepEqual(r.fullyMasked, [true, false, false]);
      assert.deepEqual(r.weights[0], [0, 0, 0]);
      assert.deepEqual(r.output[0], [0, 0]);
      assert.deepEqual(r.hiddenBy[0], [['padding'], ['causal'], ['causal']]);
      assert.ok(r.weights.flat().every(Number.isFinite));
    });

    it('multiHead takes the union form too, the same reasons in every head', () => {
      const I = [[1, 0], [0, 1]];
      const m = attn.multiHead({ x: V, wq: I, wk: I, wv: I, wo: I, heads: 2, mask: { causal: true, keys: [0, 0, 1] } });
      for (const head of m.heads) assert.deepEqual(head.hiddenBy[2], [[], [], ['padding']]);
    });

    it('maskReasons: the reasons from the mask alone, for any n×m', () => {
      assert.deepEqual(attn.maskReasons({ mask: 'causal', n: 2, m: 3 }), [[[], ['causal'], ['causal']], [[], [], ['causal']]]);
      assert.deepEqual(attn.maskReasons({ mask: { causal: true, keys: [1, 0, 0], hidden: GRID }, n: 3 }),
        run({ causal: true, keys: [1, 0, 0], hidden: GRID }).hiddenBy);
      assert.throws(() => attn.maskReasons({ mask: 'causal', n: 0 }), { message: 'Q has 0 rows and K has 0: the 0×0 attention matrix is empty: it needs at least one query and one key' });
      assert.throws(() => attn.maskReasons({ mask: 'causal', n: 4096 }),
        { message: 'Q has 4096 rows and K has 4096: the 4096×4096 attention matrix is over the limit of 4194304 entries (2048×2048)' });
    });

    it('the pitfall scales come from the core: dk is 1/d_k, none is 1, sqrt the default', () => {
      const q = [[1, 2, 0, 1]], k = [[1, 0, 1, 1], [0, 1, 1, 0]], v = [[1], [2]];
      const at = (scale) => attn.attention({ q, k, v, scale });
      assert.equal(at('dk').scale, 0.25);
      assert.equal(at('none').scale, 1);
      assert.deepEqual(at('none').scaledBeforeMask, at('none').scores);
      assert.deepEqual(at('sqrt'), at(undefined));
      assert.deepEqual(at('dk').weights, at(0.25).weights);
      assert.equal(at(null).scale, 0.5);
    });

    it('hostile mask objects give Errors that name the argument', () => {
      const cases = [
        [{ casual: true }, 'mask has no part "casual": its parts are causal, keys and hidden'],
        [{}, "mask must be 'none', 'causal', a boolean[][] grid or { causal?, keys?, hidden? } (got an object with none of causal, keys, hidden)"],
        [{ causal: 'yes' }, 'mask.causal must be true or false (got "yes")'],
        [{ causal: 1 }, 'mask.causal must be true or false (got 1)'],
        [{ keys: 'abc' }, 'mask.keys must be an array of true/false flags, one per key (got "abc")'],
        [{ keys: [0, 1] }, 'mask.keys has 2 flags but K has 3 rows: key padding needs one flag per key'],
        [{ keys: [0, 1, 0, 1] }, 'mask.keys has 4 flags but K has 3 rows: key padding needs one flag per key'],
        [{ keys: [0, 2, 0] }, 'mask.keys[1] must be true (hidden) or false (visible) (got 2)'],
        [{ keys: [0, -1, 0] }, 'mask.keys[1] must be true (hidden) or false (visible) (got -1)'],
        [{ keys: [0, 'x', 0] }, 'mask.keys[1] must be true (hidden) or false (visible) (got "x")'],
        [{ hidden: 'grid' }, 'mask.hidden must be an n×m grid of true/false flags (got "grid")'],
        [{ hidden: [[0, 0, 0], [0, 0], [0, 0, 0]] }, 'mask.hidden row 2 has 2 entries but K has 3 rows: a custom mask needs one entry per key'],
        [{ hidden: [[0, 0, 0]] }, 'mask.hidden has 1 row but Q has 3: a custom mask needs one row per query'],
        [{ hidden: [[0, 0, 0], 7, [0, 0, 0]] }, 'mask.hidden row 2 must be an array of true/false flags (got 7)'],
        [{ hidden: [[0, 0, 0], [0, 0, null], [0, 0, 0]] }, 'mask.hidden row 2 column 3 must be true (hidden) or false (visible) (got null)'],
        [{ causal: true, hidden: [[0, 0, 0], [0, 0, 0]] }, 'mask.hidden has 2 rows but Q has 3: a custom mask needs one row per query'],
        [new Uint8Array(9), "mask must be 'none', 'causal', a boolean[][] grid or { causal?, keys?, hidden? } (got a Uint8Array)"],
        [5, "mask must be 'none', 'causal', a boolean[][] grid or { causal?, keys?, hidden? } (got 5)"],
      ];
      for (const [mask, message] of cases) {
        assert.throws(() => run(mask), (e) => e instanceof Error && e.message === message, message);
      }
      // A getter that throws is named, with the original as the cause.
      const trap = { get causal() { throw new TypeError('boom'); } };
      assert.throws(() => run(trap), (e) => /^mask could not be read: reading it threw a TypeError/.test(e.message) && e.cause instanceof TypeError);
      assert.throws(() => run('none', { scale: 'sqrt_dk' }), { message: `scale must be 'sqrt', 'dk', 'none' or a number greater than 0 (got "sqrt_dk")` });
      // The instance is still usable.
      assert.equal(run('causal').weights[0][0], 1);
    });
  });
}

describe('the reasons\' names and bits are the core\'s alone', () => {
  it('hiddenBy names each MaskReason bit of src/mask.hpp, and attention.js keeps no copy of them', async () => {
    const header = readFileSync(new URL('../../src/mask.hpp', import.meta.url), 'utf8');
    const bits = Object.fromEntries([...header.matchAll(/\b(kHidden\w+) = (\d+),/g)].map(([, name, bit]) => [name, Number(bit)]));
    const names = [...header.matchAll(/\{(kHidden\w+), "(\w+)"\}/g)].map(([, bit, name]) => [name, bits[bit]]);
    assert.equal(names.length, 3, 'kMaskReasonNames was read');
    const attn = await loadAttention({ simd: false });
    // Cells hidden by two rules: both names, in bit order.
    const grid = [[false, true, false], [false, false, false], [false, false, true]];
    const r = attn.attention({ q: Q, k: K, v: V, mask: { causal: true, keys: [false, false, true], hidden: grid } });
    const byBit = Object.fromEntries(names.map(([name, bit]) => [bit, name]));
    assert.deepEqual(r.hiddenBy[0][1], [byBit[bits.kHiddenCausal], byBit[bits.kHiddenCustom]]);
    assert.deepEqual(r.hiddenBy[2][2], [byBit[bits.kHiddenPadding], byBit[bits.kHiddenCustom]]);
    assert.deepEqual(attn.maskReasons({ mask: 'causal', n: 2 })[0][1], [byBit[bits.kHiddenCausal]]);
    // No list of the names (or their bits) in the JS API's code (attention.js and web/api/).
    const code = apiCode().replace(/^\s*(\/\/|\*).*$/gm, '');
    assert.doesNotMatch(code, new RegExp(names.map(([name]) => `['"]${name}['"]`).join('\\s*,\\s*')));
    assert.doesNotMatch(code, /causal['"]?\s*:\s*1\b/);
  });
});
