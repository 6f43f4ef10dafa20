#!/usr/bin/env python3
"""Writes the all-reduce graphs of cluster_train_test.sh into OUT_DIR.

  allreduce.json: NcclAllReduce groups (float32, float64, float16, int32,
      int64) with one member on /job:worker/task:0 and one on
      /job:worker/task:1 of `ps:1,worker:2`, so the ps task, which holds no
      member, takes part with zeros; each member's sum is fetched.
  big.json: float32 and float16 groups of BIG elements (768 and 384 KiB,
      past the size from which the MPI transport sums with libnbc's ring),
      members on both workers of `ps:1,worker:2` (x and 3x, cast to
      float16 for the second group), the sums cast to float32 and fetched;
      big_x.npy, its x.
  lonely.json: one group of two members on tasks 0 and 1 of `ps:1,worker:1`
      and a node `other` outside it: a rank that runs only `other` leaves the
      group's all-reduce waiting until the run's deadline.
  optimized_cluster.json, optimized_local.json: work the graph optimizer
      changes across tasks (a constant subexpression on worker:1 that a
      MatMul on the ps task reads, MatMul + BiasAdd + Relu there, an
      Identity chain on worker:0), on a fed x from worker:0; the same graph
      on logical CPUs /cpu:0-2 of one process; optimized_x.npy, its x."""
import json
import struct
import sys

W0 = "/job:worker/task:0/device:CPU:0"
W1 = "/job:worker/task:1/device:CPU:0"


def const(name, device, dtype, values):
    return {"name": name, "op": "Const", "device": device,
            "attrs": {"dtype": dtype, "value": {"dtype": dtype, "shape": [len(values)],
                                                "values": values}}}


def member(name, src, device, dtype, n):
    return {"name": name, "op": "NcclAllReduce", "inputs": [src], "device": device,
            "attrs": {"T": dtype, "reduction": "sum", "num_devices": n, "shared_name": "g_" + dtype}}


def allreduce():
    vals = {
        "float32": ([1.5, -2.25, 1e30], [0.25, 2.25, 1e30]),
        "float64": ([1e-300, 0.1, 2.0], [1e-300, 0.2, -2.0]),
        "float16": ([0.5, 1.0, 65504.0], [0.25, -3.0, -1.0]),
        "int32": ([2147483647, -5, 7], [1, 5, -8]),
        "int64": ([9007199254740993, 1, 2], [1, -1, -2]),
    }
    g = []
    for dt, (a, b) in vals.items():
        g.append(const("a_" + dt, W0, dt, a))
        g.append(const("b_" + dt, W1, dt, b))
        g.append(member("sum0_" + dt, "a_" + dt, W0, dt, 2))
        g.append(member("sum1_" + dt, "b_" + dt, W1, dt, 2))
    return g


BIG = 196608


def big_x():
    return [((i * 7919) % 20001 - 10000) / 1024.0 for i in range(BIG)]


def big():
    def node(name, op, inputs, device, **attrs):
        return {"name": name, "op": op, "inputs": inputs, "device": device, "attrs": attrs}
    g = [{"name": "x", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [BIG]}},
         {"name": "three", "op": "Const", "device": W1,
          "attrs": {"dtype": "float32", "value": {"dtype": "float32", "shape": [],
                                                  "values": [3]}}},
         node("x3", "Mul", ["x", "three"], W1, T="float32"),
         node("h0", "Cast", ["x"], W0, SrcT="float32", DstT="float16"),
         node("h1", "Cast", ["x3"], W1, SrcT="float32", DstT="float16")]
    for w, (dev, a, h) in enumerate(((W0, "x", "h0"), (W1, "x3", "h1"))):
        g.append(member("big%d_float32" % w, a, dev, "float32", 2))
        g.append(member("big%d_f16" % w, h, dev, "float16", 2))
        g.append(node("big%d_float16" % w, "Cast", ["big%d_f16" % w], dev, SrcT="float16",
                      DstT="float32"))
    for n in g:
        if n["op"] == "NcclAllReduce":
            n["attrs"]["shared_name"] = "big_" + n["attrs"]["T"]
    return g


def lonely():
    return [
        const("a", "/job:ps/task:0/device:CPU:0", "float32", [1, 2]),
        const("b", "/job:worker/task:0/device:CPU:0", "float32", [3, 4]),
        member("s0", "a", "/job:ps/task:0/device:CPU:0", "float32", 2),
        member("s1", "b", "/job:worker/task:0/device:CPU:0", "float32", 2),
        const("other", "/job:worker/task:0/device:CPU:0", "float32", [5]),
    ]


def optimized(p, w0, w1):
    def const2(name, device, shape, values):
        return {"name": name, "op": "Const", "device": device,
                "attrs": {"dtype": "float32", "value": {"dtype": "float32", "shape": shape,
                                                        "values": values}}}

    def op(name, kind, inputs, device):
        return {"name": name, "op": kind, "inputs": inputs, "device": device,
                "attrs": {"T": "float32"}}
    return [
        {"name": "x", "op": "Placeholder", "device": w0,
         "attrs": {"dtype": "float32", "shape": [2, 3]}},
        const2("c1", w1, [3, 2], [0.5, -1, 2, 0.25, -3, 1.5]),
        const2("c2", w1, [3, 2], [1, 1, -0.5, 2, 0.75, -1]),
        op("cs", "Add", ["c1", "c2"], w1),
        op("cs2", "Mul", ["cs", "cs"], w1),
        op("m", "MatMul", ["x", "cs2"], p),
        const2("bias", p, [2], [0.125, -4]),
        op("ba", "BiasAdd", ["m", "bias"], p),
        op("r", "Relu", ["ba"], p),
        op("i1", "Identity", ["r"], w0),
        op("i2", "Identity", ["i1"], w0),
        op("out", "Neg", ["i2"], w1),
    ]


if __name__ == "__main__":
    for name, fn in (("allreduce", allreduce), ("lonely", lonely), ("big", big)):
        with open("%s/%s.json" % (sys.argv[1], name), "w") as f:
            json.dump({"format": "grt.graph", "version": 1, "nodes": fn()}, f)
    for name, devs in (("cluster", ("/job:ps/task:0/device:CPU:0", W0, W1)),
                       ("local", ("/cpu:0", "/cpu:1", "/cpu:2"))):
        with open("%s/optimized_%s.json" % (sys.argv[1], name), "w") as f:
            json.dump({"format": "grt.graph", "version": 1, "nodes": optimized(*devs)}, f)
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open("%s/optimized_x.npy" % sys.argv[1], "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<6f", 1, -2, 0.5, 3, 0.25, -1))
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % BIG
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open("%s/big_x.npy" % sys.argv[1], "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%df" % BIG, *big_x()))
