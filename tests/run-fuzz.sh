#!/usr/bin/env bash
# Smoke-runs each libFuzzer target for a few seconds over its seed corpus
# (fuzz/corpus/<target>/), FUZZ_JOBS targets at a time (default: the number of
# cores). FUZZ_SECONDS overrides the time per target.
set -u
secs=${FUZZ_SECONDS:-10}
jobs=${FUZZ_JOBS:-$(nproc)}
results=$(mktemp -d)
one() {
	local t=$1 name corpus
	name=$(basename "$t")
	corpus=$(mktemp -d)
	[ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$corpus/"
	if "$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 "$corpus" >"build/fuzz/$name.log" 2>&1; then
		echo "fuzz $name: ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "build/fuzz/$name.log" || grep -oE '#[0-9]+' "build/fuzz/$name.log" | tail -1) runs)" >"$results/$name.ok"
	else
		{ echo "fuzz $name: FAILED (build/fuzz/$name.log)"; tail -30 "build/fuzz/$name.log"; } >"$results/$name.failed"
	fi
	rm -rf "$corpus"
}
running=0
for t in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	one "$t" &
	running=$((running + 1))
done
wait
cat "$results"/*.ok 2>/dev/null
cat "$results"/*.failed 2>/dev/null
pass=$(find "$results" -name '*.ok' | wc -l)
fail=$(find "$results" -name '*.failed' | wc -l)
rm -rf "$results"
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
