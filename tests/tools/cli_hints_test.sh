#!/usr/bin/env bash
# The hint lines after the commonest mistakes (tools/hints.h): each fails
# as before, with the library's message unchanged, and one line more saying
# how to fix it.
set -u
grt="$1"
example="$2" # examples/three_gpus.json: nodes pinned to three GPUs, an `init` NoOp
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
lacks() { grep -qF -- "$2" "$tmp/$1" && { bad "$1 has '$2'"; cat "$tmp/$1"; } || ok; }

# 1. An op typo in a JSON graph: the closest ops and `grt ops`, for every
# command that loads the graph.
cat >"$tmp/typo.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"a","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[1,1],"values":[2]}}},
 {"name":"m","op":"MatMull","inputs":["a","a"]}]}
G
for cmd in "inspect $tmp/typo.json" "convert $tmp/typo.json $tmp/o.grt" "run $tmp/typo.json --fetch m" \
           "place $tmp/typo.json --devices cpu:1"; do
  # shellcheck disable=SC2086
  run 1 "$grt" $cmd
  has err "unknown op 'MatMull'"
  has err "hint: did you mean 'MatMul'? \`grt ops\` lists the ops"
done
# Far from every op: no guess, still the pointer to `grt ops`.
sed 's/MatMull/Qwertyuiop/' "$tmp/typo.json" >"$tmp/far.json"
run 1 "$grt" inspect "$tmp/far.json"
has err "hint: \`grt ops\` lists the ops"
lacks err "did you mean"

# 2. A device the machine lacks, without soft placement: --soft-placement.
run 1 "$grt" run "$example" --init init --fetch AddN
has err "Cannot assign a device for operation a_0"
has err "hint: with --soft-placement a node whose requested device is missing"
run 1 "$grt" place "$example" --devices cpu:1
has err "hint: with --soft-placement"
run 0 "$grt" run "$example" --soft-placement --init init --fetch AddN
lacks err "hint:"

# 3. A variable read before its initialiser ran: the graph's init target.
run 1 "$grt" run "$example" --soft-placement --fetch AddN
has err "uninitialized value"
has err "hint: the graph's init target is 'init': add --init init"
# ... a graph without one: its Assign.
cat >"$tmp/noinit.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"v","op":"VariableV2","attrs":{"dtype":"float32","shape":[]}},
 {"name":"zero","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[],"values":[0]}}},
 {"name":"v/Assign","op":"Assign","inputs":["v","zero"]},
 {"name":"y","op":"Neg","inputs":["v"]}]}
G
run 1 "$grt" run "$tmp/noinit.json" --fetch y
has err "hint: run the variable's initialiser first with --init NODE"
run 1 "$grt" run "$tmp/noinit.json" --save "$tmp/v.ckpt"
has err "has no value yet"
has err "hint: run the variable's initialiser first"
run 0 "$grt" run "$tmp/noinit.json" --init v/Assign --fetch y

# 4. --feed x=file.npy without the @ (a usage error, 2: inline values are read with the flags).
python3 - "$tmp/x.npy" <<'P'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                              header.encode() + struct.pack("<2f", 1, 2))
P
cat >"$tmp/g.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},
 {"name":"y","op":"Neg","inputs":["x"]}]}
G
run 2 "$grt" run "$tmp/g.json" --feed "x=$tmp/x.npy" --fetch y
has err "grt run: --feed x: JSON syntax error"
has err "hint: a feed from a file takes an @: --feed x=@$tmp/x.npy"
run 2 "$grt" run "$tmp/g.json" --feed "x=nofile.npy" --fetch y
has err "hint: a feed from a file takes an @: --feed x=@nofile.npy"
run 0 "$grt" run "$tmp/g.json" --feed "x=@$tmp/x.npy" --fetch y
has out '"values": [-1, -2]'
# A JSON file's name: its text, as @ reads .npy files alone.
echo '{"dtype":"float32","shape":[2],"values":[1,2]}' >"$tmp/x.json"
run 2 "$grt" run "$tmp/g.json" --feed "x=$tmp/x.json" --fetch y
has err "hint: the value is JSON text; --feed x=@FILE reads a .npy file, and a JSON file's text goes in as --feed \"x=\$(cat $tmp/x.json)\""
run 0 "$grt" run "$tmp/g.json" --feed "x=$(cat "$tmp/x.json")" --fetch y
# Bad JSON that names no file: no hint.
run 2 "$grt" run "$tmp/g.json" --feed 'x={"dtype":' --fetch y
lacks err "hint:"

# 5. A feed name the graph lacks (tools/closest.c): the placeholders.
run 1 "$grt" run "$tmp/g.json" --feed 'xx={"dtype":"float32","shape":[2],"values":[1,2]}' --fetch y
has err "the graph has no node named 'xx'; did you mean 'x'"
has err "(its placeholders: x)"

echo "passed: $pass, failed: $fails"
[ "$fails" -eq 0 ]
