#!/usr/bin/env bash
# The documents run as written (cli_docs_test.py says how), after checking
# that the shipped poly example is what examples/make_poly.py writes.
# usage: cli_docs_test.sh GRT SCRIPT MAKE_POLY EXAMPLE_FILE... -- DOC.md...
set -u
grt="$1"
script="$2"
make_poly="$3"
shift 3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
mkdir -p "$tmp/regen"
python3 "$make_poly" "$tmp/regen" || { echo "FAIL: $make_poly failed"; fails=1; }
for f in "$@"; do
  [ "$f" = "--" ] && break
  case "$(basename "$f")" in
    poly.json | x.npy | y.npy)
      cmp -s "$f" "$tmp/regen/$(basename "$f")" ||
        { echo "FAIL: $f differs from what $make_poly writes"; fails=1; } ;;
  esac
done
python3 "$script" "$grt" "$@" || fails=1
exit "$fails"
