#!/usr/bin/env bash
# core_session_entry.sh - every process image finds CALLTRACE_SESSION naming
# itself (its image in the trace, its pid, ids of ten digits), brought up
# to date without the program's putenv: a program with a putenv of its own
# (as bash has, whose putenv rebuilds its whole environment) sees none of
# its calls, in the first image, in a fork child, and in a fork child
# whose environ is a copy the program owns (as bash's is).  Under the
# hooks and under the in-process engine.  Each image's command line is the
# one it was started with (read from the arguments' memory, as
# /proc/self/cmdline is), arguments with spaces and an empty one kept.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/session_entry/own_putenv.c

# expect_entry NAME WHO IMAGE: WHO's line says no putenv call and names
# IMAGE (as `info` numbers it) and WHO's own pid.
expect_entry() {
	local name=$1 who=$2 image=$3 line pid info_pid
	line=$(grep "^$who [0-9]*: " "$WORK/$name.out") || fail "$name: no line of $who"
	pid=$(echo "$line" | awk '{print $2 + 0}')
	info_pid=$(awk -v want="$image:" '$1 == "image" && $2 == want { print $4 + 0 }' "$WORK/$name.info")
	[ "$pid" = "$info_pid" ] || fail "$name: $who has pid $pid, image $image has $info_pid"
	local want
	want=$(printf '%s %d: putenv calls 0, session %010u:%010u:%s' "$who" "$pid" "$image" "$pid" "$WORK/$name.trace")
	[ "$line" = "$want" ] || fail "$name: $who says '$line', not '$want'"
}

check_run() {
	local name=$1
	record "$name" "$WORK/$name" one "two words" "" last
	[ "$RC" = 0 ] || fail "$name: exit $RC: $(head -c 300 "$WORK/$name.err")"
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
	grep -q '^  image 2: .*forked from image 1' "$WORK/$name.info" || fail "$name: image 2 is not the first child"
	grep -q '^  image 3: .*forked from image 1' "$WORK/$name.info" || fail "$name: image 3 is not the second child"
	expect_entry "$name" parent 1
	expect_entry "$name" child 2
	expect_entry "$name" child-of-copy 3
	local commands want
	commands=$(awk '/^  image / { image = $2 } /^    command: / { sub(/^    command: /, ""); print image, $0 }' "$WORK/$name.info")
	want=$(for i in 1 2 3; do printf '%s: %s one two words  last\n' "$i" "$WORK/$name"; done)
	[ "$commands" = "$want" ] || fail "$name: command lines
$commands
not
$want"
}

build_c hooks "$src" -ldl
check_run hooks
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
build_c plain "$src" -ldl
check_run plain
pass
