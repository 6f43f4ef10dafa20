#!/usr/bin/env bash
# install_test.sh LAYOUT_SCRIPT LIBGRT_SO GRT_BIN HOST_APP_C HEADER...
set -u
layout="$1" lib="$2" bin="$3" app_c="$4"
shift 4
incdir=$(dirname "$(dirname "$1")")  # .../include from .../include/grt/x.h
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
prefix="$tmp/prefix"
fails=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { # description command...
  local what="$1"; shift
  if "$@" >"$tmp/out" 2>&1; then ok; else bad "$what"; cat "$tmp/out"; fi
}

rm -rf "$prefix"
check "install_layout.sh" bash "$layout" "$prefix" "$lib" "$bin" "$incdir"

version=$(sed -n 's/^#define GRT_VERSION_STRING "\(.*\)"$/\1/p' "$incdir/grt/grt.h")
major="${version%%.*}"
[ "$version" = "0.2.0" ] && ok || bad "GRT_VERSION_STRING is '$version'"
[ -f "$prefix/lib/libgrt.so.$version" ] && [ ! -L "$prefix/lib/libgrt.so.$version" ] && ok ||
  bad "no lib/libgrt.so.$version"
[ "$(readlink "$prefix/lib/libgrt.so.$major")" = "libgrt.so.$version" ] && ok ||
  bad "lib/libgrt.so.$major does not point at libgrt.so.$version"
[ "$(readlink "$prefix/lib/libgrt.so")" = "libgrt.so.$major" ] && ok ||
  bad "lib/libgrt.so does not point at libgrt.so.$major"
[ -x "$prefix/bin/grt" ] && ok || bad "no bin/grt"
for h in "$@"; do
  cmp -s "$h" "$prefix/include/grt/$(basename "$h")" && ok || bad "header $(basename "$h") not installed"
done
[ "$(ls "$prefix/include/grt" | wc -l)" -eq $# ] && ok || bad "extra headers: $(ls "$prefix/include/grt")"

# pkg-config finds it and says where.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion grt)" = "$version" ] && ok || bad "pkg-config --modversion grt"
cflags=$(echo $(pkg-config --cflags grt))  # (echo: without pkgconf's trailing space)
libs=$(echo $(pkg-config --libs grt))
[ "$cflags" = "-I$prefix/include" ] && ok || bad "cflags '$cflags'"
[ "$libs" = "-L$prefix/lib -lgrt" ] && ok || bad "libs '$libs'"

# Only grt_* functions are exported: no internal, OpenBLAS or jansson symbol.
nm -D --defined-only "$prefix/lib/libgrt.so" | awk '{print $3}' >"$tmp/exports"
others=$(grep -v '^grt_' "$tmp/exports" | tr '\n' ' ')
[ -z "$others" ] && ok || bad "exports other than grt_*: $others"
n=$(wc -l <"$tmp/exports")
[ "$n" -ge 100 ] && ok || bad "only $n exports"
for f in grt_version grt_tensor_wrap grt_set_log_sink grt_session_run grt_npy_read grt_status_prefix \
    grt_status_new grt_status_new_at grt_status_source; do
  grep -qx "$f" "$tmp/exports" && ok || bad "$f is not exported"
done
for f in grt_malloc grt_log grt_status_newv grt_tensor_new_view grt_plan_save_picture; do
  grep -qx "$f" "$tmp/exports" && bad "$f is exported" || ok
done
readelf -d "$prefix/lib/libgrt.so" | grep -q "(SONAME).*\[libgrt.so.$major\]" && ok || bad "soname"

# A host program built the way the README says, run against the install.
cp "$app_c" "$tmp/app.c"
# A library built under the sanitizers (bazel test --config=asan) needs the
# host program built with them too, so the ASan runtime loads first.
san=""
readelf -d "$prefix/lib/libgrt.so" | grep -q 'libasan' && san="-fsanitize=address,undefined"
check "cc app.c \$(pkg-config --cflags --libs grt)" \
  cc -std=c11 -Wall -Wextra -Werror $san "$tmp/app.c" $cflags $libs -o "$tmp/app"
export LD_LIBRARY_PATH="$prefix/lib"
ldd "$tmp/app" | grep -q "libgrt.so.$major => $prefix/lib/libgrt.so.$major" && ok ||
  bad "app does not load the installed library: $(ldd "$tmp/app")"
mkdir -p "$tmp/appout"
if "$tmp/app" "$tmp/appout" >"$tmp/app.out" 2>"$tmp/app.err"; then ok; else
  bad "app failed"; cat "$tmp/app.out" "$tmp/app.err"
fi
grep -q "^grt: Device mapping:" "$tmp/app.out" && ok || bad "the placement log did not reach the app's sink"
grep -q "^y = x \* w + b = " "$tmp/app.out" && ok || bad "no result line: $(cat "$tmp/app.out")"
[ ! -s "$tmp/app.err" ] && ok || bad "app wrote to stderr: $(cat "$tmp/app.err")"

# The command runs from the prefix.
check "bin/grt devices" "$prefix/bin/grt" devices
grep -q "^Device mapping:" "$tmp/out" && ok || bad "grt devices printed: $(cat "$tmp/out")"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
