#!/usr/bin/env bash
# grt place --dot OUT.dot|OUT.svg: the command draws the plan (the library
# only writes DOT; the command runs Graphviz for SVG). Files appear whole or
# not at all.
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

run 0 "$grt" place "$example" --devices cpu:1,gpu:3 --dot "$tmp/plan.dot"
[ "$(head -c 14 "$tmp/plan.dot")" = "digraph plan {" ] && ok || bad "plan.dot is not DOT"
grep -q 'color="red"' "$tmp/plan.dot" && ok || bad "plan.dot lacks the cross-device edges"
grep -q "^placed " "$tmp/out" && ok || bad "the summary is missing: $(cat "$tmp/out")"

if command -v dot >/dev/null; then
  run 0 "$grt" place "$example" --devices cpu:1,gpu:3 --dot "$tmp/plan.svg"
  grep -q "<svg" "$tmp/plan.svg" && ok || bad "plan.svg is not SVG"
  grep -q "MatMul" "$tmp/plan.svg" && ok || bad "plan.svg lacks the nodes"
  ls "$tmp" | grep -qE '\.(tmp|dot)\.' && bad "temporary files left: $(ls "$tmp")" || ok
  # Graphviz missing from PATH: an error naming it, and no file.
  run 1 env PATH=/nonexistent "$grt" place "$example" --devices cpu:1,gpu:3 --dot "$tmp/nodot.svg"
  grep -q "cannot run Graphviz 'dot'" "$tmp/err" && ok || bad "no Graphviz message: $(cat "$tmp/err")"
  [ ! -e "$tmp/nodot.svg" ] && ok || bad "nodot.svg was left behind"
else
  echo "Graphviz is not installed: SVG cases skipped"
fi

# A directory that does not exist: exit 1, nothing written.
run 1 "$grt" place "$example" --devices cpu:1,gpu:3 --dot "$tmp/no/such/dir/p.svg"
grep -q "^grt place: " "$tmp/err" && ok || bad "no message: $(cat "$tmp/err")"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
