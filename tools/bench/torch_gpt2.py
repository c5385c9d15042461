#!/usr/bin/python3
"""PyTorch's GPT-2 forward, float32, one thread: the PyTorch side of tools/bench-gpt2.mjs, which
takes turns with it. The model is make_gpt2_fixtures.py's (Hugging Face's module tree) with the
weights read from the safetensors file given, the same file the JS side opens.

    torch_gpt2.py MODEL.safetensors
A worker on stdin/stdout, one JSON object a line: it prints {"ready": {torch, blas, threads}} (or
{"skipped": reason}), then answers each request {"ids": [...], "reps": R} with
{"ms": [R times, ms], "top5": [{id, probability}] × 5}: the forward of ids [1, n] to every layer's
attentions and the last token's logits (the work of the ONNX export), timed inside this process.
"""
import json
import os
import struct
import sys
import time

try:
    import numpy as np
    import torch
except ImportError as error:  # python3-torch is only needed for the fixtures and for this
    print(json.dumps({"skipped": f"PyTorch is not installed ({error})"}), flush=True)
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_gpt2_fixtures import GPT2, LastToken, SMALL  # noqa: E402

torch.set_num_threads(1)


def load(path):
    """The F32 tensors of a safetensors file, as float32 arrays (no copy of the file's bytes kept)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        header.pop("__metadata__", None)
        out = {}
        for name, t in header.items():
            begin, end = t["data_offsets"]
            f.seek(8 + n + begin)
            assert t["dtype"] == "F32", "the benchmark's file is F32"
            out[name] = np.frombuffer(f.read(end - begin), "<f4").reshape(t["shape"])
    return out


def main():
    tensors = load(sys.argv[1])
    model = GPT2(SMALL["layers"], SMALL["heads"], SMALL["d"], SMALL["context"], SMALL["vocab"]).eval()
    with torch.no_grad():
        for key, tensor in model.state_dict().items():
            tensor.copy_(torch.from_numpy(tensors.pop(key).copy()))
    model = LastToken(model)
    with open("/proc/self/maps") as maps:
        loaded = maps.read().lower()
    blas = next((name for key, name in [("openblas", "OpenBLAS"), ("libblis", "BLIS"), ("mkl", "MKL"),
                                         ("libblas.so", "reference BLAS")] if key in loaded), "unknown BLAS")
    print(json.dumps({"ready": {"torch": torch.__version__, "blas": blas, "threads": torch.get_num_threads()}}),
          flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        ids = torch.tensor([request["ids"]], dtype=torch.int64)
        times = []
        with torch.no_grad():
            for _ in range(request.get("reps", 1)):
                t = time.perf_counter()
                logits = model(ids)[0]
                times.append((time.perf_counter() - t) * 1000)
        p = torch.softmax(logits[0].double(), dim=-1)
        top = torch.topk(p, 5)
        top5 = [{"id": int(i), "probability": float(q)} for q, i in zip(top.values, top.indices)]
        print(json.dumps({"ms": times, "top5": top5}), flush=True)


if __name__ == "__main__":
    main()
