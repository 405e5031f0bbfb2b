#!/usr/bin/env bash
# make test: generated code up to date, clang-format clean, unit tests (ASan+UBSan), fuzz
# smoke runs, end-to-end tests, the ThreadSanitizer subset of them, then one summary line.
set -u
cd "$(dirname "$0")/.."
declare -A rc
run() { local name=$1; shift; echo "== $name"; "$@"; rc[$name]=$?; }
logs=$(mktemp -d /tmp/skiff-test-logs.XXXXXX)
# The images the agents' partition needs (from a clean clone: minutes of
# mmdebstrap downloading and unpacking) are built at low priority in the
# background while the unit and fuzz runs go; each build script's lock and
# cache make a test that gets there first wait for it, then reuse it, and a
# build that failed here is tried again by its test, which reports it.
(for b in tests/images/build.sh tests/images/build-python-client.sh examples/ml/build-image.sh; do
	nice -n 10 bash "$b" || echo "prebuilding with $b failed; its tests build it again"
done) >"$logs/images" 2>&1 &
images=$!
run generated make --no-print-directory check-generated
run format bash scripts/format.sh --check
run unit make -j"$(nproc)" --no-print-directory unit
recap=$(mktemp /tmp/skiff-test-recap.XXXXXX)
echo "== fuzz"
make -j"$(nproc)" --no-print-directory fuzz 2>&1 | tee "$recap.fuzz"
rc[fuzz]=${PIPESTATUS[0]}
# The end-to-end tests in two processes at once (tests/e2e/conftest.py): the
# modules that start node agents, one after another, beside the others and
# then the ThreadSanitizer subset (none of which starts an agent). Each
# writes to its own log, printed once all are done.
export SKIFF_E2E_SLOW=${SKIFF_E2E_SLOW:-2} # the TSan build, far slower, waits twice that
echo "== e2e and tsan (agents' partition beside the hollow one, then tsan; logs in $logs)"
(SKIFF_E2E_PART=agents make --no-print-directory e2e >"$logs/e2e-agents" 2>&1; echo $? >"$logs/e2e-agents.rc") &
(SKIFF_E2E_PART=hollow make --no-print-directory e2e >"$logs/e2e-hollow" 2>&1; echo $? >"$logs/e2e-hollow.rc"
	SKIFF_E2E_SLOW=$((SKIFF_E2E_SLOW * 2)) SKIFF_E2E_PART=hollow make --no-print-directory tsan-e2e >"$logs/tsan" 2>&1
	echo $? >"$logs/tsan.rc") &
wait
for part in e2e-agents e2e-hollow tsan; do
	echo "== $part"
	cat "$logs/$part"
done
e2e_rc=0
[ "$(cat "$logs/e2e-agents.rc")" = 0 ] && [ "$(cat "$logs/e2e-hollow.rc")" = 0 ] || e2e_rc=1
rc[e2e]=$e2e_rc
rc[tsan]=$(cat "$logs/tsan.rc")
# A recap of what failed, last, where a truncated log still shows it: each
# failing fuzz target with its sanitizer's or libFuzzer's verdict, and each
# failed end-to-end test with the first line of its reason.
echo "== recap"
grep "prebuilding" "$logs/images"
grep -E '^fuzz .*: FAILED|^SUMMARY: |^==[0-9]+==ERROR|deadly signal|^ERROR: libFuzzer' "$recap.fuzz" | cut -c1-300
for part in e2e-agents e2e-hollow tsan; do
	grep -E '^(FAILED|ERROR) ' "$logs/$part" | cut -c1-400 | sed "s/^/$part: /"
done
rm -rf "$logs" "$recap" "$recap.fuzz"
p=0 f=0
for k in generated format unit fuzz e2e tsan; do
	if [ "${rc[$k]}" -eq 0 ]; then p=$((p + 1)); else f=$((f + 1)); echo "suite $k FAILED"; fi
done
echo "suites: $p passed, $f failed"
[ "$f" -eq 0 ]
