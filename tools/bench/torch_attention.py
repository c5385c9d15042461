#!/usr/bin/python3
"""PyTorch's attention on the CPU, one thread, f32, d = 64: the native baseline of tools/bench.mjs.
Prints one JSON object, or {"skipped": reason} when PyTorch is not installed."""
import json
import sys
import time

try:
    import torch
except ImportError as error:  # python3-torch is only needed to regenerate fixtures and for this
    print(json.dumps({"skipped": f"PyTorch is not installed ({error})"}))
    sys.exit(0)

torch.set_num_threads(1)
quick = "--quick" in sys.argv
d = 64
rows = []
for n in [64, 256, 1024, 2048, 4096]:
    if quick and n > 1024:
        break
    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.rand(n, d, generator=g) * 2 - 1 for _ in range(3))

    def run():
        return torch.softmax(q @ k.T / d ** 0.5, dim=-1) @ v

    run()
    reps = 1
    while True:
        t = time.perf_counter()
        for _ in range(reps):
            run()
        if time.perf_counter() - t >= 0.05 or reps >= 1 << 16:
            break
        reps *= 2
    rounds = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps):
            run()
        rounds.append((time.perf_counter() - t) / reps * 1000)
    rows.append({"n": n, "ms": sorted(rounds)[3]})
# Debian's PyTorch calls whichever libblas.so.3 the system provides: name the one loaded.
with open("/proc/self/maps") as maps:
    loaded = maps.read().lower()
blas = next((name for key, name in [("openblas", "OpenBLAS"), ("libblis", "BLIS"), ("mkl", "MKL"),
                                     ("libblas.so", "reference BLAS")] if key in loaded), "unknown BLAS")
print(json.dumps({"torch": torch.__version__, "blas": blas, "rows": rows}))
