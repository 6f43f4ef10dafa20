#!/usr/bin/env python3
"""Writes the Fashion-MNIST-sized MLP of run.sh's training figures into OUT:
mlp.json (784 -> 128 ReLU -> 10, a softmax cross-entropy per example
`loss`, variables initialised by `init`) and a synthetic batch of BATCH
examples, x.npy (float32 [BATCH, 784]) and labels.npy (int32 [BATCH]).
    python3 make_mlp.py OUT BATCH"""
import json
import random
import struct
import sys


def npy(path, descr, shape, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main(out, batch):
    rnd = random.Random(7)
    f32 = {"T": "float32"}
    nodes = [
        {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1, 784]}},
        {"name": "labels", "op": "Placeholder", "attrs": {"dtype": "int32", "shape": [-1]}},
    ]
    inits = []
    for name, shape in (("w1", [784, 128]), ("b1", [128]), ("w2", [128, 10]), ("b2", [10])):
        n = 1
        for d in shape:
            n *= d
        scale = 0.05 if name[0] == "w" else 0.0
        nodes.append({"name": name, "op": "VariableV2",
                      "attrs": {"dtype": "float32", "shape": shape}})
        nodes.append({"name": name + "/v0", "op": "Const", "attrs": {"dtype": "float32", "value": {
            "dtype": "float32", "shape": shape,
            "values": [round(rnd.uniform(-scale, scale), 5) for _ in range(n)]}}})
        nodes.append({"name": name + "/Assign", "op": "Assign", "inputs": [name, name + "/v0"],
                      "attrs": f32})
        inits.append("^" + name + "/Assign")
    nodes += [
        {"name": "init", "op": "NoOp", "inputs": inits},
        {"name": "h", "op": "MatMul", "inputs": ["x", "w1"], "attrs": f32},
        {"name": "hb", "op": "BiasAdd", "inputs": ["h", "b1"], "attrs": f32},
        {"name": "r", "op": "Relu", "inputs": ["hb"], "attrs": f32},
        {"name": "o", "op": "MatMul", "inputs": ["r", "w2"], "attrs": f32},
        {"name": "logits", "op": "BiasAdd", "inputs": ["o", "b2"], "attrs": f32},
        {"name": "xent", "op": "SparseSoftmaxCrossEntropyWithLogits", "inputs": ["logits", "labels"],
         "attrs": {"T": "float32", "Tlabels": "int32"}},
        {"name": "loss", "op": "Identity", "inputs": ["xent"], "attrs": f32},
    ]
    with open(out + "/mlp.json", "w") as f:
        json.dump({"format": "grt.graph", "version": 1, "nodes": nodes}, f)
    npy(out + "/x.npy", "<f4", [batch, 784], "f", [rnd.random() for _ in range(batch * 784)])
    npy(out + "/labels.npy", "<i4", [batch], "i", [rnd.randrange(10) for _ in range(batch)])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
