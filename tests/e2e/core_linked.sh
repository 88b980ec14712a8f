#!/usr/bin/env bash
# core_linked.sh - the runtime without `calltrace record`: linked into the
# program (libcalltrace.a, and libcalltrace.so with -lcalltrace) or
# preloaded by hand, configured by CALLTRACE_OUTPUT; CALLTRACE_START=off
# records nothing, CALLTRACE_MAX_DEPTH=1 only the outermost calls; the
# calltrace-rs API (calltrace_init, calltrace_cleanup) links, and records only
# what runs between calltrace_start() and calltrace_cleanup().
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
lib=$(dirname "$RUNTIME")
[ -f "$lib/libcalltrace.a" ] || fail "no libcalltrace.a beside $RUNTIME"
build_c static_rt "$PROGRAMS/longrun.c" "$lib/libcalltrace.a" -ldl
build_c shared_rt "$PROGRAMS/longrun.c" -L"$lib" -lcalltrace -Wl,-rpath,"$lib"
build_c plain "$PROGRAMS/longrun.c"

calls_of() { # TRACE FUNCTION: calls of FUNCTION in TRACE's report (0 if none)
	ct report "$1" >"$WORK/linked.report"
	grep -q " $2\$" "$WORK/linked.report" || { echo 0; return; }
	report_calls "$WORK/linked.report" "$2"
}

for prog in static_rt shared_rt; do
	CALLTRACE_OUTPUT=$WORK/$prog.trace "$WORK/$prog" 1000 >"$WORK/$prog.out" ||
		fail "$prog exited $?"
	[ "$(calls_of "$WORK/$prog.trace" tick)" = 1000 ] || fail "$prog: tick not recorded 1000 times"
done
LD_PRELOAD=$RUNTIME CALLTRACE_OUTPUT=$WORK/pre.trace "$WORK/plain" 1000 >/dev/null
[ "$(calls_of "$WORK/pre.trace" tick)" = 1000 ] || fail "preloaded: tick not recorded 1000 times"

CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/off.trace "$WORK/static_rt" 1000 >/dev/null
[ "$(calls_of "$WORK/off.trace" tick)" = 0 ] || fail "CALLTRACE_START=off still recorded calls"
CALLTRACE_MAX_DEPTH=1 CALLTRACE_OUTPUT=$WORK/d1.trace "$WORK/static_rt" 1000 >/dev/null
[ "$(calls_of "$WORK/d1.trace" tick)" = 0 ] && [ "$(calls_of "$WORK/d1.trace" main)" = 1 ] ||
	fail "CALLTRACE_MAX_DEPTH=1 recorded more than main"

for how in static shared; do
	if [ $how = static ]; then
		build_c "api_$how" "$PROGRAMS/c_api.c" -I"$(cd "$(dirname "$0")/../.." && pwd)/include" "$lib/libcalltrace.a" -ldl
	else
		build_c "api_$how" "$PROGRAMS/c_api.c" -I"$(cd "$(dirname "$0")/../.." && pwd)/include" -L"$lib" -lcalltrace -Wl,-rpath,"$lib"
	fi
	CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/api_$how.trace "$WORK/api_$how" >"$WORK/api_$how.out" ||
		fail "api_$how exited $?"
	grep -qx 'c_api ok' "$WORK/api_$how.out" || fail "api_$how printed $(cat "$WORK/api_$how.out")"
	got="$(calls_of "$WORK/api_$how.trace" before) $(calls_of "$WORK/api_$how.trace" during) $(calls_of "$WORK/api_$how.trace" after)"
	[ "$got" = "0 5 0" ] || fail "api_$how: before/during/after recorded $got times, not 0 5 0"
done
pass
