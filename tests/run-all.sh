#!/usr/bin/env bash
# make test: generated code up to date, clang-format clean, unit tests (ASan+UBSan), fuzz
# smoke runs, end-to-end tests, the ThreadSanitizer subset of them, then one summary line.
set -u
cd "$(dirname "$0")/.."
declare -A rc
run() { local name=$1; shift; echo "== $name"; "$@"; rc[$name]=$?; }
run generated make --no-print-directory check-generated
run format bash scripts/format.sh --check
run unit make --no-print-directory unit
run fuzz make --no-print-directory fuzz
run e2e make --no-print-directory e2e
run tsan make --no-print-directory tsan-e2e
p=0 f=0
for k in generated format unit fuzz e2e tsan; do
	if [ "${rc[$k]}" -eq 0 ]; then p=$((p + 1)); else f=$((f + 1)); echo "suite $k FAILED"; fi
done
echo "suites: $p passed, $f failed"
[ "$f" -eq 0 ]
