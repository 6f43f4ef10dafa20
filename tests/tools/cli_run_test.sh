#!/usr/bin/env bash
# grt run: the seeds' example with soft placement, feeds as JSON and .npy,
# --steps, --trace, and bad inputs (exit 1 with the cause, or 2 for usage).
set -u
grt="$1"
example="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

run() { # expected-rc command...
  local want="$1"; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] && ok || { bad "exit $rc (wanted $want): $*"; cat "$tmp/err"; }
}
has() { grep -qF -- "$2" "$tmp/$1" && ok || { bad "$1 lacks '$2'"; cat "$tmp/$1"; }; }

# The seeds' example: fails without soft placement, runs with it.
run 1 "$grt" run "$example" --init init --fetch AddN
has err "Cannot assign a device for operation a_0"
run 0 "$grt" run "$example" --soft-placement --log-device-placement --init init --fetch AddN
# The placement log on stderr, fallbacks marked; stdout the fetch alone.
has err "MatMul_1: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0 (soft placement: requested /device:GPU:1)"
has err "AddN: (AddN): /job:localhost/replica:0/task:0/device:CPU:0"
grep -q "AddN: (AddN): .*soft placement" "$tmp/err" && bad "AddN (on the CPU it asked for) marked as a fallback" || ok
has out '{"dtype": "float32", "shape": [2, 2], "values": ['
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || { bad "stdout holds more than the fetch"; cat "$tmp/out"; }
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" && ok || bad "stdout is not one JSON tensor"
# --log-file: the log there, stderr empty, the fetch alone on stdout.
run 0 "$grt" run "$example" --soft-placement --log-file "$tmp/placement.log" --init init --fetch AddN
has placement.log "a_0: (VariableV2): /job:localhost/replica:0/task:0/device:CPU:0 (soft placement: requested /device:GPU:0)"
[ ! -s "$tmp/err" ] && ok || { bad "--log-file still wrote to stderr"; cat "$tmp/err"; }
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || { bad "stdout holds more than the fetch"; cat "$tmp/out"; }
run 1 "$grt" run "$example" --soft-placement --log-file "$tmp/no/such/dir.log" --init init --fetch AddN
has err "--log-file $tmp/no/such/dir.log: cannot open"

# Feeds: y = (x + c) * x with x fed as JSON and as .npy.
cat >"$tmp/g.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},
 {"name":"c","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2],"values":[1,2]}}},
 {"name":"s","op":"Add","inputs":["x","c"],"device":"/cpu:1"},
 {"name":"y","op":"Mul","inputs":["s","x"]}]}
G
run 0 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y --fetch s:0
has out '{"dtype": "float32", "shape": [2], "values": [12, 8]}'
has out '{"dtype": "float32", "shape": [2], "values": [4, -2]}'
printf '\x93NUMPY\x01\x00\x76\x00{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }' >"$tmp/x.npy"
# pad the header to 118 bytes + newline, then two floats 3.0 and -4.0
python3 - "$tmp/x.npy" <<'P'
import struct, sys
p = sys.argv[1]
h = open(p, 'rb').read()[10:]
h = h + b' ' * (117 - len(h)) + b'\n'
open(p, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h + struct.pack('<2f', 3.0, -4.0))
P
run 0 "$grt" run "$tmp/g.json" --devices cpu:2 --feed "x=@$tmp/x.npy" --fetch y --steps 3 --trace "$tmp/trace.json"
has out '{"dtype": "float32", "shape": [2], "values": [12, 8]}'
has trace.json '"traceEvents"'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert sum(e['ph']=='X' for e in d['traceEvents']) == 15" "$tmp/trace.json" && ok || bad "trace is not JSON with 5 slices per step (c, s, Send, Recv, y)"
cp "$tmp/trace.json" "$tmp/trace.json.bak"

# Bad inputs.
run 1 "$grt" run "$tmp/g.json" --devices cpu:2 --fetch y
has err "You must feed a value for placeholder tensor 'x'"
run 1 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"int32","shape":[2],"values":[1,2]}' --fetch y
has err "feed 'x': the tensor is float32, but a int32 value was fed"
run 1 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32","shape":[3],"values":[1]}' --fetch y
has err "cannot feed a value of shape [3]"
# A malformed flag value is a usage error (2), found before the graph is read.
run 2 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32",' --fetch y
has err "--feed x"
run 1 "$grt" run "$tmp/g.json" --devices cpu:2 --feed "x=@$tmp/missing.npy" --fetch y
has err "missing.npy"
run 1 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32","shape":[2],"values":[1,2]}' --fetch nope
has err "--fetch nope: the graph has no node named 'nope'"
run 1 "$grt" run "$tmp/g.json" --devices cpu:1,gpu:2 --fetch c
has err "asks for 2 GPUs"
# --help lists every session option from the library's table and the
# built-in backends' declarations; --option sets any of them.
run 0 "$grt" run --help
has out "usage: grt run FILE"
for key in allow_soft_placement verify_constants rewrite graph_capture memory_limit ps.strategy \
    cpu.devices gpu.allow_growth gpu.memory_fraction gpu.virtual_devices; do has out "  $key "; done
has out "gpu.virtual_devices"
run 0 "$grt" run "$tmp/g.json" --option cpu.devices=2 --option gpu.virtual_devices=1024,1024 \
  --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y
has out '{"dtype": "float32", "shape": [2], "values": [12, 8]}'
run 2 "$grt" run "$tmp/g.json" --option gpu.memory_fraction=2 --fetch c
has err "grt run: --option gpu.memory_fraction=2: option gpu.memory_fraction: '2' is not a fraction in (0, 1]"
run 2 "$grt" run "$tmp/g.json" --option clusters=x --fetch c
has err "unknown session option 'clusters' (known: "
run 2 "$grt" run "$tmp/g.json" --option nokey --fetch c
has err "--option needs KEY=VALUE"
run 2 "$grt" run "$tmp/g.json"
run 2 "$grt" run --fetch y
run 2 "$grt" run "$tmp/g.json" --fetch y --steps 0
run 2 "$grt" run "$tmp/g.json" --fetch y --bogus

# The optimizer's report on stderr, the same values with it on, off, or a
# pass switched off.
run 0 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y --fetch s:0 --optimizer-report
has err 'optimizer:'
has err 'identity'
has out '{"dtype": "float32", "shape": [2], "values": [12, 8]}'
run 0 "$grt" run "$tmp/g.json" --devices cpu:2 --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y --no-rewrite --optimizer-report
has err 'optimizer: off'
has out '{"dtype": "float32", "shape": [2], "values": [12, 8]}'
run 2 "$grt" run "$tmp/g.json" --fetch y --option optimizer_off=nonsense
has err "unknown optimizer pass 'nonsense'"

# A name the graph lacks is caught before the session, with what was
# probably meant (the closest names; for a feed, the placeholders).
run 1 "$grt" run "$tmp/g.json" --feed 'xx={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y
has err "--feed xx: the graph has no node named 'xx'; did you mean 'x'"
has err "(its placeholders: x)"
run 1 "$grt" run "$tmp/g.json" --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch yy
has err "--fetch yy: the graph has no node named 'yy'; did you mean 'y'"
run 1 "$grt" run "$tmp/g.json" --feed 'x={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch qqqqqqq
has err "--fetch qqqqqqq: the graph has no node named 'qqqqqqq'"
# A feed without a name is a usage error, not a node named ''.
run 2 "$grt" run "$tmp/g.json" --feed '={"dtype":"float32","shape":[2],"values":[3,-4]}' --fetch y
has err "grt run: --feed needs NAME=VALUE"

echo "cli_run_test: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
