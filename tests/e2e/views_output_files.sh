#!/usr/bin/env bash
# views_output_files.sh - where a view writes with -o: a new file gets the
# umask's mode; a symbolic link is refused in one line, the file it points
# at untouched (it could be anyone's); /dev/stdout and /dev/stderr name the
# streams (they are links too); an existing file is replaced whole, in
# every command that takes -o.
source "$(dirname "$0")/lib.sh"
setup

cat >"$WORK/out.c" <<'C'
void out_leaf(void) {}
int main(void) { out_leaf(); return 0; }
C
gcc -g -O0 -no-pie "$WORK/out.c" -o "$WORK/out" || fail "cannot compile out"
gen_trace out "$WORK/out" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter out_leaf
2000 exit
3000 exit
3010 end 0
SCRIPT

echo "someone else's file" >"$WORK/victim"
for view in report replay json flame chrome speedscope seq graph; do
	rm -f "$WORK/new.$view"
	(umask 077 && "$CALLTRACE" "$view" -o "$WORK/new.$view" "$WORK/out.trace" >/dev/null 2>"$WORK/$view.err") ||
		fail "$view -o a new file: $(head -n 1 "$WORK/$view.err")"
	[ "$(stat -c %a "$WORK/new.$view")" = 600 ] || fail "$view: umask 077 gave mode $(stat -c %a "$WORK/new.$view")"
	grep -q out_leaf "$WORK/new.$view" || fail "$view: no out_leaf in its output"

	ln -sf "$WORK/victim" "$WORK/link.$view"
	RC=0
	"$CALLTRACE" "$view" -o "$WORK/link.$view" "$WORK/out.trace" >/dev/null 2>"$WORK/$view.err" || RC=$?
	[ "$RC" != 0 ] && [ "$(wc -l <"$WORK/$view.err")" = 1 ] &&
		grep -q "^calltrace: cannot write $WORK/link.$view: it is a symbolic link" "$WORK/$view.err" ||
		fail "$view -o a symbolic link: exit $RC, stderr $(head -c 200 "$WORK/$view.err")"
	[ "$(cat "$WORK/victim")" = "someone else's file" ] || fail "$view wrote through a symbolic link"

	"$CALLTRACE" "$view" -o /dev/stdout "$WORK/out.trace" >"$WORK/stdout.$view" 2>"$WORK/$view.err" ||
		fail "$view -o /dev/stdout: $(head -n 1 "$WORK/$view.err")"
	cmp -s "$WORK/stdout.$view" "$WORK/new.$view" || fail "$view -o /dev/stdout differs from -o FILE"
	"$CALLTRACE" "$view" -o /dev/stderr "$WORK/out.trace" 2>"$WORK/stderr.$view" >/dev/null ||
		fail "$view -o /dev/stderr failed"
	cmp -s "$WORK/stderr.$view" "$WORK/new.$view" || fail "$view -o /dev/stderr differs from -o FILE"

	# Replaced whole: a longer file before leaves nothing behind.
	head -c 100000 /dev/zero >"$WORK/old.$view"
	"$CALLTRACE" "$view" -o "$WORK/old.$view" "$WORK/out.trace" 2>/dev/null || fail "$view -o an existing file failed"
	cmp -s "$WORK/old.$view" "$WORK/new.$view" || fail "$view -o an existing file left old bytes"
done
pass
