#!/usr/bin/python3
"""Writes tests/models/data: the real-model benchmark's architectures
(bench/models) at a size a test can carry, exported to ONNX by PyTorch,
with inputs and PyTorch's outputs as .npy.

Run by hand, with Debian's python3-torch and python3-torchvision (CI has
neither: the files it writes are committed, and models_test.cc reads
them):  /usr/bin/python3 tests/models/make_models.py

Each model NAME gets NAME.onnx (opset 17, batch exported as the dynamic
axis "N", input "input", output "output") and, for batch 1 and 2,
NAME.bB.in.npy and NAME.bB.torch.npy. Random weights from
torch.manual_seed(0); BatchNorm statistics drawn at random too (a fresh
BatchNorm is the identity, which would hide a wrong folding); eval mode.

  resnet18_tiny     torchvision's BasicBlock in resnet18's layout (2, 2, 2, 2
                    blocks, stride-2 stages, projection shortcuts), widths
                    4-8-16-32 on 32x32 (torchvision's ResNet fixes 64-512)
  mobilenet_v2      torchvision's, width_mult 0.25, 10 classes, 32x32
  efficientnet_b0   torchvision's b0 configuration at width 0.25 and depth
                    0.5, 10 classes, 32x32
  vit_tiny          torchvision.models.VisionTransformer(image_size=32,
                    patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                    mlp_dim=64), 10 classes
  transformer_tiny  torch.nn.TransformerEncoder: d_model 32, 2 heads, 2
                    layers, feed-forward 64, batch first, sequence 16
  lstm_tiny         torch.nn.LSTM: input 8, hidden 16, 2 layers, batch
                    first, sequence 5 (the output sequence)

The recurrent models below export the sequence axis as dynamic too ("S")
and are run at a different length per batch (7 at batch 1, 13 at batch 2),
so the graph must not depend on it:

  lstm_seq          torch.nn.LSTM: input 8, hidden 16, 2 layers,
                    bidirectional, batch first; the output sequence
  gru_seq           torch.nn.GRU: input 8, hidden 16, 2 layers, sequence
                    first ([S, N, 8]); the output sequence plus the last
                    layer's final state (output = concat over features)

Run with model names to write only those (the others' files stay as they
are): /usr/bin/python3 tests/models/make_models.py lstm_seq gru_seq"""
import os
import sys
import warnings

try:
    import numpy as np
    import torch
    import torchvision
    from torchvision.models import efficientnet, resnet
except ImportError as e:
    sys.exit(f"make_models.py: {e}: needs numpy, torch and torchvision "
             "(Debian: apt-get install python3-torch python3-torchvision; run with /usr/bin/python3)")

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
BATCHES = (1, 2)


class TinyResNet(torch.nn.Module):
    """resnet18's layout at small widths."""

    def __init__(self, widths=(4, 8, 16, 32), classes=10):
        super().__init__()
        w0 = widths[0]
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, w0, 7, 2, 3, bias=False), torch.nn.BatchNorm2d(w0),
            torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(3, 2, 1))
        layers, cin = [], w0
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or cin != w:
                down = torch.nn.Sequential(torch.nn.Conv2d(cin, w, 1, stride, bias=False),
                                           torch.nn.BatchNorm2d(w))
            layers += [resnet.BasicBlock(cin, w, stride, down), resnet.BasicBlock(w, w)]
            cin = w
        self.layers = torch.nn.Sequential(*layers)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class TinyLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size=8, hidden_size=16, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class SeqLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(input_size=8, hidden_size=16, num_layers=2, batch_first=True,
                                 bidirectional=True)

    def forward(self, x):
        return self.rnn(x)[0]


class SeqGRU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(input_size=8, hidden_size=16, num_layers=2)

    def forward(self, x):
        y, h = self.rnn(x)  # y [S, N, 16], h [2, N, 16]
        return torch.cat([y, h[-1:].expand(y.shape[0], -1, -1)], dim=2)


def tiny_efficientnet():
    setting, last = efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.25,
                                                    depth_mult=0.5)
    return efficientnet.EfficientNet(setting, dropout=0.2, num_classes=10, last_channel=last)


def tiny_transformer():
    layer = torch.nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    for m in enc.modules():  # each layer its own weights (the encoder copies one)
        if m is not enc and hasattr(m, "reset_parameters"):
            m.reset_parameters()
        elif isinstance(m, torch.nn.MultiheadAttention):
            m._reset_parameters()
    return enc


# name: (builder, input shape without the batch dimension)
MODELS = {
    "resnet18_tiny": (TinyResNet, (3, 32, 32)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=10),
                     (3, 32, 32)),
    "efficientnet_b0": (tiny_efficientnet, (3, 32, 32)),
    "vit_tiny": (lambda: torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
        num_classes=10), (3, 32, 32)),
    "transformer_tiny": (tiny_transformer, (16, 32)),
    "lstm_tiny": (TinyLSTM, (5, 8)),
}

# The recurrent models: name: (builder, input shape at batch b, dynamic axes).
SEQ_LENGTH = {1: 7, 2: 13}
SEQ_MODELS = {
    "lstm_seq": (SeqLSTM, lambda b: (b, SEQ_LENGTH[b], 8), {0: "N", 1: "S"}),
    "gru_seq": (SeqGRU, lambda b: (SEQ_LENGTH[b], b, 8), {0: "S", 1: "N"}),
}


def randomize_batchnorm(m, gen):
    for bn in m.modules():
        if isinstance(bn, torch.nn.modules.batchnorm._BatchNorm):
            c = bn.num_features
            bn.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
            bn.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
            bn.weight.data.copy_(torch.rand(c, generator=gen) + 0.5)
            bn.bias.data.copy_(torch.randn(c, generator=gen) * 0.1)


def main():
    warnings.simplefilter("ignore")  # the tracer's notes on constant shapes and asserts
    os.makedirs(OUT, exist_ok=True)
    only = set(sys.argv[1:])
    for name, (build, shape_at, axes) in SEQ_MODELS.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        m = build().eval()
        x1 = torch.from_numpy(np.random.default_rng(1).standard_normal(shape_at(1), dtype=np.float32))
        torch.onnx.export(m, (x1,), f"{OUT}/{name}.onnx", opset_version=17,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": axes, "output": axes})
        with torch.no_grad():
            for b in BATCHES:
                x = np.random.default_rng(b).standard_normal(shape_at(b), dtype=np.float32)
                np.save(f"{OUT}/{name}.b{b}.in.npy", x)
                np.save(f"{OUT}/{name}.b{b}.torch.npy", m(torch.from_numpy(x)).numpy())
        print(f"{name}: {os.path.getsize(f'{OUT}/{name}.onnx') / 1e3:.0f} kB")
    for name, (build, shape) in MODELS.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        m = build()
        with torch.no_grad():
            randomize_batchnorm(m, torch.Generator().manual_seed(1))
            # vit's head starts at zero: an output of zeros would match anything.
            for p in m.parameters():
                if p.dim() >= 2 and not p.any():
                    p.normal_(0.0, 0.02)
        m.eval()
        x1 = torch.from_numpy(np.random.default_rng(1).standard_normal((1,) + shape, dtype=np.float32))
        # With gradients on, as bench/models/export_models.py exports: under
        # no_grad the TransformerEncoderLayer takes a fused path ONNX lacks.
        torch.onnx.export(m, (x1,), f"{OUT}/{name}.onnx", opset_version=17,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
        with torch.no_grad():
            for b in BATCHES:
                x = np.random.default_rng(b).standard_normal((b,) + shape, dtype=np.float32)
                np.save(f"{OUT}/{name}.b{b}.in.npy", x)
                np.save(f"{OUT}/{name}.b{b}.torch.npy", m(torch.from_numpy(x)).numpy())
        print(f"{name}: {os.path.getsize(f'{OUT}/{name}.onnx') / 1e3:.0f} kB, "
              f"{sum(p.numel() for p in m.parameters())} parameters")


if __name__ == "__main__":
    main()
