#!/usr/bin/python3
"""GPT-2's forward over a whole text as ONNX, written node by node with the onnx Python API: the
onnxruntime-web side of the GPT-2 benchmark (tools/bench-gpt2.mjs). The weights are read from the
GPT-2-small-shaped safetensors file (make_gpt2_fixtures.py --small-shaped), the very file the core
opens, so both sides compute the same model.

    onnx_gpt2_prefill.py [OUT.onnx] [--model MODEL.safetensors] [--form FORM]
        default OUT: build-fixtures/gpt2-small-shaped/model-fast.onnx, beside model.onnx

    inputs   ids int64 [1, n]
    outputs  logits [1, 50257] (the last token's); attentions.L [1, H, n, n] for each layer L
             (every head's softmax weights, as run() returns them)

The same inputs and outputs as model.onnx (make_gpt2_fixtures.py --onnx, a torch.onnx export of
the hand-written PyTorch GPT-2), without what makes that graph slow in onnxruntime-web. That
export (1,376 nodes: 488 Constant, 132 Unsqueeze, 112 Gather, 109 Shape, 48 Concat, 12 Where over
a [1024, 1024] mask buffer a layer, ...) computes the last row's logits as MatMul(wte, xᵀ): MLAS
then runs a 50,257 × 768 by 768 × 1 product, with one column of B and wte unpacked, where
Gemm(x, wte, transB = 1) is a row against a prepacked wte. That product is most of the gap: the
same graph as the plain form below but with that unembedding took 127 ms at 10 tokens against
98 ms with the Gemm (model.onnx 144 ms), onnxruntime-web 1.30, wasm, 1 thread, 'all', on a 2-core
Intel Xeon shared with other work (load average about 2 to 3), 3 rounds in turns, medians.

The forms (FORM), all float32, tried in onnxruntime-web 1.30 as above; ms at 10, 64 and 256 tokens,
only the logits fetched, forms in turns within a run (runs at different loads are not comparable):
    run 1: contrib 91.0, 406.5, 1461.0; gemm 93.4, 411.4, 1455.9; plain 96.1, 404.5, 1484.3
    run 2: contrib 104.1, 380.3, 1474.7; attention 91.4, 373.8, 1484.3
    run 3: model.onnx 144.1, 422.0, 1531.1; plain 98.2, 381.5, 1502.5; attention 105.1, 388.1, 1482.6
The four are within the rounds' spread of each other: once the unembedding is a Gemm, MLAS's
products are nearly all of the time (natively, in onnxruntime-node 1.30's profile at 64 tokens,
MatMul 78 % and the Gemm 10 %; SkipLayerNormalization, FastGelu and Softmax 2 to 5 % each).
MLAS does prepack the weights in the wasm build: with session.disable_prepacking the attention
form took 153 and 445 ms at 10 and 64 tokens against 97 and 382 ms in the same turns.
attention is kept: the fewest nodes (131; plain 418, contrib 265, gemm 253) and no Transpose.
"""
import argparse
import os
import sys
import time

import numpy as np

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    sys.exit("onnx_gpt2_prefill.py needs the onnx Python package (Debian: apt-get install python3-onnx)")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_gpt2_fixtures import EPS, SMALL, SMALL_SHAPED, read_safetensors  # noqa: E402

# plain      standard ONNX ops only (opset 17): LayerNormalization, MatMul + Add, the tanh GELU
#            written out, Softmax over Q·Kᵀ plus a causal mask sliced from a constant; 1/√dh folded
#            into the query's weights (× 0.125, exact); only the last position goes through ln_f
#            and the unembedding, which is Gemm(x, wte, transB = 1)
# contrib    plain with onnxruntime's fused CPU ops, which its wasm build has (com.microsoft):
#            SkipLayerNormalization (residual + bias + LayerNorm in one pass), FastGelu with its bias
# gemm       contrib with x kept as rows [n, d], every projection one Gemm with its bias
# attention  contrib with each layer's attention one ONNX Attention node (opset 23: heads split
#            inside, is_causal, the softmax weights returned as its qk output, mode 3): no
#            Transpose, no mask; onnxruntime's com.microsoft Attention and MultiHeadAttention
#            return no weights, so they cannot stand in for it
FORMS = ("plain", "contrib", "gemm", "attention")
DEFAULT_FORM = "attention"


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, outputs=1, domain="", name=None, **attrs):
        self.count += 1
        outs = [name] if name else [f"{op_type}_{self.count}_{i}" for i in range(outputs)]
        if name and outputs > 1:
            outs = [name] + [f"{op_type}_{self.count}_{i}" for i in range(1, outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=f"{op_type}_{self.count}",
                                           domain=domain or None, **attrs))
        return outs[0] if outputs == 1 else outs


def build(weights, form):
    L, H, d = SMALL["layers"], SMALL["heads"], SMALL["d"]
    dh, ctx = d // H, SMALL["context"]
    f32 = lambda name: np.ascontiguousarray(weights[name], dtype=np.float32)
    g = Graph()
    contrib, rows = form in ("contrib", "gemm", "attention"), form == "gemm"  # rows: x kept as [n, d]
    fused = form == "attention"  # ONNX's Attention (opset 23), its softmax weights as the qk output
    opset = 23 if fused else 17
    g.const("wte", f32("wte.weight"))
    g.const("wpe", f32("wpe.weight"))
    zero, one, minus_one = g.const("i0", np.array([0], np.int64)), g.const("i1", np.array([1], np.int64)), g.const("im1", np.array([-1], np.int64))
    big = g.const("ibig", np.array([2**62], np.int64))
    heads_shape = g.const("heads_shape", np.array([1, -1, H, dh], np.int64))
    rows_shape = g.const("rows_shape", np.array([-1, d] if rows else [1, -1, d], np.int64))
    n = g.op("Shape", ["ids"], start=1, end=2)  # [n]
    if not fused:  # a causal mask to add to the scores: 0 on and below the diagonal, -inf above
        g.const("causal", np.triu(np.full((ctx, ctx), -np.inf, np.float32), 1))
        mask = g.op("Slice", ["causal", g.const("i00", np.array([0, 0], np.int64)), g.op("Concat", [n, n], axis=0)])  # [n, n]
    pos = g.op("Slice", ["wpe", zero, n, zero])  # [n, d]
    x = g.op("Add", [g.op("Gather", ["wte", "ids"], axis=0), pos])  # [1, n, d]
    if rows:
        x = g.op("Reshape", [x, rows_shape])

    def linear(h, w, b):  # (h · w, its bias still to add) or (h · w + b, None)
        if rows:
            return g.op("Gemm", [h, w, b]), None
        return g.op("MatMul", [h, w]), b
    scale = np.ones(3 * d, np.float32)
    scale[:d] = 1.0 if fused else 1.0 / np.sqrt(dh)  # 0.125: folding it into Wq and bq changes no bit of the scores

    pending = None  # contrib: (delta, bias) still to be added to x, by the next SkipLayerNormalization
    def norm(gamma, beta):
        nonlocal x, pending
        if pending is None:
            return g.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=EPS)
        (delta, bias), pending = pending, None
        out, _, _, x = g.op("SkipLayerNormalization", [delta, x, gamma, beta] + ([bias] if bias else [""]), outputs=4,
                            domain="com.microsoft", epsilon=EPS)
        return out

    for i in range(L):
        p = f"h.{i}."
        c = lambda name, a: g.const(p + name, a)
        h = norm(c("ln_1.weight", f32(p + "ln_1.weight")), c("ln_1.bias", f32(p + "ln_1.bias")))
        qkv, bias = linear(h, c("c_attn.weight", f32(p + "attn.c_attn.weight") * scale), c("c_attn.bias", f32(p + "attn.c_attn.bias") * scale))
        if bias:
            qkv = g.op("Add", [qkv, bias])
        q, k, v = g.op("Split", [qkv], outputs=3, axis=-1, **({"num_outputs": 3} if opset >= 18 else {}))
        if fused:  # [1, n, d] each: the op splits the heads, masks causally and scales by 1/√dh
            g.nodes.append(helper.make_node("Attention", [q, k, v], [f"z.{i}", "", "", f"attentions.{i}"], name=f"Attention_{i}",
                                            q_num_heads=H, kv_num_heads=H, is_causal=1, qk_matmul_output_mode=3))
            z = f"z.{i}"  # [1, n, d], the heads side by side
        else:
            q, k, v = (g.op("Reshape", [t, heads_shape]) for t in (q, k, v))  # [1, n, H, dh]
            q = g.op("Transpose", [q], perm=[0, 2, 1, 3])  # [1, H, n, dh]
            kt = g.op("Transpose", [k], perm=[0, 2, 3, 1])  # [1, H, dh, n]
            v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
            scores = g.op("Add", [g.op("MatMul", [q, kt]), mask])
            weights_out = g.op("Softmax", [scores], axis=-1, name=f"attentions.{i}")
            z = g.op("MatMul", [weights_out, v])  # [1, H, n, dh]
            z = g.op("Reshape", [g.op("Transpose", [z], perm=[0, 2, 1, 3]), rows_shape])
        proj, proj_bias = linear(z, c("c_proj.weight", f32(p + "attn.c_proj.weight")), c("c_proj.bias", f32(p + "attn.c_proj.bias")))
        if contrib:
            pending = (proj, proj_bias)
        else:
            x = g.op("Add", [x, g.op("Add", [proj, proj_bias])])
        h = norm(c("ln_2.weight", f32(p + "ln_2.weight")), c("ln_2.bias", f32(p + "ln_2.bias")))
        fc, fc_bias = linear(h, c("c_fc.weight", f32(p + "mlp.c_fc.weight")), c("c_fc.bias", f32(p + "mlp.c_fc.bias")))
        if contrib:
            act = g.op("FastGelu", [fc] + ([fc_bias] if fc_bias else []), domain="com.microsoft")
        else:  # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), the form onnxruntime's FastGeluFusion matches
            y = g.op("Add", [fc, fc_bias])
            inner = g.op("Mul", [g.op("Add", [y, g.op("Mul", [g.op("Mul", [g.op("Mul", [y, y]), y]),
                                                               g.const(p + "k3", np.float32(0.044715))])]),
                                 g.const(p + "k1", np.float32(np.sqrt(2 / np.pi)))])
            act = g.op("Mul", [g.op("Mul", [y, g.const(p + "half", np.float32(0.5))]),
                               g.op("Add", [g.op("Tanh", [inner]), g.const(p + "kone", np.float32(1.0))])])
        out, out_bias = linear(act, c("mlp.c_proj.weight", f32(p + "mlp.c_proj.weight")), c("mlp.c_proj.bias", f32(p + "mlp.c_proj.bias")))
        if contrib:
            pending = (out, out_bias)  # added to x by the next block's first norm
        else:
            x = g.op("Add", [x, g.op("Add", [out, out_bias])])
    if contrib:  # the last block's residual, added on the last position only
        (out, bias), last = pending, lambda t: g.op("Slice", [t, minus_one, big, zero if rows else one])
        x = g.op("Add", [last(out), last(x)])
        if bias:
            x = g.op("Add", [x, bias])
    else:
        x = g.op("Slice", [x, minus_one, big, one])  # [1, 1, d]: the last position only from here
    x = g.op("Reshape", [x, g.const("row_shape", np.array([1, d], np.int64))])
    x = g.op("LayerNormalization", [x, g.const("ln_f.weight", f32("ln_f.weight")), g.const("ln_f.bias", f32("ln_f.bias"))],
             axis=-1, epsilon=EPS)
    g.op("Gemm", [x, "wte"], transB=1, name="logits")  # x · wteᵀ without a transposed copy of wte

    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "n"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, SMALL["vocab"]])]
    outputs += [helper.make_tensor_value_info(f"attentions.{i}", TensorProto.FLOAT, [1, H, "n", "n"]) for i in range(L)]
    graph = helper.make_graph(g.nodes, f"gpt2-{form}", inputs, outputs, g.inits)
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if contrib else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="attention-calc tools/bench/onnx_gpt2_prefill.py")
    model.ir_version = 10 if fused else 8  # opset 23 needs IR 10 (this onnx package may predate it)
    return model


def export(out, model_path, form):
    t0 = time.perf_counter()
    weights, _ = read_safetensors(model_path)  # float64 arrays; the file's float32 values exactly
    model = build(weights, form)
    del weights
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".partial"
    onnx.save(model, tmp)
    os.replace(tmp, out)  # a complete file or none: the benchmark makes it when missing
    print(f"wrote {out}: {os.path.getsize(out):,} bytes, the forward ({form}) of {model_path}; "
          f"{time.perf_counter() - t0:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=os.path.join(SMALL_SHAPED, "model-fast.onnx"))
    parser.add_argument("--model", default=os.path.join(SMALL_SHAPED, "model.safetensors"))
    parser.add_argument("--form", choices=FORMS, default=DEFAULT_FORM)
    args = parser.parse_args()
    export(args.out, args.model, args.form)


if __name__ == "__main__":
    main()
