#!/usr/bin/env bash
# Every row of tests/mutants/catalogue.tsv still applies to the sources:
# scripts/mutate.sh --check over the files this test carries (BUILD).
set -uo pipefail
exec bash scripts/mutate.sh --check
