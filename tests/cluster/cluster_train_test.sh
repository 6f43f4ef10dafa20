#!/usr/bin/env bash
# Training across the processes of a cluster (docs/distributed.md), under
# mpirun: parameter-server training of the poly fit (variables on /job:ps,
# two towers on /job:worker tasks) equal to one process on the whole batch;
# multi-worker mirrored training (4 towers, 2 per worker, gradients summed
# within a worker then across workers by the transport's all-reduce) with
# every copy bit-identical across workers and the loss's fit matching one
# process's 4 towers; checkpoints written by the chief and restored in a
# cluster and in one process; all-reduces of every summed dtype with a task
# that holds no member, and large ones (libnbc's ring) exact on every rank; an all-reduce one rank never joins failing, naming
# the lost task (liveness) or at the deadline; the graph optimizer across
# tasks matching one process. Skips, saying so, where Open MPI is missing.
set -uo pipefail
grt="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
plugin="$2"
graphs="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
examples="$(cd "$(dirname "$4")" && pwd)"
. "$(dirname "${BASH_SOURCE[0]}")/mpi_setup.sh" # skips without Open MPI; $tmp, ${tcp[@]}, ${shm[@]}
cd "$tmp" || exit 1
python3 "$graphs" "$tmp" || exit 1
feeds=(--feed "x=@$examples/x.npy" --feed "y=@$examples/y.npy")
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; [ -n "${2:-}" ] && cat "$2"; fails=$((fails + 1)); }
check() { # check WHAT FILE PATTERN
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:" "$2"; fi
}
same() { # same WHAT A B
  if cmp -s "$2" "$3"; then ok "$1"; else bad "$1:"; diff "$2" "$3"; fi
}
mpi() { timeout 120 mpirun "$@"; }
close() { # close WHAT A B: the tensors of A and B agree to float rounding (sums in another order)
  if python3 - "$2" "$3" <<'PY'; then ok "$1"; else bad "$1:"; diff "$2" "$3"; fi
import json, sys
a = [json.loads(l)["values"] for l in open(sys.argv[1])]
b = [json.loads(l)["values"] for l in open(sys.argv[2])]
assert len(a) == len(b) > 0
for x, y in zip(a, b):
    for p, q in zip(x, y):
        assert abs(p - q) <= 1e-4 * max(1.0, abs(p)), (x, y)
PY
}

# ---- parameter servers: w on /job:ps, towers on two worker tasks -------
W0=/job:worker/task:0/device:CPU W1=/job:worker/task:1/device:CPU
"$grt" replicate "$examples/poly.json" ps.json --towers 2 --tower-devices "$W0:0,$W1:0" \
  --inputs x,y --outputs loss --ps-devices /job:ps/task:0/device:CPU:0 &&
  "$grt" train-graph ps.json pst.json --loss loss --optimizer adam --learning-rate 0.1 \
    --colocate-gradients-with-ops &&
  "$grt" train-graph "$examples/poly.json" one.json --loss loss --optimizer adam --learning-rate 0.1 ||
  bad "making the ps graphs"
"$grt" run one.json "${feeds[@]}" --init init --target train --steps 60 --fetch w >one_w 2>&1 ||
  bad "one process" one_w
mpi -np 3 "${tcp[@]}" "$grt" run pst.json --cluster ps:1,worker:2 "${feeds[@]}" --init init \
  --target train --steps 60 --save ps.ckpt --log --timeout-ms 60000 >ps_out 2>ps_err ||
  bad "ps training over 3 ranks" ps_err
check "the variable is on the ps task" ps_err "w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"
check "a gradient is computed on a worker task" ps_err \
  "gradients/tower_1/mm_grad/MatMul_1: (MatMul): /job:worker/replica:0/task:1/device:CPU:0"
"$grt" run "$examples/poly.json" --restore ps.ckpt --fetch w >ps_w 2>&1 || bad "restoring ps.ckpt" ps_w
close "ps training over 3 processes gives one process's w on the whole batch" one_w ps_w

# ---- multi-worker mirrored: 4 towers, 2 per worker ----------------------
"$grt" replicate "$examples/poly.json" mirrored.json --towers 4 \
  --tower-devices "$W0:0,$W0:1,$W1:0,$W1:1" --inputs x,y --outputs loss --mirrored --loss loss \
  --optimizer sgd --learning-rate 0.0001 --all-reduce collective &&
  "$grt" replicate "$examples/poly.json" mirrored_local.json --towers 4 \
    --tower-devices /cpu:0,/cpu:1,/cpu:2,/cpu:3 --inputs x,y --outputs loss --mirrored --loss loss \
    --optimizer sgd --learning-rate 0.0001 --all-reduce collective || bad "making the mirrored graphs"
copies=(--fetch w --fetch tower_1/w --fetch tower_2/w --fetch tower_3/w)
"$grt" run mirrored_local.json --devices cpu:4 --no-rewrite "${feeds[@]}" --init init --target train \
  --steps 30 "${copies[@]}" >local_w 2>&1 || bad "mirrored in one process" local_w
for net in shm tcp; do
  declare -n mca="$net"
  rm -f m.ckpt
  mpi -np 2 "${mca[@]}" "$grt" run mirrored.json --cluster worker:2 --devices cpu:2 "${feeds[@]}" \
    --init init --target train --steps 30 --save m.ckpt --timeout-ms 60000 >m_out 2>m_err ||
    bad "mirrored training over 2 workers ($net)" m_err
  # The chief's checkpoint holds every copy, from both workers.
  "$grt" run mirrored_local.json --devices cpu:4 --no-rewrite --restore m.ckpt "${copies[@]}" \
    >m_w_$net 2>&1 || bad "restoring m.ckpt in one process" m_w_$net
  if [ "$(sort -u m_w_$net | wc -l)" = 1 ] && [ "$(wc -l <m_w_$net)" = 4 ]; then
    ok "the 4 copies on 2 workers are bit-identical after 30 steps ($net)"
  else
    bad "copies differ ($net):" m_w_$net
  fi
done
same "shared memory and TCP train the same bits" m_w_shm m_w_tcp
close "2 workers fit as one process with 4 towers (same global batch)" local_w m_w_tcp
# Trained: w0 (the x^2 coefficient) from 0.1 to near 5.
check "mirrored training fits" m_w_tcp '"values": [5.0'
check "ps training moves w toward [5, 0, 3]" ps_w '"values": [4.5'

mpi -np 2 "${shm[@]}" "$grt" run mirrored.json --cluster worker:2 --devices cpu:2 --restore m.ckpt \
  --fetch tower_2/w --fetch tower_3/w --timeout-ms 60000 >m_restored 2>&1 ||
  bad "restoring m.ckpt over 2 workers" m_restored
head -n 2 m_w_tcp >m_want
same "worker 1 restored its copies from the chief's checkpoint" m_want m_restored

# ---- all-reduces of every summed dtype; a task with no member ------------
fetches=()
for d in float32 float64 float16 int32 int64; do fetches+=(--fetch "sum0_$d" --fetch "sum1_$d"); done
mpi -np 3 "${tcp[@]}" "$grt" run allreduce.json --cluster ps:1,worker:2 "${fetches[@]}" \
  --timeout-ms 60000 >ar_out 2>&1 || bad "all-reduces over 3 ranks" ar_out
cat >ar_want <<'W'
{"dtype": "float32", "shape": [3], "values": [1.75, 0, 2e30]}
{"dtype": "float64", "shape": [3], "values": [2e-300, 0.30000000000000004, 0]}
{"dtype": "float16", "shape": [3], "values": [0.75, -2, 65500]}
{"dtype": "int32", "shape": [3], "values": [-2147483648, 0, -1]}
{"dtype": "int64", "shape": [3], "values": [9007199254740994, 0, 0]}
W
awk 'NR % 2 == 1' ar_out >ar_odd
awk 'NR % 2 == 0' ar_out >ar_even
same "sums across tasks of every dtype (the ps adds zeros)" ar_want ar_odd
same "both workers get the same sums" ar_want ar_even

# Large all-reduces, which the MPI transport sums with libnbc's ring (each
# part summed on one rank and passed on), exact and the same on both
# workers: x + 3x in float32, and in float16 (summed in float, rounded per
# pair); the ps task adds zeros, which changes no bit whatever the order.
mpi -np 3 "${shm[@]}" "$grt" run big.json --cluster ps:1,worker:2 --feed x=@big_x.npy \
  --fetch big0_float32 --fetch big1_float32 --fetch big0_float16 --fetch big1_float16 \
  --timeout-ms 60000 >big_out 2>&1 || bad "large all-reduces over 3 ranks" big_out
if python3 - "$graphs" big_out <<'PY'; then ok "large all-reduces (libnbc's ring) exact on both workers"; else bad "large all-reduces"; fi
import importlib.util, json, struct, sys
spec = importlib.util.spec_from_file_location("g", sys.argv[1])
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
f16 = lambda v: struct.unpack("<e", struct.pack("<e", v))[0]
x = g.big_x()
want32 = [f32(v + f32(3 * v)) for v in x]
want16 = [f16(f32(f16(v) + f16(f32(3 * v)))) for v in x]
got = [[f32(v) for v in json.loads(l)["values"]] for l in open(sys.argv[2]) if l.startswith("{")]
assert len(got) == 4, len(got)
assert got[0] == got[1] == want32, "float32"
assert got[2] == got[3] == want16, "float16"
PY

start=$(date +%s)
mpi "${shm[@]}" -np 1 "$grt" run lonely.json --cluster ps:1,worker:1 --fetch s0 --target s1 \
  --timeout-ms 1500 : -np 1 "$grt" run lonely.json --cluster ps:1,worker:1 --fetch other \
  >lonely 2>&1
rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 60 ] || bad "the lonely all-reduce: status $rc after $took s" lonely
# The other rank ends its run without joining and exits: its liveness note
# ("gone") fails the wait naming it, normally before the deadline; either
# way the step fails within the bound, naming the all-reduce.
if grep -qF "waiting for the all-reduce 'g_float32' across tasks: lost /job:worker/replica:0/task:0: its process ended" lonely ||
  grep -qF "deadline exceeded: the run passed its timeout of 1500 ms waiting for the all-reduce 'g_float32' across tasks (step 0)" lonely; then
  ok "an all-reduce a rank never joins fails naming the lost task (or at the deadline)"
else
  bad "an all-reduce a rank never joins: neither the lost task nor the deadline in:" lonely
fi

# ---- the graph optimizer in a cluster -----------------------------------
# Every rank optimizes the same graph alike (a constant subexpression on
# worker:1 folded, an Identity on worker:0 removed) and the start-up hash
# covers the optimized graph: the results equal one process's, with and
# without the optimizer, bit for bit; a fetch of a folded node runs the
# user's graph (the fallback) in the cluster too; a rank that does not
# optimize is refused at start-up. (Before the optimizer ran in clusters,
# the report said "optimizer: off" and the check of its changes failed.)
ofeed=(--feed x=@optimized_x.npy)
"$grt" run optimized_local.json --devices cpu:3 --no-rewrite "${ofeed[@]}" --fetch cs --fetch out \
  --steps 2 >opt_want 2>&1 || bad "the optimizer's graph in one process" opt_want
"$grt" run optimized_local.json --devices cpu:3 "${ofeed[@]}" --fetch cs --fetch out --steps 2 \
  >opt_local 2>&1 || bad "the optimizer's graph in one process, optimized" opt_local
mpi -np 3 "${shm[@]}" "$grt" run optimized_cluster.json --cluster ps:1,worker:2 "${ofeed[@]}" \
  --fetch out --optimizer-report --timeout-ms 60000 >opt_out 2>opt_err || bad "optimized cluster" opt_err
check "every rank's optimizer folded the constants across tasks" opt_err \
  "constant_folding            11 ->     8 nodes     1 changes"
[ "$(grep -c "^optimizer: 12 -> 8 nodes" opt_err)" = 3 ] || bad "not 3 ranks optimized alike:" opt_err
tail -n 1 opt_want >opt_want_out
same "the optimized cluster gives one process's result" opt_want_out opt_out
mpi -np 3 "${tcp[@]}" "$grt" run optimized_cluster.json --cluster ps:1,worker:2 "${ofeed[@]}" \
  --fetch cs --fetch out --steps 2 --timeout-ms 60000 >opt_fallback 2>&1 ||
  bad "a fetch of a folded node in a cluster" opt_fallback
same "a folded node's fetch (the user's graph) across tasks gives one process's" opt_want opt_fallback
same "one process optimized gives the same" opt_want opt_local
mpi "${shm[@]}" -np 2 "$grt" run optimized_cluster.json --cluster ps:1,worker:2 "${ofeed[@]}" \
  --fetch out : -np 1 "$grt" run optimized_cluster.json --cluster ps:1,worker:2 --no-rewrite \
  "${ofeed[@]}" --fetch out >opt_mixed 2>&1 && bad "a rank without the optimizer was not refused" opt_mixed
check "a rank without the optimizer is refused at start-up" opt_mixed \
  "rank 2 (/job:worker/replica:0/task:1) optimized the graph otherwise than rank 0"

[ $fails -eq 0 ] && echo "all cluster training checks passed" || echo "$fails cluster training checks failed"
exit $((fails > 0))
