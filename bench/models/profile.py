#!/usr/bin/env python3
"""Time per op type of one model in grt and in ONNX Runtime, side by side.

    python3 bench/models/profile.py MODEL BATCH [--steps N] [--scratch DIR]
                                    [--bin DIR] [--option KEY=VALUE]... [--nodes TSV]

Runs the model (DIR/opset17/MODEL.grt and .onnx with the input
MODEL.bBATCH.in.npy, as bench/models/run.sh leaves them; default DIR
/tmp/grt-models) N times (default 40) in each runtime, on 2 threads:
  grt: `grt run --steps N --trace` (the Chrome trace of every kernel,
       docs/cli.md), BIN/grt (default bazel-bin/tools/grt);
  ORT: profile_ort.js, ONNX Runtime's own profiler (enableProfiling).
The first 5 runs of each are dropped. Per node the minimum over the runs
is kept (the machine is shared: a minimum is what load disturbs least),
and the nodes' minima are summed per op type and per group of op types
the two runtimes share (the table GROUPS). Per run, the gap is the run's
wall time (first kernel's start to last kernel's end) less the time inside
kernels: the executor's own work between kernels; its median over runs is
printed. Prints Markdown (the tables of PROFILE.md).
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

SKIP = 5  # warm-up runs dropped

# op type -> group; grt's (TensorFlow names, _Fused*) and ORT's (ONNX and
# com.microsoft names, after its optimizer). ORT's Conv is "depthwise conv"
# when its filter is [C, 1, kh, kw] on C input channels (depthwise()).
GROUPS = {
    "conv": "Conv2D _FusedConv2D Conv FusedConv NhwcFusedConv",
    "depthwise conv": "DepthwiseConv2dNative _FusedDepthwiseConv2dNative",
    # grt's expansion + depthwise convolution in one node: compare it with
    # ORT's expansion Conv (in "conv") and depthwise Conv together.
    "expansion + depthwise (one node)": "_FusedExpandDepthwise",
    "matmul / gemm": "MatMul BatchMatMulV2 BatchMatMul _FusedMatMul Gemm FusedMatMul FusedGemm "
                     "MatMulNBits",
    "attention": "_ScaledDotProductAttention _PackedQKVAttention Attention MultiHeadAttention",
    "layer norm": "_LayerNorm LayerNormalization SkipLayerNormalization SimplifiedLayerNormalization",
    "softmax": "Softmax",
    "gelu": "_Gelu Gelu BiasGelu FastGelu Erf",
    "mean / pooling": "Mean AvgPool MaxPool GlobalAveragePool AveragePool ReduceMean",
    "element-wise": "Mul Add AddV2 Sub RealDiv Div Sigmoid Relu Relu6 BiasAdd QuickGelu Tanh Sqrt "
                    "Rsqrt Pow HardSigmoid HardSwish Clip Maximum Minimum Neg Exp",
    "layout: transpose, reorder": "Transpose ReorderInput ReorderOutput",
    "copies, shapes": "Reshape Flatten Squeeze ExpandDims ConcatV2 Concat Slice StridedSlice "
                      "Gather GatherV2 Shape Prod Pack Identity Const Split SplitV Unsqueeze",
}
GROUP_OF = {op: g for g, ops in GROUPS.items() for op in ops.split()}


def grt_events(path):
    """Per run, the (node, op, start, dur) of each kernel, from grt's trace."""
    with open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    # Every step runs the same nodes once each, in one trace: split the
    # events where the first node of a step comes again.
    runs, first = [], events[0]["name"] if events else None
    for e in events:
        if e["name"] == first:
            runs.append([])
        runs[-1].append((e["name"], e["args"]["op"], e["ts"], e["dur"]))
    return runs


def depthwise(args):
    shapes = [next(iter(s.values())) for s in args.get("input_type_shape", [])]
    return (len(shapes) >= 2 and len(shapes[0]) == 4 and len(shapes[1]) == 4 and shapes[1][1] == 1
            and shapes[0][1] == shapes[1][0] > 1)


def ort_events(path):
    """Per run, the (node, op, start, dur) of each kernel, from ORT's profile."""
    with open(path) as f:
        events = json.load(f)
    execs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("cat") == "Session" and e["name"] == "SequentialExecutor::Execute")
    runs = [[] for _ in execs]
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        op = e["args"]["op_name"]
        if op == "Conv" and depthwise(e["args"]):
            op = "Conv (depthwise)"
        for i, (a, b) in enumerate(execs):
            if a <= e["ts"] <= b:
                runs[i].append((e["name"], op, e["ts"], e["dur"]))
                break
    return runs


def summarize(runs):
    runs = runs[SKIP:]
    if not runs:
        sys.exit("profile.py: fewer runs than the warm-up")
    mins, op_of, count = {}, {}, collections.Counter()
    walls, gaps = [], []
    for r in runs:
        for name, op, _, dur in r:
            mins[name] = min(mins.get(name, dur), dur)
            op_of[name] = op
        walls.append(r[-1][2] + r[-1][3] - r[0][2])
        gaps.append(walls[-1] - sum(d for _, _, _, d in r))
    by_op = collections.defaultdict(float)
    for name, t in mins.items():
        by_op[op_of[name]] += t
        count[op_of[name]] += 1
    med = lambda v: sorted(v)[len(v) // 2]
    return {"mins": mins, "op_of": op_of, "by_op": by_op, "count": count, "wall_min": min(walls), "wall_med": med(walls),
            "gap_med": med(gaps), "kernels": len(mins), "runs": len(runs)}


def group(op):
    if op == "Conv (depthwise)":
        return "depthwise conv"
    return GROUP_OF.get(op, "other")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("batch", type=int)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--scratch", default="/tmp/grt-models")
    ap.add_argument("--bin", default="bazel-bin/tools")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--nodes", help="also write each node's minimum, per runtime, to this TSV")
    a = ap.parse_args()
    if a.steps <= SKIP:
        sys.exit(f"profile.py: --steps must be above {SKIP} (the warm-up)")
    d = os.path.join(a.scratch, "opset17")
    inp = os.path.join(d, f"{a.model}.b{a.batch}.in.npy")
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "grt.json")
        cmd = [os.path.join(a.bin, "grt"), "run", os.path.join(d, a.model + ".grt"), "--feed",
               "input=@" + inp, "--fetch", "output", "--steps", str(a.steps), "--trace", trace,
               "--compact"] + [x for o in a.option for x in ("--option", o)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        g = summarize(grt_events(trace))
        env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/work/ort/node_modules"))
        prefix = os.path.join(tmp, "ort")
        subprocess.run(["node", os.path.join(here, "profile_ort.js"), os.path.join(d, a.model + ".onnx"),
                        inp, prefix, str(a.steps)], check=True, env=env)
        o = summarize(ort_events(glob.glob(prefix + "*.json")[0]))

    if a.nodes:
        with open(a.nodes, "w") as f:
            for label, side in (("grt", g), ("ort", o)):
                for name, t in side["mins"].items():
                    f.write(f"{label}\t{side['op_of'][name]}\t{t:.1f}\t{name}\n")
    print(f"### {a.model}, batch {a.batch}\n")
    print(f"{g['runs']} runs each after {SKIP} warm-up; per node its minimum over the runs, in µs "
          "per run; grt/ORT per group\n")
    print("| group | grt µs (nodes) | ORT µs (nodes) | grt/ORT |")
    print("|---|---:|---:|---:|")
    for side in (g, o):
        side["groups"] = collections.defaultdict(lambda: [0.0, 0])
        for op, t in side["by_op"].items():
            side["groups"][group(op)][0] += t
            side["groups"][group(op)][1] += side["count"][op]
    names = sorted(set(g["groups"]) | set(o["groups"]),
                   key=lambda k: -max(g["groups"][k][0], o["groups"][k][0]))
    ratio = lambda x, y: f"{x / y:.2f}" if y > 0 else "-"
    for k in names:
        (gt, gn), (ot, on) = g["groups"][k], o["groups"][k]
        print(f"| {k} | {gt:.0f} ({gn}) | {ot:.0f} ({on}) | {ratio(gt, ot)} |")
    gs, os_ = sum(g["by_op"].values()), sum(o["by_op"].values())
    print(f"| **kernels, sum of minima** | {gs:.0f} ({g['kernels']}) | {os_:.0f} ({o['kernels']}) | "
          f"{ratio(gs, os_)} |")
    print(f"| gap between kernels, median per run | {g['gap_med']:.0f} | {o['gap_med']:.0f} | |")
    print(f"| run wall, min / median | {g['wall_min']:.0f} / {g['wall_med']:.0f} | "
          f"{o['wall_min']:.0f} / {o['wall_med']:.0f} | {ratio(g['wall_min'], o['wall_min'])} |")
    print()
    for label, side in (("grt", g), ("ORT", o)):
        ops = sorted(side["by_op"].items(), key=lambda kv: -kv[1])
        print(f"{label} op types: " + ", ".join(f"{op} {t:.0f} ({side['count'][op]})" for op, t in ops
                                                if t >= 1) + "\n")


if __name__ == "__main__":
    main()
