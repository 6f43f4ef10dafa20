#!/usr/bin/env bash
# grt convert / inspect / run on GraphDef (.pb) and ONNX (.onnx) files:
# formats by extension and by content, round trips through .pb, and errors
# that name the node with exit status 1.
set -u
grt="$1"
example="$2"   # a JSON graph
tf_pb="$3"     # a GraphDef as TensorFlow writes it
onnx="$4"      # an ONNX model with input x [N,2] and output y
bad_pb="$5"    # a GraphDef with an unsupported op
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
pass=0

expect_rc() { # expected-rc description command...
  local want="$1" what="$2"
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"; cat "$tmp/err"; fails=$((fails + 1))
  else
    pass=$((pass + 1))
  fi
}

expect_in() { # file fragment
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $1 lacks '$2':"; cat "$1"; fails=$((fails + 1))
  else
    pass=$((pass + 1))
  fi
}

expect_rc 0 "json -> pb" "$grt" convert "$example" "$tmp/a.pb"
expect_rc 0 "pb -> json" "$grt" convert "$tmp/a.pb" "$tmp/a.json"
expect_rc 0 "json -> json" "$grt" convert "$example" "$tmp/ref.json"
if cmp -s "$tmp/a.json" "$tmp/ref.json"; then pass=$((pass + 1)); else
  echo "FAIL: JSON -> .pb -> JSON differs from JSON -> JSON"; fails=$((fails + 1)); fi
cp "$tmp/a.pb" "$tmp/noext"
expect_rc 0 "pb sniffed without an extension" "$grt" convert "$tmp/noext" "$tmp/b.json"
if cmp -s "$tmp/b.json" "$tmp/ref.json"; then pass=$((pass + 1)); else
  echo "FAIL: the sniffed GraphDef differs"; fails=$((fails + 1)); fi
expect_rc 0 "TensorFlow's GraphDef -> grt" "$grt" convert "$tf_pb" "$tmp/tf.grt"
expect_rc 0 "inspect a GraphDef" "$grt" inspect "$tf_pb"
expect_in "$tmp/out" "/device:GPU:1"
expect_rc 0 "onnx -> grt" "$grt" convert "$onnx" "$tmp/m.grt"
cp "$onnx" "$tmp/model_noext"
expect_rc 0 "onnx sniffed without an extension" "$grt" inspect "$tmp/model_noext"
expect_in "$tmp/out" "Placeholder"
expect_rc 0 "inspect an ONNX model" "$grt" inspect "$onnx"
expect_rc 0 "run an ONNX model" "$grt" run "$onnx" \
  --feed 'x={"dtype": "float32", "shape": [1, 2], "values": [1, 1]}' --fetch y
# y = relu([1,1] W^T + b) with W = [[1,-2],[0.5,3],[-1,1]], b = [1,0,-2]
expect_in "$tmp/out" '"values": [0, 3.5, 0]'
expect_rc 1 "onnx is not an output format" "$grt" convert "$example" "$tmp/x.onnx"
expect_in "$tmp/err" "use a .grt, .json or .pb name"
expect_rc 1 "unsupported op" "$grt" convert "$bad_pb" "$tmp/bad.grt"
expect_in "$tmp/err" "node 'x': op 'FancyOp' is not supported by grt"
if [ -e "$tmp/bad.grt" ]; then echo "FAIL: partial output"; fails=$((fails + 1)); fi

# An ONNX input whose name grt cannot use is renamed, and only it: inspect
# shows the model's name beside the grt name, and the valid a_b keeps its own.
names="$(dirname "$onnx")/names_sanitized_first.onnx"
expect_rc 0 "inspect renamed inputs" "$grt" inspect "$names" --signature
expect_in "$tmp/out" "(ONNX name 'a b')"
grep -E "^  a_b +float32" "$tmp/out" | grep -qv "ONNX name" && pass=$((pass + 1)) ||
  { echo "FAIL: a_b is not listed under its own name"; cat "$tmp/out"; fails=$((fails + 1)); }
expect_rc 0 "inspect --json shows the ONNX name" "$grt" inspect "$names" --json
expect_in "$tmp/out" '"name": "a_b_1", "onnx_name": "a b"'
expect_rc 0 "feed a_b by its own name" "$grt" run "$names" \
  --feed 'a_b={"dtype": "float32", "shape": [2], "values": [10, 20]}' \
  --feed 'a_b_1={"dtype": "float32", "shape": [2], "values": [1, 2]}' --fetch y
expect_in "$tmp/out" '"values": [9, 18]'

echo "cli_interchange_test: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
