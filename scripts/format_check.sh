#!/usr/bin/env bash
# Checks that every C, C++ and CUDA source of grt is formatted as
# .clang-format says (clang-format 14, Debian's). Prints the files that are
# not and exits 1; `scripts/format_check.sh --fix` formats them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = "--fix" ] && fix=1
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cc' '*.cu' '*.cuh')
if [ "$fix" -eq 1 ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "format: ${#bad[@]} files differ from .clang-format (scripts/format_check.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
