#!/bin/bash
# GPU values across the tasks of a cluster, on a lent GPU machine (which has
# no Open MPI: Debian's is carried, relocated with OPAL_PREFIX).
#
#   bash tests/gpu/cluster_gpu.sh build    # here: .mpi_carry (about 31 MiB)
#   bash tests/gpu/cluster_gpu.sh device   # there, carrying .mpi_carry; log in $OUT/mpi.txt
#
# Three ranks (ps:1, worker:2) on one card, each task with two 1 GiB logical
# GPUs: values made on worker 0's GPU read on ps 0's CPU and on worker 1's
# GPUs and fetched from there (tests/cluster/make_graphs.py's device_memory
# graph with its TEST devices as GPUs), compared with one process; and an
# NcclAllReduce group with one member on worker 0's GPU and two on worker
# 1's, summed across tasks through host memory for three steps. Takes about
# 10 s there after the machine starts.
set -uo pipefail
cd "$(dirname "$0")/../.."
C=.mpi_carry

build() {
  set -e
  bash tests/gpu/run_gpu_suite.sh build >/dev/null
  bazel build //transport/mpi:plugin
  rm -rf "$C" && mkdir -p "$C/mpi" "$C/pack/usr/bin" "$C/pack/usr/lib/x86_64-linux-gnu" "$C/pack/usr/share" "$C/pack/libs"
  cp .gpu_carry/grt .gpu_carry/libgrt_backend_cuda.so .gpu_carry/lib.tgz "$C/"
  cp bazel-bin/transport/mpi/libgrt_transport_mpi.so "$C/mpi/"
  chmod u+w "$C/mpi/libgrt_transport_mpi.so" && strip --strip-debug "$C/mpi/libgrt_transport_mpi.so"
  cp -a /usr/bin/orterun /usr/bin/orted "$C/pack/usr/bin/"
  cp -a /usr/lib/x86_64-linux-gnu/openmpi "$C/pack/usr/lib/x86_64-linux-gnu/"
  cp -a /usr/share/openmpi "$C/pack/usr/share/"
  # Open MPI's libraries and those its components link (glibc stays).
  { ldd "$C/mpi/libgrt_transport_mpi.so"; ldd /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so; } 2>/dev/null |
    awk '$3 ~ /^\// {print $3}' | sort -u | grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$C/pack/libs/"; done
  (cd "$C/pack" && tar czf ../ompi.tgz usr libs) && rm -rf "$C/pack"
  local g
  g=$(mktemp -d)
  python3 tests/cluster/make_graphs.py "$g"
  for f in device_memory_cluster device_memory_local device_all_reduce_cluster; do
    sed 's/device:TEST:/device:GPU:/g' "$g/$f.json" >"$C/gpu_$f.json"
  done
  rm -rf "$g"
  git rev-parse --short HEAD >"$C/commit"
  du -sh "$C"
}

device() {
  exec > >(tee "${OUT:-/tmp}/mpi.txt") 2>&1
  echo "grt GPU cluster run $(date -u +%FT%TZ), commit $(cat "$C/commit")"
  local here lib
  here=$(pwd)/$C
  mkdir -p /tmp/ompi && tar xzf "$C/ompi.tgz" -C /tmp/ompi
  lib=$(mktemp -d) && tar xzf "$C/lib.tgz" -C "$lib"
  local cuda
  cuda=$(timeout 20 find /usr /opt -xdev \( -name 'libcublas.so.13' -o -name 'libcudart.so.13' -o -name 'libnccl.so.2' \) 2>/dev/null |
    xargs -r -n1 dirname | sort -u | tr '\n' ':')
  export OPAL_PREFIX=/tmp/ompi/usr PATH=/tmp/ompi/usr/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/ompi/libs:/tmp/ompi/usr/lib/x86_64-linux-gnu/openmpi/lib:$lib/lib:/usr/local/cuda/lib64:$cuda
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_hwloc_base_binding_policy=none PMIX_MCA_pcompress_base_silence_warning=1
  export GRT_PLUGIN_PATH="$here/libgrt_backend_cuda.so:$here/mpi"
  local g=(--option gpu.allow_growth=true --option gpu.virtual_devices=1024,1024 --no-rewrite)
  local dm=(--fetch p --fetch u --fetch m --fetch u2)
  local fails=0
  echo "== one process"
  timeout 60 "$C/grt" run "$C/gpu_device_memory_local.json" --devices cpu:3 "${g[@]}" "${dm[@]}" \
    --log-device-placement | tee /tmp/dm_local
  for net in vader tcp; do
    echo "== 3 ranks over $net: GPU values across tasks"
    timeout 90 orterun -np 3 --mca btl "self,$net" "$C/grt" run "$C/gpu_device_memory_cluster.json" \
      --cluster ps:1,worker:2 "${g[@]}" --timeout-ms 60000 "${dm[@]}" 2>&1 |
      grep -v -E 'pmix_mca_base_component_repository_open|dlopen error|Perhaps a missing' | tee /tmp/dm_$net
    if diff <(grep '^{' /tmp/dm_local) <(grep '^{' /tmp/dm_$net) >/dev/null; then echo "ok: as one process"; else echo "FAIL: not as one process"; fails=$((fails + 1)); fi
  done
  echo "== 3 ranks: an all-reduce of GPU members across tasks, 3 steps"
  timeout 90 orterun -np 3 --mca btl self,vader "$C/grt" run "$C/gpu_device_all_reduce_cluster.json" \
    --cluster ps:1,worker:2 "${g[@]}" --timeout-ms 60000 --steps 3 --fetch r0 --fetch r1 --fetch r2 2>&1 |
    grep -v -E 'pmix_mca_base_component_repository_open|dlopen error|Perhaps a missing' | tee /tmp/dar
  if [ "$(grep -c -F '"values": [111, 222, 333]' /tmp/dar)" -eq 3 ]; then echo "ok: every member has the sum"; else echo "FAIL: the sums"; fails=$((fails + 1)); fi
  echo "cluster GPU checks failed: $fails"
}

case "${1:-}" in
  build) build ;;
  device) device ;;
  *) echo "usage: $0 build|device" >&2; exit 2 ;;
esac
