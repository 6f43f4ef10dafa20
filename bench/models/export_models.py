#!/usr/bin/python3
"""Exports the real-model benchmark's models to ONNX, with inputs and
PyTorch's outputs as .npy.

Random weights (torch.manual_seed(0) before each model is built), eval
mode, torch.onnx.export at a fixed opset (17; --opset 13 for the older
one) with the batch dimension of the input and the output exported as the
dynamic axis "N", so one file serves batch 1 and 8. Every model has one
float32 input named "input" and one output named "output".

For each model NAME it writes, into OUT/opsetK/:
  NAME.onnx
  NAME.b1.in.npy  NAME.b1.torch.npy    batch 1: input, PyTorch's output
  NAME.b8.in.npy  NAME.b8.torch.npy    batch 8
Models already exported (all five files present) are kept (--force redoes
them). Inputs are standard normal from numpy's generator seeded with the
batch size, so every run writes the same ones.

  export_models.py [--out DIR] [--opset 17|13] [--sweep] [--force] [NAME...]

Without names: the five benchmark models (resnet18, mobilenet_v2,
efficientnet_b0, vit_b_16, transformer); --sweep: the architectures a new
user would try (SWEEP below). Needs Debian's python3-torch and
python3-torchvision (CI has neither: nothing in the build or the tests
runs this). run_torch.py imports build() from here, so PyTorch's timings
are of the very model exported."""
import argparse
import os
import sys
import time
import warnings

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:
    sys.exit(f"export_models.py: {e}: needs numpy, torch and torchvision "
             "(Debian: apt-get install python3-torch python3-torchvision; run with /usr/bin/python3)")

BATCHES = (1, 8)


class LSTMModel(torch.nn.Module):
    """Two stacked LSTM layers over a batch-first sequence; the output is the
    last layer's hidden state at every step (the sequence, not the final
    state, so every step's arithmetic is checked)."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size=128, hidden_size=256, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


def transformer(d_model=512, heads=8, layers=6, ff=2048):
    layer = torch.nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ff, batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    # TransformerEncoder deep-copies one layer, and the exporter stores
    # equal initializers once: drawn again, each layer has weights of its
    # own, as a trained model's are (the file is 6x larger, as it should be).
    for m in enc.modules():
        if m is not enc and hasattr(m, "reset_parameters"):
            m.reset_parameters()
        elif isinstance(m, torch.nn.MultiheadAttention):
            m._reset_parameters()
    return enc


def vision(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


# name: (builder, input shape without the batch dimension)
MODELS = {
    "resnet18": (vision("resnet18"), (3, 224, 224)),
    "resnet50": (vision("resnet50"), (3, 224, 224)),
    "mobilenet_v2": (vision("mobilenet_v2"), (3, 224, 224)),
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), (3, 224, 224)),
    "efficientnet_b0": (vision("efficientnet_b0"), (3, 224, 224)),
    "mnasnet1_0": (vision("mnasnet1_0"), (3, 224, 224)),
    "densenet121": (vision("densenet121"), (3, 224, 224)),
    # Without pretrained weights both keep their auxiliary classifiers,
    # which eval mode leaves out of the output.
    "inception_v3": (vision("inception_v3", init_weights=True), (3, 299, 299)),
    "googlenet": (vision("googlenet", init_weights=True), (3, 224, 224)),
    "squeezenet1_1": (vision("squeezenet1_1"), (3, 224, 224)),
    "shufflenet_v2_x1_0": (vision("shufflenet_v2_x1_0"), (3, 224, 224)),
    "regnet_y_400mf": (vision("regnet_y_400mf"), (3, 224, 224)),
    "resnext50_32x4d": (vision("resnext50_32x4d"), (3, 224, 224)),
    "vgg11": (vision("vgg11"), (3, 224, 224)),
    "alexnet": (vision("alexnet"), (3, 224, 224)),
    "vit_b_16": (vision("vit_b_16"), (3, 224, 224)),
    "lstm": (LSTMModel, (64, 128)),
    "transformer": (transformer, (128, 512)),
}

BENCH = ["resnet18", "mobilenet_v2", "efficientnet_b0", "vit_b_16", "transformer"]
SWEEP = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
         "mnasnet1_0", "densenet121", "inception_v3", "googlenet", "squeezenet1_1",
         "shufflenet_v2_x1_0", "regnet_y_400mf", "resnext50_32x4d", "vgg11", "alexnet",
         "vit_b_16", "lstm", "transformer"]


def build(name):
    """The model NAME with its seeded random weights, in eval mode."""
    if name not in MODELS:
        raise SystemExit(f"export_models.py: unknown model '{name}' (known: {', '.join(MODELS)})")
    torch.manual_seed(0)
    m = MODELS[name][0]()
    # Some heads start at zero (vit_b_16's, googlenet's classifier bias and
    # weights): a comparison of outputs that are all one value proves
    # nothing, so every all-zero weight matrix gets seeded random values.
    with torch.no_grad():
        for p in m.parameters():
            if p.dim() >= 2 and not p.any():
                p.normal_(0.0, 0.02)
    if name in CALIBRATE_BN:
        calibrate_batch_norm(m, MODELS[name][1])
    m.eval()
    return m


# Models whose activations fade to nothing through their fresh batch norms
# (running mean 0, variance 1, which eval mode applies as they are): with
# init_weights, googlenet's output was its classifier's answer to a
# constant, the same for every input to the last bit, so a comparison with
# PyTorch proved nothing.
CALIBRATE_BN = {"googlenet"}


def calibrate_batch_norm(m, shape):
    """Running statistics from three seeded random batches, so that eval
    mode normalises as training would have."""
    for mod in m.modules():
        if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
            mod.reset_running_stats()
            mod.momentum = None  # a cumulative average over the batches
    m.train()
    with torch.no_grad():
        for _ in range(3):
            m(torch.randn((4,) + shape))


def make_input(name, batch):
    shape = (batch,) + MODELS[name][1]
    return np.random.default_rng(batch).standard_normal(shape, dtype=np.float32)


def files(d, name):
    return [f"{d}/{name}.onnx"] + [f"{d}/{name}.b{b}.{k}.npy" for b in BATCHES for k in ("in", "torch")]


def export(name, d, opset, force):
    if not force and all(os.path.exists(f) for f in files(d, name)):
        print(f"{name}: cached in {d}")
        return
    t0 = time.time()
    m = build(name)
    x = torch.from_numpy(make_input(name, 1))
    # Exported with gradients on: in eval mode under no_grad PyTorch's
    # TransformerEncoderLayer takes its fused "fast path", one op that
    # ONNX has no counterpart for; the traced graph is the same otherwise.
    tmp = f"{d}/{name}.onnx.tmp"
    torch.onnx.export(m, (x,), tmp, opset_version=opset, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
    os.replace(tmp, f"{d}/{name}.onnx")
    with torch.no_grad():
        for b in BATCHES:
            xb = make_input(name, b)
            y = m(torch.from_numpy(xb)).numpy()
            np.save(f"{d}/{name}.b{b}.in.npy", xb)
            np.save(f"{d}/{name}.b{b}.torch.npy", y)
    size = os.path.getsize(f"{d}/{name}.onnx") / 1e6
    print(f"{name}: exported to {d}/{name}.onnx ({size:.1f} MB, opset {opset}) "
          f"in {time.time() - t0:.1f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="/tmp/grt-models", help="output folder (default %(default)s)")
    p.add_argument("--opset", type=int, default=17, choices=(13, 17))
    p.add_argument("--sweep", action="store_true", help="the sweep's architectures")
    p.add_argument("--force", action="store_true", help="export again even if cached")
    p.add_argument("names", nargs="*", help=f"models (known: {', '.join(MODELS)})")
    a = p.parse_args()
    names = a.names or (SWEEP if a.sweep else BENCH)
    for n in names:
        if n not in MODELS:
            p.error(f"unknown model '{n}' (known: {', '.join(MODELS)})")
    d = f"{a.out}/opset{a.opset}"
    os.makedirs(d, exist_ok=True)
    torch.set_num_threads(2)
    # The exporter's tracer warns about every shape it takes as constant
    # and every Python assert it meets; none is about the export failing.
    warnings.simplefilter("ignore")
    failed = []
    for n in names:
        try:
            export(n, d, a.opset, a.force)
        except Exception as e:  # one model's failure must not hide the others
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"{n}: EXPORT FAILED: {type(e).__name__}: {first}", file=sys.stderr)
            failed.append(n)
    if failed:
        sys.exit(f"export_models.py: failed: {' '.join(failed)}")


if __name__ == "__main__":
    main()
