#!/usr/bin/python3
"""Writes the PyTorch reference fixtures under tests/fixtures/.

Run with Debian's python3-torch (1.13):  tools/bootstrap.sh --torch && /usr/bin/python3 tools/make_fixtures.py

Inputs are drawn with fixed seeds and rounded to float32, so the C++ core sees exactly the
numbers PyTorch saw. References are computed in float64 with torch.softmax and
torch.nn.MultiheadAttention. Both the doctest suite and the JS tests read these files and
apply the tolerances written into them.
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures")

# |core - reference| <= abs + rel * |reference|, per entry.
# Single head: inputs of size ~1 and d_k <= 65 give float32 rounding errors of a few 1e-6
# in the scores; the softmax does not amplify them (its Jacobian is bounded by 1/2).
ATTENTION_TOLERANCE = {"abs": 1e-5, "rel": 1e-5}
# The learned model (src/learned/model.hpp): float32 forward and backward through 2 layers against
# float64 autograd. Loss and gradients are of size ~1; a float32 residual stream of a few dozen
# products keeps each entry within a few 1e-6 relative, gradients of tiny entries within 1e-5 abs.
LEARNED_TOLERANCE = {"abs": 2e-5, "rel": 1e-4}
# Multi-head adds two float32 products of length d_model (projections and W_O) around it.
MULTIHEAD_TOLERANCE = {"abs": 5e-5, "rel": 5e-5}


def f32(t):
    """Round to float32, then keep float64 for the reference math."""
    return t.to(torch.float32).to(torch.float64)


def rows(t):
    return [[None if math.isinf(x) else float(x) for x in r] for r in t.tolist()]


def hidden_grid(mask, n, m):
    kind = mask["kind"]
    if kind == "none":
        return torch.zeros(n, m, dtype=torch.bool)
    if kind == "causal":
        return torch.triu(torch.ones(n, m, dtype=torch.bool), diagonal=1)
    if kind == "key_padding":
        return torch.tensor(mask["hidden"], dtype=torch.bool).expand(n, m).clone()
    if kind == "custom":
        return torch.tensor(mask["hidden"], dtype=torch.bool).reshape(n, m)
    raise ValueError(kind)


def attention_case(name, q, k, v, mask=None, scale=None, mask_after_softmax=False):
    mask = mask or {"kind": "none"}
    n, m = q.shape[0], k.shape[0]
    hidden = hidden_grid(mask, n, m)
    fully = hidden.all(dim=1)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[1])
    scores = q @ k.T
    scaled = scores * s
    if mask_after_softmax:
        masked = scaled
        weights = torch.softmax(scaled, dim=-1).masked_fill(hidden, 0.0)
    else:
        masked = scaled.masked_fill(hidden, float("-inf"))
        weights = torch.softmax(masked, dim=-1)
        # PyTorch gives NaN for a row with no visible key; the core defines it as all zeros.
        weights[fully] = 0.0
    output = weights @ v
    return {
        "name": name,
        "q": rows(q), "k": rows(k), "v": rows(v),
        "mask": mask,
        "scale": scale,
        "mask_after_softmax": mask_after_softmax,
        "expected": {
            "scale": s,
            "scores": rows(scores),
            "masked": rows(masked),
            "weights": rows(weights),
            "output": rows(output),
            "fully_masked": [bool(x) for x in fully.tolist()],
        },
    }


def randn(g, *shape):
    return f32(torch.randn(*shape, generator=g, dtype=torch.float64))


def attention_cases():
    g = torch.Generator().manual_seed(20261129)
    cases = []
    q = torch.tensor([[1.0, 1.0], [0.0, 1.0], [-1.0, 0.0]], dtype=torch.float64)
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], dtype=torch.float64)
    v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    cases.append(attention_case("worked example", q, k, v))
    cases.append(attention_case("worked example, causal", q, k, v, {"kind": "causal"}))
    cases.append(attention_case("1 token, d = 1", randn(g, 1, 1), randn(g, 1, 1), randn(g, 1, 1)))
    cases.append(attention_case("self-attention 4 tokens, d_k 3, d_v 5",
                                randn(g, 4, 3), randn(g, 4, 3), randn(g, 4, 5)))
    cases.append(attention_case("causal 6 tokens", randn(g, 6, 4), randn(g, 6, 4), randn(g, 6, 3),
                                {"kind": "causal"}))
    cases.append(attention_case("key padding", randn(g, 5, 4), randn(g, 5, 4), randn(g, 5, 2),
                                {"kind": "key_padding", "hidden": [False, True, False, False, True]}))
    custom = [[(i + 2 * j) % 3 == 0 for j in range(6)] for i in range(4)]
    cases.append(attention_case("cross-attention with a custom mask",
                                randn(g, 4, 3), randn(g, 6, 3), randn(g, 6, 4),
                                {"kind": "custom", "hidden": sum(custom, [])}))
    cases.append(attention_case("cross-attention 3 queries, 7 keys",
                                randn(g, 3, 5), randn(g, 7, 5), randn(g, 7, 2)))
    cases.append(attention_case("odd sizes, causal cross-attention",
                                randn(g, 9, 65), randn(g, 17, 65), randn(g, 17, 7), {"kind": "causal"}))
    cases.append(attention_case("64-wide heads", randn(g, 33, 64), randn(g, 40, 64), randn(g, 40, 64)))
    fully = [[False, True, False, True], [True, True, True, True], [False, False, False, True]]
    cases.append(attention_case("a fully masked row", randn(g, 3, 2), randn(g, 4, 2), randn(g, 4, 3),
                                {"kind": "custom", "hidden": sum(fully, [])}))
    cases.append(attention_case("every key padded", randn(g, 2, 2), randn(g, 2, 2), randn(g, 2, 2),
                                {"kind": "key_padding", "hidden": [True, True]}))
    big_q = torch.tensor([[100.0, 0.0], [0.0, -100.0]], dtype=torch.float64)
    big_k = torch.tensor([[100.0, 0.0], [-100.0, 0.0], [99.0, 1.0], [0.0, 100.0]], dtype=torch.float64)
    cases.append(attention_case("scores of ±1e4", big_q, big_k, randn(g, 4, 2)))
    cases.append(attention_case("scores of 1e30", f32(torch.tensor([[1e15, 1e15]], dtype=torch.float64)),
                                f32(torch.tensor([[1e15, 0.0], [0.0, 1e15], [-1e15, 0.0]], dtype=torch.float64)),
                                randn(g, 3, 2)))
    q, k, v = randn(g, 4, 16), randn(g, 4, 16), randn(g, 4, 2)
    cases.append(attention_case("pitfall: no scaling", q, k, v, scale=1.0))
    cases.append(attention_case("pitfall: scale by 1/d_k", q, k, v, scale=1.0 / 16))
    cases.append(attention_case("pitfall: mask after the softmax", q, k, v, {"kind": "causal"},
                                mask_after_softmax=True))
    return cases


def multihead_case(name, g, n, d, h, bias, mask=None):
    mask = mask or {"kind": "none"}
    x = randn(g, n, d)
    mha = torch.nn.MultiheadAttention(d, h, bias=bias, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(f32(randn(g, 3 * d, d) / math.sqrt(d)))
        mha.out_proj.weight.copy_(f32(randn(g, d, d) / math.sqrt(d)))
        if bias:
            mha.in_proj_bias.copy_(f32(randn(g, 3 * d) * 0.1))
            mha.out_proj.bias.copy_(f32(randn(g, d) * 0.1))
    w_in = mha.in_proj_weight.detach()
    b_in = mha.in_proj_bias.detach() if bias else torch.zeros(3 * d, dtype=torch.float64)
    # nn.Linear computes x·Wᵀ + b; the lesson (and the core) write x·W + b, so W = weightᵀ.
    wq, wk, wv = w_in[:d].T, w_in[d:2 * d].T, w_in[2 * d:].T
    wo = mha.out_proj.weight.detach().T
    bq, bk, bv = b_in[:d], b_in[d:2 * d], b_in[2 * d:]
    bo = mha.out_proj.bias.detach() if bias else torch.zeros(d, dtype=torch.float64)

    hidden = hidden_grid(mask, n, n)
    kwargs = {}
    if mask["kind"] == "key_padding":
        kwargs["key_padding_mask"] = torch.tensor([mask["hidden"]], dtype=torch.bool)
    elif mask["kind"] != "none":
        kwargs["attn_mask"] = hidden
    with torch.no_grad():
        out, weights = mha(x[None], x[None], x[None], need_weights=True,
                           average_attn_weights=False, **kwargs)
    out, weights = out[0], weights[0]

    q, k, v = x @ wq + bq, x @ wk + bk, x @ wv + bv
    d_k = d // h
    head_outputs = [weights[i] @ v[:, i * d_k:(i + 1) * d_k] for i in range(h)]
    concat = torch.cat(head_outputs, dim=1)
    assert torch.allclose(concat @ wo + bo, out, atol=1e-12), name

    case = {
        "name": name, "heads": h, "bias": bias, "mask": mask,
        "x": rows(x), "wq": rows(wq), "wk": rows(wk), "wv": rows(wv), "wo": rows(wo),
        "expected": {
            "q": rows(q), "k": rows(k), "v": rows(v),
            "head_weights": [rows(w) for w in weights],
            "head_outputs": [rows(z) for z in head_outputs],
            "concat": rows(concat),
            "output": rows(out),
        },
    }
    if bias:
        case.update({"bq": bq.tolist(), "bk": bk.tolist(), "bv": bv.tolist(), "bo": bo.tolist()})
    return case


def multihead_cases():
    g = torch.Generator().manual_seed(768)
    custom = [[(i * j) % 4 == 3 for j in range(7)] for i in range(7)]
    return [
        multihead_case("d 4, 2 heads, no bias", g, 3, 4, 2, False),
        multihead_case("d 8, 4 heads, biases, causal", g, 5, 8, 4, True, {"kind": "causal"}),
        multihead_case("d 6, 3 heads, biases, key padding", g, 4, 6, 3, True,
                       {"kind": "key_padding", "hidden": [False, False, True, False]}),
        multihead_case("d 12, 3 heads, biases, custom mask", g, 7, 12, 3, True,
                       {"kind": "custom", "hidden": sum(custom, [])}),
        multihead_case("d 16, 1 head, no bias", g, 5, 16, 1, False),
        multihead_case("d 5, 5 heads of width 1, biases", g, 3, 5, 5, True),
    ]


VOCABULARY = 28  # a-z, space, BOS (src/learned/vocabulary.hpp)
BOS = 27


def learned_loss(params, cfg, tokens, targets):
    """The learned model's mean cross-entropy, written from model.hpp with torch ops.

    params is the flat parameter vector in the C++ Layout order: E (V x d), P (context x d),
    then per layer W_QKV (d x 3d, columns [Q | K | V], head h at h*d_head) and W_O (d x d),
    then U (d x V). The causal softmax is torch.softmax over masked scores."""
    L, H, d, T = cfg["layers"], cfg["heads"], cfg["dModel"], cfg["context"]
    dh = d // H
    scale = 1.0 if cfg["scale"] == "none" else 1.0 / math.sqrt(dh)
    at = 0

    def take(r, c):
        nonlocal at
        m = params[at:at + r * c].reshape(r, c)
        at += r * c
        return m

    E, P = take(VOCABULARY, d), take(T, d)
    layers = [(take(d, 3 * d), take(d, d)) for _ in range(L)]
    U = take(d, VOCABULARY)
    assert at == params.numel()
    B, n = tokens.shape
    h = E[tokens] + P[:n][None]
    hidden = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    for wqkv, wo in layers:
        qkv = h @ wqkv
        heads = []
        for i in range(H):
            q = qkv[..., i * dh:(i + 1) * dh]
            k = qkv[..., d + i * dh:d + (i + 1) * dh]
            v = qkv[..., 2 * d + i * dh:2 * d + (i + 1) * dh]
            s = (q @ k.transpose(-1, -2) * scale).masked_fill(hidden, float("-inf"))
            heads.append(torch.softmax(s, dim=-1) @ v)
        h = h + torch.cat(heads, dim=-1) @ wo
    logits = h @ U
    return torch.nn.functional.cross_entropy(logits.reshape(B * n, VOCABULARY), targets.reshape(-1),
                                             ignore_index=-1)


def learned_case(name, g, layers, heads, d, context, batch, scale="sqrt"):
    cfg = {"layers": layers, "heads": heads, "dModel": d, "context": context, "scale": scale}
    count = VOCABULARY * d + context * d + layers * 4 * d * d + d * VOCABULARY
    params = f32(torch.randn(count, generator=g, dtype=torch.float64) * 0.5).requires_grad_(True)
    tokens = torch.randint(0, VOCABULARY - 1, (batch, context), generator=g)
    tokens[:, 0] = BOS
    targets = torch.full((batch, context), -1, dtype=torch.long)
    targets[:, :-1] = tokens[:, 1:]
    targets[0, 2] = -1  # a position that predicts nothing
    loss = learned_loss(params, cfg, tokens, targets)
    loss.backward()
    return {
        "name": name, "config": cfg,
        "params": params.detach().tolist(),
        "tokens": tokens.tolist(), "targets": targets.tolist(),
        "expected": {"loss": loss.item(), "gradient": params.grad.tolist()},
    }


def learned_cases():
    g = torch.Generator().manual_seed(13)
    return [
        learned_case("2 layers, 2 heads of 4, context 9, batch 2", g, 2, 2, 8, 9, 2),
        learned_case("2 layers, 4 heads of 3, context 12, no scale", g, 2, 4, 12, 12, 1, "none"),
        learned_case("1 layer, 1 head of 5, context 6, batch 3", g, 1, 1, 5, 6, 3),
        learned_case("2 layers, 4 heads of 4, context 17, batch 2", g, 2, 4, 16, 17, 2),
    ]


def write(name, tolerance, cases):
    doc = {
        "generated_by": "tools/make_fixtures.py with PyTorch " + torch.__version__ + ", float64",
        "note": "Generated file; regenerate rather than edit. null in a matrix stands for -inf.",
        "tolerance": tolerance,
        "cases": cases,
    }
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(path)}: {len(cases)} cases")


if __name__ == "__main__":
    torch.set_printoptions(precision=10)
    write("attention.json", ATTENTION_TOLERANCE, attention_cases())
    write("multihead.json", MULTIHEAD_TOLERANCE, multihead_cases())
    write("learned.json", LEARNED_TOLERANCE, learned_cases())
    sys.exit(0)
