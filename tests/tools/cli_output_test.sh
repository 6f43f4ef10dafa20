#!/usr/bin/env bash
# Output that cannot be written is a failure (exit 1 naming "standard
# output" or the path, with the OS reason), and special destinations are
# written in place: /dev/null stays a device, a FIFO stays a FIFO and is
# read, /dev/stdout prints, a symlink keeps pointing at its (new) target.
set -u
grt="$1"
example="$2"
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

# stdout on /dev/full: every command that prints fails, naming the stream.
full() { # command...
  "$@" >/dev/full 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 1 ] && ok || bad "exit $rc (wanted 1) with stdout on /dev/full: $*"
  grep -qF "standard output: No space left on device" "$tmp/err" && ok ||
    { bad "no 'standard output' reason: $*"; cat "$tmp/err"; }
}
full "$grt" inspect "$example"
full "$grt" devices
full "$grt" place "$example" --devices cpu:1,gpu:3 --log
full "$grt" place "$example" --devices cpu:1,gpu:3 --plan-json -
full "$grt" run "$tmp/g.json" --fetch y
full "$grt" --help
# The same commands with stdout writable succeed.
"$grt" run "$tmp/g.json" --fetch y >"$tmp/out" && grep -qF '"values": [1, 4]' "$tmp/out" && ok ||
  bad "run with a writable stdout"

# A file destination that fails names the path and the reason.
"$grt" place "$example" --devices cpu:1,gpu:3 --plan-json /dev/full 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "/dev/full: cannot write: No space left on device" "$tmp/err" && ok ||
  { bad "--plan-json /dev/full"; cat "$tmp/err"; }
"$grt" run "$tmp/g.json" --fetch y --trace /dev/full >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "/dev/full: cannot write" "$tmp/err" && ok || { bad "--trace /dev/full"; cat "$tmp/err"; }

# /dev/null stays the device.
"$grt" place "$example" --devices cpu:1,gpu:3 --plan-json /dev/null >/dev/null && [ -c /dev/null ] && ok ||
  bad "--plan-json /dev/null"
"$grt" run "$tmp/g.json" --fetch y --trace /dev/null >/dev/null && [ -c /dev/null ] && ok || bad "--trace /dev/null"

# /dev/stdout prints, in order with what the command itself prints.
"$grt" place "$example" --devices cpu:1,gpu:3 --plan-json /dev/stdout >"$tmp/plan" && ok || bad "--plan-json /dev/stdout"
head -c 40 "$tmp/plan" | grep -qF '"format": "grt.plan"' && ok || bad "/dev/stdout did not get the plan"
"$grt" place "$example" --devices cpu:1,gpu:3 --dot /dev/stdout | grep -q "^digraph" && ok || bad "--dot /dev/stdout"

# A FIFO is written, not replaced.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from_fifo" &
reader=$!
"$grt" place "$example" --devices cpu:1,gpu:3 --plan-json "$tmp/fifo" >/dev/null && ok || bad "--plan-json FIFO"
wait "$reader"
[ -p "$tmp/fifo" ] && ok || bad "the FIFO was replaced"
grep -qF '"format": "grt.plan"' "$tmp/from_fifo" && ok || bad "the FIFO's reader got no plan"
cat "$tmp/fifo" >"$tmp/trace_fifo" &
reader=$!
"$grt" run "$tmp/g.json" --fetch y --trace "$tmp/fifo" >/dev/null && ok || bad "--trace FIFO"
wait "$reader"
[ -s "$tmp/trace_fifo" ] && [ -p "$tmp/fifo" ] && ok || bad "--trace FIFO: nothing read or FIFO replaced"

# A symlink keeps pointing at its target, which gets the new content.
mkdir -p "$tmp/real"
echo old >"$tmp/real/g.grt"
ln -sf real/g.grt "$tmp/link.grt"
"$grt" convert "$tmp/g.json" "$tmp/link.grt" && ok || bad "convert to a symlink"
[ -L "$tmp/link.grt" ] && ok || bad "the symlink was replaced by a file"
[ "$(head -c 3 "$tmp/real/g.grt")" != "old" ] && "$grt" inspect "$tmp/real/g.grt" >/dev/null && ok ||
  bad "the symlink's target was not rewritten"
[ "$(ls "$tmp/real")" = "g.grt" ] && ok || bad "leftovers beside the target: $(ls "$tmp/real")"

# A symlink another user planted in a sticky, world-writable directory
# (/tmp) is not followed, as the kernel's fs.protected_symlinks would not:
# the file it points at stays as it was. Needs root to give the link to
# another user (uid 65534); as root, a link of root's own is followed.
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$tmp/sticky" && chmod 1777 "$tmp/sticky"
  echo secret >"$tmp/secret" && chmod 600 "$tmp/secret"
  ln -s "$tmp/secret" "$tmp/sticky/out.grt" && chown -h 65534 "$tmp/sticky/out.grt"
  "$grt" convert "$tmp/g.json" "$tmp/sticky/out.grt" 2>"$tmp/err"
  [ $? -eq 1 ] && grep -qF "refusing to follow the symlink" "$tmp/err" && ok ||
    { bad "convert followed another user's link in a sticky directory"; cat "$tmp/err"; }
  [ "$(cat "$tmp/secret")" = "secret" ] && ok || bad "the link's target was replaced"
  chown -h 0 "$tmp/sticky/out.grt"
  "$grt" convert "$tmp/g.json" "$tmp/sticky/out.grt" && "$grt" inspect "$tmp/secret" >/dev/null && ok ||
    bad "convert did not follow its own link in a sticky directory"
else
  echo "SKIP: the sticky-directory symlink check needs root (to chown a link to uid 65534)"
fi

# A file-size limit (ulimit -f): convert fails with the OS reason (EFBIG),
# naming the file, instead of dying of SIGXFSZ (status 153); the old file stays.
{
  printf '{"format":"grt.graph","version":1,"nodes":[{"name":"c","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[4096],"values":['
  seq -s, 1 4096
  printf ']}}}]}\n'
} >"$tmp/big.json"
echo old >"$tmp/limited.grt"
(ulimit -f 4 && exec "$grt" convert "$tmp/big.json" "$tmp/limited.grt") 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -qF "$tmp/limited.grt: cannot write: File too large" "$tmp/err" && ok ||
  { bad "convert past ulimit -f: exit $rc (wanted 1 with 'File too large')"; cat "$tmp/err"; }
[ "$(cat "$tmp/limited.grt")" = "old" ] && ok || bad "the file was changed past ulimit -f"

# A destination whose name is as long as the file system allows (255
# bytes) is replaced: the temporary's name is shortened to fit.
for len in 229 255; do
  long="$tmp/long/$(printf 'n%.0s' $(seq 1 $((len - 4)))).grt"
  mkdir -p "$tmp/long"
  echo old >"$long"
  "$grt" convert "$tmp/g.json" "$long" 2>"$tmp/err" && "$grt" inspect "$long" >/dev/null && ok ||
    { bad "replacing a $len-byte file name"; cat "$tmp/err"; }
  [ "$(ls -A "$tmp/long" | wc -l)" -eq 1 ] && ok || bad "leftovers beside a $len-byte name: $(ls -A "$tmp/long")"
  rm -rf "$tmp/long"
done

# No temporaries left beside a converted file, and the umask is honoured.
mkdir -p "$tmp/clean"
(umask 027 && "$grt" convert "$tmp/g.json" "$tmp/clean/g.grt") && ok || bad "convert"
[ "$(ls -A "$tmp/clean")" = "g.grt" ] && ok || bad "leftovers: $(ls -A "$tmp/clean")"
[ "$(stat -c %a "$tmp/clean/g.grt")" = "640" ] && ok || bad "mode $(stat -c %a "$tmp/clean/g.grt") under umask 027"

# A flipped constant byte: loading and running do not notice (constants are
# used in place, never read at load); --verify does, naming node and attr.
"$grt" convert "$tmp/g.json" "$tmp/v.grt" && ok || bad "convert for --verify"
"$grt" inspect "$tmp/v.grt" --verify >"$tmp/out" && grep -qF "verified: 1 constants match" "$tmp/out" && ok ||
  { bad "--verify on a good file"; cat "$tmp/out"; }
size=$(stat -c %s "$tmp/v.grt")
printf '\x55' | dd of="$tmp/v.grt" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
"$grt" inspect "$tmp/v.grt" >/dev/null && ok || bad "inspect without --verify reads constants"
"$grt" inspect "$tmp/v.grt" --verify >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "node 'c': attr 'value'" "$tmp/err" && grep -qF "does not match its checksum" "$tmp/err" && ok ||
  { bad "--verify missed a flipped byte"; cat "$tmp/err"; }
"$grt" inspect "$tmp/v.grt" --no-mmap --verify >/dev/null 2>&1
[ $? -eq 1 ] && ok || bad "--no-mmap --verify missed a flipped byte"
"$grt" inspect "$tmp/v.grt" --no-mmap | grep -qF "constants: in memory" && ok || bad "--no-mmap not shown"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
