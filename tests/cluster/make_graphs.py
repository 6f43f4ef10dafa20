#!/usr/bin/env python3
"""Writes the graphs of cluster_test.sh into OUT_DIR, each twice: pinned to
the tasks of a cluster (NAME_cluster.json) and to logical CPUs of one
process (NAME_local.json), so the test can compare their results bit for bit.

  crossings: every dtype, an empty and a scalar tensor, a control edge and a
             68 MiB tensor crossing between tasks ps:0, worker:0, worker:1
  variable:  a variable on /job:ps updated by a value computed on a worker
  deadline:  a value worker:0 sends to ps:0 only when asked for it
  deadline_other: the same with another value in one constant
  pingpong:  4 floats from ps:0 to worker:0 and back each step (the fault
             tests' steady steps; bench/cluster/latency's round trip)
  device_memory: values in the memory of a device the host cannot address
             (the test backend's TEST devices, as a GPU's) sent to and
             received from other tasks, and fetched from worker:1's
  device_all_reduce: an NcclAllReduce group across tasks with its members
             in TEST memory, one on worker:0 and two on worker:1 (run on the
             cluster only: one process has two TEST devices)"""
import json
import sys

TASKS = {
    "P": ("/job:ps/task:0/device:CPU:0", "/cpu:0"),
    "W0": ("/job:worker/task:0/device:CPU:0", "/cpu:1"),
    "W1": ("/job:worker/task:1/device:CPU:0", "/cpu:2"),
    # The test backend's devices (tests/plugin): memory the host cannot address.
    "W0T": ("/job:worker/task:0/device:TEST:0", "/device:TEST:0"),
    "W1T": ("/job:worker/task:1/device:TEST:0", "/device:TEST:1"),
    "W1T1": ("/job:worker/task:1/device:TEST:1", "/device:TEST:0"),
    # A task the cluster lacks: soft placement moves what is pinned there.
    "FAR": ("/job:worker/task:7/device:CPU:0", "/cpu:7"),
}


def const(name, task, dtype, shape, values):
    return {"name": name, "op": "Const", "device": task,
            "attrs": {"dtype": dtype, "value": {"dtype": dtype, "shape": shape, "values": values}}}


def node(name, op, inputs, task, attrs=None):
    n = {"name": name, "op": op, "inputs": inputs, "device": task}
    if attrs:
        n["attrs"] = attrs
    return n


def crossings():
    g = []
    vals = {
        "float32": [1.5, -2.25, 3e-38], "float64": [1e-300, -2.5, 7.0], "int32": [-7, 0, 2147483647],
        "int64": [-9007199254740993, 1, 2], "uint8": [0, 128, 255], "int8": [-128, 0, 127],
        "int16": [-32768, 5, 32767], "bool": [True, False, True], "float16": [0.5, -1.0, 65504.0],
        "bfloat16": [0.5, -2.0, 1.0],
    }
    for dt, v in vals.items():
        # worker:0 -> ps:0 -> worker:1, fetched from worker:1 (to rank 0 again).
        g.append(const("c_" + dt, "W0", dt, [3], v))
        g.append(node("p_" + dt, "Identity", ["c_" + dt], "P"))
        g.append(node("w_" + dt, "Identity", ["p_" + dt], "W1"))
    g.append(const("empty", "W0", "float32", [0, 3], []))
    g.append(node("empty_w1", "Identity", ["empty"], "W1"))
    g.append(const("scalar", "W1", "int64", [], [42]))
    g.append(node("scalar_p", "Identity", ["scalar"], "P"))
    # A control edge across tasks: ctl runs on worker:1 after c_int32 on worker:0.
    g.append(node("ctl", "NoOp", ["^c_int32"], "W1"))
    g.append(node("after_ctl", "Identity", ["scalar", "^ctl"], "W1"))
    # 2^24 + 2^20 float32 values (68 MiB: two chunks of the wire) made on
    # worker:0, compared on ps:0 and worker:1 with the same range made
    # there: 0 when every chunk landed in its place.
    g.append(const("zero", "W0", "float32", [], [0]))
    g.append(const("limit", "W0", "float32", [], [17825792]))
    g.append(const("one", "W0", "float32", [], [1]))
    g.append(node("big", "Range", ["zero", "limit", "one"], "W0", {"Tidx": "float32"}))
    for t in ("P", "W1"):
        g.append(const("zero_" + t, t, "float32", [], [0]))
        g.append(const("limit_" + t, t, "float32", [], [17825792]))
        g.append(const("one_" + t, t, "float32", [], [1]))
        g.append(const("axis_" + t, t, "int32", [1], [0]))
        g.append(node("mine_" + t, "Range", ["zero_" + t, "limit_" + t, "one_" + t], t,
                      {"Tidx": "float32"}))
        g.append(node("diff_" + t, "Sub", ["big", "mine_" + t], t))
        g.append(node("absdiff_" + t, "Abs", ["diff_" + t], t))
        g.append(node("bad_" + t, "Sum", ["absdiff_" + t, "axis_" + t], t))
        g.append(node("weighted_" + t, "Mul", ["big", "mine_" + t], t))
        g.append(node("checksum_" + t, "Sum", ["weighted_" + t, "axis_" + t], t))
    return g


def variable():
    return [
        {"name": "v", "op": "VariableV2", "device": "P", "attrs": {"dtype": "float32", "shape": [2]}},
        const("v0", "P", "float32", [2], [1, 2]),
        node("v_init", "Assign", ["v", "v0"], "P"),
        const("delta", "W1", "float32", [2], [0.5, 0.25]),
        node("delta2", "Mul", ["delta", "delta"], "W1"),
        node("update", "AssignAdd", ["v", "delta2"], "P"),
        const("two", "W0", "float32", [], [2]),
        node("twice", "Mul", ["update", "two"], "W0"),
        # Placed by the rules, not by a pin: colocated with v (on ps), and
        # moved by soft placement from a task the cluster lacks.
        {"name": "v_read", "op": "Identity", "inputs": ["v"], "colocate_with": ["v"]},
        const("far", "FAR", "float32", [], [4]),
        node("far_plus", "Add", ["far", "two"], "W0"),
    ]


def deadline():
    return [
        const("a", "W0", "float32", [2], [1, 2]),
        node("s", "Identity", ["a"], "P"),
        const("b", "W0", "float32", [], [3]),
    ]


def deadline_other():
    # deadline's graph with another value in one constant: refused at start-up.
    g = deadline()
    g[0] = const("a", "W0", "float32", [2], [1, 3])
    return g


def pingpong():
    return [
        const("ping", "P", "float32", [4], [1, 2, 3, 4]),
        node("there", "Identity", ["ping"], "W0"),
        node("back", "Identity", ["there"], "P"),
    ]


def device_memory():
    return [
        const("a", "W0", "float32", [4], [1, 2, 3, 4]),
        node("t", "Mul", ["a", "a"], "W0T"),          # in worker:0's TEST memory
        node("p", "Identity", ["t"], "P"),            # TEST memory -> ps:0's host memory
        node("u", "Add", ["p", "p"], "W1T"),          # ps:0 -> worker:1's TEST memory
        node("m", "Add", ["t", "t"], "W1T"),          # TEST memory -> TEST memory across tasks
        node("u2", "Mul", ["p", "p", "^t"], "W1T"),   # and a control edge into TEST
    ]


def device_all_reduce():
    g = []
    for name, task, vals in (("r0", "W0", [1, 2, 3]), ("r1", "W1", [10, 20, 30]),
                             ("r2", "W1", [100, 200, 300])):
        g.append(const("x_" + name, task, "float32", [3], vals))
        g.append(node(name, "NcclAllReduce", ["x_" + name],
                      {"r0": "W0T", "r1": "W1T", "r2": "W1T1"}[name],
                      {"T": "float32", "reduction": "sum", "num_devices": 3, "shared_name": "g"}))
    return g


def write(path, nodes, which):
    out = []
    for n in nodes:
        n = dict(n)
        if "device" in n:
            n["device"] = TASKS[n["device"]][which]
        out.append(n)
    with open(path, "w") as f:
        json.dump({"format": "grt.graph", "version": 1, "nodes": out}, f)


if __name__ == "__main__":
    d = sys.argv[1]
    for name, fn in (("crossings", crossings), ("variable", variable), ("deadline", deadline),
                     ("deadline_other", deadline_other), ("pingpong", pingpong),
                     ("device_memory", device_memory), ("device_all_reduce", device_all_reduce)):
        write("%s/%s_cluster.json" % (d, name), fn(), 0)
        write("%s/%s_local.json" % (d, name), fn(), 1)
