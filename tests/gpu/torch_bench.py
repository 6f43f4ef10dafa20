"""PyTorch's figures for the GPU benchmarks (bench/gpu/gpu_bench.cc prints
grt's and cuBLAS's; bench/gpu/README.md says what each is): MatMul 8192^3
in fp32 and TF32, the device-to-device copy bandwidth and a Sum over 2^28
float32 on each axis, a chain of 10k small adds in eager mode and replayed
as a CUDA graph, and one training step of the seeds' MLP (784-256-256-10,
ReLU, Adam 1e-3, batch 256). Every result is checked; timings are medians,
of CUDA events or of host clocks around synchronized work. Ends with a
table whose rows carry gpu_bench's names. About 30 s on an H100 or H200
(torch 2.x, Python 3.12). Run by tests/gpu/run_gpu_suite.sh on the GPU
machine (an H200 so far: tests/gpu/runs)."""
import sys
import time

import torch

ROWS = []  # (figure, value, unit)


def event_ms(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def host_median_s(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


class Part:
    """Prints the wall time of one part of the run."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        print("  [%s: %.1f s]" % (self.name, time.perf_counter() - self.t0))


def set_tf32(on):
    m = torch.backends.cuda.matmul
    if hasattr(m, "fp32_precision"):  # torch >= 2.9; allow_tf32 is the legacy switch
        m.fp32_precision = "tf32" if on else "ieee"
    else:
        m.allow_tf32 = on


def check(ok, what):
    if not ok:
        sys.exit("torch_bench: wrong result: " + what)


def matmuls(n, dev):
    a = torch.rand(n, n, device=dev) - 0.5
    b = torch.rand(n, n, device=dev) - 0.5
    # A 4x8 corner in double on the host, the bound relative to sum |a_ik b_kj|.
    a4, b8 = a[:4].double().cpu(), b[:, :8].double().cpu()
    want, mag = a4 @ b8, a4.abs() @ b8.abs()
    for tf32 in (False, True):
        set_tf32(tf32)
        c = a @ b
        err = (c[:4, :8].double().cpu() - want).abs()
        check(bool((err <= (4e-3 if tf32 else 1e-5) * mag + 1e-6).all()), "MatMul corner")
        ms = event_ms(lambda: a @ b, 10)
        what = "MatMul %d^3 %s" % (n, "tf32" if tf32 else "fp32")
        print("%s: torch %.2f ms (%.1f TFLOP/s)" % (what, ms, 2.0 * n ** 3 / ms / 1e9))
        ROWS.append((what, 2.0 * n ** 3 / ms / 1e9, "TFLOP/s"))
    set_tf32(False)


def reductions(dev):
    side = 16384
    x = torch.full((side, side), 0.5, device=dev)
    y = torch.empty_like(x)
    nbytes = x.numel() * 4
    ms = event_ms(lambda: y.copy_(x), 10)
    copy = 2.0 * nbytes / ms / 1e6
    print("copy device to device, 1 GiB: %.0f GB/s (read + write)" % copy)
    ROWS.append(("copy D2D", copy, "GB/s"))
    for dim, name in ((1, "inner"), (0, "outer")):
        s = torch.sum(x, dim=dim)
        check(bool((s == 0.5 * side).all()), "Sum over dim %d" % dim)
        ms = event_ms(lambda: torch.sum(x, dim=dim), 10)
        gbs = nbytes / ms / 1e6
        what = "Sum 2^28 f32, %s axis" % name
        print("%s: %.3f ms, %.0f GB/s read, %.2f of the copy's bandwidth" % (what, ms, gbs, gbs / copy))
        ROWS.append((what, gbs, "GB/s"))


def chains(dev):
    ops = 10000
    x = torch.arange(16, device=dev, dtype=torch.float32) * 0.5
    want = x * (ops + 1)

    def chain():
        y = x
        for _ in range(ops):
            y = y + x
        return y

    check(bool(torch.allclose(chain(), want, rtol=1e-3, atol=1e-3)), "eager chain")
    us = host_median_s(chain, 5) / ops * 1e6
    print("chain of %d adds, torch eager: %.2f us per op" % (ops, us))
    ROWS.append(("10k Add chain, eager", us, "us/op"))

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        chain()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = chain()
    g.replay()
    torch.cuda.synchronize()
    check(bool(torch.allclose(out, want, rtol=1e-3, atol=1e-3)), "replayed chain")
    us = host_median_s(g.replay, 5) / ops * 1e6
    print("chain of %d adds, CUDA graph replay: %.2f us per op" % (ops, us))
    ROWS.append(("10k Add chain, CUDA graph", us, "us/op"))


def mlp_step(dev, from_host=False):
    """The seeds' MLP step; from_host: the batch is copied from host memory
    every step, as grt's feeds are (bench/gpu/mlp_bench.cc)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    where = torch.device("cpu") if from_host else dev
    x = torch.rand(256, 784, device=where)
    labels = torch.randint(0, 10, (256,), device=where)
    losses = []

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x.to(dev)), labels.to(dev))
        loss.backward()
        opt.step()
        losses.append(loss)

    for _ in range(10):
        step()
    ms = host_median_s(step, 50) * 1e3
    # One fixed batch: the loss must fall.
    check(float(losses[-1]) < float(losses[0]), "MLP loss did not fall")
    how = ", fed from host" if from_host else ""
    print("MLP 784-256-256-10 train step, batch 256, Adam%s: torch %.3f ms" % (how, ms))
    ROWS.append(("MLP 784-256-256-10 step, b256" + (" host" if from_host else ""), ms, "ms"))


def main():
    t0 = time.perf_counter()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(0)
    print("torch", torch.__version__, name)
    with Part("MatMul"):
        matmuls(n, dev)
    with Part("copy and Sum 2^28"):
        reductions(dev)
    with Part("10k Add chain"):
        chains(dev)
    with Part("MLP step"):
        mlp_step(dev)
        mlp_step(dev, from_host=True)
    print("\n== torch %s on %s\n%-32s %10s %-8s" % (torch.__version__, name, "figure", "torch", "unit"))
    for what, value, unit in ROWS:
        print("%-32s %10.2f %-8s" % (what, value, unit))
    print("torch_bench: %.1f s in all" % (time.perf_counter() - t0))


if __name__ == "__main__":
    main()
