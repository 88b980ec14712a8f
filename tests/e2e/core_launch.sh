#!/usr/bin/env bash
# core_launch.sh - every process recorded exactly once, by the engine that
# fits its own program, however it was started: through a shell or env,
# from an instrumented program or a plain one (exec, fork, posix_spawn);
# `attach` to an instrumented program patches it; --no-follow records the
# started process alone under every engine;
# --program records only the programs it names; a shell that keeps its
# own copy of the environment (bash) still hands its children their parent
# image, the one that forked or exec'd them; a record run under another
# one records into its own trace.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup

# expect_calls NAME WHAT: the report's counts (counts) equal stdin.
expect_calls() {
	cat >"$WORK/$1.expected"
	counts "$1" >"$WORK/$1.counts"
	expect_text "$2" "$WORK/$1.expected" "$WORK/$1.counts"
}

# pid_of NAME PROGRAM: the pid of the image of PROGRAM in $WORK/NAME.trace.
pid_of() {
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	awk -v prog="$2" '/^  image [0-9]*:/ { pid = $4 } /^    command:/ && $2 == prog { print pid }' \
		"$WORK/$1.info" | tr -d ,
}

# images NAME: how many process images `info` lists.
images() {
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	grep -c '^  image [0-9]*:' "$WORK/$1.info" || true
}

# fib(10), with hooks and plain, started directly, by sh -c and by env:
# 177 calls of fib and one of main, whatever engine the launcher got.
same_trees_build fib "$PROGRAMS/launch/fib.c"
for build in hooks plain; do
	prog=$WORK/fib.$build
	n=0
	for launch in "" "sh -c" "env"; do
		n=$((n + 1))
		name=fib_${build}_$n
		# shellcheck disable=SC2086 # the launcher's words
		record "$name" $launch "$prog"
		grep -qx 'fib(10) = 55' "$WORK/$name.out" || fail "$name printed: $(cat "$WORK/$name.out")"
		# The launcher's own main (were it not stripped) is not fib's.
		pid=$(pid_of "$name" "$prog")
		[ -n "$pid" ] || fail "$name: no image of $prog in the trace"
		ct report --pid "$pid" "$WORK/$name.trace" >"$WORK/$name.report"
		awk 'NR > 2 { print $NF, $5 }' "$WORK/$name.report" | sort | grep -E '^(fib|main) ' >"$WORK/$name.got" || true
		printf 'fib 177\nmain 1\n' >"$WORK/$name.expected"
		expect_text "fib $build started by '${launch:-record}': calls" "$WORK/$name.expected" \
			"$WORK/$name.got"
	done
done

# An instrumented program that execs a plain one, and the other way round:
# both images recorded, each once.
same_trees_build exec "$PROGRAMS/exec.c"
same_trees_build target "$PROGRAMS/exec_target.c"
for pair in hooks:plain plain:hooks; do
	from=${pair%:*} to=${pair#*:}
	name=exec_${from}_$to
	record "$name" "$WORK/exec.$from" "$WORK/target.$to" 7
	[ "$RC" = 7 ] || fail "$name: exit status $RC, not the target's 7"
	to_json "$name"
	expect_trees "$name" <<'TREES'
== process 1 main
main [unfinished]
  exec_prepare
    exec_leaf
  exec_now [unfinished]
== process 1 image 2 main
main
  target_start
    target_leaf [x2]
  target_finish
TREES
done

# A program built with -finstrument-functions that calltrace did not start:
# its hooks are the C library's empty ones, and `attach` patches its entries.
build_c tt "$PROGRAMS/dynamic/tick_tock.c"
start_target tt "$WORK/tt" 1
rc=0
timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 300ms -o "$WORK/tt.trace" \
	>/dev/null 2>"$WORK/tt.err" || rc=$?
finish_target tt
if ! grep -q "not allowed" "$WORK/tt.err"; then
	[ "$rc" = 0 ] || fail "attach to the instrumented tick_tock exited $rc: $(head -c 300 "$WORK/tt.err")"
	ct report "$WORK/tt.trace" >"$WORK/tt.report"
	ticks=$(report_calls "$WORK/tt.report" tick)
	[ "$ticks" -gt 0 ] || fail "attach to an instrumented program recorded no call of tick"
fi

# --no-follow: a program that forks, forks and execs, and posix_spawns
# leaves one process image under every engine; its children run as usual.
same_trees_build spawner "$PROGRAMS/launch/spawner.c"
engines=("hooks:" "plain:")
if gcc -std=gnu11 -g -O0 -static -o "$WORK/spawner.static" "$PROGRAMS/launch/spawner.c" 2>/dev/null; then
	engines+=("static:--engine ptrace")
fi
for e in "${engines[@]}"; do
	build=${e%%:*} opts=${e#*:}
	for follow in follow no_follow; do
		name=spawn_${build}_$follow
		extra=()
		[ "$follow" = no_follow ] && extra=(--no-follow)
		# shellcheck disable=SC2086 # the engine's options
		record "$name" $opts "${extra[@]}" "$WORK/spawner.$build" "$WORK/target.plain"
		[ "$RC" = 0 ] || fail "$name: exit status $RC: $(cat "$WORK/$name.out")"
		got=$(images "$name")
		if [ "$follow" = no_follow ]; then
			[ "$got" = 1 ] || fail "$name: $got process images, expected the one started"
			counts "$name" | grep -E '^(child_work|target_)' >&2 &&
				fail "$name: calls of the children recorded"
		else
			[ "$got" -ge 5 ] || fail "$name: $got process images, expected the children's too"
		fi
	done
done

# --no-follow: the children exec'd have the environment they would have had
# (no CALLTRACE_* variable, no runtime in LD_PRELOAD).
printf '#!/bin/sh\nenv | grep -c -e "^CALLTRACE_" -e "^LD_PRELOAD=.*libcalltrace" >>"%s" || true\n' \
	"$WORK/envcheck.out" >"$WORK/envcheck"
chmod +x "$WORK/envcheck"
for build in hooks plain; do
	rm -f "$WORK/envcheck.out"
	record "nf_env_$build" --no-follow "$WORK/spawner.$build" "$WORK/envcheck"
	[ "$RC" = 0 ] || fail "nf_env_$build: exit status $RC"
	[ "$(cat "$WORK/envcheck.out")" = "$(printf '0\n0')" ] ||
		fail "nf_env_$build: the children saw calltrace's variables: $(tr '\n' ' ' <"$WORK/envcheck.out")"
done

# --no-follow: a fork child that crashes is the program's own business: no
# crash record, no report on stderr, the program's own exit status.
for build in hooks plain; do
	name=nf_crash_$build
	record "$name" --no-follow "$WORK/spawner.$build" "$WORK/target.plain" crash
	[ "$RC" = 1 ] || fail "$name: exit status $RC, expected 1 (one child failed)"
	grep -q 'died of signal\|calltrace crash' "$WORK/$name.err" &&
		fail "$name: the child's crash is reported: $(grep -m1 'died\|crash' "$WORK/$name.err")"
	"$CALLTRACE" crash "$WORK/$name.trace" >"$WORK/$name.crash" 2>&1 || true
	grep -q 'no crash recorded' "$WORK/$name.crash" || fail "$name: a crash is recorded: $(head -n 3 "$WORK/$name.crash")"
done

# --program: only the named programs, through a shell that is not recorded.
record prog_name --program target.plain sh -c "'$WORK/spawner.hooks' '$WORK/target.plain'"
[ "$(images prog_name)" = 2 ] || fail "prog_name: $(images prog_name) process images, expected the 2 targets"
expect_calls prog_name "--program target.plain: calls" <<'COUNTS'
main 2
target_finish 2
target_leaf 4
target_start 2
COUNTS
# A path glob: the spawner and its fork children (the same program), not
# the shell nor the targets.
record prog_path --program "$WORK/spawner.*" sh -c "'$WORK/spawner.plain' '$WORK/target.hooks'"
[ "$(images prog_path)" = 3 ] || fail "prog_path: $(images prog_path) process images, expected 3"
expect_calls prog_path "--program PATH-GLOB: calls" <<'COUNTS'
child_work 1
fork_exec 1
fork_only 1
main 1
spawn 1
wait_all 1
COUNTS
if [ -x "$WORK/spawner.static" ]; then
	rc=0
	"$CALLTRACE" record -o "$WORK/p.trace" --program x "$WORK/spawner.static" "$WORK/target.plain" \
		>/dev/null 2>"$WORK/p.err" || rc=$?
	if [ "$rc" != 2 ] || [ "$(wc -l <"$WORK/p.err")" != 1 ] || ! grep -q -- '--program' "$WORK/p.err"; then
		fail "--program with the ptrace engine: exit $rc, $(cat "$WORK/p.err")"
	fi
fi
rc=0
"$CALLTRACE" record -o "$WORK/p.trace" --program 'a:b' "$WORK/fib.plain" >/dev/null 2>"$WORK/p.err" || rc=$?
if [ "$rc" != 2 ] || ! grep -q "^calltrace: bad --program 'a:b'" "$WORK/p.err"; then
	fail "--program with a ':': exit $rc, $(cat "$WORK/p.err")"
fi

# bash keeps its own copy of the environment: the session variable it
# hands on is the one it was started with, which names bash's parent.
for script in 'exec ./fib.plain' './fib.plain; ./fib.plain'; do
	(cd "$WORK" && "$CALLTRACE" record -q -o "$WORK/bash.trace" --replace bash -c "$script") \
		>/dev/null 2>"$WORK/bash.err" || fail "record bash -c '$script': $(cat "$WORK/bash.err")"
	ct info "$WORK/bash.trace" | sed -n 's/^  image \([0-9]*\): pid [0-9]*, \([^,]*\).*/\1 \2/p' \
		>"$WORK/bash.images"
	case $script in
	exec*) expected=$'1 started\n2 exec\'d from image 1' ;;
	*) expected=$'1 started\n2 forked from image 1\n3 exec\'d from image 2\n4 exec\'d from image 1' ;;
	esac
	[ "$(cat "$WORK/bash.images")" = "$expected" ] ||
		fail "bash -c '$script': images $(tr '\n' ';' <"$WORK/bash.images"), expected $(echo "$expected" | tr '\n' ';')"
done

# A recording started under another one (a build that runs calltrace
# record): its program goes into its own trace, not the outer one.  (A
# sanitized calltrace, preloaded with the runtime, is told not to mind.)
(cd "$WORK" && ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 "$CALLTRACE" record -q -o "$WORK/outer.trace" bash -c \
	"'$CALLTRACE' record -q -o '$WORK/inner.trace' ./fib.plain") >/dev/null 2>"$WORK/nested.err" ||
	fail "nested record: $(cat "$WORK/nested.err")"
expect_calls inner "nested record: the inner trace" <<'COUNTS'
fib 177
main 1
COUNTS
counts outer | grep -q '^fib ' && fail "nested record: the outer trace has fib's calls too"
pass
