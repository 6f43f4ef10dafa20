#!/usr/bin/env bash
# The GPU suite of the CUDA backend, in two halves:
#
#   bash tests/gpu/run_gpu_suite.sh build    # here (Bazel, nvcc; no GPU needed)
#   bash tests/gpu/run_gpu_suite.sh device   # on the GPU machine, with .gpu_carry carried
#
# `build` compiles the plugin, the suite (tests/gpu/gpu_suite*.cc), the
# benchmarks (bench/gpu) and the grt command, and copies them with the
# shared libraries they need that a GPU machine may lack into .gpu_carry/
# (ignored by git; about 25 MiB, the libraries packed in lib.tgz to stay
# under the device tool's 64 MiB carry). `device` runs the stages that
# tests/gpu/README.md lists (environment, devices, smoke, the kernel suite
# one case per process, the seeds' three GPUs, the memory options under
# nvidia-smi, the benchmarks against cuBLAS and PyTorch), each under its own
# timeout and a budget for all. Logs go to $OUT when set (the device tool
# brings them back), else to .gpu_carry/out; trimmed copies of each run are
# kept in tests/gpu/runs/.
set -u
cd "$(dirname "$0")/../.."
CARRY=.gpu_carry

build() {
  set -e
  bazel build //backends/cuda:libgrt_backend_cuda.so //tests/gpu:gpu_suite //bench/gpu:gpu_bench \
    //bench/gpu:mlp_bench //tools:grt
  rm -rf "$CARRY"
  mkdir -p "$CARRY/lib"
  cp bazel-bin/backends/cuda/libgrt_backend_cuda.so bazel-bin/tests/gpu/gpu_suite \
     bazel-bin/bench/gpu/gpu_bench bazel-bin/bench/gpu/mlp_bench bazel-bin/tools/grt "$CARRY/"
  cp tests/gpu/torch_bench.py tests/gpu/torch_mlp.py "$CARRY/"
  git rev-parse --short HEAD > "$CARRY/commit"
  chmod u+w "$CARRY"/*
  strip --strip-debug "$CARRY/gpu_suite" "$CARRY/gpu_bench" "$CARRY/mlp_bench" "$CARRY/grt" \
    "$CARRY/libgrt_backend_cuda.so"
  # Libraries from Debian packages (OpenBLAS, jansson, zlib, ...) that the
  # GPU machine's image may not have; glibc and the C++ runtime stay.
  for f in "$CARRY/gpu_suite" "$CARRY/gpu_bench" "$CARRY/mlp_bench" "$CARRY/grt"; do
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
# toolkit's, or the ones PyTorch's wheels bring (Python's nvidia/*/lib).
find_cuda_libs() {
  local dirs=/usr/local/cuda/lib64:/usr/local/cuda/lib
  local more
  more=$(timeout 20 find /usr /opt -xdev \( -name 'libcublas.so.13' -o -name 'libcudart.so.13' -o -name 'libcudnn.so.9' -o -name 'libnccl.so.2' \) 2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  echo "$dirs:$more"
}

# ---- the device run: stages, each under its own timeout, each logging into
# $OUT as it goes; summary.txt is rewritten after every stage so a run killed
# at the device tool's limit still reports. Files back (at most 8): env.txt,
# summary.txt, run.log, suite.tgz, placement.txt, memory.txt, bench.txt.
T0=$(date +%s)
BUDGET=${GRT_GPU_BUDGET_S:-330}  # seconds for all stages; later stages shrink to fit
left() { echo $((BUDGET - ($(date +%s) - T0))); }
note() { echo "$*" | tee -a "$SUMMARY"; }
# stage NAME SECONDS: prints the header, and fails (skipping the stage) when
# less than SECONDS remain of the budget.
stage() {
  local l
  l=$(left)
  echo "== $1 (budget left ${l}s)"
  if [ "$l" -lt "$2" ]; then
    note "$1: SKIPPED (${l}s of the budget left, needs $2)"
    return 1
  fi
}
pack_suite() { tar czf "$OUTD/suite.tgz" -C "$SHARDS" . 2>/dev/null; }

# The single-op and single-feature cases run one per process (a faulting
# kernel fails its own case and names it), several at a time; the cases
# that watch memory or time run alone afterwards.
SERIAL_CASES='GpuMemory.*:GpuSuite.AllocatorStressThroughASession:GpuSuite.OutOfMemoryThenRecovery:GpuSuite.HoldMemoryForNvidiaSmi:GpuCapture.*:GpuSuite.ThreeMatMulsOnThreeGpusWithThePlacementLog:GpuSuite.ChainAcrossFourLogicalGpusOfOneCard'

seconds_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
export -f seconds_since

run_case() {  # one gtest case in its own process; prints "PASS|FAIL|TIMEOUT case seconds"
  local c=$1 t0 rc
  t0=$(date +%s%N)
  CUDA_LAUNCH_BLOCKING=1 timeout "${CASE_TIMEOUT:-60}" "$CARRY/gpu_suite" --gtest_filter="$c" \
    > "$SHARDS/$c.log" 2>&1
  rc=$?
  local verdict=PASS
  [ $rc = 0 ] && grep -q '^\[  SKIPPED \]' "$SHARDS/$c.log" && verdict=SKIP
  [ $rc = 0 ] || verdict=FAIL
  [ $rc = 124 ] && verdict=TIMEOUT
  printf '%s %s %s\n' "$verdict" "$c" "$(seconds_since "$t0")"
}
export -f run_case

device() {
  OUTD=${OUT:-$CARRY/out}
  mkdir -p "$OUTD"
  SUMMARY=$OUTD/summary.txt
  : > "$SUMMARY"
  SHARDS=$(mktemp -d)
  export CARRY SHARDS
  exec > >(tee -a "$OUTD/run.log") 2>&1
  local libs="$PWD/$CARRY/lib"
  if [ -f "$CARRY/lib.tgz" ]; then
    libs="$(mktemp -d)"
    tar xzf "$CARRY/lib.tgz" -C "$libs"
    libs="$libs/lib"
  fi
  LIBS=$libs
  export LD_LIBRARY_PATH="$libs:$(find_cuda_libs)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GRT_CUDA_PLUGIN="$PWD/$CARRY/libgrt_backend_cuda.so"
  export GRT_PLUGIN_PATH="$GRT_CUDA_PLUGIN"
  note "grt GPU run $(date -u +%FT%TZ), commit $(cat "$CARRY/commit" 2>/dev/null || echo unknown)"

  stage "0 environment" 5 && {
    {
      timeout 20 nvidia-smi
      timeout 10 nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,memory.used,clocks.sm,clocks.mem --format=csv
      echo "-- nvcc: $(nvcc --version 2>/dev/null | tail -1)"
      echo "-- LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
      echo "-- ldd plugin:"; ldd "$GRT_CUDA_PLUGIN"
      echo "-- ldd grt:"; ldd "$CARRY/grt"
      echo "-- uname: $(uname -a)"; nproc; free -g
    } > "$OUTD/env.txt" 2>&1
    note "0 environment: $(timeout 10 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
  }

  stage "1 devices" 5 && {
    timeout 30 "$CARRY/grt" devices --backends 2>&1 | tee "$SHARDS/devices.txt"
    local gpus
    gpus=$(grep -o 'GPU: [0-9]*' "$SHARDS/devices.txt" | awk '{print $2}')
    note "1 devices: $(grep '^GPU' "$SHARDS/devices.txt" | head -1)"
    if [ "${gpus:-0}" = 0 ] && [ "${GRT_GPU_SUITE_DRY:-0}" != 1 ]; then
      note "STOP: the CUDA plugin found no GPU (above); nothing else can run"
      pack_suite
      return 1
    fi
  }

  # The plugin's own library search (base/lazy_lib.h: GRT_CUDA_LIBRARY_PATH,
  # the loader, Python wheels' nvidia/*/lib folders): one convolution case
  # with only the carried libraries on LD_LIBRARY_PATH, so cuBLAS and cuDNN
  # must be found by the plugin, not by this script's find.
  stage "1b library lookup" 10 && {
    LD_LIBRARY_PATH="$LIBS" CASE_TIMEOUT=45 run_case 'GpuOps.ConvolutionsThroughCudnn' \
      | sed 's/^/library lookup: /' | tee -a "$SUMMARY"
    mv "$SHARDS/GpuOps.ConvolutionsThroughCudnn.log" "$SHARDS/lib_lookup.log" 2>/dev/null
  }

  # A crash's stack from cuda-gdb (no gdb on the GPU machines), for the
  # programs named in GRT_GPU_TRACE ("suite:CASE" or "mlp"); the suite also
  # prints its own stack on a fatal signal (gpu_suite_crash.cc).
  if [ -n "${GRT_GPU_TRACE:-}" ] && command -v cuda-gdb > /dev/null; then
    local what
    for what in $GRT_GPU_TRACE; do
      [ "$(left)" -gt 120 ] || break
      case "$what" in
        mlp) set -- "$CARRY/mlp_bench" 256 5 ;;
        suite:*) set -- "$CARRY/gpu_suite" --gtest_filter="${what#suite:}" ;;
      esac
      echo "== trace $what"
      timeout 60 cuda-gdb -q -batch -ex run -ex bt -ex 'info sharedlibrary' --args "$@" \
        > "$SHARDS/trace_${what//[^A-Za-z0-9]/_}.log" 2>&1
      grep -E "^#|signal|SIG" "$SHARDS/trace_${what//[^A-Za-z0-9]/_}.log" | head -30 \
        | sed "s/^/trace $what: /" | tee -a "$SUMMARY"
    done
  fi

  stage "2 smoke" 10 && {
    local t0
    t0=$(date +%s%N)
    CUDA_LAUNCH_BLOCKING=1 timeout 45 "$CARRY/grt" run tests/gpu/smoke.json --log-device-placement \
      --fetch y --no-rewrite --option gpu.allow_growth=true > "$SHARDS/smoke.txt" 2>&1
    local rc=$?
    local took
    took=$(seconds_since "$t0")
    cat "$SHARDS/smoke.txt"
    note "2 smoke: grt run of one MatMul on GPU:0 rc=$rc in $took s (process start, plugin, context, cuBLAS, one run)"
    CASE_TIMEOUT=45 run_case 'GpuSuite.MatMulAndBatchMatMul' | tee -a "$SUMMARY"
  }

  stage "3 kernel suite" 30 && {
    local cases
    cases=$("$CARRY/gpu_suite" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}')
    echo "$cases" | grep -v -E "$(echo "$SERIAL_CASES" | sed 's/\./\\./g; s/\*/.*/g; s/:/|/g')" \
      | CASE_TIMEOUT=${CASE_TIMEOUT:-60} xargs -P 4 -I{} bash -c 'run_case "$@"' _ {} \
      | tee "$SHARDS/cases.txt"
    local serial
    for serial in $(echo "$SERIAL_CASES" | tr ':' ' '); do
      [ "$(left)" -gt 40 ] || { echo "SKIPPED $serial" >> "$SHARDS/cases.txt"; continue; }
      CASE_TIMEOUT=60 run_case "$serial" | tee -a "$SHARDS/cases.txt"
    done
    note "3 kernel suite: $(grep -c ^PASS "$SHARDS/cases.txt") passed, $(grep -c -E '^(FAIL|TIMEOUT)' "$SHARDS/cases.txt") failed or timed out, $(grep -c -E '^SKIP' "$SHARDS/cases.txt") skipped (by the case or the budget)"
    grep -E '^(FAIL|TIMEOUT|SKIP)' "$SHARDS/cases.txt" | tee -a "$SUMMARY"
    # Each process prints the row ops its case did not run; the suite ran
    # every op that some process ran, i.e. missed those every process missed.
    local logs missed
    logs=$(grep -l "GPU suite: single-op cases ran" "$SHARDS"/*.log | wc -l)
    missed=$(grep -h "GPU suite: single-op cases ran" "$SHARDS"/*.log | grep "; not: " | sed 's/.*; not: //' \
      | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | awk -v n="$logs" '$1 == n {print $2}' | tr '\n' ' ')
    note "  row ops no single-op case ran: ${missed:-none}"
    grep -h "^model " "$SHARDS"/GpuModels*.log >> "$SUMMARY" 2>/dev/null
    pack_suite
  }

  stage "5 seeds' three GPUs" 15 && {
    {
      echo "-- grt run examples/three_gpus.json on three 1 GiB logical GPUs of GPU 0 (no soft placement)"
      timeout 40 "$CARRY/grt" run examples/three_gpus.json --init init --fetch AddN --log-device-placement \
        --option gpu.virtual_devices=1024,1024,1024
      echo "rc=$?"
      echo "-- grt devices with four 1 GiB logical GPUs"
      timeout 20 "$CARRY/grt" devices --option gpu.virtual_devices=1024,1024,1024,1024
    } > "$OUTD/placement.txt" 2>&1
    note "5 seeds: three_gpus.json $(grep -E '^rc=' "$OUTD/placement.txt")"
  }

  stage "6 memory options" 20 && {
    : > "$OUTD/memory.txt"
    local opt pid
    for opt in gpu.allow_growth=true gpu.memory_fraction=0.5 gpu.memory_fraction=0.2 memory_limit=2G; do
      [ "$(left)" -gt 15 ] || break
      GRT_GPU_HOLD=$opt timeout 30 "$CARRY/gpu_suite" --gtest_filter='*HoldMemory*' > "$SHARDS/hold.log" 2>&1 &
      pid=$!
      for _ in $(seq 100); do grep -q HOLDING "$SHARDS/hold.log" && break; sleep 0.2; done
      printf '%-28s %s\n' "$opt" "$(nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader)" \
        | tee -a "$OUTD/memory.txt"
      wait "$pid"
      echo "  rc=$? $(grep -E 'HOLDING|Failure|error' "$SHARDS/hold.log" | head -3 | tr '\n' ' ')" >> "$OUTD/memory.txt"
    done
    note "6 memory options:"
    cat "$OUTD/memory.txt" >> "$SUMMARY"
  }

  stage "7 benchmarks" 40 && {
    : > "$OUTD/bench.txt"
    local l
    l=$(left)
    [ "$l" -gt 30 ] && timeout 40 "$CARRY/mlp_bench" 256 200 2>&1 | tee -a "$OUTD/bench.txt"
    l=$(left)
    [ "$l" -gt 25 ] && PYTHONUNBUFFERED=1 timeout 30 python3 "$CARRY/torch_mlp.py" 2>&1 \
      | tee -a "$OUTD/bench.txt"
    l=$(left)
    if [ "$l" -gt 50 ]; then
      timeout $((l > 160 ? 120 : l - 40)) "$CARRY/gpu_bench" 8192 2>&1 | tee -a "$OUTD/bench.txt"
      echo "gpu_bench rc=${PIPESTATUS[0]}" | tee -a "$OUTD/bench.txt"
    else
      echo "gpu_bench: SKIPPED (${l}s left)" | tee -a "$OUTD/bench.txt"
    fi
    l=$(left)
    [ "$l" -gt 20 ] && PYTHONUNBUFFERED=1 timeout $((l - 10)) python3 "$CARRY/torch_bench.py" 2>&1 \
      | tee -a "$OUTD/bench.txt"
    note "7 benchmarks:"
    grep -E "^MLP|capture:|rc=|SKIPPED" "$OUTD/bench.txt" >> "$SUMMARY"
    sed -n '/^== grt on/,/^$/p; /^== torch/,/^$/p' "$OUTD/bench.txt" >> "$SUMMARY"
  }
  pack_suite
  note "done in $(( $(date +%s) - T0 )) s"
  echo "== summary"
  cat "$SUMMARY"
}

case "${1:-}" in
  build) build ;;
  device) device ;;
  *) echo "usage: $0 build|device" >&2; exit 2 ;;
esac
