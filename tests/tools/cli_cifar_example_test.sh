#!/usr/bin/env bash
# examples/cifar10_net.json (the seeds' CIFAR-10 tower) run by `grt run` on
# random images: the init target fills the weights, probs has one row per
# image summing to 1, the placement log names the graph's own nodes, and the
# run with the graph rewrite (fused MatMul + BiasAdd + Relu) agrees with
# --no-rewrite. The file is what its generator writes.
set -u
grt="$1"
example="$2"
generator="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

if command -v python3 >/dev/null; then
  python3 "$generator" >"$tmp/regen.json" || bad "generator failed"
  cmp -s "$tmp/regen.json" "$example" || bad "$example differs from what $generator writes"
fi

# Two random 24x24x3 images as a JSON tensor.
awk 'BEGIN { srand(7); printf "{\"dtype\": \"float32\", \"shape\": [2, 24, 24, 3], \"values\": [";
             for (i = 0; i < 2 * 24 * 24 * 3; i++) printf "%s%.4f", (i ? ", " : ""), rand();
             print "]}" }' >"$tmp/images.json"
feed="images=$(cat "$tmp/images.json")"
"$grt" run "$example" --init init --fetch probs --feed "$feed" --log-device-placement \
  >"$tmp/fused" 2>"$tmp/log" || { bad "grt run failed"; cat "$tmp/log"; }
"$grt" run "$example" --init init --fetch probs --feed "$feed" --no-rewrite \
  >"$tmp/plain" 2>"$tmp/err" || { bad "grt run --no-rewrite failed"; cat "$tmp/err"; }
grep -qF "local3/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0" "$tmp/log" ||
  bad "the placement log does not name local3/MatMul"
tail -1 "$tmp/fused" >"$tmp/a"
tail -1 "$tmp/plain" >"$tmp/b"
grep -qF '"shape": [2, 10]' "$tmp/a" || bad "probs is not [2, 10]: $(cat "$tmp/a")"
values() { sed 's/.*"values": \[//; s/\].*//; s/,/\n/g' "$1"; }
values "$tmp/a" >"$tmp/va"
values "$tmp/b" >"$tmp/vb"
[ "$(wc -l <"$tmp/va")" -eq 20 ] || bad "expected 20 probabilities"
paste "$tmp/va" "$tmp/vb" | awk '
  { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-5) { print "differ at " NR ": " $1 " vs " $2; bad = 1 }
    if ($1 <= 0 || $1 >= 1) { print "not a probability: " $1; bad = 1 }
    row[int((NR - 1) / 10)] += $1 }
  END { for (r = 0; r < 2; r++) if (row[r] < 0.9999 || row[r] > 1.0001) { print "row " r " sums to " row[r]; bad = 1 }
        exit bad }' || bad "fused and unfused probabilities"
[ "$fails" -eq 0 ] && echo "PASS" || exit 1
