#!/usr/bin/python3
"""PyTorch's twin of bench/train_bench.c: the Fashion-MNIST MLP
(784-256-256-10, ReLU, softmax cross-entropy, Adam at 1e-3) trained on
random inputs, eager, torch.set_num_threads(2). Prints examples/s: the best
of --rounds rounds of --steps steps after 3 warm-up steps.

  OMP_WAIT_POLICY=passive /usr/bin/python3 train_torch.py [--batch 256] [--steps 40] [--rounds 3]

bench/compare_ort.sh runs it with OMP_WAIT_POLICY=passive (its OpenMP
workers otherwise spin between steps, which on a shared host costs more
than it gains) in the same sitting as grt's figure.
Last line, for the script: RESULT examples_per_s=E"""
import argparse
import os
import time

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.manual_seed(1)
    torch.set_num_threads(a.threads)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(a.batch, 784)
    y = torch.randint(0, 10, (a.batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    best = 0.0
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        best = max(best, a.steps * a.batch / (time.perf_counter() - t0))
    print(f"torch {torch.__version__}: MLP 784-256-256-10 training (Adam), batch {a.batch}, "
          f"{a.threads} threads, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}: "
          f"{best:.0f} examples/s")
    print(f"RESULT examples_per_s={best:.0f}")


if __name__ == "__main__":
    main()
