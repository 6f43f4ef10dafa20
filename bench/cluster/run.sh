#!/usr/bin/env bash
# All-reduce bandwidth through grt against plain MPI_Allreduce, 4 KiB to
# 256 MiB over 2 and 4 ranks, and mirrored training throughput of the
# Fashion-MNIST MLP on the real data at 1, 2 and 4 ranks (README.md).
# From the repository root, after
#   bazel build -c opt //bench/cluster:all //examples:fashion_mnist //transport/mpi:plugin
#   bench/cluster/run.sh [MAX_BYTES] [allreduce|train]   # both by default
# Figures taken above load 1.5 are marked "(loaded)": ranks then wait for a
# core, and the ratios say more than the absolute figures.
set -uo pipefail
bin="${GRT_BENCH_BIN:-bazel-bin}" # bazel-out/k8-opt/bin when other builds move bazel-bin
max="${1:-$((256 << 20))}"
only="${2:-}"
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
export GRT_PLUGIN_PATH="$bin/transport/mpi"
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

[ "$only" = train ] || {
echo
echo "== all-reduce of float32, sum (bandwidth = bytes / time per all-reduce, fastest of 3 rounds)"
echo "   grt (allreduce_bench: the transport's MPI_Iallreduce, out of place) against plain"
echo "   MPI_Allreduce in place (the goal's baseline) and out of place"
for np in 2 4; do
  mpirun -np $np "${mca[@]}" "$bin/bench/cluster/mpi_allreduce" "$max" in >"$tmp/mpi_in" || exit 1
  l1="$(mark)"
  mpirun -np $np "${mca[@]}" "$bin/bench/cluster/allreduce_bench" "$max" >"$tmp/grt" || exit 1
  l2="$(mark)"
  mpirun -np $np "${mca[@]}" "$bin/bench/cluster/mpi_allreduce" "$max" out >"$tmp/mpi_out" || exit 1
  l3="$(mark)"
  echo "-- $np ranks; MPI in place$l1; grt$l2; MPI out of place$l3"
  printf "%10s %10s %10s %10s %8s %8s\n" bytes "MPI in" "MPI out" "grt" "grt/in" "grt/out"
  join "$tmp/mpi_in" "$tmp/mpi_out" | join - "$tmp/grt" |
    awk '{ a = $1 / $2 / 1e6; b = $1 / $3 / 1e6; g = $1 / $4 / 1e6;
      printf "%10d %10.1f %10.1f %10.1f %7.0f%% %7.0f%%\n", $1, a, b, g, 100 * g / a, 100 * g / b }'
done
}

[ "$only" = allreduce ] || {
echo
echo "== Fashion-MNIST mirrored training (examples/fashion_mnist), MLP 784-256-256-10, Adam,"
echo "   128 examples per rank (global batch 128 x ranks), the second epoch over the 60,000"
data=/usr/share/datasets/fashion-mnist
if [ ! -r "$data/train-images-idx3-ubyte.gz" ]; then
  echo "skipped: the dataset is not installed in $data (apt-get install dataset-fashion-mnist)"
else
  fm() { # fm NAME COMMAND...: examples/s of the second epoch, and the test accuracy
    "$@" --epochs 2 --out-dir "$tmp" >"$tmp/fm" 2>&1 || { cat "$tmp/fm"; exit 1; }
    awk -v n="$NAME" -v l="$(mark)" '/^epoch 2\/2/ { e = $(NF - 1); t = $(NF - 3) }
      /^test_accuracy=/ { a = substr($0, 15) }
      END { printf "%-22s %8.0f examples/s (%s s an epoch), test accuracy %s%s\n", n, e, t, a, l }' \
      "$tmp/fm"
  }
  NAME="1 process" fm "$bin/examples/fashion_mnist" --batch 128
  for np in 1 2 4; do
    NAME="$np rank$([ $np -gt 1 ] && echo s), worker:$np" fm mpirun -np $np "${mca[@]}" \
      "$bin/examples/fashion_mnist" --cluster worker:$np --towers $np --batch $((128 * np))
  done
fi
}
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
