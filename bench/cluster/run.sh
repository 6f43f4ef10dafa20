#!/usr/bin/env bash
# All-reduce bandwidth through grt against plain MPI_Allreduce, 4 KiB to
# 256 MiB over 2 and 4 ranks, and mirrored training throughput of a
# Fashion-MNIST-sized MLP (synthetic data) at 1, 2 and 4 ranks (README.md).
# From the repository root, after
#   bazel build -c opt //bench/cluster:all //tools:grt //transport/mpi:plugin
#   bench/cluster/run.sh [MAX_BYTES]
# Figures taken above load 1.5 are marked "(loaded)": ranks then wait for a
# core, and the ratios say more than the absolute figures.
set -uo pipefail
bin="${GRT_BENCH_BIN:-bazel-bin}" # bazel-out/k8-opt/bin when other builds move bazel-bin
max="${1:-$((256 << 20))}"
export GRT_PLUGIN_PATH="$PWD/$bin/transport/mpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# Shared memory; ranks yield the core while they wait (the machine may have
# fewer cores than ranks).
mca=(--mca btl self,vader --mca mpi_yield_when_idle 1)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
mark() { awk -v l="$(load)" 'BEGIN { if (l > 1.5) printf " (loaded: %s)", l }'; }
echo "cores: $(nproc); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== all-reduce of float32, sum (bandwidth = bytes / time per all-reduce)"
for np in 2 4; do
  mpirun -np $np "${mca[@]}" "$bin/bench/cluster/mpi_allreduce" "$max" >"$tmp/mpi" || exit 1
  l1="$(mark)"
  mpirun -np $np "${mca[@]}" "$bin/bench/cluster/allreduce_bench" "$max" >"$tmp/grt" || exit 1
  l2="$(mark)"
  echo "-- $np ranks; MPI$l1; grt$l2"
  printf "%12s %12s %12s %8s\n" bytes "MPI MB/s" "grt MB/s" "grt/MPI"
  join "$tmp/mpi" "$tmp/grt" | awk '{ m = $1 / $2 / 1e6; g = $1 / $3 / 1e6;
    printf "%12d %12.1f %12.1f %7.0f%%\n", $1, m, g, 100 * g / m }'
done

echo
echo "== mirrored training, 784-128-10 MLP, 128 examples per rank, SGD"
python3 bench/cluster/make_mlp.py "$tmp" 512 || exit 1
for np in 1 2 4; do
  devs=""
  for r in $(seq 0 $((np - 1))); do devs="$devs${devs:+,}/job:worker/task:$r/device:CPU:0"; done
  batch=$((128 * np))
  python3 - "$tmp" "$batch" <<'PY' || exit 1
import struct, sys
d, b = sys.argv[1], int(sys.argv[2])
for name, row in (("x", 784 * 4), ("labels", 4)):
    raw = open("%s/%s.npy" % (d, name), "rb").read()
    hl = struct.unpack("<H", raw[8:10])[0]
    head = raw[10:10 + hl].decode().replace("(512,", "(%d," % b)
    head = head.rstrip("\n").rstrip(" ")
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    open("%s/%s_%d.npy" % (d, name, b), "wb").write(
        raw[:8] + struct.pack("<H", len(head)) + head.encode() + raw[10 + hl:10 + hl + b * row])
PY
  "$bin/tools/grt" replicate "$tmp/mlp.json" "$tmp/m$np.json" --towers $np --tower-devices "$devs" \
    --inputs x,labels --outputs loss --mirrored --loss loss --optimizer sgd --learning-rate 0.1 \
    --all-reduce collective || exit 1
  run() { # the fastest of 2 runs of $1 steps, in seconds
    local best="" t0 t1 i
    for i in 1 2; do
      t0=$(date +%s.%N)
      mpirun -np $np "${mca[@]}" "$bin/tools/grt" run "$tmp/m$np.json" --cluster worker:$np \
        --feed "x=@$tmp/x_$batch.npy" --feed "labels=@$tmp/labels_$batch.npy" --init init \
        --target train --steps "$1" --quiet >/dev/null || exit 1
      t1=$(date +%s.%N)
      best=$(echo "$t1 - $t0" | bc -l | awk -v b="$best" '{ print (b == "" || $1 < b) ? $1 : b }')
    done
    echo "$best"
  }
  # Start-up (mpirun, loading, the first step) cancels out of the difference.
  a=$(run 10)
  b=$(run 210)
  awk -v a="$a" -v b="$b" -v n=$np -v bt=$batch -v l="$(mark)" 'BEGIN {
    printf "%d rank%s: %8.0f examples/s (%.2f ms a step)%s\n", n, (n > 1 ? "s" : " "),
      200 * bt / (b - a), 1000 * (b - a) / 200, l }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
