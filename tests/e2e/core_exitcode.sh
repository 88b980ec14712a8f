#!/usr/bin/env bash
# core_exitcode.sh - exit code 3 passes through calltrace record; a program
# killed by SIGSEGV or SIGABRT makes it exit 128 + the signal, and its trace
# reads: the calls up to the crash, the open ones unfinished.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c crash "$PROGRAMS/crash.c"

run_plain exit3 "$WORK/crash" exit3
record exit3 "$WORK/crash" exit3
[ "$RC" = 3 ] || fail "exit code 3 came back as $RC"
same_as_plain exit3
to_json exit3
expect_trees exit3 <<'TREES'
== process 1 main
main
  prelude
    prelude_leaf
TREES

for mode in segv:11:crash abort:6:abort; do
	name=${mode%%:*}
	sig=$(echo "$mode" | cut -d: -f2)
	outer=$(echo "$mode" | cut -d: -f3)
	run_plain "$name" "$WORK/crash" "$name"
	[ "$PLAIN_RC" = $((128 + sig)) ] || fail "untraced $name exited $PLAIN_RC"
	record "$name" "$WORK/crash" "$name"
	[ "$RC" = $((128 + sig)) ] || fail "$name: calltrace exited $RC, not $((128 + sig))"
	same_as_plain "$name"
	for cmd in replay report info; do
		ct "$cmd" "$WORK/$name.trace" >/dev/null
	done
	to_json "$name"
	check_tree schema "$WORK/$name.json" --command "$WORK/crash $name" --total --files
	expect_trees "$name" <<TREES
== process 1 main
main [unfinished]
  prelude
    prelude_leaf
  ${outer}_outer [unfinished]
    ${outer}_inner [unfinished]
TREES
	check_tree lines "$WORK/$name.json" "$WORK/crash"
	expect_replay "$name"
done
pass
