"""PyTorch's figure for bench/gpu/mlp_bench.cc, run early in the GPU run
(torch_bench.py, which has the same step, runs last and may be cut by the
budget): the seeds' MLP training step with the batch copied from host
memory every step, as grt's feeds are."""
import torch

import torch_bench

torch_bench.mlp_step(torch.device("cuda"), from_host=True)
