#!/usr/bin/env bash
# The whole test suite: every GoogleTest suite, the fuzz targets over their
# corpora, and the example host application. Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
log=$(mktemp)
bazel test //... --test_output=errors 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^//.* PASSED in' "$log" || true)
failed=$(grep -cE '^//.* (FAILED|FAILED TO BUILD|TIMEOUT|NO STATUS)' "$log" || true)
rm -f "$log"
# Checks of the source tree itself: its format (.clang-format) and that no
# package includes another's internal header.
for check in "bash scripts/format_check.sh" "python3 scripts/check_includes.py -q"; do
  if $check; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    rc=1
  fi
done
echo "tests: $passed passed, $failed failed"
exit "$rc"
