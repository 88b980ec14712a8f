#!/usr/bin/env bash
# patch_attach.sh - `calltrace attach` with the in-process engine (the
# runtime loaded into the running process, function entries patched there).
#
# On a busy 1-thread and a busy 4-thread program (tick_tock.c: every tick
# calls tock once, no sleeping): the attach says it chose the in-process
# engine; the trace holds every thread's ticks, each finished tick with
# exactly one tock inside and tocks nowhere else (but the one a thread was
# in when recording began), and reads back without problem in every view; a
# second attach to the same process works and takes the first one's
# trampolines again; after the detach the code is byte for byte the file's;
# the process ends with its own output (round sums, no bad round, no
# CALLTRACE_* variable left in its environment) and status 3.  --engine
# ptrace still gets the ptrace engine.  A C++ process whose exceptions pass
# traced calls lives on.  Functions shorter than the jump (-O2) end
# byte-identical too, and a second attach patches them again.  Then a storm of attach/detach cycles
# (STORM_CYCLES, default 15, 200 with TORTURE=1) on both programs, -O0 and
# -O2: no process may die or end wrong, no attach fail, no trace be bad.
# The last line gives the detach times seen.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -Wall -Wextra)
setup
# A target left running by a failure goes too.
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"

build_c tick_O0 "$PROGRAMS/dynamic/tick_tock.c" -O0
build_c tick_O2 "$PROGRAMS/dynamic/tick_tock.c" -O2

# The output each target must end with.
for threads in 1 4; do
	touch "$WORK/expect$threads.stop"
	RC=0
	"$WORK/tick_O0" "$WORK/expect$threads.pid" "$WORK/expect$threads.stop" "$threads" \
		>"$WORK/expect$threads.out" 2>&1 || RC=$?
	[ "$RC" = 3 ] || fail "untraced tick_tock with $threads threads exited $RC, not 3"
	RC=0
	"$WORK/tick_O2" "$WORK/expect$threads.pid" "$WORK/expect$threads.stop" "$threads" \
		>"$WORK/expect${threads}_O2.out" 2>&1 || RC=$?
	[ "$RC" = 3 ] && cmp -s "$WORK/expect$threads.out" "$WORK/expect${threads}_O2.out" ||
		fail "the -O2 build of tick_tock ends differently: $RC $(head -c 200 "$WORK/expect${threads}_O2.out")"
done

# Can we trace at all here?  An attach to a sleeping process says (and is
# one into a thread blocked in a system call).
sleep 30 &
sleeper=$!
wait_exec "$sleeper" sleep
RC=0
"$CALLTRACE" attach -p "$sleeper" --duration 100ms -o "$WORK/probe.trace" >/dev/null 2>"$WORK/probe.err" || RC=$?
kill "$sleeper" 2>/dev/null || true
wait "$sleeper" 2>/dev/null || true
if [ "$RC" != 0 ]; then
	grep -q "not allowed" "$WORK/probe.err" && skip "ptrace is not allowed here: $(head -n 1 "$WORK/probe.err")"
	fail "attach to a sleeping process exited $RC: $(head -c 300 "$WORK/probe.err")"
fi

# attach_once TRACE [OPTIONS...]: attaches to $TARGET_PID for 400 ms with
# --verbose; fails unless it exits 0 having used the in-process engine.
attach_once() {
	local trace=$1 rc=0
	shift
	timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 400ms -v -o "$trace" "$@" \
		>/dev/null 2>"$trace.err" || rc=$?
	[ "$rc" = 0 ] || fail "attach to $TARGET_PID exited $rc: $(tail -n 4 "$trace.err" | head -c 600)"
	grep -q "^calltrace: engine: in-process engine" "$trace.err" ||
		fail "attach did not use the in-process engine: $(head -c 300 "$trace.err")"
	grep -q "^calltrace: detached from process $TARGET_PID" "$trace.err" ||
		fail "attach did not say it detached: $(head -c 300 "$trace.err")"
}

# check_shapes JSON THREADS ATTACH_ERR: every thread ticks, every finished
# tick has exactly one tock child (check_ticks.py says what is allowed).
check_shapes() {
	local left_alone
	left_alone=$(sed -n 's/.*; \([0-9]*\) left alone where a thread stood.*/\1/p' "$3")
	python3 "$ROOT/tests/e2e/check_ticks.py" "$1" "$2" "${left_alone:-0}" 2>"$WORK/shape.err" ||
		fail "$(tail -n 1 "$WORK/shape.err") ($(grep 'functions patched' "$3" | cut -d: -f3))"
}

# code_restored PROG: the first bytes of tick and tock in $TARGET_PID are
# those of the file (no jump left behind).
code_restored() {
	python3 - "$1" "$TARGET_PID" <<'PY' 2>"$WORK/restore.err" || fail "$(tail -n 1 "$WORK/restore.err")"
import subprocess, sys
prog, pid = sys.argv[1], sys.argv[2]
syms = {}
for line in subprocess.run(["nm", prog], capture_output=True, text=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[2] in ("tick", "tock"):
        syms[parts[2]] = int(parts[0], 16)
base = None
for line in open(f"/proc/{pid}/maps"):
    f = line.split()
    if len(f) >= 6 and f[5].endswith(prog.split("/")[-1]) and int(f[2], 16) == 0:
        base = int(f[0].split("-")[0], 16)
        break
data = open(prog, "rb").read()
# A PIE's text: file offset = virtual address for these small programs.
with open(f"/proc/{pid}/mem", "rb") as mem:
    for name, vaddr in syms.items():
        mem.seek(base + vaddr)
        live = mem.read(8)
        if live != data[vaddr:vaddr + 8]:
            sys.exit(f"{name} in process {pid}: {live.hex()} where the file has {data[vaddr:vaddr + 8].hex()}")
PY
}

# code_matches PROG: every byte of PROG's code in $TARGET_PID is the file's.
code_matches() {
	python3 "$ROOT/tests/e2e/check_code.py" "$1" "$TARGET_PID" 2>"$WORK/code.err" ||
		fail "$(tail -n 1 "$WORK/code.err")"
}

detach_ms=()
note_detach() {
	local ms
	ms=$(sed -n 's/^calltrace: detached in \([0-9.]*\) ms.*/\1/p' "$1")
	[ -n "$ms" ] || fail "no detach time in $(head -c 300 "$1")"
	detach_ms+=("$ms")
}

views=(replay report info flame seq chrome speedscope graph json)
for threads in 1 4; do
	name=main$threads
	start_target "$name" "$WORK/tick_O0" "$threads"
	attach_once "$WORK/$name.a.trace"
	note_detach "$WORK/$name.a.trace.err"
	kill -0 "$TARGET_PID" 2>/dev/null || fail "the $threads-thread program is gone after the detach"
	ct json -o "$WORK/$name.a.json" "$WORK/$name.a.trace"
	check_tree schema "$WORK/$name.a.json"
	check_shapes "$WORK/$name.a.json" "$threads" "$WORK/$name.a.trace.err"
	for view in "${views[@]}"; do
		out=(-o -)
		[ "$view" = info ] && out=()
		"$CALLTRACE" "$view" "${out[@]}" "$WORK/$name.a.trace" >"$WORK/view.out" 2>"$WORK/view.err" ||
			fail "$view of an attach trace failed: $(tail -n 1 "$WORK/view.err")"
		[ -s "$WORK/view.out" ] || fail "$view of an attach trace wrote nothing"
	done
	problems=$("$CALLTRACE" info "$WORK/$name.a.trace" | awk '$1 == "problems:" { print $2 }')
	[ "$problems" = 0 ] || fail "info finds $problems problems in the attach trace"
	# The target keeps the file mapped after the detach: nothing may be
	# reserved ahead that only the last process out could give back.
	expect_trace_length "$name" "$WORK/$name.a.trace"

	# A second attach: the runtime is there already, its trampolines too.
	attach_once "$WORK/$name.b.trace"
	note_detach "$WORK/$name.b.trace.err"
	grep -Eq "^calltrace: in-process engine: [1-9][0-9]* of [0-9]+ functions patched; [1-9][0-9]* entries took an earlier attach's trampoline" "$WORK/$name.b.trace.err" ||
		fail "the second attach did not patch with the first one's trampolines: $(grep 'functions patched' "$WORK/$name.b.trace.err")"
	ct json -o "$WORK/$name.b.json" "$WORK/$name.b.trace"
	check_shapes "$WORK/$name.b.json" "$threads" "$WORK/$name.b.trace.err"
	code_restored "$WORK/tick_O0"

	finish_target "$name"
	[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/$name.out" "$WORK/expect$threads.out" ||
		fail "after two attaches the $threads-thread program exited $TARGET_RC with $(tr '\n' ' ' <"$WORK/$name.out" | head -c 200)"
done

# --engine ptrace keeps the ptrace engine.
start_target ptrace "$WORK/tick_O0" 1
RC=0
timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --engine ptrace --duration 300ms -v \
	-o "$WORK/ptrace.trace" >/dev/null 2>"$WORK/ptrace.err" || RC=$?
[ "$RC" = 0 ] && grep -q "^calltrace: engine: ptrace engine" "$WORK/ptrace.err" ||
	fail "--engine ptrace: exit $RC, $(head -c 300 "$WORK/ptrace.err")"
grep -qxF "calltrace: attaching to process $TARGET_PID ($WORK/tick_O0) with the ptrace engine: recording for 0.3s, Ctrl-C stops sooner" "$WORK/ptrace.err" ||
	fail "--engine ptrace: did not say what it attached to: $(head -c 300 "$WORK/ptrace.err")"
finish_target ptrace
[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/ptrace.out" "$WORK/expect1.out" ||
	fail "after a ptrace attach the program exited $TARGET_RC"
RC=0
"$CALLTRACE" attach -p 1 --engine nope -o "$WORK/nope.trace" >/dev/null 2>"$WORK/nope.err" || RC=$?
[ "$RC" = 2 ] && grep -q "^calltrace: bad --engine 'nope'" "$WORK/nope.err" ||
	fail "--engine nope: exit $RC, $(head -c 200 "$WORK/nope.err")"

# C++ exceptions thrown through traced calls: the unwinder's entry points
# are watched, so it finds the real return addresses; the process lives on
# and ends as it would have.
build_cxx throw_loop "$PROGRAMS/dynamic/throw_loop.cc" -O0
touch "$WORK/throw_expect.stop"
RC=0
"$WORK/throw_loop" "$WORK/throw_expect.pid" "$WORK/throw_expect.stop" >"$WORK/throw_expect.out" || RC=$?
[ "$RC" = 3 ] || fail "untraced throw_loop exited $RC, not 3"
start_target throw "$WORK/throw_loop" ""
for c in 1 2; do
	attach_once "$WORK/throw.$c.trace"
	ct report -o "$WORK/throw.$c.report" "$WORK/throw.$c.trace"
	grep -q "throw_maybe" "$WORK/throw.$c.report" || fail "no throw_maybe call in the trace of a C++ process"
done
finish_target throw
[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/throw.out" "$WORK/throw_expect.out" ||
	fail "the C++ process exited $TARGET_RC after two attaches: $(head -c 200 "$WORK/throw.out") $(head -c 200 "$WORK/throw.err")"

# Functions shorter than the jump (4 bytes at -O2, padding after them):
# after each detach the whole code is byte for byte the file's, and the
# second attach takes every trampoline again (none skipped).
build_c short_O2 "$PROGRAMS/dynamic/short_funcs.c" -O2
start_target short "$WORK/short_O2" ""
for c in 1 2; do
	attach_once "$WORK/short.$c.trace"
	code_matches "$WORK/short_O2"
done
grep -Eq "^calltrace: in-process engine: ([0-9]+) of \1 functions patched; ([1-9][0-9]*) entries took an earlier attach's trampoline" \
	"$WORK/short.2.trace.err" ||
	fail "the second attach to short_funcs skipped functions: $(grep 'functions patched' "$WORK/short.2.trace.err")"
finish_target short
[ "$TARGET_RC" = 3 ] || fail "short_funcs exited $TARGET_RC after two attaches: $(head -c 200 "$WORK/short.out")"

# Processes forked while attached record too (children and grandchildren,
# each a process of the trace with exact shapes); the ones still running at
# the detach are stopped there too, and every one ends right.
build_c fork_ticks "$PROGRAMS/dynamic/fork_ticks.c" -O0
start_target fork "$WORK/fork_ticks" 400
# attach_forks TRACE: attaches (as attach_once), and stops the attach as
# Ctrl-C does once the target has forked three children since it was
# patched (fork_ticks counts them in fork.pid.forks), not after a time in
# which a busy machine made one child or none.
attach_forks() {
	local trace=$1 rc=0 i before job
	"$CALLTRACE" attach -p "$TARGET_PID" -v -o "$trace" >/dev/null 2>"$trace.err" &
	job=$!
	for ((i = 0; i < 1200; i++)); do
		grep -qs 'functions patched' "$trace.err" && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.05
	done
	before=$(cat "$WORK/fork.pid.forks")
	for ((i = 0; i < 2400; i++)); do
		[ "$(cat "$WORK/fork.pid.forks")" -ge $((before + 3)) ] && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.05
	done
	kill -INT "$job" 2>/dev/null || true
	wait "$job" || rc=$?
	[ "$rc" = 0 ] || fail "attach to $TARGET_PID exited $rc: $(tail -n 4 "$trace.err" | head -c 600)"
	grep -q "^calltrace: engine: in-process engine" "$trace.err" ||
		fail "attach did not use the in-process engine: $(head -c 300 "$trace.err")"
	grep -q "^calltrace: detached from process $TARGET_PID" "$trace.err" ||
		fail "attach did not say it detached: $(head -c 300 "$trace.err")"
}
# A child may end on its own while the detach stops its parent: up to three
# attaches, until one finds a child still recording to stop.
for attempt in 1 2 3; do
	attach_forks "$WORK/fork.trace"
	grep -Eq "^calltrace: [1-9][0-9]* processes forked while recording; [1-9][0-9]* still recorded and stopped" \
		"$WORK/fork.trace.err" && break
done
attach_once "$WORK/nofollow.trace" --no-follow
finish_target fork
images=$("$CALLTRACE" info "$WORK/nofollow.trace" | grep -c '^  image ')
[ "$images" = 1 ] || fail "attach --no-follow recorded $images processes"
[ "$TARGET_RC" = 3 ] && [ "$(cat "$WORK/fork.out")" = "$(printf 'children: some\nwrong: 0')" ] ||
	fail "fork_ticks exited $TARGET_RC after an attach: $(tr '\n' ' ' <"$WORK/fork.out")"
grep -Eq "^calltrace: [1-9][0-9]* processes forked while recording; [1-9][0-9]* still recorded and stopped" \
	"$WORK/fork.trace.err" || fail "no fork child was stopped at the detach: $(grep forked "$WORK/fork.trace.err")"
"$CALLTRACE" info "$WORK/fork.trace" >"$WORK/fork.info"
forked=$(grep -c '^  image [0-9]*: pid [0-9]*, forked from image 1\b' "$WORK/fork.info")
nested=$(grep -Ec '^  image [0-9]*: pid [0-9]*, forked from image ([2-9]|[1-9][0-9]+)\b' "$WORK/fork.info")
[ "$forked" -ge 2 ] && [ "$nested" -ge 2 ] ||
	fail "the trace holds $forked children and $nested grandchildren of the process, 2 or more each expected"
ct json -o "$WORK/fork.json" "$WORK/fork.trace"
# Every process ticks, but a last child and its own may have begun just
# before the detach.
check_shapes "$WORK/fork.json" "$((forked + nested - 1))+" "$WORK/fork.trace.err"

# The storm.
cycles=${STORM_CYCLES:-15}
[ "${TORTURE:-0}" = 1 ] && cycles=${STORM_CYCLES:-200}
per_target=5 done_cycles=0 target=0 deaths=0 failures=0 bad_traces=0 first=
while ((done_cycles < cycles)); do
	prog=$WORK/tick_O0
	((target % 2)) && prog=$WORK/tick_O2
	threads=1
	((target % 4 >= 2)) && threads=4
	name=s$target
	start_target "$name" "$prog" "$threads"
	for ((c = 0; c < per_target && done_cycles < cycles; c++)); do
		done_cycles=$((done_cycles + 1))
		kill -0 "$TARGET_PID" 2>/dev/null || break
		trace=$WORK/$name.$c.trace
		rc=0
		timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 150ms -v -o "$trace" \
			>/dev/null 2>"$trace.err" || rc=$?
		if [ "$rc" != 0 ]; then
			failures=$((failures + 1))
			first=${first:-"$name cycle $c: attach exited $rc: $(head -c 200 "$trace.err")"}
		else
			note_detach "$trace.err"
			info=$("$CALLTRACE" info "$trace" 2>&1) || info="problems: unreadable"
			problems=$(printf '%s\n' "$info" | awk '$1 == "problems:" { print $2 }')
			calls=$(printf '%s\n' "$info" | awk '$1 == "calls:" { print $2 }')
			if [ "$problems" != 0 ] || [ -z "$calls" ] || [ "$calls" = 0 ]; then
				bad_traces=$((bad_traces + 1))
				first=${first:-"$name cycle $c: $calls calls, $problems problems"}
			fi
		fi
		rm -f "$trace"
	done
	finish_target "$name"
	if [ "$TARGET_RC" != 3 ] || ! cmp -s "$WORK/$name.out" "$WORK/expect$threads.out"; then
		deaths=$((deaths + 1))
		first=${first:-"$name ($threads threads): exit $TARGET_RC, $(tr '\n' ' ' <"$WORK/$name.out" | head -c 120)"}
	fi
	target=$((target + 1))
done
times=$(printf '%s\n' "${detach_ms[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "median %.1f ms, max %.1f ms", v[int((NR + 1) / 2)], v[NR] }')
summary="$done_cycles cycles on $target processes: $deaths died or ended wrong, $failures attach failures, $bad_traces bad traces; detach $times"
echo "patch_attach: $summary" >&2
((deaths + failures + bad_traces == 0)) || fail "$summary; first: $first"
pass
