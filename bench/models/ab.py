#!/usr/bin/env python3
"""Two builds or two settings of grt on one model, run a few runs of each in turn.

    python3 bench/models/ab.py MODEL.grt IN.npy A B [--rounds R] [--runs K] [--warmup W]
                               [--gap-ms G]

A and B each name a model_bench binary, optionally followed by settings
after commas: environment variables (NAME=VALUE) and session options
(--option=KEY=VALUE); or `ort`: ONNX Runtime on the .onnx beside MODEL.grt
(run_ort.js, NODE_PATH default /work/ort/node_modules). E.g.

    /tmp/old/model_bench  /tmp/new/model_bench
    bazel-bin/bench/model_bench  bazel-bin/bench/model_bench,--option=rewrite=false
    ort  bazel-bin/bench/model_bench

Both start once (`--serve`: load, session, warm-up), then for R
rounds (default 30) each runs K times (default 5), the order alternating
round by round, with a pause of G ms (default 300) before each arm's turn:
ONNX Runtime's threads spin for a while after a run and take the cores
from the other arm (mobilenet_v2 batch 1, grt after ORT: per-round ratio
1.50 with 20 ms pauses, 1.07 with 300, and 1.01 from the two run alone). A shared machine's speed swings by 2x within
minutes (bench/models/PROFILE.md); separate runs of the two minutes apart
compare those swings, while rounds a fraction of a second apart see the
same machine. A grt arm runs with GOMP_SPINCOUNT=10000 unless the arm or the
environment sets it or OMP_WAIT_POLICY: the wait policy a quiet machine
gets (tools/blas_threads.h). model_bench would otherwise choose it from the
1-minute load average as it starts, which the benchmark's own threads
raise above 1.5 on a 2-vCPU machine within a sitting, so later arms got
passive waiting (mobilenet_v2 batch 1 at 1.8x ONNX Runtime's time in one
such start, 0.74 in the next). Prints per arm the min and the median of all runs, and per round
the ratio B / A of the round medians: its median and the share of rounds
in which B was faster. Exit status 2 for a bad argument or a failed start.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def start(arm, model, inp, warmup):
    if arm == "ort":
        onnx = os.path.splitext(model)[0] + ".onnx"
        env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/work/ort/node_modules"))
        js = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_ort.js")
        cmd = ["node", js, onnx, inp, "--warmup", str(warmup), "--serve"]
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                text=True, bufsize=1)
    parts = arm.split(",")
    binary, env, opts = parts[0], dict(os.environ), []
    for p in parts[1:]:
        if p.startswith("--option="):
            opts += ["--option", p[len("--option="):]]
        elif "=" in p:
            k, v = p.split("=", 1)
            env[k] = v
        else:
            sys.exit(f"ab.py: '{p}' in '{arm}' is neither NAME=VALUE nor --option=KEY=VALUE")
    if "OMP_WAIT_POLICY" not in env:
        env.setdefault("GOMP_SPINCOUNT", "10000")
    cmd = [binary, model, "--input", inp, "--warmup", str(warmup), "--serve"] + opts
    try:
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                text=True, bufsize=1)
    except OSError as e:
        sys.exit(f"ab.py: cannot start {binary}: {e}")


def runs(proc, k, arm):
    try:
        proc.stdin.write(f"{k}\n")
        proc.stdin.flush()
    except BrokenPipeError:
        sys.exit(f"ab.py: {arm} has exited (status {proc.wait()})")
    line = proc.stdout.readline().split()
    if not line or line[0] != "TIMES":
        sys.exit(f"ab.py: {arm} stopped answering (exit status {proc.poll()})")
    return [float(t) for t in line[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--gap-ms", type=float, default=300,
                    help="pause between arms, so that one's spinning threads have stopped")
    a = ap.parse_args()
    if a.rounds < 1 or a.runs < 1:
        sys.exit("ab.py: --rounds and --runs must be at least 1")
    arms = [a.a, a.b]
    procs = [start(arm, a.model, a.input, a.warmup) for arm in arms]
    times, medians = [[], []], [[], []]
    for r in range(a.rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            time.sleep(a.gap_ms / 1e3)
            t = runs(procs[i], a.runs, arms[i])
            times[i] += t
            medians[i].append(statistics.median(t))
    for p in procs:
        p.stdin.close()
        p.wait()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{os.path.basename(a.model)}: {a.rounds} rounds of {a.runs} runs each, load average "
          f"{load} at the end")
    for name, i in (("A", 0), ("B", 1)):
        print(f"  {name} {arms[i]}: min {min(times[i]):.3f} ms, median "
              f"{statistics.median(times[i]):.3f} ms")
    ratios = [b / x for x, b in zip(medians[0], medians[1])]
    faster = sum(1 for q in ratios if q < 1)
    print(f"  B / A per round: median {statistics.median(ratios):.3f} (quartiles "
          f"{statistics.quantiles(ratios, n=4)[0]:.3f} / {statistics.quantiles(ratios, n=4)[2]:.3f})"
          f"; B faster in {faster} of {len(ratios)} rounds" if len(ratios) > 1 else
          f"  B / A: {ratios[0]:.3f}")


if __name__ == "__main__":
    main()
