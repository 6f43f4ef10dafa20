#!/usr/bin/env bash
# Every command answers --help and -h with its usage on stdout, nothing on
# stderr, status 0; `grt --version` prints the library's version and its
# backends, status 0. A malformed flag value is status 2 in every command.
# The commands are read from `grt --help`, so a new
# command is checked without editing this test.
set -u
grt="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$grt" --help >"$tmp/usage" 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && ok || bad "grt --help"
commands=$(sed -n 's/^  grt \([a-z][a-z-]*\).*/\1/p' "$tmp/usage" | sort -u)
n=$(echo "$commands" | wc -w)
[ "$n" -ge 8 ] && ok || bad "only $n commands in grt --help: $commands"
for c in $commands; do
  for flag in --help -h; do
    "$grt" "$c" "$flag" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && ok || bad "grt $c $flag: exit $rc"
    grep -q "usage: grt $c" "$tmp/out" && ok || { bad "grt $c $flag: no usage on stdout"; cat "$tmp/out"; }
    [ ! -s "$tmp/err" ] && ok || { bad "grt $c $flag: wrote to stderr:"; cat "$tmp/err"; }
  done
done

"$grt" --version >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "grt --version: exit status"
grep -qE '^grt [0-9]+\.[0-9]+\.[0-9]+ \(backend API version [0-9]+\)$' "$tmp/out" && ok ||
  { bad "grt --version: no version line"; cat "$tmp/out"; }
grep -qE '^  CPU: [0-9]+ devices?$' "$tmp/out" && ok || { bad "grt --version: no CPU backend"; cat "$tmp/out"; }
grep -qF -- "--version" "$tmp/usage" && ok || bad "grt --help does not mention --version"

# A malformed value of any flag that takes one is a usage error: status 2,
# "grt COMMAND:" and the usage on stderr, before any file is read (the
# files named here do not exist, which would be status 1).
usage_error() { # command args...
  "$grt" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] && ok || { bad "exit $rc (wanted 2): grt $*"; cat "$tmp/err"; }
  grep -q "^usage: grt $1" "$tmp/err" && ok || { bad "no usage on stderr: grt $*"; cat "$tmp/err"; }
}
none="$tmp/absent.json"
usage_error run "$none" --fetch y --steps x
usage_error run "$none" --fetch y --timeout-ms x
usage_error run "$none" --fetch y --memory-limit x
usage_error run "$none" --fetch y --memory-limit 12Q
usage_error run "$none" --fetch y --devices cpu:x
usage_error run "$none" --fetch y --option memory_limit=x
usage_error run "$none" --fetch y --option no_such_option=1
usage_error run "$none" --fetch y --feed 'x={"dtype":"float32",'
usage_error convert "$none" "$tmp/out.grt" --option memory_limit=x
usage_error convert "$none" "$tmp/out.grt" --optimize --option fold_max_bytes=x
usage_error place "$none" --devices cpu:x
usage_error devices --devices cpu:x
usage_error devices --option memory_limit=x
usage_error replicate "$none" "$tmp/out.grt" --towers x --inputs a --outputs b
usage_error replicate "$none" "$tmp/out.grt" --towers 2 --inputs a --outputs b --tower-devices /gpu:0
usage_error replicate "$none" "$tmp/out.grt" --towers 2 --inputs a --outputs b --ps-devices bogus
usage_error replicate "$none" "$tmp/out.grt" --towers 2 --inputs a --outputs b --variables-on bogus
usage_error train-graph "$none" "$tmp/out.grt" --loss l --optimizer sgd --learning-rate x

echo "passed: $pass, failed: $fails"
[ "$fails" -eq 0 ]
