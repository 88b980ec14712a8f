#!/usr/bin/env bash
# arm64_crash.sh - a crash on aarch64 (under qemu-user): the runtime's
# report names the faulting function and the calls open at the crash with
# their lines (the signal context's pc and sp: src/arch/aarch64/arch.h);
# this machine's `calltrace crash` reports the aarch64 trace the same as the
# aarch64 tool does; an abort too.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_build_c crash "$PROGRAMS/crash.c"

CALLTRACE=$A64_CALLTRACE record segv "$WORK/crash" segv
[ "$RC" = 139 ] || fail "segv: exit $RC, not 139: $(head -c 300 "$WORK/segv.err")"
grep -q '^calltrace: pid [0-9]* tid [0-9]* crash crashed: signal 11 (Segmentation fault)' "$WORK/segv.err" ||
	fail "segv: no crash line: $(head -c 400 "$WORK/segv.err")"
# The three open calls, innermost first, with their lines.
grep -A3 '^calltrace: calls open at the crash' "$WORK/segv.err" | tail -n 3 |
	sed -E 's/^calltrace: +#([0-9]) +([a-z_]+) at (crash\.c):[0-9]+.*/\1 \2 \3/' >"$WORK/segv.open"
printf '0 crash_inner crash.c\n1 crash_outer crash.c\n2 main crash.c\n' >"$WORK/segv.expected"
expect_text "open calls at the crash" "$WORK/segv.expected" "$WORK/segv.open"
grep -q '^calltrace:   in crash_inner at crash\.c:[0-9]' "$WORK/segv.err" ||
	fail "segv: the faulting function is not named: $(head -c 400 "$WORK/segv.err")"

for name in segv abort; do
	[ $name = abort ] && CALLTRACE=$A64_CALLTRACE record abort "$WORK/crash" abort
	"$NATIVE_CALLTRACE" crash "$WORK/$name.trace" >"$WORK/$name.native" 2>&1 ||
		fail "$name: native calltrace crash: $(head -c 300 "$WORK/$name.native")"
	"$A64_CALLTRACE" crash "$WORK/$name.trace" >"$WORK/$name.a64" 2>&1 ||
		fail "$name: aarch64 calltrace crash: $(head -c 300 "$WORK/$name.a64")"
	expect_text "$name: calltrace crash on either architecture" "$WORK/$name.native" "$WORK/$name.a64"
done
grep -q 'signal 6 (Aborted)' "$WORK/abort.native" || fail "abort: $(head -c 300 "$WORK/abort.native")"
grep -q 'abort_inner at crash\.c' "$WORK/abort.native" || fail "abort: no abort_inner: $(head -c 400 "$WORK/abort.native")"
pass
