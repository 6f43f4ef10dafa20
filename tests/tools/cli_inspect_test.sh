#!/usr/bin/env bash
# grt inspect: the graph's signature first (feeds with dtype and shape,
# outputs nothing uses, targets such as init and train), then the node table
# as before; --signature prints the signature alone, --json as JSON.
set -u
grt="$1"
example="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { # expected-rc command...: stdout in $tmp/out, stderr in $tmp/err
  local want="$1"
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] && ok || { bad "exit $rc, expected $want: $*"; cat "$tmp/err"; }
}
# section NAME: the lines of the signature section NAME in $tmp/out.
# Its lines are indented; the next unindented line (or a blank) ends it.
section() { awk -v h="$1:" '$0 == h {on = 1; next} on && /^  / {print; next} {on = 0}' "$tmp/out"; }
expect_section() { # name expected-lines (words separated by single spaces)
  local got
  got=$(section "$1" | tr -s ' ' | sed 's/^ //')
  [ "$got" = "$2" ] && ok || { bad "$1: got [$got], expected [$2]"; cat "$tmp/out"; }
}

# The example: no feeds, the AddN the three products meet in, and init.
run 0 "$grt" inspect "$example"
expect_section feeds "none"
expect_section outputs "AddN float32 [2,2]"
expect_section targets "init NoOp waits for 6 nodes"
grep -q "^nodes: 65$" "$tmp/out" && ok || bad "no node count"
grep -qE "^NAME +OP +DEVICE" "$tmp/out" && ok || bad "no node table"
grep -qE "^MatMul_2 +MatMul +/gpu:2" "$tmp/out" && ok || bad "no MatMul_2 row"
[ "$(grep -n '^feeds:$' "$tmp/out" | cut -d: -f1)" -lt "$(grep -n '^NAME ' "$tmp/out" | cut -d: -f1)" ] &&
  ok || bad "the signature does not come before the table"

python3 - "$tmp" <<'P'
import json, sys
d = sys.argv[1]
nodes = [
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"scale","op":"Placeholder","attrs":{"dtype":"float32","shape":[]}},
 {"name":"any","op":"Placeholder","attrs":{"dtype":"int64"}},
 {"name":"w","op":"VariableV2","attrs":{"dtype":"float32","shape":[3,1]}},
 {"name":"w0","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[3,1],"values":[0.1,-0.2,0.3]}}},
 {"name":"w/Assign","op":"Assign","inputs":["w","w0"],"attrs":{"T":"float32"}},
 {"name":"sq","op":"Square","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"one","op":"OnesLike","inputs":["x"],"attrs":{"T":"float32"}},
 {"name":"f","op":"Pack","inputs":["sq","x","one"],"attrs":{"N":3,"T":"float32","axis":1}},
 {"name":"mm","op":"MatMul","inputs":["f","w"],"attrs":{"T":"float32"}},
 {"name":"yhat","op":"Squeeze","inputs":["mm"],"attrs":{"T":"float32","squeeze_dims":[1]}},
 {"name":"d","op":"Sub","inputs":["yhat","y"],"attrs":{"T":"float32"}},
 {"name":"loss","op":"Square","inputs":["d"],"attrs":{"T":"float32"}},
 {"name":"scaled","op":"Mul","inputs":["yhat","scale"],"attrs":{"T":"float32"}},
 {"name":"pair","op":"Unpack","inputs":["f"],"attrs":{"T":"float32","num":3,"axis":1}},
 {"name":"use0","op":"Identity","inputs":["pair"],"attrs":{"T":"float32"}},
 {"name":"parts","op":"Unpack","inputs":["f"],"attrs":{"T":"float32","num":3,"axis":1}},
 {"name":"after","op":"NoOp","inputs":["^use0","^scaled"]},
]
json.dump({"format":"grt.graph","version":1,"nodes":nodes}, open(d + "/poly.json", "w"))
P
# Feeds in graph order with unknown dimensions ("?") and an unknown rank;
# a node with one of its outputs used (pair) is not an output; an unused
# Assign is a target; a node a NoOp waits for is not an output.
run 0 "$grt" inspect "$tmp/poly.json" --signature
expect_section feeds "x float32 [?]
y float32 [?]
scale float32 []
any int64 ?"
expect_section outputs "loss float32 [?]
parts float32 [?]
parts:1 float32 [?]
parts:2 float32 [?]"
expect_section targets "w/Assign Assign waits for 2 nodes
after NoOp waits for 2 nodes"
grep -qE "^NAME +OP" "$tmp/out" && bad "--signature printed the node table" || ok

# After train-graph: the loss the gradients read is still the output, the
# backward pass's dangling tensors are not outputs, and train and init are
# the targets.
run 0 "$grt" train-graph "$tmp/poly.json" "$tmp/t.json" --loss loss --optimizer sgd --learning-rate 0.1
run 0 "$grt" inspect "$tmp/t.json" --signature
section outputs >"$tmp/outputs"
grep -qE "^  loss_mean +float32 +\[\]$" "$tmp/outputs" && ok || { bad "no loss_mean output"; cat "$tmp/out"; }
grep -q "gradients" "$tmp/outputs" && { bad "gradient tensors listed as outputs"; cat "$tmp/out"; } || ok
section targets >"$tmp/targets"
grep -qE "^  train +NoOp " "$tmp/targets" && ok || { bad "no train target"; cat "$tmp/out"; }
grep -qE "^  init +NoOp " "$tmp/targets" && ok || { bad "no init target"; cat "$tmp/out"; }

# --json: the same signature as one JSON object, nothing else on stdout.
run 0 "$grt" inspect "$tmp/poly.json" --json
python3 - "$tmp/out" <<'P' && ok || { bad "--json signature"; cat "$tmp/out"; }
import json, sys
sig = json.load(open(sys.argv[1]))
assert sig["feeds"] == [
    {"name": "x", "dtype": "float32", "shape": [-1]},
    {"name": "y", "dtype": "float32", "shape": [-1]},
    {"name": "scale", "dtype": "float32", "shape": []},
    {"name": "any", "dtype": "int64", "shape": None}], sig["feeds"]
assert [o["name"] for o in sig["outputs"]] == ["loss", "parts", "parts:1", "parts:2"], sig
assert sig["targets"] == [
    {"name": "w/Assign", "op": "Assign", "waits_for": 2},
    {"name": "after", "op": "NoOp", "waits_for": 2}], sig["targets"]
P
run 0 "$grt" inspect "$example" --json
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["feeds"] == [] and s["outputs"] == [{"name": "AddN", "dtype": "float32", "shape": [2, 2]}], s' "$tmp/out" &&
  ok || { bad "--json for the example"; cat "$tmp/out"; }

run 0 "$grt" inspect --help
grep -qF -- "--signature" "$tmp/out" && ok || bad "inspect --help does not mention --signature"
run 2 "$grt" inspect "$tmp/poly.json" --bogus

echo "passed: $pass, failed: $fails"
[ "$fails" -eq 0 ]
