#!/usr/bin/env python3
"""Writes the all-reduce graphs of cluster_train_test.sh into OUT_DIR.

  allreduce.json: NcclAllReduce groups (float32, float64, float16, int32,
      int64) with one member on /job:worker/task:0 and one on
      /job:worker/task:1 of `ps:1,worker:2`, so the ps task, which holds no
      member, takes part with zeros; each member's sum is fetched.
  lonely.json: one group of two members on tasks 0 and 1 of `ps:1,worker:1`
      and a node `other` outside it: a rank that runs only `other` leaves the
      group's all-reduce waiting until the run's deadline."""
import json
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


if __name__ == "__main__":
    for name, fn in (("allreduce", allreduce), ("lonely", lonely)):
        with open("%s/%s.json" % (sys.argv[1], name), "w") as f:
            json.dump({"format": "grt.graph", "version": 1, "nodes": fn()}, f)
