#!/usr/bin/env bash
# libcall_addresses.sh - recording library calls leaves the addresses a
# program takes of library functions as they were: a PIE program (with
# PLT slots, the addresses it takes in GLOB_DAT slots) built with hooks
# and without prints the same dladdr names traced as untraced (each in
# libc, where its symbol starts), and the calls through its PLT are still
# recorded.  (A call through such a GLOB_DAT slot, by the linker's
# .plt.got, is not: the slot is the address the program takes.)  A
# -fno-plt program's GLOB_DAT slots carry its calls: recorded there
# (libcall_record.sh).  A pointer dlsym gives is a trampoline, through
# which its calls are recorded; dladdr names it as untraced all the same.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
src=$PROGRAMS/libcall/fn_addresses.c
gcc -g -O0 -pie -fPIE -finstrument-functions -o "$WORK/hooks" "$src" -ldl || fail "cannot compile hooks"
gcc -g -O0 -pie -fPIE -o "$WORK/plain" "$src" -ldl || fail "cannot compile plain"
readelf -rW "$WORK/plain" | grep -q 'GLOB_DAT.*strlen' || fail "plain takes strlen's address otherwise than through a GLOB_DAT slot"

"$WORK/plain" >"$WORK/expected" || fail "fn_addresses untraced failed"
[ "$(grep -c "^[a-z]*: libc.so.6 " "$WORK/expected")" = 3 ] || fail "untraced: $(cat "$WORK/expected")"
grep -q "^dlsym labs: libc.so.6 [a-z]* start$" "$WORK/expected" || fail "untraced dlsym: $(cat "$WORK/expected")"
for prog in hooks plain; do
	"$CALLTRACE" record -q -o "$WORK/$prog.trace" "$WORK/$prog" >"$WORK/$prog.out" 2>"$WORK/$prog.err" ||
		fail "record $prog: $(head -n 2 "$WORK/$prog.err")"
	cmp -s "$WORK/expected" "$WORK/$prog.out" ||
		fail "$prog traced took other addresses: $(diff "$WORK/expected" "$WORK/$prog.out" | tr '\n' ' ')"
	ct report --kind library "$WORK/$prog.trace" >"$WORK/$prog.report"
	for f in puts getpid labs; do
		grep -Eq " $f@libc\.so\.6$" "$WORK/$prog.report" || fail "$prog: the call of $f is not recorded: $(cat "$WORK/$prog.report")"
	done
	ct report "$WORK/$prog.trace" | grep -q '0x[0-9a-f]\{8,\}$' && fail "$prog: a function without a name in the report"
done
pass
