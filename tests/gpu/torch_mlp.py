"""PyTorch's figure for bench/gpu/mlp_bench.cc: the seeds' MLP
(784-256-256-10, ReLU, Adam lr 1e-3, mean cross-entropy) training step on
one GPU, batch 256 of random inputs copied from host memory every step as
grt's feeds are, eager, synchronised after each step; the median step."""
import sys
import time

import torch


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    dev = torch.device("cuda")
    torch.manual_seed(7)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(batch, 784)
    y = torch.randint(0, 10, (batch,), dtype=torch.int64)

    def step():
        xd, yd = x.to(dev), y.to(dev)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xd), yd)
        loss.backward()
        opt.step()
        return loss

    first = step().item()
    times = []
    for i in range(steps + 5):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        if i >= 5:
            times.append(time.perf_counter() - t0)
    last = step().item()
    assert last < first, (first, last)
    times.sort()
    print("MLP 784-256-256-10 Adam step, batch %d: torch %.3f ms (median of %d, eager)"
          % (batch, times[len(times) // 2] * 1e3, steps))


main()
