#!/usr/bin/env bash
# grt devices with the stand-in GPU plugin (two cards, no CUDA): the GPU's
# session options, declared in the core library, split each card into
# logical GPUs in the device mapping, and the plugin describes each from
# the values it is handed.
set -u
grt="$1"
plugin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
check() { # name file text
  grep -qF -- "$3" "$2" && echo "ok: $1" || { echo "FAIL: $1 (no '$3')"; cat "$2"; fails=$((fails + 1)); }
}

GRT_PLUGIN_PATH="$plugin" "$grt" devices >"$tmp/out" 2>&1
check "two cards" "$tmp/out" "device:GPU:1 -> device: 1, name: stand-in card 1, memory: 0 MiB"
grep -q "device:GPU:2" "$tmp/out" && { echo "FAIL: a third GPU"; fails=$((fails + 1)); }

GRT_PLUGIN_PATH="$plugin" "$grt" devices --option gpu.virtual_devices=1024,2048 \
  --option cpu.devices=2 >"$tmp/out" 2>&1
check "logical GPU 3 on card 1" "$tmp/out" "device:GPU:3 -> device: 1, name: stand-in card 1, memory: 2048 MiB"
check "logical GPU 0 on card 0" "$tmp/out" "device:GPU:0 -> device: 0, name: stand-in card 0, memory: 1024 MiB"
check "two CPUs" "$tmp/out" "device:CPU:1 -> device: 1, name: logical CPU device"
grep -q "device:GPU:4" "$tmp/out" && { echo "FAIL: a fifth GPU"; fails=$((fails + 1)); }

GRT_PLUGIN_PATH="$plugin" "$grt" devices --option gpu.virtual_devices=1024, >"$tmp/out" 2>&1
[ $? -eq 2 ] && echo "ok: exit 2 for a bad value" || { echo "FAIL: exit status"; fails=$((fails + 1)); }
check "bad value named" "$tmp/out" "grt devices: --option gpu.virtual_devices=1024,: option gpu.virtual_devices: '1024,' ends with a comma"
"$grt" devices --option gpu.virtual_devices=1024 --devices cpu:1 >"$tmp/out" 2>&1
[ $? -eq 2 ] && echo "ok: exit 2 for --option with --devices" || { echo "FAIL: exit status"; fails=$((fails + 1)); }
check "says why" "$tmp/out" "it does not go with --devices"

echo "$fails failed"
[ "$fails" -eq 0 ]
