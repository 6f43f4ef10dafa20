#!/usr/bin/env bash
# Lays out an installation of grt from files already built:
#
#   install_layout.sh PREFIX LIBGRT_SO GRT_BIN INCLUDE_DIR [PLUGIN.so...]
#
#   PREFIX/lib/libgrt.so.X.Y.Z, libgrt.so.X -> it, libgrt.so -> libgrt.so.X
#   PREFIX/lib/libgrt_backend_*.so      the plugins given (backends, transports), beside it
#   PREFIX/lib/pkgconfig/grt.pc         for `pkg-config --cflags --libs grt`
#   PREFIX/include/grt/*.h              INCLUDE_DIR/grt/*.h, the public headers
#   PREFIX/bin/grt                      the command
#
# The version comes from GRT_VERSION_STRING in INCLUDE_DIR/grt/grt.h; the
# library's soname must be libgrt.so.MAJOR of it. Used by scripts/install.sh
# (after a Bazel build) and by tests/install/install_test.sh.
set -euo pipefail

if [ $# -lt 4 ]; then
  echo "usage: install_layout.sh PREFIX LIBGRT_SO GRT_BIN INCLUDE_DIR [PLUGIN.so...]" >&2
  exit 2
fi
prefix="$1" lib="$2" bin="$3" incdir="$4"
shift 4

case "$prefix" in
  /*) ;;
  *) prefix="$(pwd)/$prefix" ;;
esac

version=$(sed -n 's/^#define GRT_VERSION_STRING "\([0-9]*\.[0-9]*\.[0-9]*\)"$/\1/p' "$incdir/grt/grt.h")
if [ -z "$version" ]; then
  echo "install_layout: no GRT_VERSION_STRING in $incdir/grt/grt.h" >&2
  exit 1
fi
major="${version%%.*}"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
if [ "$soname" != "libgrt.so.$major" ]; then
  echo "install_layout: $lib has soname '$soname', expected libgrt.so.$major (version $version)" >&2
  exit 1
fi

install -d "$prefix/lib/pkgconfig" "$prefix/include/grt" "$prefix/bin"
install -m 0755 "$lib" "$prefix/lib/libgrt.so.$version"
ln -sfn "libgrt.so.$version" "$prefix/lib/libgrt.so.$major"
ln -sfn "libgrt.so.$major" "$prefix/lib/libgrt.so"
for p in "$@"; do
  install -m 0755 "$p" "$prefix/lib/$(basename "$p")"
done
install -m 0644 "$incdir"/grt/*.h "$prefix/include/grt/"
install -m 0755 "$bin" "$prefix/bin/grt"

cat >"$prefix/lib/pkgconfig/grt.pc" <<PC
prefix=$prefix
exec_prefix=\${prefix}
libdir=\${exec_prefix}/lib
includedir=\${prefix}/include

Name: grt
Description: An embeddable graph runtime with a device-placement planner
Version: $version
Libs: -L\${libdir} -lgrt
Cflags: -I\${includedir}
PC

echo "installed grt $version into $prefix"
