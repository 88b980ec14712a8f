#!/usr/bin/env bash
# dynamic_attach_user.sh - root attaches to a process of another user (a
# service running as nobody), under each engine: the trace is written,
# whoever owns the process, into a folder that user may not write to, and
# belongs to root; it holds the process's calls; the process ends as it
# would have.  Skipped unless run as root with setpriv and a user nobody.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ "$(id -u)" = 0 ] || skip "not run as root"
need_cmd setpriv
id nobody >/dev/null 2>&1 || skip "no user nobody"
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
# The process of nobody loads the runtime from where it is.
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups test -r "$RUNTIME" ||
	skip "user nobody cannot read $RUNTIME (a folder on its path is closed to others)"
build_c tick "$PROGRAMS/dynamic/tick_tock.c"
# The program (and its pid and stop files) where nobody can reach them;
# the traces in root's own folder.
chmod 755 "$WORK"
mkdir -m 777 "$WORK/shared"
mkdir -m 700 "$WORK/root"
cp "$WORK/tick" "$WORK/shared/tick"
chmod 755 "$WORK/shared/tick"

for engine in patch ptrace; do
	name=shared/$engine
	rm -f "$WORK/$name.pid" "$WORK/$name.stop"
	(
		rc=0
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			"$WORK/shared/tick" "$WORK/$name.pid" "$WORK/$name.stop" 2 >"$WORK/$name.out" 2>&1 || rc=$?
		echo "$rc" >"$WORK/$engine.rc"
	) &
	TARGET_JOB=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$WORK/$name.pid" ] && break
		sleep 0.05
	done
	[ -s "$WORK/$name.pid" ] || fail "the program did not start as nobody"
	TARGET_PID=$(cat "$WORK/$name.pid")
	trace=$WORK/root/$engine.trace
	RC=0
	timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --engine "$engine" --duration 300ms \
		-o "$trace" >/dev/null 2>"$WORK/$engine.err" || RC=$?
	[ "$RC" = 0 ] || fail "$engine: root's attach to a process of nobody exited $RC: $(head -c 300 "$WORK/$engine.err")"
	[ "$(stat -c %u "$trace")" = 0 ] || fail "$engine: the trace belongs to user $(stat -c %U "$trace"), not root"
	ct info "$trace" >"$WORK/$engine.info"
	grep -Eq '^calls: +[1-9]' "$WORK/$engine.info" || fail "$engine: no call in the trace"
	for fd in "/proc/$TARGET_PID/fd/"*; do
		[ "$(readlink "$fd")" = "$trace" ] && fail "$engine: the trace is still open in the process"
	done
	touch "$WORK/$name.stop"
	wait "$TARGET_JOB" || true
	[ "$(cat "$WORK/$engine.rc")" = 3 ] || fail "$engine: the program exited $(cat "$WORK/$engine.rc") after the attach"
	TARGET_PID=
done
pass
