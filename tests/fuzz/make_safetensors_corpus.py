#!/usr/bin/env python3
# Writes tests/fuzz/corpus/safetensors/: seeds for fuzz_safetensors.cpp, each two bytes (the heads
# option, 0 for d_model / 64, and the chunk size, 1 + byte % 16 or 1 MiB for 255) and then a file:
# small valid GPT-2s in F32, F16 and BF16 (one with "transformer.", lm_head and the attn.bias
# buffers), and every bad file issue 26 names. Standard library only; the files are committed.
#   python3 tests/fuzz/make_safetensors_corpus.py
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'corpus', 'safetensors')


def file_of(header, data=b''):
    """The 8-byte length, the header padded with spaces to a multiple of 8, the data."""
    h = header.encode() if isinstance(header, str) else header
    h += b' ' * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + data


def write(specs, metadata={'format': 'pt'}):
    """specs: (name, dtype, shape, bytes), laid out in that order."""
    header, data = {}, b''
    if metadata is not None:
        header['__metadata__'] = metadata
    for name, dtype, shape, raw in specs:
        header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    return file_of(json.dumps(header, separators=(',', ':')), data)


def encode(values, dtype):
    if dtype == 'F32':
        return struct.pack('<%df' % len(values), *values)
    if dtype == 'F16':
        return struct.pack('<%de' % len(values), *values)
    return b''.join(struct.pack('<I', struct.unpack('<I', struct.pack('<f', v))[0])[2:] for v in values)  # BF16


def count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def gpt2_shapes(layers, d, vocab, context):
    out = [('wte.weight', [vocab, d]), ('wpe.weight', [context, d])]
    for l in range(layers):
        h = 'h.%d.' % l
        out += [(h + 'ln_1.weight', [d]), (h + 'ln_1.bias', [d]),
                (h + 'attn.c_attn.weight', [d, 3 * d]), (h + 'attn.c_attn.bias', [3 * d]),
                (h + 'attn.c_proj.weight', [d, d]), (h + 'attn.c_proj.bias', [d]),
                (h + 'ln_2.weight', [d]), (h + 'ln_2.bias', [d]),
                (h + 'mlp.c_fc.weight', [d, 4 * d]), (h + 'mlp.c_fc.bias', [4 * d]),
                (h + 'mlp.c_proj.weight', [4 * d, d]), (h + 'mlp.c_proj.bias', [d])]
    return out + [('ln_f.weight', [d]), ('ln_f.bias', [d])]


def gpt2_specs(layers=1, d=4, vocab=3, context=2, dtype='F32', prefix='', buffers=False, lm_head=False):
    """A tiny GPT-2, sorted by name as Hugging Face's writer lays it out; weights k/64, exact in every dtype."""
    specs = []
    for i, (name, shape) in enumerate(gpt2_shapes(layers, d, vocab, context)):
        values = [((i * 31 + j * 37) % 97 - 48) / 64 for j in range(count(shape))]
        specs.append((prefix + name, dtype, shape, encode(values, dtype)))
    nan = struct.pack('<f', float('nan'))
    if buffers:
        for l in range(layers):
            specs.append((prefix + 'h.%d.attn.bias' % l, 'F32', [1, 1, context, context], nan * context * context))
            specs.append((prefix + 'h.%d.attn.masked_bias' % l, 'F32', [], nan))
    if lm_head:
        specs.append(('lm_head.weight', 'F32', [vocab, d], nan * vocab * d))
    return sorted(specs)


def replaced(specs, name, dtype=None, shape=None, raw=None):
    out = []
    for n, t, s, r in specs:
        if n == name:
            t, s = dtype or t, shape if shape is not None else s
            r = raw if raw is not None else bytes(count(s) * {'F32': 4, 'I64': 8}.get(t, 2))
        out.append((n, t, s, r))
    return out


def poisoned(specs, name, index, value):
    """One weight of a tensor set to raw bits (NaN or ±Inf)."""
    out = []
    for n, t, s, r in specs:
        if n == name:
            size = 4 if t == 'F32' else 2
            r = r[:index * size] + value + r[(index + 1) * size:]
        out.append((n, t, s, r))
    return out


def corpus():
    c = {}
    H2, H1, H0 = b'\x02', b'\x01', b'\x00'  # heads
    whole, by3, by1 = b'\xff', b'\x02', b'\x00'  # chunks: 1 MiB, 3 bytes, 1 byte
    valid = write(gpt2_specs())
    c['valid-f32'] = H2 + by3 + valid
    c['valid-f32-one-head-by-1'] = H1 + by1 + valid
    c['valid-f16-prefix-lm-head-attn-bias'] = H2 + b'\x06' + write(
        gpt2_specs(layers=2, dtype='F16', prefix='transformer.', buffers=True, lm_head=True))
    c['valid-bf16'] = H2 + whole + write(gpt2_specs(dtype='BF16'))
    c['valid-no-metadata-padded'] = H2 + b'\x04' + write(gpt2_specs(), metadata=None)
    c['heads-default-d-not-64'] = H0 + whole + valid
    c['heads-3-not-dividing'] = b'\x03' + whole + valid

    # Not safetensors at all.
    c['empty'] = H2 + whole
    c['five-bytes'] = H2 + whole + b'\x01\x02\x03\x04\x05'
    c['header-length-zero'] = H2 + whole + bytes(16)
    c['header-length-past-end'] = H2 + whole + struct.pack('<Q', 200) + b'{}      '
    c['header-over-100-mb'] = H2 + whole + struct.pack('<Q', 100_000_001) + b'{}      '
    c['zip-archive'] = H2 + whole + b'PK\x03\x04\x14\x00\x00\x00\x08\x00 pytorch_model.bin'
    c['html-error-page'] = H2 + whole + b'<!DOCTYPE html><html><body>404 Not Found</body></html>'
    # Headers that are not JSON, or not the format's.
    for name, header in [
            ('header-not-json-single-quotes', "{'wte.weight': 1}"),
            ('header-not-json-trailing-comma', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},}'),
            ('header-not-json-unclosed', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}'),
            ('header-not-json-bad-escape', '{"a\\x":1}'),
            ('header-not-json-lone-surrogate', '{"\\ud800":1}'),
            ('header-not-json-text-after', '{} x'),
            ('header-not-json-leading-zero', '{"a":{"dtype":"F32","shape":[01],"data_offsets":[0,4]}}'),
            ('header-not-json-deep', '{"a":{"x":' + '[' * 80 + ']' * 80 + ',"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'),
            ('header-not-object', '[1,2]'),
            ('header-blank', '        '),
            ('tensor-not-object', '{"a":1}'),
            ('metadata-not-string', '{"__metadata__":{"format":1}}'),
            ('dtype-unknown', '{"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}}'),
            ('dtype-missing', '{"a":{"shape":[1],"data_offsets":[0,4]}}'),
            ('shape-bytes-disagree', '{"a":{"dtype":"F32","shape":[3,4],"data_offsets":[0,40]}}'),
            ('shape-negative', '{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}'),
            ('shape-fraction', '{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}'),
            ('shape-overflow', '{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}'),
            ('offsets-past-2-64', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551616]}}'),
            ('offsets-reversed', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}'),
            ('offsets-three', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}'),
            ('offsets-overlap', '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}'),
            ('offsets-overlap-one-byte', '{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[3,7]}}'),
            ('name-twice', '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'),
    ]:
        c[name] = H2 + whole + file_of(header, bytes(64))
    c['header-not-utf8'] = H2 + whole + file_of(b'{"\xc3\x28":1}', bytes(8))
    # Truncated: the valid file cut inside a tensor, and inside its header.
    specs = gpt2_specs()
    offset = 8 + struct.unpack('<Q', valid[:8])[0]
    start = 0
    for n, _, _, r in specs:
        if n == 'h.0.mlp.c_fc.weight':
            break
        start += len(r)
    c['truncated-inside-c-fc'] = H2 + whole + valid[:offset + start + 10]
    c['truncated-inside-header'] = H2 + whole + valid[:100]
    # Safetensors, but not GPT-2.
    c['bert-keys'] = H2 + whole + write([
        ('bert.embeddings.position_ids', 'I64', [1, 2], bytes(16)),
        ('bert.embeddings.word_embeddings.weight', 'F32', [4, 2], bytes(32)),
        ('bert.encoder.layer.0.attention.self.query.weight', 'F32', [2, 2], bytes(16)),
        ('cls.predictions.bias', 'F32', [4], bytes(16))])
    c['no-tensors'] = H2 + whole + write([], metadata=None)
    c['missing-c-fc'] = H2 + whole + write([s for s in specs if s[0] != 'h.0.mlp.c_fc.weight'])
    two = gpt2_specs(layers=2)
    c['missing-layer-0'] = H2 + whole + write([s for s in two if not s[0].startswith('h.0.')])
    c['wrong-shape-c-fc'] = H2 + whole + write(replaced(specs, 'h.0.mlp.c_fc.weight', shape=[4, 15]))
    c['dtype-i64-weight'] = H2 + whole + write(replaced(specs, 'h.0.ln_2.bias', dtype='I64'))
    c['lm-head-untied'] = H2 + whole + write(specs + [('lm_head.weight', 'F32', [2, 4], bytes(32))])
    c['prefix-and-plain-twice'] = H2 + whole + write(specs + [('transformer.wte.weight', 'F32', [3, 4], bytes(48))])
    # Weights that are not finite.
    c['nan-f32-c-fc'] = H2 + by3 + write(poisoned(specs, 'h.0.mlp.c_fc.weight', 21, struct.pack('<f', float('nan'))))
    c['inf-f16-wte'] = H2 + by1 + write(poisoned(gpt2_specs(dtype='F16'), 'wte.weight', 5, b'\x00\xfc'))
    c['inf-bf16-ln-f'] = H2 + whole + write(poisoned(gpt2_specs(dtype='BF16'), 'ln_f.bias', 3, b'\x80\x7f'))
    # Subnormal F16 and BF16 weights (exact conversion).
    sub = replaced(gpt2_specs(dtype='F16'), 'wpe.weight', raw=struct.pack('<8H', 1, 0x8001, 0x3ff, 0x400, 0x155, 0x8000, 0x7bff, 0))
    c['subnormal-f16'] = H2 + by3 + write(sub)
    subb = replaced(gpt2_specs(dtype='BF16'), 'wpe.weight', raw=struct.pack('<8H', 1, 0x8001, 0x7f, 0x80, 0x7f7f, 0x8000, 0xff7f, 0))
    c['subnormal-bf16'] = H2 + by1 + write(subb)
    return c


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, data in corpus().items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
