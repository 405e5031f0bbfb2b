#!/usr/bin/env bash
# Runs each cmocka unit-test binary (built with ASan+UBSan) and totals the results.
set -u
pass=0 fail=0 failed=()
for t in "$@"; do
	if out=$("$t" 2>&1); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed+=("$t")
		echo "$out" | tail -40
	fi
	echo "$out" | grep -E '^\[  (PASSED|FAILED)' | sed "s|^|$(basename "$t"): |"
done
echo "unit: $pass passed, $fail failed${failed:+ (${failed[*]})}"
[ "$fail" -eq 0 ]
