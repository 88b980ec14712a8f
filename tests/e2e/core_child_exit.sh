#!/usr/bin/env bash
# core_child_exit.sh - `calltrace info` gives every process's exit status:
# fork children that end by exit() and by _exit() (their own), a child
# killed by SIGTERM and reaped by waitpid(), one that sends itself SIGKILL,
# reaped by wait() (128 + the signal, written by the parent when it reaps).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forks "$PROGRAMS/forks.c"

statuses() { # NAME: "pid status" of every image in `calltrace info`
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	sed -n 's/^  image [0-9]*: pid \([0-9]*\), .*, exit status \(-\{0,1\}[0-9]*\)$/\1 \2/p; s/^  image [0-9]*: pid \([0-9]*\), [^,]*$/\1 none/p' \
		"$WORK/$1.info"
}
child_pid() { # NAME ROLE
	awk -v r="$2" '$1 == r { print $2 }' "$WORK/$1.pids"
}

record fk "$WORK/forks" fork "$WORK/fk.pids"
[ "$RC" = 0 ] || fail "forks fork: exit $RC"
got=$(statuses fk | sort)
want=$(printf '%s 0\n%s 0\n%s 0\n' "$(child_pid fk exit_child)" "$(child_pid fk quick_exit_child)" \
	"$(grep -o 'pid [0-9]*, started' "$WORK/fk.info" | awk '{ print $2 }' | tr -d ,)" | sort)
[ "$got" = "$want" ] || fail "forks fork: statuses '$got', expected '$want'"

record kl "$WORK/forks" kill "$WORK/kl.pids"
[ "$RC" = 0 ] || fail "forks kill: exit $RC: $(head -c 300 "$WORK/kl.err")"
grep -qx 'killed child status: 143' "$WORK/kl.out" && grep -qx 'waited child signal: 9' "$WORK/kl.out" ||
	fail "forks kill printed $(cat "$WORK/kl.out")"
statuses kl >"$WORK/kl.statuses"
for pair in killed_child:143 waited_child:137; do
	pid=$(child_pid kl "${pair%%:*}")
	got=$(awk -v p="$pid" '$1 == p { print $2 }' "$WORK/kl.statuses")
	[ "$got" = "${pair#*:}" ] || fail "${pair%%:*} ($pid): exit status '$got', not ${pair#*:}"
done
pass
