#!/usr/bin/env bash
# grt run --cluster under mpirun (docs/distributed.md): 3 ranks over TCP on
# loopback and over shared memory; values of every dtype, empty, scalar, a
# control edge and a 68 MiB tensor (two chunks) crossing tasks, bit-identical
# to the same graph on logical CPUs of one process; values in the memory of
# a device the host cannot address (the test backend's) sent, received and
# fetched across tasks, and all-reduced across them; a variable on /job:ps
# updated from a worker, with colocation and soft placement across tasks;
# ranks with different graphs or the wrong rank count refused at start-up;
# a receive whose sender never sends ending at the run's deadline.
# Faults (liveness, docs/distributed.md): a rank killed mid-step (mpirun
# ends the job naming it), stopped mid-step, that never starts its step
# (with the default peer timeout and no deadline too), or that exits
# without running: the others end within 10 s naming the lost task and
# mpirun exits non-zero; ranks with another cluster spec, another grt
# version or a graph that differs only in a constant's value are refused
# at start-up with one line.
# Every run here is --no-rewrite, as misbehave.c's sessions are: these graphs
# are constants, which the graph optimizer (on in a cluster too) folds on
# the task that consumes them, so the crossings under test would vanish;
# the optimizer across tasks is checked in cluster_train_test.sh.
# Where mpirun or the plugin is missing (a machine without Open MPI) it says
# so and passes; CI installs Open MPI (scripts/setup.sh), so it runs there.
set -uo pipefail
grt="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
plugin="$2"
graphs="$3"
misbehave="$(cd "$(dirname "$4")" && pwd)/$(basename "$4")"
test_backend="$(cd "$(dirname "$5")" && pwd)/$(basename "$5")"
. "$(dirname "${BASH_SOURCE[0]}")/mpi_setup.sh" # skips without Open MPI; $tmp, ${tcp[@]}, ${shm[@]}
python3 "$graphs" "$tmp" || exit 1
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
    --no-rewrite --cluster ps:1,worker:2 --option intra_op_threads=1 --timeout-ms 60000 "${fetches[@]}" \
    >"$tmp/cluster_$net" 2>"$tmp/err_$net"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: 3 ranks over $net: status $rc"; cat "$tmp/err_$net"; fails=$((fails + 1)); }
  same "3 ranks over $net give one process's bits" "$tmp/local" "$tmp/cluster_$net"
done

"$grt" run "$tmp/variable_local.json" --devices cpu:3 --no-rewrite --soft-placement --init v_init \
  --fetch update --fetch twice --fetch far_plus --steps 3 >"$tmp/var_local" 2>&1
timeout 120 mpirun -np 3 "${tcp[@]}" "$grt" run "$tmp/variable_cluster.json" --no-rewrite --cluster ps:1,worker:2 \
  --soft-placement --init v_init --fetch update --fetch twice --fetch far_plus --steps 3 \
  --timeout-ms 60000 >"$tmp/var_cluster" 2>"$tmp/var_err"
check "the variable on /job:ps took 3 updates from a worker" "$tmp/var_cluster" \
  '{"dtype": "float32", "shape": [2], "values": [1.75, 2.1875]}'
same "the variable's steps match one process's" "$tmp/var_local" "$tmp/var_cluster"
timeout 120 mpirun -np 3 "${tcp[@]}" "$grt" run "$tmp/variable_cluster.json" --no-rewrite --cluster ps:1,worker:2 \
  --soft-placement --log --fetch far_plus >"$tmp/var_log" 2>&1
check "colocation across tasks" "$tmp/var_log" "v_read: (Identity): /job:ps/replica:0/task:0/device:CPU:0"
check "soft placement away from a task the cluster lacks" "$tmp/var_log" \
  "far: (Const): /job:worker/replica:0/task:0/device:CPU:0"
check "every task's devices are known to every task" "$tmp/var_log" \
  "/job:worker/replica:0/task:1/device:CPU:0 -> device: 0, name: logical CPU device (declared; not on this machine)"

# Values in the memory of devices the host cannot address (the test
# backend's, standing in for GPUs) cross tasks through host memory: sent
# from worker:0's device, received into worker:1's, fetched from it. With
# separate host memory the devices' Add and Mul refuse an input that is not
# in their device memory, so a copy onto the device left out fails.
dm=(--fetch p --fetch u --fetch m --fetch u2)
GRT_PLUGIN_PATH="$test_backend" "$grt" run "$tmp/device_memory_local.json" --devices cpu:3,test:2 \
  --no-rewrite --option test.separate_host_memory=true "${dm[@]}" >"$tmp/dm_local" 2>&1 || { echo "FAIL: device memory, one process"; cat "$tmp/dm_local"; fails=$((fails + 1)); }
check "device memory, one process" "$tmp/dm_local" '{"dtype": "float32", "shape": [4], "values": [1, 16, 81, 256]}'
GRT_PLUGIN_PATH="$GRT_PLUGIN_PATH:$test_backend" timeout 120 mpirun -np 3 "${tcp[@]}" "$grt" run \
  "$tmp/device_memory_cluster.json" --no-rewrite --cluster ps:1,worker:2 --timeout-ms 60000 \
  --option test.separate_host_memory=true "${dm[@]}" \
  >"$tmp/dm_cluster" 2>"$tmp/dm_err" || { echo "FAIL: device memory across tasks"; cat "$tmp/dm_err"; fails=$((fails + 1)); }
same "device memory across tasks gives one process's bits" "$tmp/dm_local" "$tmp/dm_cluster"
# An all-reduce across tasks with its members in TEST memory (one on
# worker:0, two on worker:1; ps:0 adds zeros): staged through host memory,
# three steps, every member gets the exact sum. The devices' memory is apart
# from their host memory (tensor headers kept off it, as on a GPU).
GRT_TEST_ALL_REDUCE=1 GRT_PLUGIN_PATH="$GRT_PLUGIN_PATH:$test_backend" timeout 120 mpirun -np 3 "${tcp[@]}" \
  "$grt" run "$tmp/device_all_reduce_cluster.json" --no-rewrite --cluster ps:1,worker:2 --timeout-ms 60000 \
  --option test.separate_host_memory=true --steps 3 --fetch r0 --fetch r1 --fetch r2 >"$tmp/dar" 2>"$tmp/dar_err" ||
  { echo "FAIL: all-reduce of device memory across tasks"; cat "$tmp/dar_err"; fails=$((fails + 1)); }
if [ "$(grep -c -F '{"dtype": "float32", "shape": [3], "values": [111, 222, 333]}' "$tmp/dar")" -eq 3 ]; then
  echo "ok: all-reduce of device memory across tasks"
else
  echo "FAIL: all-reduce of device memory across tasks:"; cat "$tmp/dar"; fails=$((fails + 1))
fi

timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster ps:1,worker:2 \
  --fetch s : -np 2 "$grt" run "$tmp/crossings_cluster.json" --no-rewrite --cluster ps:1,worker:2 \
  --fetch w_int8 >"$tmp/mismatch" 2>&1
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: ranks with different graphs ran"; fails=$((fails + 1)); }
check "ranks with different graphs are refused" "$tmp/mismatch" \
  "rank 1 (/job:worker/replica:0/task:0) placed another graph or placement than rank 0 (/job:ps/replica:0/task:0)"

timeout 120 mpirun -np 2 "${tcp[@]}" "$grt" run "$tmp/crossings_cluster.json" --no-rewrite --cluster ps:1,worker:2 \
  --fetch w_int8 >"$tmp/count" 2>&1
check "a rank count unlike the spec's is refused" "$tmp/count" \
  "cluster 'ps:1,worker:2' has 3 tasks but 2 processes were started (mpirun -np 3)"

start=$(date +%s)
timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster ps:1,worker:1 \
  --fetch s --timeout-ms 1500 : -np 1 "$grt" run "$tmp/deadline_cluster.json" \
  --no-rewrite --cluster ps:1,worker:1 --target b --steps 1000000000 >"$tmp/deadline" 2>&1
rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "FAIL: the deadline run ended with status $rc"; fails=$((fails + 1)); }
[ $took -lt 60 ] || { echo "FAIL: the deadline run took $took s"; fails=$((fails + 1)); }
check "a receive whose sender never sends ends at the deadline" "$tmp/deadline" \
  "deadline exceeded: the run passed its timeout of 1500 ms waiting for 'a:0' from /job:worker/replica:0/task:0 (crossing 0, step 0)"

# ---- faults: every case ends within the bound, naming the lost task ----
bound=10
fault() { # fault WHAT PATTERN OUT RC SECONDS [BOUND]
  [ "$4" -ne 0 ] && [ "$4" -ne 124 ] || { echo "FAIL: $1: mpirun exited with status $4"; fails=$((fails + 1)); }
  [ "$5" -le "${6:-$bound}" ] || { echo "FAIL: $1: took $5 s (bound ${6:-$bound} s)"; fails=$((fails + 1)); }
  check "$1 (status $4, $5 s)" "$3" "$2"
}
pp=("$grt" run "$tmp/pingpong_cluster.json" --no-rewrite --cluster ps:1,worker:2 --fetch back --steps 100000000)
for sig in KILL STOP; do
  # Rank 1 (/job:worker/task:0) gets the signal 2 s into its steps, each a
  # round trip with rank 0.
  start=$(date +%s)
  timeout 60 mpirun "${tcp[@]}" -np 1 "${pp[@]}" --option cluster_peer_timeout_ms=2000 : \
    -np 1 sh -c "(sleep 2; kill -$sig \$\$) & exec $(printf '%q ' "${pp[@]}") --option cluster_peer_timeout_ms=2000" : \
    -np 1 "${pp[@]}" --option cluster_peer_timeout_ms=2000 >"$tmp/sig_$sig" 2>&1
  rc=$?
  took=$(($(date +%s) - start - 2))
  if [ $sig = KILL ]; then
    fault "a rank killed mid-step ends the job" "process rank 1 with PID" "$tmp/sig_$sig" $rc $took
  else
    fault "a rank stopped mid-step is lost" \
      "lost /job:worker/replica:0/task:0: not heard from for" "$tmp/sig_$sig" $rc $took
  fi
done
# Peer timeout 1500 ms, then the default (8000 ms, no deadline): the
# wait's failure comes within the bound of the wait's start; mpirun's start
# and teardown add about 3 s to the whole.
for timeout_ms in 1500 -; do
  start=$(date +%s)
  timeout 60 mpirun "${tcp[@]}" -np 2 "$misbehave" "$tmp/deadline_cluster.json" ps:1,worker:1 s \
    "$timeout_ms" 1 sleep:60000 >"$tmp/late" 2>&1
  rc=$?
  fault "a rank that never starts its step (peer timeout $timeout_ms, no deadline)" \
    "rank 0: receive of 'a:0' from /job:worker/replica:0/task:0 (crossing 0, step 0): /job:worker/replica:0/task:0 has not started its step in" \
    "$tmp/late" $rc $(($(date +%s) - start)) $((bound + 3))
  [ "$timeout_ms" = - ] && check "the default peer timeout is 8000 ms" "$tmp/late" \
    "cluster_peer_timeout_ms=8000)"
done
start=$(date +%s)
timeout 60 mpirun "${shm[@]}" -np 2 "$misbehave" "$tmp/deadline_cluster.json" ps:1,worker:1 s 0 1 exit \
  >"$tmp/gone" 2>&1
rc=$?
fault "a rank that exits without running its step (peer timeout off)" \
  "lost /job:worker/replica:0/task:0: its process ended (it left the cluster)" "$tmp/gone" $rc \
  $(($(date +%s) - start))

timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster ps:1,worker:1 \
  --fetch s : -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster worker:2 --fetch s \
  >"$tmp/spec" 2>&1
check "ranks with another cluster spec are refused" "$tmp/spec" \
  "rank 1 (/job:worker/replica:0/task:0) has another cluster spec than rank 0"
timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster ps:1,worker:1 \
  --fetch s : -np 1 env GRT_CLUSTER_TEST_VERSION=0.0.1 "$grt" run "$tmp/deadline_cluster.json" \
  --no-rewrite --cluster ps:1,worker:1 --fetch s >"$tmp/version" 2>&1
check "ranks with another grt version are refused" "$tmp/version" \
  "rank 1 (/job:worker/replica:0/task:0) has another grt version than rank 0"
timeout 120 mpirun "${tcp[@]}" -np 1 "$grt" run "$tmp/deadline_cluster.json" --no-rewrite --cluster ps:1,worker:1 \
  --fetch s : -np 1 "$grt" run "$tmp/deadline_other_cluster.json" --no-rewrite --cluster ps:1,worker:1 \
  --fetch s >"$tmp/value" 2>&1
check "ranks whose graphs differ only in a constant's value are refused" "$tmp/value" \
  "rank 1 (/job:worker/replica:0/task:0) placed another graph or placement than rank 0"

[ $fails -eq 0 ] && echo "all cluster checks passed" || echo "$fails cluster checks failed"
exit $((fails > 0))
