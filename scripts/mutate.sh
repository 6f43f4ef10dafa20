#!/usr/bin/env bash
# Mutation testing: scripts/mutate.sh [--only PATTERN] [--list] [--check]
#                                     [--jobs N] [--timeout S] [--all-tests]
#                                     [--first-only]
#
# Plants each one-line bug of tests/mutants/catalogue.tsv, one at a time, in
# a scratch copy of this tree ($GRT_MUTATE_WORK/tree, default
# /tmp/grt-mutate/tree; never the caller's tree), runs the test targets that
# depend on the mutated file, puts the file back, and prints killed/total
# with the survivors. A test that no mutant can make fail checks nothing
# (docs/testing.md).
#
# A catalogue row is tab-separated: id, file, the original text (found
# exactly once in the file), its replacement, a short description, and
# optionally the test targets to try first (space-separated). Rows whose
# text is not found exactly once are reported as stale, never skipped
# silently (//tests/mutants:catalogue_test checks the same in the test
# command). The tests run are those of `bazel test //...` whose
# dependencies include the file (bazel query rdeps); with a "first" list
# those run first and the rest only if they all pass, which saves whole
# runs of the suite for mutants of base/ (--all-tests skips the first
# list). Bazel stops at the first test that fails.
#
# Outcomes: killed (a test failed or timed out), killed by the compiler (the
# mutant does not build: -Werror), survived (every dependent test passed),
# stale, no tests (nothing depends on the file). Results are also written to
# $GRT_MUTATE_WORK/results.tsv. Exit status 1 when a mutant survived or is
# stale.
#
#   --only PATTERN  the rows whose id or file matches the extended regex
#   --list          print the rows (id, file, description) and stop
#   --check         only check that every row applies; run nothing
#   --jobs N        Bazel's --jobs and --local_test_jobs (default 2)
#   --timeout S     Bazel's --test_timeout for each test (default 300)
#   --first-only    run each row's first tests only: quick, but a mutant
#                   they miss is reported as survived without the rest
#                   of its dependents run (say so when quoting the score)
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
catalogue=$src/tests/mutants/catalogue.tsv
work=${GRT_MUTATE_WORK:-/tmp/grt-mutate}

only=""
list=0
check=0
jobs=2
timeout=300
all_tests=0
first_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=${2:?--only needs a pattern}; shift 2 ;;
    --list) list=1; shift ;;
    --check) check=1; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
    --all-tests) all_tests=1; shift ;;
    --first-only) first_only=1; shift ;;
    -h | --help) sed -n "2,/^set -uo/p" "$0" | sed "$ d" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "mutate: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# The catalogue's rows as "id<TAB>file<TAB>description<TAB>first", filtered.
rows() {
  awk -F'\t' -v only="$only" '
    /^#/ || NF == 0 { next }
    NF < 5 { printf "mutate: catalogue line %d has %d fields, not 5 or 6\n", NR, NF > "/dev/stderr"; next }
    only == "" || $1 ~ only || $2 ~ only { print $1 "\t" $2 "\t" $5 "\t" $6 }
  ' "$catalogue"
}

# Applies row ID to ROOT (its text replaced where it occurs exactly once);
# with ID "--all" only checks every row, printing "stale ID: why" for each
# that does not apply (one Python run: the check is in the test command).
# Returns 0 when all is well; otherwise prints why and returns 1.
apply() {
  python3 - "$catalogue" "$1" "$2" <<'EOF'
import sys
catalogue, want, root = sys.argv[1:]

def why_stale(f):
    try:
        text = open(root + "/" + f[1], encoding="utf-8").read()
    except OSError as e:
        return None, (f"{f[1]}: cannot read ({e.strerror}; in //tests/mutants:catalogue_test,"
                      " a file missing from its data in tests/mutants/BUILD)")
    n = text.count(f[2])
    if n != 1:
        return None, f"{f[1]}: original text found {n} times, not once: {f[2]!r}"
    if f[2] == f[3]:
        return None, f"{f[1]}: the replacement is the original"
    return text, None

bad = 0
for line in open(catalogue, encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if not f[0] or f[0].startswith("#") or (want != "--all" and f[0] != want):
        continue
    text, why = why_stale(f)
    if want == "--all":
        if why:
            print(f"stale {f[0]}: {why}")
            bad += 1
        continue
    if why:
        print(why)
        sys.exit(1)
    open(root + "/" + f[1], "w", encoding="utf-8").write(text.replace(f[2], f[3]))
    sys.exit(0)
if want != "--all":
    print(f"no row with id {want}")
sys.exit(1 if bad or want != "--all" else 0)
EOF
}

if [ "$list" -eq 1 ]; then
  rows | awk -F'\t' '{ printf "%-28s %-44s %s\n", $1, $2, $3 }'
  exit 0
fi

if [ "$check" -eq 1 ]; then
  apply --all "$src"
  rc=$?
  echo "mutate --check: $(rows | wc -l) rows, $([ $rc -eq 0 ] && echo none || echo some) stale"
  exit $rc
fi

# The scratch copy: the caller's tracked and untracked (not ignored) files,
# uncommitted changes included. Kept between runs so its Bazel output base
# stays warm; the shared disk cache serves what the caller already built.
tree=$work/tree
mkdir -p "$tree"
find "$tree" -mindepth 1 -maxdepth 1 ! -name 'bazel-*' -exec rm -rf {} +
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | (cd "$tree" && tar -xf -)
results=$work/results.tsv
: >"$results"

# --notest_keep_going: the first failing test is enough to kill a mutant.
bazel_flags=(--jobs="$jobs" --local_test_jobs="$jobs" --test_timeout="$timeout"
  --notest_keep_going --test_output=summary --noshow_progress)

# The Bazel label of a file: the package is the nearest folder with a BUILD.
label_of() {
  local dir file=$1
  dir=$(dirname "$file")
  while [ "$dir" != "." ] && [ ! -e "$tree/$dir/BUILD" ] && [ ! -e "$tree/$dir/BUILD.bazel" ]; do
    dir=$(dirname "$dir")
  done
  if [ "$dir" = "." ]; then echo "//:$file"; else echo "//$dir:${file#"$dir"/}"; fi
}

# Runs tests "$@" in the scratch tree, stopping at the first that fails;
# sets verdict (killed, compiler, passed or an error) and the failing tests.
failing=""
run_tests() {
  local log=$work/bazel.log rc
  (cd "$tree" && bazel test "${bazel_flags[@]}" "$@") >"$log" 2>&1
  rc=$?
  failing=$(grep -oE '^//[^ ]+ +(FAILED|TIMEOUT)( in|$)' "$log" | awk '{ print $1 }' |
    sort -u | tr '\n' ' ')
  if [ -n "$failing" ]; then
    verdict=killed
  elif grep -qE 'FAILED TO BUILD|^ERROR: .*(Compiling|Linking|C\+\+ compilation)' "$log"; then
    verdict=compiler
  elif [ "$rc" -eq 0 ]; then
    verdict=passed
  else
    verdict="error (bazel exit $rc, $log)"
  fi
}

# The mutated file is put back after each row, and on the way out.
restore=""
trap '[ -n "$restore" ] && cp "$work/original" "$tree/$restore"' EXIT
trap 'exit 130' INT TERM

total=0
killed=0
compiler=0
survived=()
stale=()
untested=()
errors=()
while IFS=$'\t' read -r id file desc first; do
  total=$((total + 1))
  label=$(label_of "$file")
  # Not catalogue_test: it reads every mutated file and fails on them all.
  mapfile -t deps < <(cd "$tree" && bazel query --noshow_progress \
    "kind('.*_test', rdeps(//..., $label)) except attr(tags, 'manual', //...)
     except //tests/mutants:catalogue_test" 2>/dev/null)
  [ -f "$tree/$file" ] && cp "$tree/$file" "$work/original" && restore="$file"
  if ! why=$(apply "$id" "$tree" 2>&1); then
    restore=""
    stale+=("$id ($why)")
    printf '%s\tstale\t%s\n' "$id" "$why" >>"$results"
    echo "[$total] $id: STALE: $why"
    continue
  fi
  if [ ${#deps[@]} -eq 0 ]; then
    cp "$work/original" "$tree/$file"
    restore=""
    untested+=("$id")
    printf '%s\tno tests\t%s\n' "$id" "$label" >>"$results"
    echo "[$total] $id: no test depends on $label"
    continue
  fi
  outcome=""
  read -r -a firsts <<<"$first"
  if [ ${#firsts[@]} -gt 0 ] && [ "$all_tests" -eq 0 ]; then
    run_tests "${firsts[@]}"
    [ "$verdict" != passed ] && outcome=$verdict
    [ -z "$outcome" ] && [ "$first_only" -eq 1 ] && outcome=survived
  fi
  if [ -z "$outcome" ]; then
    run_tests "${deps[@]}"
    outcome=$verdict
    [ "$outcome" = passed ] && outcome=survived
  fi
  cp "$work/original" "$tree/$file"
  restore=""
  case $outcome in
    killed) killed=$((killed + 1)) ;;
    compiler) compiler=$((compiler + 1)); failing="" ;;
    survived) survived+=("$id: $file: $desc") ;;
    *) errors+=("$id: $outcome") ;;
  esac
  printf '%s\t%s\t%s\n' "$id" "$outcome" "$failing" >>"$results"
  echo "[$total] $id: $outcome ${failing:+(by $failing)}"
done < <(rows)

run=$((total - ${#stale[@]} - ${#untested[@]} - ${#errors[@]}))
echo
echo "mutate: $((killed + compiler))/$run killed ($killed by tests, $compiler by the compiler)," \
  "${#survived[@]} survived; ${#stale[@]} stale, ${#untested[@]} without tests," \
  "${#errors[@]} errors; $total rows"
[ "$first_only" -eq 1 ] && echo "(--first-only: survivors ran only their rows' first tests)"
[ "$run" -gt 0 ] && echo "score: $(((killed + compiler) * 100 / run))% (tests alone: $((killed * 100 / run))%)"
for s in "${survived[@]}"; do echo "survived: $s"; done
for s in "${stale[@]}"; do echo "stale: $s"; done
for s in "${untested[@]}"; do echo "no tests: $s"; done
for s in "${errors[@]}"; do echo "error: $s"; done
[ ${#survived[@]} -eq 0 ] && [ ${#stale[@]} -eq 0 ]
