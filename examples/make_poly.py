#!/usr/bin/python3
"""Writes the polynomial fit of docs/training.md: poly.json, x.npy, y.npy.

The model is yhat = w0*x^2 + w1*x + w2 with w a [3,1] variable (initialised
to [0.1, -0.2, 0.3] by `w/Assign`), fed a batch of x and y, and a loss per
example, (yhat - y)^2. The data are 100 points x uniform in [-10, 10]
(seed 7) and y = 5x^2 + 3, so training should find w near [5, 0, 3].
    python3 examples/make_poly.py examples
"""
import json
import random
import struct
import sys


def npy(path, values):
    """A float32 vector as NumPy's format 1.0 (no NumPy needed)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def main(out):
    f32 = {"T": "float32"}
    nodes = [
        {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1]}},
        {"name": "y", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1]}},
        {"name": "w", "op": "VariableV2", "attrs": {"dtype": "float32", "shape": [3, 1]}},
        {"name": "w0", "op": "Const", "attrs": {"dtype": "float32", "value": {
            "dtype": "float32", "shape": [3, 1], "values": [0.1, -0.2, 0.3]}}},
        {"name": "w/Assign", "op": "Assign", "inputs": ["w", "w0"], "attrs": f32},
        {"name": "sq", "op": "Square", "inputs": ["x"], "attrs": f32},
        {"name": "one", "op": "OnesLike", "inputs": ["x"], "attrs": f32},
        {"name": "f", "op": "Pack", "inputs": ["sq", "x", "one"],
         "attrs": {"N": 3, "T": "float32", "axis": 1}},
        {"name": "mm", "op": "MatMul", "inputs": ["f", "w"], "attrs": f32},
        {"name": "yhat", "op": "Squeeze", "inputs": ["mm"],
         "attrs": {"T": "float32", "squeeze_dims": [1]}},
        {"name": "d", "op": "Sub", "inputs": ["yhat", "y"], "attrs": f32},
        {"name": "loss", "op": "Square", "inputs": ["d"], "attrs": f32},
    ]
    with open(out + "/poly.json", "w") as f:
        json.dump({"format": "grt.graph", "version": 1, "nodes": nodes}, f, indent=1)
        f.write("\n")
    random.seed(7)
    xs = [random.uniform(-10, 10) for _ in range(100)]
    npy(out + "/x.npy", xs)
    npy(out + "/y.npy", [5 * x * x + 3 for x in xs])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
