#!/usr/bin/env bash
# Smoke-runs each libFuzzer target for a few seconds over its seed corpus
# (fuzz/corpus/<target>/). FUZZ_SECONDS overrides the time per target.
set -u
secs=${FUZZ_SECONDS:-10}
pass=0 fail=0
for t in "$@"; do
	name=$(basename "$t")
	corpus=$(mktemp -d)
	[ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$corpus/"
	if "$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 "$corpus" >"build/fuzz/$name.log" 2>&1; then
		pass=$((pass + 1))
		echo "fuzz $name: ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "build/fuzz/$name.log" || grep -oE '#[0-9]+' "build/fuzz/$name.log" | tail -1) runs)"
	else
		fail=$((fail + 1))
		echo "fuzz $name: FAILED"; tail -30 "build/fuzz/$name.log"
	fi
	rm -rf "$corpus"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
