#!/usr/bin/python3
"""Writes expected_shapes.txt: ONNX's own shape inference
(onnx.shape_inference.infer_shapes) over every node test of Debian's
libonnx-testdata, one line per value whose shape ONNX knows:

    <test> <value> <d0>,<d1>,...      ("?" for an unknown dimension,
                                       "-" for a scalar)

shape_test compares grt's inferred shapes with these. Needs python3-onnx
(Debian's) only; run from the repository root:

    /usr/bin/python3 tests/onnx_conformance/make_expected_shapes.py
"""
import os
import sys

import onnx
from onnx import shape_inference

DATA = "/usr/share/libonnx-testdata/data/node"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected_shapes.txt")


def dims_of(vi):
    t = vi.type
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in t.tensor_type.shape.dim:
        dims.append(str(d.dim_value) if d.HasField("dim_value") else "?")
    return ",".join(dims) if dims else "-"


def main():
    lines = []
    for test in sorted(os.listdir(DATA)):
        path = os.path.join(DATA, test, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path)
        # What ONNX infers from the inputs alone: the outputs' declarations
        # are dropped, as shape_test drops them before grt imports.
        for o in model.graph.output:
            if o.type.WhichOneof("value") == "tensor_type":
                o.type.tensor_type.ClearField("shape")
        del model.graph.value_info[:]
        try:
            inferred = shape_inference.infer_shapes(model, strict_mode=False)
        except Exception as e:  # noqa: BLE001 - a model ONNX cannot infer
            print("%s: %s" % (test, str(e).splitlines()[0]), file=sys.stderr)
            continue
        g = inferred.graph
        inits = {i.name for i in g.initializer}
        seen = set()
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            if vi.name in seen or vi.name in inits or not vi.name:
                continue
            seen.add(vi.name)
            d = dims_of(vi)
            if d is not None and " " not in vi.name:
                lines.append("%s %s %s" % (test, vi.name, d))
    with open(OUT, "w") as f:
        f.write("# ONNX's inferred shapes (make_expected_shapes.py, onnx %s)\n" % onnx.__version__)
        f.write("\n".join(lines) + "\n")
    print("%d values in %s" % (len(lines), OUT))


if __name__ == "__main__":
    main()
