#!/usr/bin/env bash
# core_crash_report.sh - a program that dies of a fatal signal says so on
# stderr at once, after its trace is safe: the signal, the function and line
# it hit, the calls open (innermost first, with file:line) and where to see
# more ("see: calltrace crash TRACE"); it dies of the same signal.  Without
# the tool, the open calls are given as addresses, and the hint all the same.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c crash "$PROGRAMS/crash.c"

line_of() { # the line addr2line gives for function $1 of the test program
	local addr
	addr=$(nm "$WORK/crash" | awk -v f="$1" '$3 == f { print $1 }')
	addr2line -e "$WORK/crash" "0x$addr" | sed 's/.*://'
}

crash_run() { # NAME MODE [VAR=VALUE...]: runs crash MODE preloaded; $RC, $WORK/NAME.err
	local name=$1 mode=$2
	shift 2
	RC=0
	{ env "$@" CALLTRACE_OUTPUT="$WORK/$name.trace" LD_PRELOAD="$RUNTIME" "$WORK/crash" "$mode" \
		>/dev/null 2>"$WORK/$name.err" || RC=$?; } 2>/dev/null
}

for mode in segv:11:crash abort:6:abort; do
	name=${mode%%:*}
	sig=$(echo "$mode" | cut -d: -f2)
	prefix=$(echo "$mode" | cut -d: -f3)
	crash_run "$name" "$name"
	[ "$RC" = $((128 + sig)) ] || fail "$name: exit $RC, not death by signal $sig"
	err=$WORK/$name.err
	grep -q "^calltrace: pid [0-9]* tid [0-9]* crash crashed: signal $sig " "$err" ||
		fail "$name: no line names signal $sig: $(head -c 300 "$err")"
	expected=$(printf '#0 %s_inner at crash.c:%s\n#1 %s_outer at crash.c:%s\n#2 main at crash.c:%s\n' \
		"$prefix" "$(line_of "${prefix}_inner")" "$prefix" "$(line_of "${prefix}_outer")" \
		"$(line_of main)")
	got=$(grep '^calltrace:   #' "$err" | sed 's/^calltrace:   //; s/ *(call [0-9]*)$//; s/  */ /g')
	[ "$got" = "$expected" ] || fail "$name: open calls '$got', expected '$expected'"
	[ "$(tail -n 1 "$err")" = "calltrace: see: calltrace crash $WORK/$name.trace" ] ||
		fail "$name: last line is '$(tail -n 1 "$err")'"
done
grep -q "^calltrace:   in crash_inner at crash.c:" "$WORK/segv.err" ||
	fail "segv: the faulting function is not named: $(head -c 300 "$WORK/segv.err")"

# No tool: the signal, the open calls as addresses (those of the functions,
# from nm plus the load bias that main's gives), the hint.
crash_run notool segv CALLTRACE_TOOL="$WORK/none"
[ "$RC" = 139 ] || fail "no tool: exit $RC"
grep -q "^calltrace: process [0-9]* died of signal 11 (Segmentation fault) in thread [0-9]*, fault address 0$" \
	"$WORK/notool.err" || fail "no tool: no signal line: $(head -c 300 "$WORK/notool.err")"
mapfile -t addrs < <(grep '^calltrace:   #' "$WORK/notool.err" | awk '{ print $3 }')
[ "${#addrs[@]}" = 3 ] || fail "no tool: ${#addrs[@]} open calls, not 3"
nm_of() { printf '%d' "0x$(nm "$WORK/crash" | awk -v f="$1" '$3 == f { print $1 }')"; }
bias=$((addrs[2] - $(nm_of main)))
for pair in 0:crash_inner 1:crash_outer; do
	[ $((addrs[${pair%%:*}] - bias)) = "$(nm_of "${pair#*:}")" ] ||
		fail "no tool: #${pair%%:*} is not ${pair#*:}"
done
[ "$(tail -n 1 "$WORK/notool.err")" = "calltrace: see: calltrace crash $WORK/notool.trace" ] ||
	fail "no tool: last line is '$(tail -n 1 "$WORK/notool.err")'"
# The trace has the crash all the same.
ct crash "$WORK/notool.trace" | grep -q "crashed: signal 11 " || fail "no tool: no crash in the trace"
pass
