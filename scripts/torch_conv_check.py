#!/usr/bin/env python3
"""End-to-end check of grouped and 3-D convolution and dilated pooling:
models made with PyTorch (random weights, eval mode), exported to ONNX,
converted with `grt convert`, run with `grt run`, compared with PyTorch.

Needs torch and torchvision (not on CI; the CI tests use the small models
under tests/interchange/onnx instead). Usage:
  python3 scripts/torch_conv_check.py GRT_BINARY WORKDIR [MODEL...]
Prints one line per model: the max relative difference (max |grt - torch|
over max |torch|) and the time per inference of grt (from `grt run` with 1
and with STEPS + 1 steps, so process start and conversion are left out)
and of PyTorch (mean of STEPS after one warm-up), both on all cores."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision

STEPS = 10

class Small3D(torch.nn.Module):
    """3-D convolution (plain, grouped, padded, strided, dilated), 3-D
    max/average pooling and a transposed 3-D convolution, as a video or
    volume network's layers."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv3d(3, 8, 3, padding=1)
        self.p1 = torch.nn.MaxPool3d(2)
        self.c2 = torch.nn.Conv3d(8, 16, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), groups=4)
        self.c3 = torch.nn.Conv3d(16, 16, 3, padding=2, dilation=2, groups=16)
        self.p2 = torch.nn.AvgPool3d(2, padding=1, count_include_pad=False)
        self.up = torch.nn.ConvTranspose3d(16, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        x = self.p1(torch.relu(self.c1(x)))
        x = torch.relu(self.c3(torch.relu(self.c2(x))))
        return self.up(self.p2(x))


class DilatedPool(torch.nn.Module):
    """2-D max pooling with dilation and padding between grouped convolutions
    (ShuffleNet v1's 1x1 group convolutions)."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(6, 12, 1, groups=3)
        self.p = torch.nn.MaxPool2d(3, stride=2, padding=1, dilation=2)
        self.c2 = torch.nn.Conv2d(12, 12, 3, padding=1, groups=4)

    def forward(self, x):
        return self.c2(self.p(torch.relu(self.c1(x))))


MODELS = {
    "regnet_y_400mf": (lambda: torchvision.models.regnet_y_400mf(), (1, 3, 224, 224)),
    "resnext50_32x4d": (lambda: torchvision.models.resnext50_32x4d(), (1, 3, 224, 224)),
    "small3d": (Small3D, (2, 3, 8, 16, 16)),
    "dilated_pool": (DilatedPool, (2, 6, 17, 19)),
}


def main():
    grt, work = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or list(MODELS)
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        make, shape = MODELS[name]
        model = make().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            want = model(x).numpy()
        onnx_path = os.path.join(work, name + ".onnx")
        grt_path = os.path.join(work, name + ".grt")
        x_path = os.path.join(work, name + "_x.npy")
        torch.onnx.export(model, x, onnx_path, input_names=["x"], output_names=["y"],
                          opset_version=13)
        np.save(x_path, x.numpy())
        subprocess.run([grt, "convert", onnx_path, grt_path], check=True)
        def grt_run(steps):
            t0 = time.perf_counter()
            run = subprocess.run([grt, "run", grt_path, "--feed", "x=@" + x_path, "--fetch", "y",
                                  "--compact", "--quiet", "--steps", str(steps)],
                                 check=True, capture_output=True, text=True)
            return run, time.perf_counter() - t0
        run, t_one = grt_run(1)
        t_grt = (grt_run(STEPS + 1)[1] - t_one) / STEPS
        with torch.no_grad():
            t0 = time.perf_counter()
            for _ in range(STEPS):
                model(x)
            t_torch = (time.perf_counter() - t0) / STEPS
        got = json.loads(run.stdout)  # the fetch as a JSON tensor
        got = np.array(got["values"], dtype=np.float32).reshape(want.shape)
        rel = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
        print("%-16s max rel diff %.3g  grt %.1f ms  torch %.1f ms" %
              (name, rel, t_grt * 1e3, t_torch * 1e3))


if __name__ == "__main__":
    main()
