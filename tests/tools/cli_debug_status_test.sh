#!/usr/bin/env bash
# GRT_DEBUG_STATUS=1 adds one stderr line naming where the failing status
# was made ("grt COMMAND: (at FILE.c:LINE)"; the test build has no NDEBUG,
# so statuses record it); without it, or with any other value, stderr is
# the message alone, unchanged. Hint lines ("hint: ...", tools/hints.h)
# come last either way and are left out of the comparison.
set -u
grt="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$tmp/g.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"c","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2],"values":[1,2]}}},
 {"name":"y","op":"Mul","inputs":["c","c"]}]}
G
sed 's|"op":"Mul",|"op":"Mul","device":"/gpu:0",|' "$tmp/g.json" >"$tmp/pinned.json"

check() { # expected-source-pattern command...
  local want="$1"
  shift
  "$@" 2>"$tmp/plain" >/dev/null
  local rc=$?
  [ "$rc" -eq 1 ] && ok || bad "exit $rc (wanted 1): $*"
  [ -s "$tmp/plain" ] && ok || bad "no message: $*"
  grep -q '(at ' "$tmp/plain" && bad "a source without GRT_DEBUG_STATUS: $*" || ok
  GRT_DEBUG_STATUS=0 "$@" 2>"$tmp/zero" >/dev/null
  cmp -s "$tmp/plain" "$tmp/zero" && ok || bad "GRT_DEBUG_STATUS=0 changed stderr: $*"
  GRT_DEBUG_STATUS=1 "$@" 2>"$tmp/debug" >/dev/null
  rc=$?
  [ "$rc" -eq 1 ] && ok || bad "exit $rc with GRT_DEBUG_STATUS=1: $*"
  # The message as before, then one line more.
  grep -v '^hint: ' "$tmp/debug" >"$tmp/debug_nohint"
  grep -v '^hint: ' "$tmp/plain" >"$tmp/plain_nohint"
  [ "$(head -n -1 "$tmp/debug_nohint")" = "$(cat "$tmp/plain_nohint")" ] && ok ||
    { bad "the message changed with GRT_DEBUG_STATUS=1: $*"; cat "$tmp/debug"; }
  tail -n 1 "$tmp/debug_nohint" | grep -Eq "^grt [a-z-]+: \(at $want:[0-9]+\)\$" && ok ||
    { bad "no '(at $want:LINE)' line: $*"; cat "$tmp/debug"; }
}

# Opening a file: every reader opens through base/file_open.c.
check 'base/file_open\.c' "$grt" inspect "$tmp/missing.grt"
check 'placer/[a-z_]+\.c' "$grt" place "$tmp/pinned.json" --devices cpu:1
check '[a-z_/]+\.c' "$grt" run "$tmp/g.json" --fetch nosuchnode

echo "$pass checks passed, $fails failed"
[ "$fails" -eq 0 ]
