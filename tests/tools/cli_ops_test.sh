#!/usr/bin/env bash
# grt ops: the op reference from the registry and the support rows, its
# "did you mean" for a mistyped name, and docs/ops.md kept current (it must
# equal `grt ops --markdown`).
set -u
grt="$1"
doc="$2"
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
has() { # file fragment
  grep -qF -- "$2" "$1" && ok || { bad "$1 lacks '$2':"; head -40 "$1"; }
}

# The list: every op once, with the device types that have kernels.
run 0 "$grt" ops
grep -qE '^MatMul +math +CPU GPU$' "$tmp/out" && ok || bad "no 'MatMul math CPU GPU' row"
grep -qE '^VariableV2 +state +CPU GPU$' "$tmp/out" && ok || bad "no VariableV2 row"
has "$tmp/out" " ops; \`grt ops NAME\`"
n=$(grep -cE '^[A-Za-z_][A-Za-z0-9_]* +[a-z_]+ ' "$tmp/out")
[ "$n" -ge 100 ] && ok || bad "only $n op rows"
[ -z "$(sort "$tmp/out" | uniq -d)" ] && ok || bad "an op listed twice"

# One op: inputs, outputs, attrs with types, defaults and dtype sets, and
# each device type's rows with dtypes and host-memory arguments.
run 0 "$grt" ops MatMul
has "$tmp/out" "MatMul (math), differentiable"
has "$tmp/out" "    a: T"
has "$tmp/out" "    product: T"
has "$tmp/out" "    transpose_a: bool = false"
grep -qE '^    T: \{.*float32.*\}$' "$tmp/out" && ok || bad "MatMul's T without its dtypes"
grep -qE '^    CPU +T in \[.*float32' "$tmp/out" && ok || bad "MatMul without a CPU row"
grep -qE '^    GPU +T in \[.*float32' "$tmp/out" && ok || bad "MatMul without a GPU row"
run 0 "$grt" ops Reshape
grep -qE '^    GPU .*host memory: shape$' "$tmp/out" && ok || bad "Reshape's GPU shape not in host memory"
grep -qE '^    GPU +T in \[int32\].*host memory: tensor, shape, output$' "$tmp/out" && ok ||
  bad "Reshape's int32-on-host GPU row missing"
run 0 "$grt" ops VariableV2
has "$tmp/out" "VariableV2 (state), stateful"
has "$tmp/out" "  inputs: none"
has "$tmp/out" "    ref: Ref(dtype)"
has "$tmp/out" "    container: string = ''"

# A mistyped name: status 1, the closest names, and where to look.
run 1 "$grt" ops matmull
has "$tmp/err" "no op named 'matmull'; did you mean MatMul?"
has "$tmp/err" "\`grt ops\` lists every op"
[ ! -s "$tmp/out" ] && ok || bad "output on stdout for an unknown op"
run 1 "$grt" ops Conv
has "$tmp/err" "did you mean Const, Conv2D or Conv3D?"
run 1 "$grt" ops Zzzzzzzzzzzz
has "$tmp/err" "no op named 'Zzzzzzzzzzzz'"
grep -qF "did you mean" "$tmp/err" && bad "a suggestion for a name close to nothing" || ok
run 2 "$grt" ops MatMul Add
run 2 "$grt" ops --bogus
run 0 "$grt" ops --help
has "$tmp/out" "usage: grt ops"

# docs/ops.md is what `grt ops --markdown` prints, byte for byte.
run 0 "$grt" ops --markdown
if cmp -s "$tmp/out" "$doc"; then
  ok
else
  bad "docs/ops.md is out of date: regenerate it with" \
    "'bazel run //tools:grt -- ops --markdown > docs/ops.md'"
  diff -u "$doc" "$tmp/out" | head -30
fi
has "$tmp/out" "| [MatMul](#matmul) | math | CPU, GPU |"
has "$tmp/out" "## MatMul"
run 0 "$grt" ops Reshape --markdown
has "$tmp/out" "| GPU | T in [int32]; Tshape in [int32, int64] | tensor, shape, output |"

echo "passed: $pass, failed: $fails"
[ "$fails" -eq 0 ]
