#!/usr/bin/env bash
# A FIFO wherever grt reads a file (a graph of each format, with and without
# --no-mmap, a sniffed name, an .npy feed, a checkpoint to restore, a plugin
# on GRT_PLUGIN_PATH) is refused at once as "not a regular file": opening
# its read end blocks until a writer comes, and none ever does. Each command
# runs under `timeout`, so a regression fails here instead of hanging.
set -u
grt="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { # expected-rc command...
  local want="$1"; shift
  timeout 10 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -ne 124 ] || { bad "hung (killed after 10 s): $*"; return; }
  [ "$rc" -eq "$want" ] || { bad "exit $rc (wanted $want): $*"; cat "$tmp/err"; }
}
has() { grep -qF -- "$2" "$tmp/$1" || { bad "$1 lacks '$2'"; cat "$tmp/$1"; }; }

mkdir -p "$tmp/f" "$tmp/plugins"
for name in g.json g.grt g.onnx g.pb g.model x.npy v.ckpt; do
  rm -f "$tmp/f/$name"
  mkfifo "$tmp/f/$name" || { echo "mkfifo failed"; exit 1; }
done
cat >"$tmp/g.json" <<'G'
{"format":"grt.graph","version":1,"nodes":[
 {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2]}},
 {"name":"v","op":"VariableV2","attrs":{"dtype":"float32","shape":[2]}},
 {"name":"y","op":"Add","inputs":["x","v"],"attrs":{"T":"float32"}}]}
G

for name in g.json g.grt g.onnx g.pb g.model; do
  run 1 "$grt" inspect "$tmp/f/$name"
  has err "$tmp/f/$name: not a regular file"
  run 1 "$grt" convert "$tmp/f/$name" "$tmp/out.grt"
  has err "not a regular file"
done
run 1 "$grt" inspect --no-mmap "$tmp/f/g.grt"
has err "$tmp/f/g.grt: not a regular file"
run 1 "$grt" run "$tmp/f/g.grt" --no-mmap --fetch y
has err "not a regular file"

run 1 "$grt" run "$tmp/g.json" --feed "x=@$tmp/f/x.npy" --fetch x
has err "$tmp/f/x.npy: not a regular file"
run 1 "$grt" run "$tmp/g.json" --restore "$tmp/f/v.ckpt" --feed 'x={"dtype":"float32","shape":[2],"values":[1,2]}' --fetch y
has err "$tmp/f/v.ckpt: not a regular file"

# A plugin: every command discovers plugins; the FIFO is refused and noted.
rm -f "$tmp/plugins/libgrt_backend_x.so"
mkfifo "$tmp/plugins/libgrt_backend_x.so"
GRT_PLUGIN_PATH="$tmp/plugins" run 0 "$grt" devices --backends
has out "libgrt_backend_x.so: not a regular file"
GRT_PLUGIN_PATH="$tmp/plugins/libgrt_backend_x.so" run 0 "$grt" devices --backends
has out "libgrt_backend_x.so: not a regular file"
GRT_PLUGIN_PATH="$tmp/plugins" run 0 "$grt" inspect "$tmp/g.json"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
echo PASS
