#!/usr/bin/env python3
"""Writes the seed corpus, tests/fuzz/corpus/<harness>/<name>: every reproducer of issue 10 that
the core can see (items 5, 6, 9, 10, 11 and the NaN hull), the lesson's worked example, each mask
kind and pitfall, and shapes at and just past the limits. The files are committed; rerun this
after changing the byte layout in fuzz_input.hpp (which this mirrors):

    python3 tests/fuzz/make_corpus.py
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_ROWS, MAX_COLS, MAX_HEADS = 65536, 4096, 256
SIZE_MAX = 2**64 - 1

SMALL, SCALED, HOSTILE, RAW = 0, 1, 2, 3
NONE, CAUSAL, KEY_PADDING, CUSTOM = 0, 1, 2, 3


class Seed:
    def __init__(self, profile):
        self.profile = profile
        self.out = bytearray([profile])

    def byte(self, b):
        self.out.append(b)
        return self

    def pick(self, choice):  # any byte with byte % choices == choice; choice itself will do
        return self.byte(choice)

    def size(self, n, typical, limit):
        if 1 <= n <= typical:
            return self.byte(n - 1)
        special = {0: 0, limit: 1, limit + 1: 2, limit - 1: 3, 2 * typical + 1: 5}
        if n in special:
            return self.byte(255).byte(special[n])
        if 1 <= n <= min(limit + 2, 65536):
            self.byte(255).byte(6)
            self.out += struct.pack('<H', n - 1)
            return self
        self.byte(255).byte(4)
        self.out += struct.pack('<Q', n)
        return self

    def value(self, x):
        if self.profile == RAW:
            self.out += struct.pack('<f', x)
        elif self.profile == SMALL:
            b = round(x * 16)
            assert -128 <= b < 128 and b / 16 == x, x
            self.byte(b & 0xFF)
        else:
            raise ValueError('seeds spell values in the small or raw profile')
        return self

    def matrix(self, rows):
        for row in rows:
            for x in row:
                self.value(x)
        return self

    def mask(self, kind, flags=None):
        self.pick(kind).pick(1)  # kind; 1: the flags have the right length
        if kind in (KEY_PADDING, CUSTOM):
            self.pick(2)  # density "each flag its own byte"
            for f in flags:
                self.byte(f)
        return self


def attention_case(q, k, v, typical_rows=8, mask=(NONE, None), scale=None, mask_after=False, profile=RAW):
    """The layout of decode_attention_case (attention_case.hpp)."""
    s = Seed(profile)
    s.size(len(q), typical_rows, MAX_ROWS).size(len(k), typical_rows, MAX_ROWS)
    s.size(len(q[0]), 8, MAX_COLS).size(len(v[0]), 8, MAX_COLS)
    s.pick(2)  # no deliberate mismatch
    s.matrix(q).matrix(k).matrix(v).mask(*mask)
    if scale is None:
        s.pick(3)
    elif scale == 'one':
        s.pick(0)
    elif scale == 'd_k':
        s.pick(1)
    else:
        s.pick(2).value(scale)
    return s.pick(0 if mask_after else 1).out


def sized_case(n, m, d, dv, typical_rows=8):
    """Shapes only: the values come from the decoder's generator (small profile)."""
    s = Seed(SMALL)
    s.size(n, typical_rows, MAX_ROWS).size(m, typical_rows, MAX_ROWS).size(d, 8, MAX_COLS).size(dv, 8, MAX_COLS)
    return s.pick(2).out


def streaming_case(n, m, d, dv, q=(), k=(), v=(), causal=False, profile=RAW):
    s = Seed(profile).pick(1 if causal else 0)
    s.size(n, 8, MAX_ROWS).size(m, 8, MAX_ROWS).size(d, 8, MAX_COLS).size(dv, 8, MAX_COLS)
    for x in list(q) + list(k) + list(v):
        s.value(x)
    return s.out


def multihead_case(n, d, heads_choice, x=None, param_d=8, param_d_raw=False, bias=False, profile=SMALL):
    s = Seed(profile)
    if param_d_raw:
        s.pick(1)
        s.out += struct.pack('<Q', param_d)
    else:
        s.pick(0)
        s.out += struct.pack('<H', param_d)
    s.pick(0).pick(1 if bias else 0)  # heads 1, bias
    s.size(n, 6, MAX_ROWS).size(d, 8, MAX_COLS)
    if d > 256:
        s.pick(0)  # keep the large d_model
    s.out += bytes(heads_choice)
    s.pick(2)  # no deliberate wrong shape
    if x is not None:
        s.matrix(x)
    return s.out


def hull_2d(points, profile=RAW):
    s = Seed(profile).pick(0).size(len(points), 12, 300)
    return s.matrix(points).out if profile != HOSTILE else s.out


def distance(points, kind, arg=None, profile=RAW):
    s = Seed(profile).pick(1).size(len(points), 12, 300).size(len(points[0]), 6, MAX_COLS)
    s.matrix(points).pick(kind)
    if kind == 0:
        s.pick(arg)
    elif kind == 1:
        for w in arg:
            s.byte(w)
    else:
        for x in arg:
            s.value(x)
    return s.out


WORKED = dict(q=[[1, 1], [0, 1], [-1, 0]], k=[[1, 0], [0, 1], [-1, 0]], v=[[1, 0], [0, 1], [1, 1]])


def corpus():
    c = {'attention': {}, 'streaming': {}, 'multihead': {}, 'hull': {}, 'checks': {}}
    a = c['attention']
    a['worked-example'] = attention_case(**WORKED)
    a['worked-example-causal'] = attention_case(**WORKED, mask=(CAUSAL, None))
    a['key-padding'] = attention_case(**WORKED, mask=(KEY_PADDING, [0, 0, 1]))
    a['custom-fully-masked-row'] = attention_case(**WORKED, mask=(CUSTOM, [0, 1, 0, 1, 1, 1, 0, 0, 1]))
    a['pitfall-mask-after-softmax'] = attention_case(**WORKED, mask=(CAUSAL, None), mask_after=True)
    a['pitfall-no-scaling'] = attention_case(**WORKED, scale='one')
    a['pitfall-scale-by-d_k'] = attention_case(**WORKED, scale='d_k')
    a['custom-scale-0.1'] = attention_case(**WORKED, scale=0.1)
    a['cross-attention-n-ne-m'] = attention_case(q=[[1, 2]], k=[[1, 0], [0, 1], [2, 2], [-1, 3]],
                                                 v=[[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1]])
    a['scores-1e30'] = attention_case(q=[[1e15]], k=[[1e15], [-1e15]], v=[[1], [2]])
    # Item 9: streaming refused what attention() accepted, and the other way round.
    a['item-09-v-2e38'] = attention_case(q=[[0]], k=[[0], [0]], v=[[2e38], [2e38]])
    a['item-09-q-3e38'] = attention_case(q=[[3e38]], k=[[1], [-3e38]], v=[[1], [2]])
    # Item 10: inf − inf scores; the debug assertion in the streaming softmax.
    a['item-10-inf-minus-inf'] = attention_case(q=[[2, 2]], k=[[3e38, -3e38]] * 4, v=[[1], [2], [3], [4]])
    a['item-05-v-1e7'] = attention_case(q=[[1]], k=[[1]], v=[[1e7, 0, 0]])
    # Found by the fuzzer: a pitfall scale of 3.6e37 makes scores 1 and 1 + 1.8e-15 decide the
    # weights; float32 cannot tell them apart, so only the values' range bounds the output.
    a['found-ill-conditioned-scale-3.6e37'] = bytes.fromhex(
        '0302020101020000803f0000803f0000803f00420000000000000000803f000080bf000000000000803f'
        '000000000000ff260000803f0000803f0000803f01010300')
    a['limit-2048x2048'] = sized_case(2048, 2048, 1, 1)
    a['past-limit-2049x2048'] = sized_case(2049, 2048, 1, 1)
    a['past-limit-d_k-4097'] = sized_case(1, 1, 4097, 1)
    a['limit-65536-rows'] = sized_case(65536, 64, 1, 1)

    s = c['streaming']
    s['worked-example'] = streaming_case(3, 3, 2, 2, sum(WORKED['q'], []), sum(WORKED['k'], []), sum(WORKED['v'], []))
    s['worked-example-causal'] = streaming_case(3, 3, 2, 2, sum(WORKED['q'], []), sum(WORKED['k'], []),
                                                sum(WORKED['v'], []), causal=True)
    s['item-09-v-2e38'] = streaming_case(1, 2, 1, 1, [0], [0, 0], [2e38, 2e38])
    s['item-09-q-3e38'] = streaming_case(1, 2, 1, 1, [3e38], [1, -3e38], [1, 2])
    s['item-10-inf-minus-inf'] = streaming_case(1, 4, 2, 1, [2, 2], [3e38, -3e38] * 4, [1, 2, 3, 4])
    # Item 11: n·(d + d_v) + m·(d + d_v) wraps around to a small number.
    s['item-11-size-max'] = streaming_case(6, SIZE_MAX, 4095, 0)
    s['limit-total-floats'] = streaming_case(8192, 8192, 2048, 2048)      # exactly 2^26 numbers
    s['past-limit-total-floats'] = streaming_case(8192, 8192, 2049, 2048)
    s['several-blocks-causal'] = streaming_case(130, 200, 3, 2, causal=True, profile=SMALL)
    # Found by the fuzzer: scores of 8.2e20 that differ by 3e9, below float32's resolution there;
    # the oracle's weights underflow to 0 in double, so only the values' range bounds the output.
    s['found-ill-conditioned-scores-8e20'] = bytes.fromhex(
        '030000030100000000400010002d40e6b1617fe6b161ffe6b1617fe6b161ffe6b1617fe6b19effe6b1617f'
        '000000002900000000000000e6b161ff0000803f000000400000404000008040')

    m = c['multihead']
    m['two-heads'] = multihead_case(4, 8, [5, 1])           # a divisor: 1 + 1 = 2 heads
    m['item-07-heads-2^32+1'] = multihead_case(2, 4, [3])
    m['heads-not-dividing'] = multihead_case(3, 6, [1])      # d + 1 heads
    m['heads-past-limit'] = multihead_case(1, 4, [2, 1])     # 257
    m['item-11-parameter-count-2^27+1'] = multihead_case(2, 4, [5, 0], param_d=2**27 + 1, param_d_raw=True, bias=True)
    m['parameter-count-huge'] = multihead_case(1, 2, [5, 0], param_d=2**40, param_d_raw=True)

    h = c['hull']
    nan = Seed(HOSTILE).pick(0).size(3, 12, 300)
    h['nan-hull'] = bytes(nan.out) + bytes([200] * 6)  # kSpecial[0] is NaN
    h['square'] = hull_2d([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]])
    h['collinear'] = hull_2d([[0, 0], [1, 1], [2, 2], [3, 3]])
    h['item-05-point-of-set-1e7'] = distance([[1e7, 0, 0], [0, 1e7, 0], [0, 0, 1e7]], 0, 0)
    h['item-05-point-of-set-3e38'] = distance([[3e38, 0, 0], [-3e38, 1, 0], [0, 0, 2e38]], 0, 1)
    h['combination'] = distance([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], 1, [3, 1, 4, 1])
    h['far-point'] = distance([[1, 0, 0], [0, 1, 0]], 2, [1e30, -1e30, 5])
    # Found by the fuzzer: a convex combination of subnormal points, which rounds to float32 by
    # a whole subnormal step rather than relatively.
    h['found-subnormal-combination'] = bytes.fromhex('0301010201000000803f0000000000000000000000000000803f000040')
    # Item 6: 10 values in 4096 dimensions (values from the generator).
    six = Seed(SMALL).pick(1).size(10, 12, 300).size(4096, 6, MAX_COLS)
    h['item-06-10x4096'] = bytes(six.out)

    k = c['checks']
    k['worked-example'] = attention_case(**WORKED, typical_rows=12)
    k['worked-example-mask-after-softmax'] = attention_case(**WORKED, typical_rows=12, mask=(CAUSAL, None), mask_after=True)
    k['item-05-v-1e7'] = attention_case(q=[[1]], k=[[1]], v=[[1e7, 0, 0]], typical_rows=12)
    k['item-05-v-1e7-three-keys'] = attention_case(q=[[1, 0]], k=[[1, 0], [0, 1], [1, 1]],
                                                   v=[[1e7, 0, 0], [0, 1e7, 0], [0, 0, 1e7]], typical_rows=12)
    # Item 6: Q 256×4, K 10×4, V 10×4096 took 146 s in the exponential hull check.
    k['item-06-256x4-10x4096'] = sized_case(256, 10, 4, 4096, typical_rows=12)
    # Found by the fuzzer (not an issue-10 item): Q 9×8, K 48483×8, V 48483×5, small values, the
    # scale-by-d_k pitfall (0.125) and a key-padding mask hiding nothing. Row 6's float32 weights
    # sum to 1.00001043 in double, so check_attention reports a correct softmax row as not summing
    # to 1 (kSumTolerance 1e-5 does not grow with m).
    k['found-row-sum-m-48483'] = bytes.fromhex('f044ffff')
    # The same at the row limit: Q 1×32, K 65536×32, V 65536×2, numbers from the generator in
    # −8 … 8, key padding hiding nothing, scale 1/32: the row's weights sum to 1.00001928.
    k['found-row-sum-m-65536'] = bytes.fromhex('010000ffffffffffffffff01')
    return c


def main():
    for harness, seeds in corpus().items():
        folder = os.path.join(HERE, 'corpus', harness)
        os.makedirs(folder, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(folder, name), 'wb') as f:
                f.write(bytes(data))


if __name__ == '__main__':
    main()
