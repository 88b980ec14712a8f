#!/usr/bin/env bash
# patch_stripped.sh - a stripped program gets the in-process engine: its
# function entries come from .eh_frame (tests/programs/stripped, -O0 and
# -O2, linked with -rdynamic).  `record` picks the engine by itself; the
# calls are those of the same program before `strip`, each function as
# sub_ADDRESS but the exported ones, which keep their .dynsym name; the
# program's own getenv (which finds nothing) does not hide the settings.
# A #! script whose interpreter is dynamically linked gets the in-process
# engine too.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -Wall -Wextra)
setup

for opt in O0 O2; do
	name=stripped_$opt
	build_c "$name" "$PROGRAMS/stripped/stripped.c" "-$opt" -rdynamic
	objcopy --strip-all "$WORK/$name" "$WORK/${name}_s"
	! readelf -S "$WORK/${name}_s" | grep -q '\.symtab' || fail "$name: strip left .symtab"
	record "${name}_u" "$WORK/$name" 4
	record "${name}_s" -v "$WORK/${name}_s" 4
	grep -q "^calltrace: engine: in-process engine" "$WORK/${name}_s.err" ||
		fail "$name stripped: not the in-process engine: $(head -n 3 "$WORK/${name}_s.err")"
	[ "$(cat "$WORK/${name}_s.out")" = "$(cat "$WORK/${name}_u.out")" ] ||
		fail "$name stripped: printed $(cat "$WORK/${name}_s.out")"
	# The unstripped trees with each local function named as the stripped
	# program's trace names it.
	to_json "${name}_u"
	to_json "${name}_s"
	check_tree render "$WORK/${name}_u.json" >"$WORK/${name}_u.trees"
	check_tree render "$WORK/${name}_s.json" >"$WORK/${name}_s.trees"
	nm "$WORK/$name" | while read -r address kind symbol; do
		if [ "$kind" = t ]; then
			printf 's/\\<%s\\>/sub_%x/g\n' "$symbol" "$((16#$address))"
		fi
	done >"$WORK/${name}.sed"
	sed -f "$WORK/${name}.sed" "$WORK/${name}_u.trees" >"$WORK/${name}_u.renamed"
	grep -q "exported_step" "$WORK/${name}_u.renamed" && grep -q "sub_" "$WORK/${name}_u.renamed" ||
		fail "$name: the unstripped trees lack exported_step or a local function"
	expect_text "$name: stripped trees" "$WORK/${name}_u.renamed" "$WORK/${name}_s.trees"
done

# A script: its interpreter (a dynamically linked shell) decides.
printf '#!/bin/sh\nexec "%s" 2\n' "$WORK/stripped_O2_s" >"$WORK/script.sh"
chmod +x "$WORK/script.sh"
record script -v "$WORK/script.sh"
grep -q "^calltrace: engine: in-process engine" "$WORK/script.err" ||
	fail "a #! script did not get the in-process engine: $(head -n 3 "$WORK/script.err")"
ct report -o "$WORK/script.report" "$WORK/script.trace"
calls=$(report_calls "$WORK/script.report" exported_step)
[ "$calls" = 2 ] || fail "the script's program made ${calls:-no} exported_step calls, 2 expected"
# The C library patched too (--module libc, stripped: its .dynsym
# functions): the runtime's own calls into it (errno, mmap) are not
# recorded, and setjmp and vfork, which keep their return address or
# return twice, are left alone; the program runs as it would.
cat >"$WORK/libc_user.c" <<'C'
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static sigjmp_buf back;
static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}
__attribute__((noinline)) static void jump_back(int n)
{
	siglongjmp(back, n);
}
int main(void)
{
	int v[64], status = 0;
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(*v), by_value);
	volatile int rounds = 0;
	if (sigsetjmp(back, 1) < 3)
		jump_back(++rounds);
	errno = ENOENT;
	pid_t pid = vfork();
	if (pid == 0)
		_exit(7);
	waitpid(pid, &status, 0);
	printf("%d %d %d %s %d\n", v[0], v[63], rounds, strerror(ENOENT), WEXITSTATUS(status));
	return 0;
}
C
build_c libc_user "$WORK/libc_user.c" -O0
run_plain libc_user "$WORK/libc_user"
record libc_user -v --module libc "$WORK/libc_user"
[ "$RC" = 0 ] && cmp -s "$WORK/libc_user.out" "$WORK/libc_user.plain.out" ||
	fail "--module libc: exit $RC, printed $(cat "$WORK/libc_user.out") not $(cat "$WORK/libc_user.plain.out"): $(tail -n 2 "$WORK/libc_user.err")"
ct report -o "$WORK/libc_user.report" "$WORK/libc_user.trace"
[ "$(report_calls "$WORK/libc_user.report" qsort)" = 1 ] && [ "$(report_calls "$WORK/libc_user.report" jump_back)" = 3 ] ||
	fail "--module libc: not 1 qsort and 3 jump_back calls: $(head -n 12 "$WORK/libc_user.report")"
! grep -Eq ' (__sigsetjmp|vfork)$' "$WORK/libc_user.report" ||
	fail "--module libc: setjmp or vfork was patched"
pass
