#!/usr/bin/env bash
# grt run --cluster under mpirun (docs/distributed.md): 3 ranks over TCP on
# loopback and over shared memory; values of every dtype, empty, scalar, a
# control edge and a 68 MiB tensor (two chunks) crossing tasks, bit-identical
# to the same graph on logical CPUs of one process; a variable on /job:ps
# updated from a worker, with colocation and soft placement across tasks;
# ranks with different graphs or the wrong rank count refused at start-up;
# a receive whose sender never sends ending at the run's deadline.
# Where mpirun or the plugin is missing (a machine without Open MPI) it says
# so and passes; CI installs Open MPI (scripts/setup.sh), so it runs there.
set -uo pipefail
grt="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
plugin="$2"
graphs="$3"
if ! command -v mpirun >/dev/null || [ "$(basename "$plugin")" != libgrt_transport_mpi.so ]; then
  echo "SKIPPED: Open MPI is not installed (mpirun or the plugin is missing): apt-get install libopenmpi-dev openmpi-bin"
  exit 0
fi
export GRT_PLUGIN_PATH="$(cd "$(dirname "$plugin")" && pwd)"
# CI runs as root; Open MPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# Under --config=asan: Open MPI keeps memory until exit, much of it allocated
# by components that MPI_Finalize unloads, so LeakSanitizer can neither
# name nor suppress it; the ranks check addresses and UB, not leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp="$(mktemp -d)"
export TMPDIR="$tmp"
trap 'rm -rf "$tmp"' EXIT
python3 "$graphs" "$tmp" || exit 1
# Loopback only (127.0.0.1): the interface by name, as a /32 netmask makes
# Open MPI 4.1 stall large messages.
tcp=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
shm=(--mca btl self,vader)
fails=0
check() { # check WHAT FILE PATTERN
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1: no '$3' in:"; cat "$2"; fails=$((fails + 1)); fi
}
same() { # same WHAT A B
  if cmp -s "$2" "$3"; then echo "ok: $1"; else echo "FAIL: $1:"; diff "$2" "$3"; fails=$((fails + 1)); fi
}

fetches=()
for f in w_float32 w_float64 w_int32 w_int64 w_uint8 w_int8 w_int16 w_bool w_float16 w_bfloat16 \
  empty_w1 scalar_p after_ctl bad_P bad_W1 checksum_P checksum_W1; do fetches+=(--fetch "$f"); done
"$grt" run "$tmp/crossings_local.json" --devices cpu:3 --no-rewrite --option intra_op_threads=1 \
  "${fetches[@]}" >"$tmp/local" 2>&1 || { echo "FAIL: one process"; cat "$tmp/local"; exit 1; }
check "the 68 MiB tensor arrives whole" "$tmp/local" '{"dtype": "float32", "shape": [], "values": [0]}'
for net in tcp shm; do
  declare -n mca="$net"
  timeout 120 mpirun -np 3 "${mca[@]}" "$grt" run "$tmp/crossings_cluster.json" \
    --cluster ps:1,worker:2 --option intra_op_threads=1 --timeout-ms 60000 "${fetches[@]}" \
    >"$tmp/cluster_$net" 2>"$tmp/err_$net"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: 3 ranks over $net: status $rc"; cat "$tmp/err_$net"; fails=$((fails + 1)); }
  same "3 ranks over $net give one process's bits" "$tmp/local" "$tmp/cluster_$net"
done

"$grt" run "$tmp/variable_local.json" --devices cpu:3 --no-rewrite --soft-placement --init v_init \
  --fetch update --fetch twice --fetch far_plus --steps 3 >"$tmp/var_local" 2>&1
timeout 120 mpirun -np 3 "${tcp[@]}" "$grt" run "$tmp/variable_cluster.json" --cluster ps:1,worker:2 \
  --soft-placement --init v_init --fetch update --fetch twice --fetch far_plus --steps 3 \
  --timeout-ms 60000 >"$tmp/var_cluster" 2>"$tmp/var_err"
check "the variable on /job:ps took 3 updates from a worker" "$tmp/var_cluster" \
  '{"dtype": "float32", "shape": [2], "values": [1.75, 2.1875]}'
same "the variable's steps match one process's" "$tmp/var_local" "$tmp/var_cluster"
timeout 120 mpirun -np 3 "${tcp[@]}" "$grt" run "$tmp/variable_cluster.json" --cluster ps:1,worker:2 \
  --soft-placement --log --fetch far_plus >"$tmp/var_log" 2>&1
check "colocation across tasks" "$tmp/var_log" "v_read: (Identity): /job:ps/replica:0/task:0/device:CPU:0"
check "soft placement away from a task the cluster lacks" "$tmp/var_log" \
  "far: (Const): /job:worker/replica:0/task:0/device:CPU:0"
check "every task's devices are known to every task" "$tmp/var_log" \
  "/job:worker/replica:0/task:1/device:CPU:0 -> device: 0, name: logical CPU device (declared; not on this machine)"

timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --cluster ps:1,worker:2 \
  --fetch s : -np 2 "$grt" run "$tmp/crossings_cluster.json" --cluster ps:1,worker:2 \
  --fetch w_int8 >"$tmp/mismatch" 2>&1
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: ranks with different graphs ran"; fails=$((fails + 1)); }
check "ranks with different graphs are refused" "$tmp/mismatch" \
  "rank 1 (/job:worker/replica:0/task:0) placed another graph or placement than rank 0 (/job:ps/replica:0/task:0)"

timeout 120 mpirun -np 2 "${tcp[@]}" "$grt" run "$tmp/crossings_cluster.json" --cluster ps:1,worker:2 \
  --fetch w_int8 >"$tmp/count" 2>&1
check "a rank count unlike the spec's is refused" "$tmp/count" \
  "cluster 'ps:1,worker:2' has 3 tasks but 2 processes were started (mpirun -np 3)"

start=$(date +%s)
timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --cluster ps:1,worker:1 \
  --fetch s --timeout-ms 1500 : -np 1 "$grt" run "$tmp/deadline_cluster.json" \
  --cluster ps:1,worker:1 --target b >"$tmp/deadline" 2>&1
rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "FAIL: the deadline run ended with status $rc"; fails=$((fails + 1)); }
[ $took -lt 60 ] || { echo "FAIL: the deadline run took $took s"; fails=$((fails + 1)); }
check "a receive whose sender never sends ends at the deadline" "$tmp/deadline" \
  "deadline exceeded: the run passed its timeout of 1500 ms waiting for 'a:0' from /job:worker/replica:0/task:0 (crossing 0, step 0)"

[ $fails -eq 0 ] && echo "all cluster checks passed" || echo "$fails cluster checks failed"
exit $((fails > 0))
