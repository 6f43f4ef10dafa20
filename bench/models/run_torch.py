#!/usr/bin/python3
"""One benchmark model in PyTorch (eager, CPU, torch.set_num_threads(2)),
timed as model_bench.c times grt and run_ort.js ONNX Runtime.

  run_torch.py NAME IN.npy [--warmup N] [--runs N] [--seconds S]

NAME is a model of export_models.py, built here the same way (same seed,
so the same weights as the exported file). Runs under torch.no_grad(), as
a PyTorch user serves a model: there the TransformerEncoder takes its fused
"fast path", which the ONNX export cannot. Prints min and median per run of
--runs (default 10, continuing until --seconds have passed) and one line for
run.sh:
  RESULT min_ms=M median_ms=D runs=N"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402 (exits with a clear message without torch)
import numpy as np  # noqa: E402
import torch  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("name", help=f"one of: {', '.join(export_models.MODELS)}")
    p.add_argument("input", help="the input .npy")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--seconds", type=float, default=0.0)
    a = p.parse_args()
    if a.warmup < 0 or not 1 <= a.runs <= 10000 or not 0 <= a.seconds <= 3600:
        p.error("--warmup >= 0, --runs 1 to 10000, --seconds 0 to 3600")
    torch.set_num_threads(2)
    m = export_models.build(a.name)
    x = torch.from_numpy(np.load(a.input))
    times = []
    with torch.no_grad():
        for _ in range(a.warmup + 1):
            m(x)
        start = time.perf_counter()
        while len(times) < 10000 and (len(times) < a.runs or time.perf_counter() - start < a.seconds):
            t0 = time.perf_counter()
            m(x)
            times.append((time.perf_counter() - t0) * 1e3)
    mn, md = min(times), statistics.median(times)
    print(f"{a.name}: torch {torch.__version__}: {len(times)} runs: min {mn:.3f} ms, median {md:.3f} ms")
    print(f"RESULT min_ms={mn:.4f} median_ms={md:.4f} runs={len(times)}")


if __name__ == "__main__":
    main()
