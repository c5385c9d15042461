#!/usr/bin/python3
"""GPT-2's decode step as ONNX, with past keys and values: the onnxruntime-web side of the decoding
benchmark (tools/bench/gpt2-decode.mjs). The weights are read from the GPT-2-small-shaped
safetensors file (make_gpt2_fixtures.py --small-shaped), the very file the core opens, so both
sides compute the same model; the step is written out here in PyTorch (float32) and exported
with torch.onnx (opset 17).

    onnx_gpt2_decode.py [OUT.onnx] [--model MODEL.safetensors] [--form FORM]
        default OUT: build-fixtures/gpt2-small-shaped/model-decode.onnx, beside model.onnx

One step reads one token against the cache:
    inputs   ids int64 [1, 1]; past.L.key, past.L.value float32 [1, H, t, 64] for each layer L
             (t may be 0; the token's position is t, read from past.0.key's shape)
    outputs  logits [1, 50257] (this token's); present.L.key, present.L.value [1, H, t + 1, 64]
No mask: the one query may see every cached position.

The forms tried (FORM), all float32, in onnxruntime-web 1.30 (wasm backend, 1 thread,
graphOptimizationLevel 'all') under Node 20 on a 2-core Intel Xeon shared with other work: ms per
step after 63 steps of prefill, 8 rounds of 5 steps, forms in turns, the median round; a first
run took gemm and matmul-t in turns, a second gemm, kt and wte-x:
    gemm       unembedding as one Gemm(x, wte, transB = 1): one copy of wte        48.7; 50.9 ms
    matmul-t   unembedding as a MatMul against a second, pre-transposed copy of wte
               [768, 50257] (what torch.onnx makes of F.linear, folding the transpose)   49.4 ms
    kt         as matmul-t, with K kept transposed, [1, H, 64, t], so that Q·K needs no
               Transpose (past.L.key then has that shape)                                  51.4 ms
    wte-x      unembedding as MatMul(wte, xᵀ), as model.onnx does: MLAS then runs a
               50257 × 768 by 768 × 1 product, with one column of B                         75.9 ms
Every block's product is MatMul + Add on a [1, d] row in all of them (onnxruntime's MatMul and
Gemm kernels prepack a constant weight for MLAS alike). gemm and matmul-t are within the rounds'
spread of each other; gemm is kept, as it is also the smaller file (498 MB, not 652). All four
gave the same greedy ids. (K and V as one concatenated tensor per layer was not tried: attention
reads 19 MB of cache a token at 256 tokens against 498 MB of weights, so its layout barely counts.)
Nor were the contrib attention ops (MultiHeadAttention, or GroupQueryAttention with a cache shared
between past and present): through onnxruntime-web's JS API every run copies its inputs into the
wasm heap and its outputs out, so the cache crosses twice a step whatever op reads it (about 38 MB
a step at 256 tokens; part of why a step there is slower than at 64, where the core's is not).
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_gpt2_fixtures import EPS, SMALL, SMALL_SHAPED, read_safetensors  # noqa: E402

FORMS = ("matmul-t", "gemm", "wte-x", "kt")
DEFAULT_FORM = "gemm"  # the fastest (see above)


class GemmTransB(torch.autograd.Function):
    """x · wᵀ exported as one Gemm(x, w, transB = 1): torch.onnx would otherwise fold the transpose
    into a second, transposed copy of w (which is the matmul-t form)."""

    @staticmethod
    def forward(ctx, x, w):
        return x @ w.t()

    @staticmethod
    def symbolic(g, x, w):
        return g.op("Gemm", x, w, transB_i=1)


class DecodeStep(nn.Module):
    """One position through GPT-2 against the cache: Hugging Face's computation (gpt2.md), with
    x kept as a row [1, d] so that every product is one GEMV."""

    def __init__(self, weights, layers, heads, form):
        super().__init__()
        self.layers, self.heads, self.form = layers, heads, form
        f32 = lambda name: torch.from_numpy(np.ascontiguousarray(weights[name], dtype=np.float32))
        param = lambda t: nn.Parameter(t, requires_grad=False)
        self.wte, self.wpe = param(f32("wte.weight")), param(f32("wpe.weight"))
        self.d = self.wte.shape[1]
        if form in ("matmul-t", "kt"):
            self.wte_t = param(self.wte.detach().t().contiguous())
        names = ["ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                 "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
                 "mlp.c_proj.weight", "mlp.c_proj.bias"]
        self.blocks = nn.ModuleList()
        for i in range(layers):
            block = nn.Module()
            for name in names:
                block.register_parameter(name.replace(".", "_"), param(f32(f"h.{i}.{name}")))
            self.blocks.append(block)
        self.lnf_weight, self.lnf_bias = param(f32("ln_f.weight")), param(f32("ln_f.bias"))

    def forward(self, ids, *past):
        d, H = self.d, self.heads
        dh = d // H
        kt = self.form == "kt"
        t = past[0].shape[3 if kt else 2]
        x = self.wte[ids[0]] + self.wpe[t]  # [1, d]
        norm = lambda v, g, b: nn.functional.layer_norm(v, (d,), g, b, EPS)
        presents = []
        for i, b in enumerate(self.blocks):
            qkv = norm(x, b.ln_1_weight, b.ln_1_bias) @ b.attn_c_attn_weight + b.attn_c_attn_bias
            q, k, v = qkv.split(d, dim=-1)
            # One position: [1, d] is [1, H, 1, dh] in memory already, so a reshape splits the heads.
            q = q.reshape(1, H, 1, dh) * (1.0 / dh ** 0.5)
            v = torch.cat([past[2 * i + 1], v.reshape(1, H, 1, dh)], dim=2)
            if kt:
                k = torch.cat([past[2 * i], k.reshape(1, H, dh, 1)], dim=3)
                scores = q @ k
            else:
                k = torch.cat([past[2 * i], k.reshape(1, H, 1, dh)], dim=2)
                scores = q @ k.transpose(-1, -2)
            presents += [k, v]
            z = (torch.softmax(scores, dim=-1) @ v).reshape(1, d)
            x = x + z @ b.attn_c_proj_weight + b.attn_c_proj_bias
            m = norm(x, b.ln_2_weight, b.ln_2_bias) @ b.mlp_c_fc_weight + b.mlp_c_fc_bias
            x = x + nn.functional.gelu(m, approximate="tanh") @ b.mlp_c_proj_weight + b.mlp_c_proj_bias
        x = norm(x, self.lnf_weight, self.lnf_bias)
        if self.form == "gemm":
            logits = GemmTransB.apply(x, self.wte)
        elif self.form == "wte-x":
            logits = (self.wte @ x.t()).t()
        else:
            logits = x @ self.wte_t
        return (logits, *presents)


def export(out, model_path, form):
    t0 = time.perf_counter()
    weights, _ = read_safetensors(model_path)  # float64 arrays; the file's float32 values exactly
    L, H, d = SMALL["layers"], SMALL["heads"], SMALL["d"]
    step = DecodeStep(weights, L, H, form).eval()
    del weights
    dh = d // H
    past_shape = (1, H, dh, 3) if form == "kt" else (1, H, 3, dh)
    axis = 3 if form == "kt" else 2
    inputs, outputs, dynamic = ["ids"], ["logits"], {}
    for i in range(L):
        for kind in ("key", "value"):
            a = axis if kind == "key" else 2
            inputs.append(f"past.{i}.{kind}")
            outputs.append(f"present.{i}.{kind}")
            dynamic[inputs[-1]] = {a: "t"}
            dynamic[outputs[-1]] = {a: "t_plus_1"}
    past = [torch.zeros(past_shape if n.endswith("key") else (1, H, 3, dh)) for n in inputs[1:]]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".partial"
    with torch.no_grad():
        torch.onnx.export(step, (torch.tensor([[464]]), *past), tmp, opset_version=17, input_names=inputs,
                          output_names=outputs, dynamic_axes=dynamic, do_constant_folding=True)
    os.replace(tmp, out)  # a complete file or none: the benchmark makes it when missing
    print(f"wrote {out}: {os.path.getsize(out):,} bytes, the decode step ({form}) of {model_path}; "
          f"{time.perf_counter() - t0:.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=os.path.join(SMALL_SHAPED, "model-decode.onnx"))
    parser.add_argument("--model", default=os.path.join(SMALL_SHAPED, "model.safetensors"))
    parser.add_argument("--form", choices=FORMS, default=DEFAULT_FORM)
    args = parser.parse_args()
    torch.set_num_threads(1)
    export(args.out, args.model, args.form)


if __name__ == "__main__":
    main()
