#!/usr/bin/env bash
# The grt command with backend plugins found on GRT_PLUGIN_PATH: the TEST
# backend's devices are listed and run a graph; a plugin built for another
# API version is refused with one line saying why, and grt still works.
set -uo pipefail
grt="$1"
plugin_dir="$(cd "$(dirname "$2")" && pwd)"
bad="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check WHAT FILE PATTERN
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1: no '$3' in:"; cat "$2"; fails=$((fails + 1)); fi
}

# Only the TEST plugin: point at its file, not the directory (which also
# holds the bad one).
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" devices --backends >"$tmp/out" 2>&1
check "devices lists TEST" "$tmp/out" "/job:localhost/replica:0/task:0/device:TEST:1"
check "backend report" "$tmp/out" "TEST: 2 devices (plugin)"
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" --version >"$tmp/out" 2>&1
check "--version lists the plugin" "$tmp/out" "  TEST: 2 devices (plugin)"
check "--version lists the library" "$tmp/out" "(backend API version 5)"
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" ops MatMul >"$tmp/out" 2>&1
check "grt ops shows the plugin's rows" "$tmp/out" "    TEST T in [float32]"
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" ops --markdown >"$tmp/out" 2>&1
grep -q "TEST" "$tmp/out" && { echo "FAIL: a plugin's rows in --markdown"; fails=$((fails + 1)); }

cat >"$tmp/g.json" <<'JSON'
{"format":"grt.graph","version":1,"nodes":[
  {"name":"a","op":"Const","attrs":{"dtype":"float32","value":{"dtype":"float32","shape":[2,2],"values":[1,2,3,4]}}},
  {"name":"m","op":"MatMul","inputs":["a","a"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"y","op":"Add","inputs":["m","a"],"device":"/cpu:0","attrs":{"T":"float32"}}
]}
JSON
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/g.json" --log-device-placement --fetch y --fetch m >"$tmp/out" 2>&1
check "m placed on TEST" "$tmp/out" "m: (MatMul): /job:localhost/replica:0/task:0/device:TEST:0"
check "y computed" "$tmp/out" '"values": [8, 12, 18, 26]'
check "m fetched from TEST" "$tmp/out" '"values": [7, 10, 15, 22]'

# --graph-capture: the steps as a callable, recorded on the second and
# replayed on the third; a step with a CPU kernel says why it is not.
cat >"$tmp/t.json" <<'JSON'
{"format":"grt.graph","version":1,"nodes":[
  {"name":"x","op":"Placeholder","attrs":{"dtype":"float32","shape":[2,2]}},
  {"name":"m","op":"MatMul","inputs":["x","x"],"device":"/device:TEST:0","attrs":{"T":"float32"}},
  {"name":"y","op":"Add","inputs":["m","x"],"device":"/device:TEST:0","attrs":{"T":"float32"}}
]}
JSON
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/t.json" --feed 'x={"dtype":"float32","shape":[2,2],"values":[1,2,3,4]}' \
  --fetch y --steps 3 --graph-capture >"$tmp/out" 2>&1
check "captured steps" "$tmp/out" "graph capture: captured on /job:localhost/replica:0/task:0/device:TEST:0: 2 kernels; 1 recording, 2 replays"
check "replayed y" "$tmp/out" '"values": [8, 12, 18, 26]'
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/g.json" --fetch y --steps 2 --graph-capture >"$tmp/out" 2>&1
check "not captured, why" "$tmp/out" "runs on /job:localhost/replica:0/task:0/device:CPU:0, whose work cannot be recorded"
check "y still computed" "$tmp/out" '"values": [8, 12, 18, 26]'

# The plugin's own session option: listed by --help once the plugin is
# loaded, set with --option, checked by the plugin's declaration.
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run --help >"$tmp/out" 2>&1
check "plugin option listed" "$tmp/out" "test.copy_delay_us"
GRT_PLUGIN_PATH= "$grt" run --help >"$tmp/out" 2>&1
grep -q "test.copy_delay_us" "$tmp/out" && { echo "FAIL: test key listed without the plugin"; fails=$((fails + 1)); }
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/g.json" --option test.copy_delay_us=0 --fetch y >"$tmp/out" 2>&1
check "y with no copy delay" "$tmp/out" '"values": [8, 12, 18, 26]'
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/g.json" --option test.copy_delay_us=soon --fetch y >"$tmp/out" 2>&1
# A malformed value is a usage error (2), as for every flag value.
[ $? -eq 2 ] && echo "ok: exit 2 for a bad value" || { echo "FAIL: exit status for a bad value"; fails=$((fails + 1)); }
check "bad value named" "$tmp/out" "grt run: --option test.copy_delay_us=soon: option test.copy_delay_us: 'soon' is not a number of microseconds in [0, 1000000]"
GRT_PLUGIN_PATH="$plugin_dir/libgrt_backend_test.so" "$grt" run "$tmp/g.json" --option test.delay=1 --fetch y >"$tmp/out" 2>&1
check "unknown test key" "$tmp/out" "unknown session option 'test.delay' (device type TEST has: test.copy_delay_us, test.kernel_delay_us, test.separate_host_memory)"

# Without the plugin the request cannot be met.
GRT_PLUGIN_PATH= "$grt" run "$tmp/g.json" --fetch y >"$tmp/out" 2>&1
[ $? -eq 1 ] && echo "ok: exit 1 without the plugin" || { echo "FAIL: exit status"; fails=$((fails + 1)); }
check "names the device" "$tmp/out" "TEST:0"

GRT_PLUGIN_PATH="$bad" "$grt" devices --backends >"$tmp/out" 2>&1
check "bad plugin refused" "$tmp/out" "refused: built for backend API version 6, this library has version 5"
check "CPU still there" "$tmp/out" "CPU: 1 device"
GRT_PLUGIN_PATH="$bad" "$grt" --version >"$tmp/out" 2>&1
[ $? -eq 0 ] && echo "ok: --version exits 0 with a refused plugin" ||
  { echo "FAIL: --version with a refused plugin"; fails=$((fails + 1)); }
check "--version says why a plugin was refused" "$tmp/out" "refused: built for backend API version 6"

echo "$fails failed"
[ "$fails" -eq 0 ]
