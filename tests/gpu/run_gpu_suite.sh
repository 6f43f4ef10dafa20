#!/usr/bin/env bash
# The GPU suite of the CUDA backend, in two halves:
#
#   bash tests/gpu/run_gpu_suite.sh build    # here (Bazel, nvcc; no GPU needed)
#   bash tests/gpu/run_gpu_suite.sh device   # on the GPU machine, with .gpu_carry carried
#
# `build` compiles the plugin, the suite (tests/gpu/gpu_suite.cc), the
# benchmark (bench/gpu/gpu_bench.cc) and the grt command, and copies them
# with the shared libraries they need that a GPU machine may lack into
# .gpu_carry/ (ignored by git; about 30 MiB, the libraries packed in
# lib.tgz to stay under the device tool's 64 MiB carry). `device` runs, in order:
#   1. nvidia-smi and `grt devices --backends` (the plugin's view), then
#      the convolutions with only cudart's folder on LD_LIBRARY_PATH: the
#      plugin must find cuBLAS and cuDNN itself (base/lazy_lib.h's search:
#      Python wheels' nvidia/*/lib folders, cudart's neighbours);
#   2. the suite: every CUDA kernel against the CPU kernel (NcclAllReduce
#      groups over physical GPUs with NCCL, by copies, and over logical GPUs
#      of one card), the seeds' three
#      products on three GPUs with the placement log, a chain over four
#      logical GPUs of one card, allocator stress, OOM then recovery;
#   3. gpu.allow_growth against gpu.memory_fraction as nvidia-smi sees them;
#   4. the benchmarks: MatMul 8192^3 fp32/TF32 against cuBLAS direct, the
#      10k-op chain, and PyTorch's figures for the same (torch_bench.py).
# Logs go to $OUT when set (the device tool brings them back), else to
# .gpu_carry/out.
#
# UNVERIFIED: written in a session without a GPU; nothing here has run on
# one yet.
set -u
cd "$(dirname "$0")/../.."
CARRY=.gpu_carry

build() {
  set -e
  bazel build //backends/cuda:libgrt_backend_cuda.so //tests/gpu:gpu_suite //bench/gpu:gpu_bench //tools:grt
  rm -rf "$CARRY"
  mkdir -p "$CARRY/lib"
  cp bazel-bin/backends/cuda/libgrt_backend_cuda.so bazel-bin/tests/gpu/gpu_suite \
     bazel-bin/bench/gpu/gpu_bench bazel-bin/tools/grt "$CARRY/"
  cp tests/gpu/torch_bench.py "$CARRY/"
  chmod u+w "$CARRY"/*
  strip --strip-debug "$CARRY/gpu_suite" "$CARRY/gpu_bench" "$CARRY/grt" "$CARRY/libgrt_backend_cuda.so"
  # Libraries from Debian packages (OpenBLAS, jansson, zlib, ...) that the
  # GPU machine's image may not have; glibc and the C++ runtime stay.
  for f in "$CARRY/gpu_suite" "$CARRY/gpu_bench" "$CARRY/grt"; do
    ldd "$f" | awk '$3 ~ /^\// {print $3}'
  done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
      libcublas*|libcublasLt*) ;;  # hundreds of MiB: the GPU machine has its own
      *) cp -L "$lib" "$CARRY/lib/" ;;
    esac
  done
  # Packed: oneDNN and OpenBLAS alone pass the device tool's 64 MiB carry
  # limit unpacked; `device` unpacks them into a temporary folder.
  tar czf "$CARRY/lib.tgz" -C "$CARRY" lib
  rm -rf "$CARRY/lib"
  local exclude
  exclude="$(git rev-parse --git-common-dir)/info/exclude"
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu_carry/' "$exclude" 2>/dev/null || echo '/.gpu_carry/' >> "$exclude"
  du -sh "$CARRY"
  echo "now run on the GPU machine: bash tests/gpu/run_gpu_suite.sh device   (carry: $CARRY)"
}

# cuBLAS, cuDNN, NCCL and the CUDA runtime on the GPU machine: the
# toolkit's, or the ones PyTorch's wheels bring.
find_cuda_libs() {
  local dirs=/usr/local/cuda/lib64:/usr/local/cuda/lib
  local more
  more=$(find /usr /opt -xdev \( -name 'libcublas.so.13' -o -name 'libcudart.so.13' -o -name 'libcudnn.so.9' -o -name 'libnccl.so.2' \) 2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  echo "$dirs:$more"
}

device() {
  local out=${OUT:-$CARRY/out}
  mkdir -p "$out"
  local libs="$PWD/$CARRY/lib"
  if [ -f "$CARRY/lib.tgz" ]; then
    libs="$(mktemp -d)"
    tar xzf "$CARRY/lib.tgz" -C "$libs"
    libs="$libs/lib"
  fi
  export LD_LIBRARY_PATH="$libs:$(find_cuda_libs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GRT_CUDA_PLUGIN="$PWD/$CARRY/libgrt_backend_cuda.so"
  export GRT_PLUGIN_PATH="$GRT_CUDA_PLUGIN"
  local rc=0
  echo "== 1. the machine"
  nvidia-smi | tee "$out/nvidia-smi.txt"
  "$CARRY/grt" devices --backends | tee "$out/devices.txt"
  echo "== 1b. library lookup by the plugin (LD_LIBRARY_PATH: carried libs and cudart's folder only)"
  local cudart_dir
  cudart_dir=$(find /usr /opt -xdev -name 'libcudart.so.13' 2>/dev/null | head -1 | xargs -r dirname)
  LD_LIBRARY_PATH="$libs${cudart_dir:+:$cudart_dir}" "$CARRY/gpu_suite" \
    --gtest_filter='GpuOps.ConvolutionsThroughCudnn' 2>&1 | tee "$out/lib_lookup.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1

  echo "== 2. the suite"
  "$CARRY/gpu_suite" --gtest_output="xml:$out/gpu_suite.xml" 2>&1 | tee "$out/gpu_suite.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1

  echo "== 3. allow_growth vs memory_fraction (nvidia-smi memory.used while a session holds)"
  for opt in gpu.allow_growth=true gpu.memory_fraction=0.5 gpu.memory_fraction=0.2; do
    GRT_GPU_HOLD=$opt "$CARRY/gpu_suite" --gtest_filter='*HoldMemory*' > "$out/hold.log" 2>&1 &
    local pid=$!
    for _ in $(seq 60); do grep -q HOLDING "$out/hold.log" && break; sleep 0.2; done
    printf '%-28s %s\n' "$opt" "$(nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader)" \
      | tee -a "$out/memory_options.txt"
    wait "$pid" || rc=1
  done

  echo "== 4. benchmarks"
  "$CARRY/gpu_bench" 8192 2>&1 | tee "$out/gpu_bench.txt"
  PYTHONUNBUFFERED=1 python3 "$CARRY/torch_bench.py" 2>&1 | tee "$out/torch_bench.txt"
  echo "== summary"
  grep -E "tests? ran|PASSED|FAILED" "$out/lib_lookup.log" "$out/gpu_suite.log" | tail -7
  cat "$out/memory_options.txt"
  grep -E "MatMul|chain" "$out/gpu_bench.txt" "$out/torch_bench.txt"
  return $rc
}

case "${1:-}" in
  build) build ;;
  device) device ;;
  *) echo "usage: $0 build|device" >&2; exit 2 ;;
esac
