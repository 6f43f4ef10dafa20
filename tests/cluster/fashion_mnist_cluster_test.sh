#!/usr/bin/env bash
# The Fashion-MNIST MLP (examples/fashion_mnist.c) trained across the
# processes of a cluster reaches what one process reaches with the same
# global batch (256), data order and seed (7), judged on the real test set
# (10,000 examples): mirrored over 2 workers with 2 towers each (gradients
# all-reduced within a worker and across workers, shared memory), with one
# tower each (each gradient summed across workers straight into its
# output), and with
# parameter servers (ps:1,worker:2, variables on the ps task, TCP on
# loopback), and with two ps tasks (ps:2,worker:2: the greedy setter puts
# dense1/w, 784 KiB, and its Adam slots on ps task 0 and every smaller
# variable on ps task 1, which the placement log of rank 0 must show;
# before ps:K parsed, the example refused the spec). One epoch over the first 16,384 training examples (64 steps):
# every step's loss within 2% of one process's (Adam's first steps magnify
# rounding; the sums run in another order) and the test accuracy within
# 1 point, well above chance. Each worker feeds only its towers' parts of
# the batch: a worker that left its part zero (tried by hand, 4096 examples) moved the
# accuracy from 0.68 to 0.39, and the check failed.
# Skips, saying so, where Open MPI or the dataset (dataset-fashion-mnist)
# is missing.
set -uo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
plugin="$2"
data=/usr/share/datasets/fashion-mnist
. "$(dirname "${BASH_SOURCE[0]}")/mpi_setup.sh" # skips without Open MPI; $tmp, ${tcp[@]}, ${shm[@]}
if [ ! -r "$data/train-images-idx3-ubyte.gz" ] || [ ! -r "$data/t10k-images-idx3-ubyte.gz" ]; then
  echo "SKIPPED: the Fashion-MNIST dataset is not installed in $data: apt-get install dataset-fashion-mnist"
  exit 0
fi
common=(--epochs 1 --limit 16384 --batch 256)
fails=0
bad() { echo "FAIL: $1"; [ -n "${2:-}" ] && cat "$2"; fails=$((fails + 1)); }
run() { # run NAME COMMAND...: its output and loss CSV in $tmp/NAME
  local name="$1"
  shift
  mkdir -p "$tmp/$name"
  timeout 300 "$@" --out-dir "$tmp/$name" >"$tmp/$name/out" 2>&1 || bad "$name: exit $?" "$tmp/$name/out"
  grep -q "^test_accuracy=" "$tmp/$name/out" || bad "$name: no test accuracy" "$tmp/$name/out"
}
run one "$bin" "${common[@]}"
run mirrored mpirun -np 2 "${shm[@]}" "$bin" --cluster worker:2 --towers 4 \
  --devices cpu:2 "${common[@]}"
run mirrored1 mpirun -np 2 "${shm[@]}" "$bin" --cluster worker:2 --towers 2 "${common[@]}"
run ps mpirun -np 3 "${tcp[@]}" "$bin" --cluster ps:1,worker:2 --towers 2 \
  "${common[@]}"
# Each rank's stderr (its placement log) in a file of its own.
run ps2 mpirun -np 4 "${tcp[@]}" --output-filename "$tmp/ps2/ranks" "$bin" \
  --cluster ps:2,worker:2 --towers 2 --log-placement true "${common[@]}"
grep -v ': (' "$tmp"/*/out
for name in mirrored mirrored1 ps ps2; do
  python3 - "$tmp" "$name" <<'P' && echo "ok: $name across processes matches one process" ||
import csv, re, sys
d, name = sys.argv[1], sys.argv[2]
def losses(t):
    return [float(r["loss"]) for r in csv.DictReader(open(f"{d}/{t}/fashion_mnist_loss.csv"))]
def acc(t):
    return float(re.search(r"test_accuracy=([0-9.]+)", open(f"{d}/{t}/out").read()).group(1))
a, b = losses("one"), losses(name)
assert len(a) == len(b) == 64, (len(a), len(b))
for i, (x, y) in enumerate(zip(a, b)):
    assert abs(x - y) <= 2e-2 * abs(x), ("step", i + 1, x, y)
assert a[-1] < a[0], a
assert acc("one") > 0.5 and abs(acc("one") - acc(name)) <= 0.01, (acc("one"), acc(name))
P
    bad "$name across processes differs from one process"
done
grep -q "mirrored, cluster worker:2" "$tmp/mirrored/out" || bad "the mirrored run did not say so" "$tmp/mirrored/out"
grep -q "parameter server, cluster ps:1,worker:2" "$tmp/ps/out" || bad "the ps run did not say so" "$tmp/ps/out"
grep -q "parameter server, cluster ps:2,worker:2" "$tmp/ps2/out" || bad "the ps2 run did not say so" "$tmp/ps2/out"
# The variables' places in rank 0's placement log: on both ps tasks, as
# the greedy setter spreads them by bytes.
log="$(ls "$tmp"/ps2/ranks/*/rank.0/stderr 2>/dev/null | head -1)"
ps_of() { grep -a "^$1: (VariableV2): " "$log" | sed -n 's|.*/job:ps/replica:0/task:\([0-9]*\)/.*|\1|p'; }
if [ -z "$log" ]; then
  bad "no placement log from rank 0 of the ps2 run" "$tmp/ps2/out"
else
  for v in dense1/w dense1/w/Adam dense1/w/Adam_1; do
    [ "$(ps_of "$v")" = 0 ] || bad "ps2: $v on ps task '$(ps_of "$v")', not 0" "$log"
  done
  for v in dense1/b dense2/w dense2/b dense3/w dense3/b dense2/w/Adam beta1_power; do
    [ "$(ps_of "$v")" = 1 ] || bad "ps2: $v on ps task '$(ps_of "$v")', not 1" "$log"
  done
  grep -aq "(ApplyAdam): /job:ps/replica:0/task:0/" "$log" &&
    grep -aq "(ApplyAdam): /job:ps/replica:0/task:1/" "$log" ||
    bad "ps2: the Adam updates are not on both ps tasks" "$log"
fi
[ $fails -eq 0 ] && echo "all Fashion-MNIST cluster checks passed" || echo "$fails Fashion-MNIST cluster checks failed"
exit $((fails > 0))
