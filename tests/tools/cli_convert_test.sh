#!/usr/bin/env bash
# grt convert / inspect: exit codes (0 ok, 1 bad input, 2 usage), round trips,
# and no partial output on failure.
set -u
grt="$1"
example="$2"
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

expect_err() { # fragment: stderr of the last command must contain it
  if ! grep -qF -- "$1" "$tmp/err"; then
    echo "FAIL: stderr lacks '$1':"; cat "$tmp/err"; fails=$((fails + 1))
  else
    pass=$((pass + 1))
  fi
}

expect_rc 2 "no arguments" "$grt"
expect_rc 2 "unknown command" "$grt" frobnicate
expect_err "unknown command 'frobnicate'"
expect_rc 2 "convert with one argument" "$grt" convert "$example"
expect_rc 2 "inspect with no file" "$grt" inspect
expect_rc 0 "help" "$grt" --help

expect_rc 0 "json -> grt" "$grt" convert "$example" "$tmp/a.grt"
expect_rc 0 "grt -> json" "$grt" convert "$tmp/a.grt" "$tmp/b.json"
expect_rc 0 "json -> grt again" "$grt" convert "$tmp/b.json" "$tmp/c.grt"
expect_rc 0 "grt -> json again" "$grt" convert "$tmp/c.grt" "$tmp/d.json"
if cmp -s "$tmp/a.grt" "$tmp/c.grt" && cmp -s "$tmp/b.json" "$tmp/d.json"; then
  pass=$((pass + 1))
else
  echo "FAIL: JSON -> .grt -> JSON is not a fixed point"; fails=$((fails + 1))
fi

expect_rc 0 "inspect grt" "$grt" inspect "$tmp/a.grt"
if grep -q "AddN" "$tmp/out" && grep -q "/gpu:2" "$tmp/out" && grep -q "^nodes: 65" "$tmp/out"; then
  pass=$((pass + 1))
else
  echo "FAIL: inspect output lacks nodes/devices:"; cat "$tmp/out"; fails=$((fails + 1))
fi

# Bad inputs: exit 1 with the cause on stderr, and no output file left behind.
printf '{"format":"grt.graph","version":1,"nodes":[{"name":"m","op":"MatMul","inputs":["x","x"],"attrs":{"T":"float32"}}]}' >"$tmp/bad.json"
expect_rc 1 "missing input node" "$grt" convert "$tmp/bad.json" "$tmp/bad.grt"
expect_err "'x'"
[ ! -e "$tmp/bad.grt" ] && pass=$((pass + 1)) || { echo "FAIL: partial output left"; fails=$((fails + 1)); }
expect_rc 1 "missing file" "$grt" inspect "$tmp/nope.grt"
expect_err "nope.grt"
head -c 100 "$tmp/a.grt" >"$tmp/trunc.grt"
expect_rc 1 "truncated grt" "$grt" inspect "$tmp/trunc.grt"
expect_err "trunc.grt"
expect_rc 1 "unknown output extension" "$grt" convert "$example" "$tmp/out.txt"
expect_err "out.txt"
# --optimize: the optimized graph is written and still validates; the
# report goes to stderr; a bad pass name and stray flags are usage/input errors.
expect_rc 0 "convert --optimize" "$grt" convert "$example" "$tmp/opt.grt" --optimize --optimizer-report
expect_err "optimizer:"
expect_err "constant_folding"
expect_rc 0 "inspect the optimized graph" "$grt" inspect "$tmp/opt.grt"
expect_rc 2 "--optimizer-report without --optimize" "$grt" convert "$example" "$tmp/x.grt" --optimizer-report
expect_rc 2 "unknown convert flag" "$grt" convert "$example" "$tmp/x.grt" --frobnicate
expect_rc 2 "unknown optimizer pass" "$grt" convert "$example" "$tmp/x.grt" --optimize --option optimizer_off=nonsense
expect_err "unknown optimizer pass 'nonsense'"
if ls "$tmp" | grep -q '\.tmp\.'; then echo "FAIL: temporary files left"; fails=$((fails + 1)); else pass=$((pass + 1)); fi

echo "cli_convert_test: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
