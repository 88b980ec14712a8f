#!/usr/bin/env bash
# kernel_args.sh - record --syscalls copies what system call arguments point
# to, as strace shows it: a program (tests/programs/kernel/sysargs.c) that
# opens and reads a file of known bytes, writes known bytes, stats the file,
# makes a pipe, connects to a port nobody listens on and to a local socket,
# sleeps 40 ms, opens a path longer than the copies keep, a NULL and a bad
# pointer, reads into iovecs, stats by descriptor (AT_* flags), writes
# iovecs, accepts (the address length given and filled), and execs
# /bin/true with one variable, run under strace -f and under calltrace:
# replay's and calltrace json's calls are strace's lines
# (kernel_args_check.py).  Without BPF (CALLTRACE_NO_BPF, or without
# CAP_BPF and CAP_SYS_ADMIN) one line says the arguments are pointers and
# the system calls are recorded all the same.  Needs root and strace.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd strace
build_c sysargs "$PROGRAMS/kernel/sysargs.c"
{
	printf 'root:x:0:0:root:/root:/bin/bash\n'
	head -c 1968 /dev/zero | tr '\0' 'x'
} >"$WORK/data"
chmod 644 "$WORK/data"
run_args=("$WORK/sysargs" "$WORK/data" "$WORK/sock")

strace -f -o "$WORK/strace.txt" "${run_args[@]}" >"$WORK/strace.out" ||
	fail "the program failed under strace"
RC=0
"$CALLTRACE" record --syscalls -o "$WORK/a.trace" "${run_args[@]}" >"$WORK/a.out" 2>"$WORK/a.err" ||
	RC=$?
grep -q "not recorded" "$WORK/a.err" && skip "$(grep "not recorded" "$WORK/a.err")"
grep -q "shown as pointers" "$WORK/a.err" && skip "$(grep "shown as pointers" "$WORK/a.err")"
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/a.err")"
ct replay "$WORK/a.trace" >"$WORK/a.replay"
to_json a
out=$(python3 "$ROOT/tests/e2e/kernel_args_check.py" "$WORK/strace.txt" "$WORK/a.replay" \
	"$WORK/a.json" "$WORK/data" "$WORK/sock" 2>&1) || fail "$out"

# pointers NAME: the system calls are recorded, their paths as pointers,
# and one line says why.
pointers() {
	local n
	n=$(grep -c "shown as pointers" "$WORK/$1.err" || true)
	[ "$n" = 1 ] || fail "$1: $n lines saying arguments are pointers: $(cat "$WORK/$1.err")"
	grep -q "$2" "$WORK/$1.err" || fail "$1: not '$2': $(grep "pointers" "$WORK/$1.err")"
	ct replay "$WORK/$1.trace" >"$WORK/$1.replay"
	grep -Eq 'openat\(AT_FDCWD, 0x[0-9a-f]+, O_RDONLY\|O_CLOEXEC\) = 3' "$WORK/$1.replay" ||
		fail "$1: no openat with a pointer: $(grep -m3 openat "$WORK/$1.replay")"
	grep -q 'clock_nanosleep(CLOCK_MONOTONIC, 0, 0x' "$WORK/$1.replay" ||
		fail "$1: no clock_nanosleep"
}
CALLTRACE_NO_BPF=1 "$CALLTRACE" record --syscalls -o "$WORK/nobpf.trace" "${run_args[@]}" \
	>"$WORK/nobpf.out" 2>"$WORK/nobpf.err" || fail "record without BPF: $(head -c 300 "$WORK/nobpf.err")"
pointers nobpf "CALLTRACE_NO_BPF is set"

if command -v capsh >/dev/null && [ "$(id -u)" = 0 ]; then
	RC=0
	capsh --drop=cap_bpf,cap_sys_admin -- -c '"$@"' sh "$CALLTRACE" record --syscalls \
		-o "$WORK/nocap.trace" "${run_args[@]}" >"$WORK/nocap.out" 2>"$WORK/nocap.err" || RC=$?
	if ! grep -q "not recorded" "$WORK/nocap.err"; then
		[ "$RC" = 0 ] || fail "record without CAP_BPF: exit $RC: $(head -c 300 "$WORK/nocap.err")"
		pointers nocap "Operation not permitted (needs root, or CAP_BPF and CAP_PERFMON)"
	fi
fi
pass
