#!/usr/bin/env bash
# Builds grt (bazel -c opt) and installs it under PREFIX:
#
#   bash scripts/install.sh PREFIX
#
#   PREFIX/lib/libgrt.so.X.Y.Z with the libgrt.so.X and libgrt.so links
#   PREFIX/lib/libgrt_backend_*.so  backend plugins and the transport plugin
#   PREFIX/lib/libgrt_transport_*.so (libgrt_transport_mpi.so where Open MPI
#                                   is installed): Bazel targets named so,
#                                   outside tests/, beside the library
#   PREFIX/lib/pkgconfig/grt.pc     so hosts build with
#                                   cc app.c $(pkg-config --cflags --libs grt)
#   PREFIX/include/grt/*.h          the public headers
#   PREFIX/bin/grt                  the command
#
# Set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, and LD_LIBRARY_PATH=PREFIX/lib
# (or link with -Wl,-rpath,PREFIX/lib) unless PREFIX/lib is a system path.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: bash scripts/install.sh PREFIX" >&2
  exit 2
fi
prefix="$1"
case "$prefix" in
  /*) ;;
  *) prefix="$(pwd)/$prefix" ;;
esac
cd "$(dirname "$0")/.."

plugins=$(bazel query --noshow_progress \
  'filter(":libgrt_(backend|transport)_[^:/]*\.so$", kind("cc_binary", //... except //tests/...))' 2>/dev/null || true)
# shellcheck disable=SC2086
bazel build -c opt //:libgrt.so //tools:grt $plugins

bin=$(bazel info -c opt bazel-bin 2>/dev/null)
plugin_files=()
for label in $plugins; do
  path="${label#//}"
  plugin_files+=("$bin/${path/://}")
done
bash scripts/install_layout.sh "$prefix" "$bin/libgrt.so" "$bin/tools/grt" include \
  ${plugin_files[@]+"${plugin_files[@]}"}
