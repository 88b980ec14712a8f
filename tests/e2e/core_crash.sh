#!/usr/bin/env bash
# core_crash.sh - `calltrace crash` names the signal, the function the
# instruction pointer was in, the calls open at the crash (the same calls,
# with the same file:line, that the JSON marks unfinished) and the calls
# completed just before; a trace without a crash says so.  The same under
# every engine: the runtime (a -finstrument-functions build), and for a
# build without flags the in-process engine and the ptrace engine; and
# `record` says it on stderr, with where to see it again.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c crash "$PROGRAMS/crash.c"
gcc -std=gnu11 -g -O0 -o "$WORK/crash_plain" "$PROGRAMS/crash.c" || fail "cannot compile crash_plain"

line_of() { # the line `addr2line` gives for function $1 of the test program
	local addr
	addr=$(nm "$WORK/crash" | awk -v f="$1" '$3 == f { print $1 }')
	addr2line -e "$WORK/crash" "0x$addr" | sed 's/.*://'
}

for run in hooks:segv:11:crash hooks:abort:6:abort patch:segv:11:crash patch:abort:6:abort \
	ptrace:segv:11:crash ptrace:abort:6:abort; do
	engine=${run%%:*}
	mode=${run#*:}
	name=${engine}_${mode%%:*}
	sig=$(echo "$mode" | cut -d: -f2)
	prefix=$(echo "$mode" | cut -d: -f3)
	case $engine in
	hooks) record "$name" "$WORK/crash" "${mode%%:*}" ;;
	*) record "$name" --engine "$engine" "$WORK/crash_plain" "${mode%%:*}" ;;
	esac
	ct crash -o "$WORK/$name.crash" "$WORK/$name.trace"
	# record said it on stderr too, and where to see it.
	grep -q "^calltrace: pid [0-9]* tid [0-9]* crash[a-z_]* crashed: signal $sig " "$WORK/$name.err" ||
		fail "$name: record did not say the crash: $(head -c 300 "$WORK/$name.err")"
	grep -q "^calltrace: see: calltrace crash $WORK/$name.trace$" "$WORK/$name.err" ||
		fail "$name: record did not say where to see the crash"
	report=$WORK/$name.crash
	grep -q "crashed: signal $sig " "$report" || fail "$name: no 'signal $sig' line: $(head -1 "$report")"
	# The stack, innermost first, with the lines addr2line gives.
	expected=$(printf '#0 %s_inner at crash.c:%s\n#1 %s_outer at crash.c:%s\n#2 main at crash.c:%s\n' \
		"$prefix" "$(line_of "${prefix}_inner")" "$prefix" "$(line_of "${prefix}_outer")" \
		"$(line_of main)")
	got=$(grep '^  #' "$report" | sed 's/^  //; s/ *(call [0-9]*)$//; s/  */ /g')
	[ "$got" = "$expected" ] || fail "$name: stack is '$got', expected '$expected'"
	# The calls completed before it, in order.
	got=$(sed -n '/^last [0-9]* calls/,$p' "$report" | awk 'NR > 1 { print $3 }' | tr '\n' ' ')
	[ "$got" = "prelude_leaf prelude " ] || fail "$name: last calls '$got'"
done
# segv: the instruction pointer was in crash_inner, at the faulting line.
for engine in hooks patch ptrace; do
	grep -q "^  in crash_inner at crash.c:" "$WORK/${engine}_segv.crash" ||
		fail "$engine segv: no 'in crash_inner' line: $(sed -n 2p "$WORK/${engine}_segv.crash")"
	grep -q "crashed: signal 11 (Segmentation fault), fault address 0$" "$WORK/${engine}_segv.crash" ||
		fail "$engine segv: not a fault at address 0: $(head -1 "$WORK/${engine}_segv.crash")"
done

record exit3 "$WORK/crash" exit3
[ "$(ct crash "$WORK/exit3.trace")" = "no crash recorded in $WORK/exit3.trace" ] ||
	fail "a clean exit reports a crash"
pass
