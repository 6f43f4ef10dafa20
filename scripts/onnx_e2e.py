#!/usr/bin/python3
"""End to end over PyTorch models: export to ONNX, `grt convert` to .grt,
`grt run`, compare with PyTorch's own output. Needs python3-torch and
python3-torchvision (Debian's; not on CI). Weights are random (seeded), so
nothing is downloaded.

    bazel build //tools:grt
    /usr/bin/python3 scripts/onnx_e2e.py bazel-bin/tools/grt /tmp/e2e [--dynamic-batch] [MODEL...]

--dynamic-batch exports the batch dimension as symbolic ("batch").

MODEL: googlenet squeezenet1_1 lstm vit_b_16 inception_v3 (default: all).
Prints, per model, the step that failed and grt's message, or the largest
absolute difference from PyTorch relative to the output's largest value.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(16, 32, batch_first=True)
        self.fc = torch.nn.Linear(32, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1])


def build(name):
    """(module, example input, opset)."""
    if name == "lstm":
        return Lstm(), torch.randn(2, 7, 16), 13
    if name == "vit_b_16":
        m = torchvision.models.vit_b_16()
        # torchvision starts the head at zero: the output would be 0 whatever
        # the body computes.
        torch.nn.init.normal_(m.heads.head.weight, std=0.02)
        return m, torch.randn(1, 3, 224, 224), 17
    if name == "inception_v3":
        return (torchvision.models.inception_v3(aux_logits=False, init_weights=True),
                torch.randn(1, 3, 299, 299), 13)
    if name == "googlenet":
        return (torchvision.models.googlenet(aux_logits=False, init_weights=True),
                torch.randn(1, 3, 224, 224), 13)
    return getattr(torchvision.models, name)(), torch.randn(1, 3, 224, 224), 13


def run(grt, out, name):
    torch.manual_seed(0)
    model, x, opset = build(name)
    model.eval()
    with torch.no_grad():
        want = model(x).numpy()
    onnx_path = os.path.join(out, name + ".onnx")
    grt_path = os.path.join(out, name + ".grt")
    npy = os.path.join(out, name + "_x.npy")
    np.save(npy, x.numpy())
    dynamic = {"x": {0: "batch"}, "y": {0: "batch"}} if DYNAMIC_BATCH else None
    torch.onnx.export(model, x, onnx_path, opset_version=opset, input_names=["x"],
                      output_names=["y"], dynamic_axes=dynamic)
    for step, cmd in (("convert", [grt, "convert", onnx_path, grt_path]),
                      ("run", [grt, "run", grt_path, "--feed", "x=@" + npy, "--fetch", "y"])):
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return "%s failed: %s" % (step, (p.stderr or p.stdout).strip().splitlines()[0])
    got = json.loads(p.stdout.strip().splitlines()[-1])
    got = np.array(got["values"], dtype=np.float64).reshape(got["shape"])
    if got.shape != want.shape:
        return "shape %s, PyTorch %s" % (got.shape, want.shape)
    err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-12)
    return "ok: max |grt - torch| / max |torch| = %.2e (run %.1f s)" % (err, time.time() - t0)


DYNAMIC_BATCH = False


def main():
    global DYNAMIC_BATCH
    if "--dynamic-batch" in sys.argv:
        sys.argv.remove("--dynamic-batch")
        DYNAMIC_BATCH = True
    grt, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[3:] or ["googlenet", "squeezenet1_1", "lstm", "vit_b_16", "inception_v3"]
    for name in names:
        try:
            result = run(grt, out, name)
        except Exception as e:  # noqa: BLE001 - report and go on to the next
            result = "error: %s" % str(e).splitlines()[0]
        print("%-14s %s" % (name, result), flush=True)


if __name__ == "__main__":
    main()
