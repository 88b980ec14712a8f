#!/usr/bin/env bash
# kernel_rights.sh - record --syscalls without the rights for the kernel's
# tracepoints (root with CAP_PERFMON and CAP_SYS_ADMIN dropped, with tracefs
# mounted or not; an unprivileged user): one line says what is missing and
# how to get it, the program's own calls are recorded all the same, and
# --sched, which needs no special rights, still records the off-CPU
# intervals.  Needs root (to drop the rights) and capsh.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || skip "needs root, to drop the rights"
need_cmd capsh unshare setpriv
build_c sysmix "$PROGRAMS/kernel/sysmix.c"
chmod 755 "$WORK"
dump() {
	python3 "$ROOT/tests/e2e/kernel_dump.py" "$WORK/$1.trace" >"$WORK/$1.dump" ||
		fail "cannot read $1.trace"
}
# dropped NAME CMD...: runs CMD without CAP_PERFMON and CAP_SYS_ADMIN.
dropped() {
	local name=$1
	shift
	RC=0
	capsh --drop=cap_perfmon,cap_sys_admin -- -c '"$@"' sh "$@" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?
}
# user_calls_kept NAME: the program's calls and marks are in the trace.
user_calls_kept() {
	[ "$RC" = 0 ] || fail "$1: exit $RC: $(head -c 300 "$WORK/$1.err")"
	dump "$1"
	grep -q "^user .* mark begin" "$WORK/$1.dump" || fail "$1: the program's calls were not recorded"
	[ "$(grep -c "^user .* enter function" "$WORK/$1.dump")" -ge 7 ] ||
		fail "$1: too few of the program's calls recorded"
}
one_line() { # NAME REGEX: exactly one line of the kind, matching REGEX
	local n
	n=$(grep -c "not recorded" "$WORK/$1.err" || true)
	[ "$n" = 1 ] || fail "$1: $n lines about what is not recorded: $(cat "$WORK/$1.err")"
	grep -Eq "$2" "$WORK/$1.err" || fail "$1: the line does not match '$2': $(grep "not recorded" "$WORK/$1.err")"
}

# tracefs mounted (in a mount namespace of this test's own): perf_event_open refuses.
RC=0
unshare -m sh -c '{ mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing; } &&
	capsh --drop=cap_perfmon,cap_sys_admin -- -c "\"\$@\"" sh "$@"' sh \
	"$CALLTRACE" record --syscalls -o "$WORK/mounted.trace" "$WORK/sysmix" "$WORK/f1" \
	>"$WORK/mounted.out" 2>"$WORK/mounted.err" || RC=$?
one_line mounted "^calltrace: system calls not recorded: .*root or CAP_PERFMON \(perf_event_paranoid is -?[0-9]+.*\); the rest is recorded$"
user_calls_kept mounted
! grep -q "^kernel" "$WORK/mounted.dump" || fail "mounted: kernel events without the rights"

# As the machine is: either tracefs is mounted (the same refusal) or it is
# not and mounting it needs CAP_SYS_ADMIN.
dropped asis "$CALLTRACE" record --syscalls --sched -o "$WORK/asis.trace" "$WORK/sysmix" "$WORK/f2"
one_line asis "^calltrace: system calls not recorded: .*(CAP_PERFMON|CAP_SYS_ADMIN).*; the rest is recorded$"
user_calls_kept asis
grep -q "^kernel .* enter offcpu" "$WORK/asis.dump" || fail "asis: --sched recorded no off-CPU interval"
! grep -q "^kernel .* enter syscall" "$WORK/asis.dump" || fail "asis: system calls without the rights"

# An unprivileged user: --sched alone works (perf_event_paranoid 2 lets a
# user watch the context switches of own processes).  Only where that user
# can reach the tools (a checkout in a folder closed to others cannot).
setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$RUNTIME" -a -x "$CALLTRACE" ||
	{
		echo "the unprivileged user's part left out: user 65534 cannot reach $CALLTRACE"
		pass
	}
mkdir "$WORK/nobody"
chown 65534:65534 "$WORK/nobody"
RC=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$CALLTRACE" record --sched \
	-o "$WORK/nobody/user.trace" "$WORK/sysmix" "$WORK/nobody/f3" \
	>"$WORK/user.out" 2>"$WORK/user.err" || RC=$?
ln -s nobody/user.trace "$WORK/user.trace"
if grep -q "not recorded" "$WORK/user.err"; then
	grep -q "off-CPU intervals not recorded" "$WORK/user.err" ||
		fail "user: $(cat "$WORK/user.err")"
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] ||
		fail "user: --sched refused at perf_event_paranoid <= 2: $(cat "$WORK/user.err")"
else
	user_calls_kept user
	grep -q "^kernel .* enter offcpu blocked" "$WORK/user.dump" || fail "user: no blocked interval"
fi
pass
