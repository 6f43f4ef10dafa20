#!/usr/bin/env bash
# grt run --memory-limit / --timeout-ms / --compact, and what programs read
# from --fetch: every element, values that read back bit-identical.
set -u
grt="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
ok() { :; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { # expected-rc command...
  local want="$1"; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || { bad "exit $rc (wanted $want): $*"; cat "$tmp/err"; }
}
has() { grep -qF -- "$2" "$tmp/$1" || { bad "$1 lacks '$2'"; cat "$tmp/$1"; }; }

cat >"$tmp/g.json" <<'G'
{"format": "grt.graph", "version": 1, "nodes": [
  {"name": "shape", "op": "Placeholder", "attrs": {"dtype": "int32", "shape": [2]}},
  {"name": "r", "op": "RandomUniform", "inputs": ["shape"], "attrs": {"dtype": "float32", "T": "int32"}},
  {"name": "axes", "op": "Const", "attrs": {"dtype": "int32", "value": {"dtype": "int32", "shape": [2], "values": [0, 1]}}},
  {"name": "s", "op": "Sum", "inputs": ["r", "axes"]},
  {"name": "ones", "op": "Const", "attrs": {"dtype": "float32", "value": {"dtype": "float32", "shape": [2, 4], "values": [1]}}},
  {"name": "odd", "op": "Const", "attrs": {"dtype": "float32", "value": {"dtype": "float32", "shape": [5],
     "values": ["NaN", "Infinity", "-Infinity", -0.0, 0.1]}}},
  {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float32", "shape": [-1]}},
  {"name": "y", "op": "Identity", "inputs": ["x"]}
]}
G
shape() { echo "shape={\"dtype\": \"int32\", \"shape\": [2], \"values\": [$1, $2]}"; }

# Every element, for a uniform tensor too; --compact keeps the short form.
run 0 "$grt" run "$tmp/g.json" --fetch ones
has out '{"dtype": "float32", "shape": [2, 4], "values": [1, 1, 1, 1, 1, 1, 1, 1]}'
run 0 "$grt" run "$tmp/g.json" --fetch ones --compact
has out '{"dtype": "float32", "shape": [2, 4], "values": [1]}'
# Non-finite values as the documented strings, and they read back: the
# printed tensor fed back in prints the same text.
run 0 "$grt" run "$tmp/g.json" --fetch odd
has out '"values": ["NaN", "Infinity", "-Infinity", -0.0, 0.1]}'
first=$(cat "$tmp/out")
run 0 "$grt" run "$tmp/g.json" --feed "x=$first" --fetch y
[ "$(cat "$tmp/out")" = "$first" ] || bad "round trip: '$first' came back as '$(cat "$tmp/out")'"
# 5000 elements, more than the compact form's values limit: still a list.
run 0 "$grt" run "$tmp/g.json" --feed "$(shape 50 100)" --fetch r
python3 - "$tmp/out" <<'PY' || bad "5000 random floats are not all printed"
import json, sys
t = json.loads(open(sys.argv[1]).read())
assert t["shape"] == [50, 100] and len(t["values"]) == 5000, (t["shape"], len(t.get("values", [])))
assert all(0 <= v < 1 for v in t["values"])
PY

# --memory-limit: the node, the bytes asked, the limit; small runs still fit.
run 1 "$grt" run "$tmp/g.json" --feed "$(shape 1000 1000)" --fetch s --memory-limit 1M
has err "node 'r' (RandomUniform)"
has err "4000000 bytes"
has err "memory limit of 1048576 bytes on /job:localhost/replica:0/task:0/device:CPU:0 reached: asked for"
has err "in use"
run 0 "$grt" run "$tmp/g.json" --feed "$(shape 100 100)" --fetch s --memory-limit 1M
# A malformed --memory-limit is a usage error (2), as every malformed value.
run 2 "$grt" run "$tmp/g.json" --feed "$(shape 10 10)" --fetch s --memory-limit 12X
has err "memory_limit"

# --timeout-ms: DEADLINE_EXCEEDED (exit 1) naming the timeout; 0 is none.
run 1 "$grt" run "$tmp/g.json" --feed "$(shape 4000 4000)" --fetch s --timeout-ms 1
has err "deadline exceeded: the run passed its timeout of 1 ms"
run 0 "$grt" run "$tmp/g.json" --feed "$(shape 10 10)" --fetch s --timeout-ms 0
run 2 "$grt" run "$tmp/g.json" --fetch s --timeout-ms -5

# A fed shape whose size overflows: INVALID_ARGUMENT naming node and shape.
run 1 "$grt" run "$tmp/g.json" --feed "$(shape 2147483647 2147483647)" --fetch s
has err "node 'r' (RandomUniform): a float32 tensor of shape [2147483647,2147483647] would be 18446744056529682436 bytes"

[ "$fails" -eq 0 ] && echo "all passed" || echo "$fails failed"
exit "$fails"
