#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test grt (Debian
# packages only; Bazel works offline with the shims in third_party/).
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java   # Bazel 4.2.3 and its Java rules
  gcc g++                            # C11 product, C++17 tests
  libgtest-dev                       # GoogleTest
  libjansson-dev                     # JSON text form
  zlib1g-dev                         # .grt checksums
  libopenblas-dev                    # CPU GEMM
  libdnnl-dev                        # CPU convolutions, pooling, LRN, batch norm (oneDNN)
  graphviz                           # grt place --dot OUT.svg
  valgrind                           # memory checks
  clang-format                       # scripts/format_check.sh (the tree's format, checked by the tests)
  python3                            # a CLI test reads the trace JSON
  pkg-config                         # the install test builds a host with it
  dataset-fashion-mnist              # examples:fashion_mnist and its test
  gnuplot-nox                        # examples:fashion_mnist's loss plot
  libprotobuf-c-dev protobuf-c-compiler protobuf-compiler  # GraphDef and ONNX import (interchange/)
  libonnx-dev libonnx-testdata python3-onnx  # onnx.proto, the ONNX conformance tests, bench model
  libopenmpi-dev openmpi-bin         # the MPI transport plugin and its multi-process tests (transport/mpi)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
echo "setup: all packages present"
