#!/usr/bin/env bash
# patch_registers.sh (x86-64) - the in-process engine's stubs leave every
# register a call may clobber as the caller left it, and library calls'
# stubs keep the values passed and returned in vector registers and in
# %rax:%rdx (tests/programs/patch/kept_registers.c), on the common path
# and on the checked one (--args: the arguments are read there; -D 1: the
# calls deeper are counted, not written).  Each call is counted once.
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
[ "$(uname -m)" = x86_64 ] || skip "the program is x86-64 code"

gcc -std=gnu11 -g -O1 -fno-builtin -Wall -Wextra -o "$WORK/kept" "$PROGRAMS/patch/kept_registers.c" -lm ||
	fail "cannot compile kept_registers"
n=2000
for run in common args depth; do
	opts=()
	[ $run = args ] && opts=(--args)
	[ $run = depth ] && opts=(-D 1)
	record "$run" "${opts[@]}" "$WORK/kept" $n
	[ "$RC" = 0 ] || fail "$run: exit status $RC: $(head -c 300 "$WORK/$run.out" "$WORK/$run.err")"
	[ "$(cat "$WORK/$run.out")" = "kept $n" ] || fail "$run: the program printed $(head -c 200 "$WORK/$run.out")"
	[ $run = depth ] && continue
	counts "$run" | awk '$1 ~ /^(main|round_kept|check_regs|leaf|ldexp@.*|fmax@.*|lldiv@.*)$/' \
		>"$WORK/$run.counts"
	expect_text "$run: calls" - "$WORK/$run.counts" <<COUNTS
check_regs $n
fmax@libm.so.6 $n
ldexp@libm.so.6 $n
leaf $n
lldiv@libc.so.6 $n
main 1
round_kept $n
COUNTS
done
pass
