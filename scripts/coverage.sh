#!/usr/bin/env bash
# Line and branch coverage of grt's product code from its test suites:
#   scripts/coverage.sh [--jobs N] [--report-only] [--add] [TARGET...]   (default: //...)
#
# Builds and runs the tests with gcc's --coverage (-Og, so lines map to the
# code) in an output base of its own ($GRT_COVERAGE_WORK/output_base,
# default /tmp/grt-coverage), so the usual build is left as it is; every
# test runs afresh (--nocache_test_results) and the counters of all of them
# add up in the .gcda files beside the objects. gcovr (Debian's package,
# installed with apt-get when missing) reads them; the script prints a
# table per product folder (lines and branches covered) and leaves
#   $GRT_COVERAGE_WORK/files.txt     each file's line coverage, missed lines
#   $GRT_COVERAGE_WORK/summary.json  gcovr's per-file summary
#   $GRT_COVERAGE_WORK/folders.md    the table, as in docs/testing.md
#
# Not `bazel coverage`: Debian's Bazel lacks the coverage tools that
# command runs. Without the disk cache: it returns objects without the
# notes gcov needs. Tests that fail still count what they ran; the script says
# how many failed. --report-only reads the counters of the last run again;
# --add runs TARGETs and adds their counters to the last run's (to rerun the
# targets that failed). Each test may take five times its size's usual time
# (--test_timeout): instrumented code on a busy machine is slow, and a test
# killed at its timeout writes no counters at all.
# Threads update counters atomically (-fprofile-update=atomic); a line gcov
# still prints with a negative count is skipped (gcovr reports it). Long: the whole suite, built without the disk cache's
# usual objects, takes an hour or more on two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
work=${GRT_COVERAGE_WORK:-/tmp/grt-coverage}
jobs=2
report_only=0
add=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --report-only) report_only=1; shift ;;
    --add) add=1; shift ;;
    -h | --help) sed -n "2,/^set -uo/p" "$0" | sed "$ d" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(//...)

# The product folders, in the layers' order (ARCHITECTURE.md).
folders=(base ops training interchange graph_format kernels runtime/device placer parallel
  backends/cpu optimizer runtime/session runtime/cluster transport/mpi tools)

if ! command -v gcovr >/dev/null; then
  echo "coverage: installing gcovr (apt-get)" >&2
  apt-get install -y -q gcovr >&2 || { echo "coverage: gcovr is needed (apt-get install gcovr)" >&2; exit 2; }
fi

mkdir -p "$work"
bz=(bazel --output_base="$work/output_base")
exec_root=$("${bz[@]}" info execution_root 2>/dev/null) || { echo "coverage: bazel info failed" >&2; exit 2; }
if [ "$report_only" -eq 0 ]; then
  # Counters of an earlier run would add to this one's. An object without its
  # notes file (.gcno) came from a cache, which keeps only the declared
  # outputs: deleting it makes Bazel compile it again, here (--disk_cache=).
  if [ -d "$exec_root/bazel-out" ] && [ "$add" -eq 0 ]; then
    find "$exec_root/bazel-out/" -name '*.gcda' -delete
    find "$exec_root/bazel-out/" -path '*/_objs/*' -name '*.o' | while read -r o; do
      [ -e "${o%.o}.gcno" ] || rm -f "$o"
    done
  fi

  # Bazel compiles with PWD=/proc/self/cwd, so a test would write its
  # counters under its own runfiles; GCOV_PREFIX puts them back beside the
  # objects' notes (.gcno) in the execution root, where every test adds to
  # the same files.
  log=$work/bazel.log
  "${bz[@]}" test --disk_cache= --copt=--coverage --copt=-Og \
    --copt=-fprofile-update=atomic --linkopt=--coverage --nocache_test_results \
    --test_env=GCOV_PREFIX="$exec_root" --test_env=GCOV_PREFIX_STRIP=3 \
    --keep_going --jobs="$jobs" --local_test_jobs="$jobs" --test_output=summary \
    --test_timeout=300,1500,4500,18000 \
    "${targets[@]}" >"$log" 2>&1
  rc=$?
  passed=$(grep -cE '^//.* PASSED in' "$log" || true)
  failed=$(grep -cE '^//.* (FAILED|TIMEOUT|NO STATUS)' "$log" || true)
  echo "coverage: $passed test targets passed, $failed failed (bazel exit $rc; $log)"
fi

# gcov resolves the sources through the execution root's links into this
# tree; gcovr matches its filter against paths relative to the working
# directory (here, the tree): the product folders' files, not the tests' or
# generated code.
filter=$(printf '%s|' "${folders[@]}")
filter="^(${filter%|})/[^/]+\.(c|h)$"
(gcovr --root "$src" --object-directory "$exec_root/bazel-out" \
  --filter "$filter" --exclude-unreachable-branches --gcov-ignore-parse-errors \
  --json-summary "$work/summary.json" --txt "$work/files.txt" "$exec_root/bazel-out") \
  >"$work/gcovr.log" 2>&1 ||
  { echo "coverage: gcovr failed ($work/gcovr.log)" >&2; exit 1; }

python3 - "$work/summary.json" "$work/folders.md" "${folders[@]}" <<'EOF'
import json, sys
summary, out, folders = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {f: [0, 0, 0, 0] for f in folders}  # lines covered, lines, branches covered, branches
for f in json.load(open(summary))["files"]:
    folder = f["filename"].rsplit("/", 1)[0]
    if folder in rows:
        r = rows[folder]
        r[0] += f["line_covered"]; r[1] += f["line_total"]
        r[2] += f["branch_covered"]; r[3] += f["branch_total"]
pct = lambda a, b: f"{100.0 * a / b:.1f}%" if b else "-"
lines = ["| folder | lines | covered | branches | covered |", "|---|---:|---:|---:|---:|"]
tot = [0, 0, 0, 0]
for folder in folders:
    r = rows[folder]
    tot = [a + b for a, b in zip(tot, r)]
    lines.append(f"| `{folder}/` | {r[1]} | {pct(r[0], r[1])} | {r[3]} | {pct(r[2], r[3])} |")
# runtime/ as a whole too: the issue's goal names the folder, not its parts.
rt = [sum(rows[f][k] for f in folders if f.startswith("runtime/")) for k in range(4)]
lines.append(f"| `runtime/` (all) | {rt[1]} | {pct(rt[0], rt[1])} | {rt[3]} | {pct(rt[2], rt[3])} |")
lines.append(f"| all | {tot[1]} | {pct(tot[0], tot[1])} | {tot[3]} | {pct(tot[2], tot[3])} |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
