#!/usr/bin/env bash
# patch_ahead_exec.sh - the functions a process ran before it exec'd are
# patched ahead in the session's later processes of its program: a script
# runs the program once in a mode that calls main and work, then execs
# true (with execve, as a shell does), and once in a mode that calls main, work and other.  The second
# makes one first call (other); main and work are patched ahead.  The
# calls recorded are the same as with no list.  The image that exec'd has
# its functions' counts in the trace (written before the exec).
source "$(dirname "$0")/lib.sh"
setup

cat >"$WORK/ahead.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
__attribute__((noinline)) int other(int x) { return x + 7; }
int main(int argc, char **argv)
{
	int v = work(argc);
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		char *args[] = {"true", NULL};
		execve("/bin/true", args, environ);
		return 1;
	}
	printf("%d\n", other(v));
	return 0;
}
C
gcc -std=gnu11 -g -O1 -o "$WORK/ahead" "$WORK/ahead.c" || fail "cannot compile"
printf '"$1" exec\n"$1"\n' >"$WORK/script.sh"

record ahead -v --program ahead bash "$WORK/script.sh" "$WORK/ahead"
[ "$RC" = 0 ] || fail "the script exited $RC: $(cat "$WORK/ahead.err")"
[ "$(cat "$WORK/ahead.out")" = 11 ] || fail "printed $(cat "$WORK/ahead.out")"
said=$(grep -E '^calltrace: in-process engine: [0-9]+ functions marked, ' "$WORK/ahead.err")
echo "$said" | grep -Eqx 'calltrace: in-process engine: [0-9]+ functions marked, 1 ran; 2 more patched ahead of their first calls: .*' ||
	fail "the second process: $said"

ct info "$WORK/ahead.trace" >"$WORK/ahead.info"
awk '/^  image /{ img = $0 } /^    command: .*ahead exec$/{ want = img } /^    functions:/{ f[img] = $0 }
	END { print f[want] }' "$WORK/ahead.info" >"$WORK/ahead.exec_counts"
grep -Eqx '    functions: [0-9]+ marked, 2 ran \(patched\)' "$WORK/ahead.exec_counts" ||
	fail "the image that exec'd: '$(cat "$WORK/ahead.exec_counts")' in $(grep -A3 '^  image' "$WORK/ahead.info" | head -c 600)"

counts ahead >"$WORK/ahead.counts"
expect_text "calls" - "$WORK/ahead.counts" <<'COUNTS'
main 2
other 1
work 2
COUNTS
pass
