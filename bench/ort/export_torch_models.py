#!/usr/bin/env python3
"""Exports the torch models issue 20 converts (shufflenet_v2_x1_0, a small
vit_b_16-shaped ViT at opsets 13 and 17, nn.TransformerEncoder with
batch_first) to ONNX, with a fixed input as .npy and PyTorch's output as
.npy beside each, for `grt convert` / `grt run` to be compared against.
With a grt binary, also converts and runs each model and prints the
largest difference from PyTorch's output, relative to its largest value.
Needs torch and torchvision (not needed by the build or the tests).
  python3 bench/ort/export_torch_models.py OUT_DIR [path/to/grt]
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision


def export(name, model, x, opset, out_dir):
    model.eval()
    path = os.path.join(out_dir, f"{name}.onnx")
    with torch.no_grad():
        y = model(x)
    # Outside no_grad: with gradients on, torch 1.13's attention layers
    # keep off their fused fast path, which has no ONNX export.
    torch.onnx.export(model, (x,), path, opset_version=opset, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    np.save(os.path.join(out_dir, f"{name}.input.npy"), x.numpy())
    np.save(os.path.join(out_dir, f"{name}.expected.npy"), y.numpy())
    print(name, "opset", opset, "->", path, tuple(y.shape))
    return name


def check(grt, out_dir, name):
    base = os.path.join(out_dir, name)
    r = subprocess.run([grt, "convert", base + ".onnx", base + ".grt"], capture_output=True,
                       text=True)
    if r.returncode:
        print(f"{name}: convert failed: {r.stderr.strip()}")
        return
    r = subprocess.run([grt, "run", base + ".grt", "--feed", f"input=@{base}.input.npy",
                        "--fetch", "output", "--quiet"], capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: run failed: {r.stderr.strip()}")
        return
    got = np.array(json.loads(r.stdout)["values"], dtype=np.float64)
    want = np.load(base + ".expected.npy").astype(np.float64).ravel()
    diff = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
    print(f"{name}: max |grt - torch| / max |torch| = {diff:.3g}")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/grt-torch-models"
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)
    names = []
    names.append(export("shufflenet_v2_x1_0", torchvision.models.shufflenet_v2_x1_0(), x, 13,
                       out_dir))
    # vit_b_16's code (torchvision's VisionTransformer) at a small size.
    vit = torchvision.models.vision_transformer.VisionTransformer(
        image_size=32, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128)
    # Its head starts at zero, which would compare nothing.
    torch.nn.init.normal_(vit.heads.head.weight, std=0.02)
    xv = torch.randn(1, 3, 32, 32)
    for opset in (13, 17):
        names.append(export(f"vit_small_opset{opset}", vit, xv, opset, out_dir))
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                             batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, num_layers=2)
    names.append(export("transformer_encoder", enc, torch.randn(2, 5, 32), 13, out_dir))
    if len(sys.argv) > 2:
        for name in names:
            check(sys.argv[2], out_dir, name)


if __name__ == "__main__":
    main()
