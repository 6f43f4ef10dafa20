#!/usr/bin/env bash
# grt replicate, then grt train-graph --colocate-gradients-with-ops: the
# seeds' polynomial fit (Adam 0.1, 1000 steps) in two towers on two logical
# CPUs converges as on one device, to the same w; the towers' gradients of
# the shared w meet in one AddN on w's device. Bad requests exit 1 or 2.
set -u
grt="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { # expected-rc command...
  local want="$1"; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || { bad "exit $rc (wanted $want): $*"; cat "$tmp/err"; }
}
has() { grep -qF -- "$2" "$tmp/$1" || { bad "$1 lacks '$2'"; cat "$tmp/$1"; }; }

python3 - "$tmp" <<'P'
import json, random, sys
d = sys.argv[1]
nodes = [
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
 {"name":"y","op":"Placeholder","attrs":{"dtype":"float32","shape":[-1]}},
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
]
json.dump({"format":"grt.graph","version":1,"nodes":nodes}, open(d + "/poly.json", "w"))
random.seed(7)
xs = [random.uniform(-10, 10) for _ in range(100)]
open(d + "/x.json", "w").write(json.dumps({"dtype":"float32","shape":[100],"values":xs}))
open(d + "/y.json", "w").write(json.dumps({"dtype":"float32","shape":[100],"values":[5*x*x+3 for x in xs]}))
P

run 0 "$grt" replicate "$tmp/poly.json" "$tmp/poly2.json" --towers 2 --tower-devices /cpu:0,/cpu:1 \
  --inputs x,y --outputs loss --variables-on /cpu:0
run 0 "$grt" train-graph "$tmp/poly2.json" "$tmp/poly2t.json" --loss loss --optimizer adam \
  --learning-rate 0.1 --colocate-gradients-with-ops
run 0 "$grt" train-graph "$tmp/poly.json" "$tmp/poly1t.json" --loss loss --optimizer adam --learning-rate 0.1
run 0 "$grt" place "$tmp/poly2t.json" --devices cpu:2 --log
has out "gradients/tower_1/mm_grad/MatMul_1: (MatMul): /job:localhost/replica:0/task:0/device:CPU:1"
has out "gradients/w_grad/AddN: (AddN): /job:localhost/replica:0/task:0/device:CPU:0"
for n in 1 2; do
  run 0 "$grt" run "$tmp/poly${n}t.json" --devices cpu:2 --feed "x=$(cat "$tmp/x.json")" \
    --feed "y=$(cat "$tmp/y.json")" --init init --target train --steps 1000 --fetch w
  cp "$tmp/out" "$tmp/w$n"
done
python3 - "$tmp/w1" "$tmp/w2" <<'P' || bad "w does not converge to about [5, 0, 3], or the towers' w differs"
import json, sys
w1 = json.load(open(sys.argv[1]))["values"]
w2 = json.load(open(sys.argv[2]))["values"]
print("one device:", w1, "two towers:", w2)
assert abs(w1[0] - 5) < 0.05 and abs(w1[1]) < 0.05 and abs(w1[2] - 3) < 0.6, w1
assert all(abs(a - b) < 1e-3 * (1 + abs(a)) for a, b in zip(w1, w2)), (w1, w2)
P

# Mirrored: a copy of w per tower; after training both copies are the same
# and equal one device's w.
run 0 "$grt" replicate "$tmp/poly.json" "$tmp/polym.json" --towers 2 --tower-devices /cpu:0,/cpu:1 \
  --inputs x,y --outputs loss --mirrored --loss loss --optimizer adam --learning-rate 0.1
run 0 "$grt" run "$tmp/polym.json" --devices cpu:2 --feed "x=$(cat "$tmp/x.json")" \
  --feed "y=$(cat "$tmp/y.json")" --init init --target train --steps 1000 --fetch w --fetch tower_1/w
head -1 "$tmp/out" >"$tmp/wm0"
tail -1 "$tmp/out" >"$tmp/wm1"
cmp -s "$tmp/wm0" "$tmp/wm1" || bad "mirrored copies differ: $(cat "$tmp/out")"
python3 - "$tmp/w1" "$tmp/wm0" <<'P' || bad "mirrored w differs from one device's"
import json, sys
w1 = json.load(open(sys.argv[1]))["values"]
wm = json.load(open(sys.argv[2]))["values"]
assert all(abs(a - b) < 1e-3 * (1 + abs(a)) for a, b in zip(w1, wm)), (w1, wm)
P
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 2 --tower-devices /cpu:0,/cpu:1 \
  --inputs x,y --outputs loss --mirrored

# The same with one NcclAllReduce group per variable: the same trained w.
run 0 "$grt" replicate "$tmp/poly.json" "$tmp/polyc.json" --towers 2 --tower-devices /cpu:0,/cpu:1 \
  --inputs x,y --outputs loss --mirrored --loss loss --optimizer adam --learning-rate 0.1 \
  --all-reduce collective
grep -q '"NcclAllReduce"' "$tmp/polyc.json" || bad "--all-reduce collective made no NcclAllReduce"
run 0 "$grt" run "$tmp/polyc.json" --devices cpu:2 --feed "x=$(cat "$tmp/x.json")" \
  --feed "y=$(cat "$tmp/y.json")" --init init --target train --steps 1000 --fetch w --fetch tower_1/w
head -1 "$tmp/out" >"$tmp/wc0"
tail -1 "$tmp/out" >"$tmp/wc1"
cmp -s "$tmp/wc0" "$tmp/wc1" || bad "collective mirrored copies differ: $(cat "$tmp/out")"
python3 - "$tmp/wm0" "$tmp/wc0" <<'P' || bad "collective w differs from AddN's"
import json, sys
wm = json.load(open(sys.argv[1]))["values"]
wc = json.load(open(sys.argv[2]))["values"]
assert all(abs(a - b) < 1e-4 * (1 + abs(a)) for a, b in zip(wm, wc)), (wm, wc)
P
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 2 --tower-devices /cpu:0,/cpu:1 \
  --inputs x,y --outputs loss --mirrored --loss loss --optimizer adam --learning-rate 0.1 \
  --all-reduce ring
has err "--all-reduce is add_n or collective, not 'ring'"

# Bad requests.
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 2 --inputs x
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 0 --inputs x --outputs loss
run 1 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 2 --inputs x,z --outputs loss
has err "input 'z': the graph has no node 'z'"
# Flags that disagree, or name a malformed device, are usage errors (2).
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 3 --tower-devices /cpu:0,/cpu:1 --inputs x,y --outputs loss
has err "--tower-devices needs one device per tower, not '/cpu:0,/cpu:1'"
# The option parser (tools/options.c, every table-driven command's).
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers 2 --towers 3 --inputs x,y --outputs loss
has err "grt replicate: --towers given twice"
run 2 "$grt" replicate "$tmp/poly.json" "$tmp/o.json" --towers= --inputs x,y --outputs loss
has err "grt replicate: --towers needs a non-empty value"

[ "$fails" -eq 0 ] && echo PASS
exit "$fails"
