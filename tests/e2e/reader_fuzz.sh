#!/usr/bin/env bash
# reader_fuzz.sh - the reader's reliability campaign, bounded: libFuzzer on
# the reader and walker (tests/fuzz/run_fuzz.sh) for 20 s, then damaged
# copies of real traces read by every reading command of the sanitized
# calltrace (tests/fuzz/mutate_traces.sh) for about 20 s.  No crash, no
# sanitizer report, no hang.  TORTURE=1: 20 minutes of fuzzing and 20000
# damaged traces (at most 40 minutes of them).  Skips what cannot run here
# (no clang/libFuzzer, no sanitized build); FUZZ_SECONDS, MUTATIONS and
# MUTATE_SECONDS override the sizes.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
if [ "${TORTURE:-0}" = 1 ]; then
	seconds=${FUZZ_SECONDS:-1200} mutations=${MUTATIONS:-20000}
	export MUTATE_SECONDS=${MUTATE_SECONDS:-2400}
else
	seconds=${FUZZ_SECONDS:-20} mutations=${MUTATIONS:-200}
	export MUTATE_SECONDS=${MUTATE_SECONDS:-20}
fi
# The sanitized tools beside the normal ones (run_tests.sh passes build/).
asan=$ROOT/build-asan/bin/calltrace
[ "$(basename "$BUILD")" != build-asan ] || asan=$CALLTRACE

skipped=()
rc=0
bash "$ROOT/tests/fuzz/run_fuzz.sh" "$seconds" >"$WORK/fuzz.out" 2>&1 || rc=$?
cat "$WORK/fuzz.out"
case $rc in
0) ;;
77) skipped+=("fuzzing: $(tail -n 1 "$WORK/fuzz.out")") ;;
*) fail "the fuzzer found a failing input: $(grep 'found:' "$WORK/fuzz.out")" ;;
esac

rc=0
CALLTRACE=$asan bash "$ROOT/tests/fuzz/mutate_traces.sh" "$mutations" >"$WORK/mutate.out" 2>&1 || rc=$?
cat "$WORK/mutate.out"
case $rc in
0) ;;
77) skipped+=("mutations: $(tail -n 1 "$WORK/mutate.out")") ;;
*) fail "damaged traces crashed or hung calltrace: $(tail -n 2 "$WORK/mutate.out" | tr '\n' ' ')" ;;
esac
[ ${#skipped[@]} -lt 2 ] || skip "${skipped[*]}"
pass
