#!/usr/bin/env bash
# Runs every parser's fuzz target for a while: scripts/fuzz_all.sh [SECONDS] [TARGET...]
#
# The targets are the cc_tests linked with //tests/fuzz:standalone_driver
# (found with bazel query, so a new parser's target is picked up). Each runs
# for SECONDS (default 300) over its corpus (the directories its test passes
# as args), then prints one summary line: executions, coverage, findings.
#
# With clang and libFuzzer (Debian's clang-14 and libclang-rt-14-dev) the
# target is built with -fsanitize=fuzzer,address,undefined from the sources
# Bazel lists and runs coverage-guided; new inputs go to a scratch corpus
# under $GRT_FUZZ_WORK (default /tmp/grt_fuzz), never into the repository.
# Without clang the plain test binary runs with the standalone driver's
# random mutations for the same time (GRT_FUZZ_SECONDS).
#
# Findings (crash-*, leak-*, timeout-*, oom-*) are left in
# $GRT_FUZZ_WORK/TARGET/; the exit status is 1 when there are any.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-300}
shift || true
work=${GRT_FUZZ_WORK:-/tmp/grt_fuzz}
mkdir -p "$work"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(bazel query --noshow_progress \
    'attr(deps, "//tests/fuzz:standalone_driver", kind(cc_test, //tests/...))' 2>/dev/null)
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz_all: no fuzz targets found (bazel query failed?)" >&2
  exit 2
fi

clang_c=$(command -v clang-14 || command -v clang || true)
clang_cxx=$(command -v clang++-14 || command -v clang++ || true)
use_libfuzzer=0
if [ -n "$clang_c" ] && [ -n "$clang_cxx" ]; then
  echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' >"$work/probe.c"
  "$clang_c" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null && use_libfuzzer=1
fi

# The directories a target's test replays: its `args` in the BUILD file.
corpus_dirs() {
  bazel query --noshow_progress --output=build "$1" 2>/dev/null |
    sed -n 's/^ *args = \[\(.*\)\],$/\1/p' | tr -d '",' | tr ' ' '\n' | grep -v '^$'
}

# Product and target sources (not the standalone driver, not headers), and
# the generated ones (protoc-c's message code), built by Bazel first and
# compiled from bazel-bin.
sources() {
  bazel query --noshow_progress "kind('source file', deps($1))" 2>/dev/null |
    grep -v '^@' | grep -E '\.(c|cc)$' | grep -v standalone_driver |
    sed -e 's|^//||' -e 's|:|/|'
  generated "$1" | grep -E '\.(c|cc)$' | sed 's|^|bazel-bin/|'
}
generated() {
  bazel query --noshow_progress "kind('generated file', deps($1))" 2>/dev/null |
    grep -v '^@' | sed -e 's|^//||' -e 's|:|/|'
}

# Objects are shared by the targets of one invocation (same flags), so the
# library is compiled once, not once per target.
objdir="$work/obj.$$"
trap 'rm -rf "$objdir"' EXIT

build_libfuzzer() {
  local target=$1 out=$2
  mkdir -p "$objdir"
  local flags=(-g -O1 -D_GNU_SOURCE -I. -Iinclude -fsanitize=fuzzer-no-link,address,undefined
               -fno-sanitize-recover=undefined)
  local objs=() gen
  mapfile -t gen < <(generated "$target")
  if [ ${#gen[@]} -gt 0 ]; then
    bazel build --noshow_progress $(printf '//%s\n' "${gen[@]}" | sed 's|/\([^/]*\)$|:\1|') ||
      return 1
    for g in "${gen[@]}"; do flags+=(-I"bazel-bin/$(dirname "$g")"); done
  fi
  for src in $(sources "$target"); do
    local obj="$objdir/$(echo "$src" | tr '/' '_').o"
    objs+=("$obj")
    [ -f "$obj" ] && continue
    case "$src" in
      *.cc) "$clang_cxx" -std=c++17 "${flags[@]}" -c "$src" -o "$obj" || return 1 ;;
      *) "$clang_c" -std=c11 "${flags[@]}" -c "$src" -o "$obj" || return 1 ;;
    esac
  done
  "$clang_cxx" -fsanitize=fuzzer,address,undefined "${objs[@]}" \
    -ljansson -lz -lopenblas -ldnnl -lgomp -lprotobuf-c -lm -lpthread -o "$out"
}

findings_total=0
summary=()
for target in "${targets[@]}"; do
  name=${target##*:}
  dir="$work/$name"
  mkdir -p "$dir/new"
  mapfile -t corpus < <(corpus_dirs "$target")
  # Seeds made at build time (protobufs encoded from the text forms kept in
  # the source folder of the same name) live under bazel-bin: those are the
  # seeds, the text forms are not inputs the target reads.
  bazel build --noshow_progress "$target" >/dev/null 2>&1
  for i in "${!corpus[@]}"; do
    c=${corpus[$i]}
    if [ -d "bazel-bin/$c" ] && ls "bazel-bin/$c" | grep -q .; then
      corpus[$i]="bazel-bin/$c"
    fi
  done
  dict=$(ls "$(dirname "${corpus[0]:-.}")"/*.dict 2>/dev/null | head -1)
  log="$dir/log.txt"
  if [ "$use_libfuzzer" = 1 ]; then
    echo "fuzz_all: building $target with libFuzzer"
    if ! build_libfuzzer "$target" "$dir/fuzzer" >"$dir/build.txt" 2>&1; then
      echo "fuzz_all: $name: build failed (see $dir/build.txt)" >&2
      summary+=("$name: BUILD FAILED")
      findings_total=$((findings_total + 1))
      continue
    fi
    echo "fuzz_all: $name for ${seconds}s over ${corpus[*]}"
    (cd "$dir" && ./fuzzer -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=8192 \
       -timeout=60 -print_final_stats=1 ${dict:+-dict="$OLDPWD/$dict"} \
       new $(for c in "${corpus[@]}"; do echo "$OLDPWD/$c"; done)) >"$log" 2>&1
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
  else
    bazel build --noshow_progress "$target" >/dev/null 2>&1 || {
      summary+=("$name: BUILD FAILED"); findings_total=$((findings_total + 1)); continue; }
    bin="bazel-bin/$(echo "${target#//}" | tr ':' '/')"
    echo "fuzz_all: $name for ${seconds}s (standalone driver, no libFuzzer)"
    (cd "$dir" && GRT_FUZZ_SECONDS="$seconds" GRT_FUZZ_ITERATIONS=-1 "$OLDPWD/$bin" \
       $(for c in "${corpus[@]}"; do echo "$OLDPWD/$c"; done)) >"$log" 2>&1
    execs=$(sed -n 's/.* \([0-9]*\) mutated inputs.*/\1/p' "$log" | tail -1)
    cov="cov: n/a"
  fi
  found=$(find "$dir" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' \
            -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
  findings_total=$((findings_total + found))
  summary+=("$name: ${execs:-?} executions, ${cov:-cov: ?}, $found findings")
done

echo "fuzz_all: ${seconds}s per target ($([ $use_libfuzzer = 1 ] && echo libFuzzer || echo standalone driver))"
for line in "${summary[@]}"; do echo "  $line"; done
[ "$findings_total" -eq 0 ]
