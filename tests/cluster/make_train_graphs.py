#!/usr/bin/env python3
"""Writes the all-reduce graphs of cluster_train_test.sh into OUT_DIR.

  allreduce.json: NcclAllReduce groups (float32, float64, float16, int32,
      int64) with one member on /job:worker/task:0 and one on
      /job:worker/task:1 of `ps:1,worker:2`, so the ps task, which holds no
      member, takes part with zeros; each member's sum is fetched.
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
    for name, fn in (("allreduce", allreduce), ("lonely", lonely)):
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
