# lib.sh - helpers for the end-to-end tests; each tests/e2e/*.sh sources it.
#
# Environment (set by tests/run_tests.sh; defaults to the repo's build/):
#   CALLTRACE  the calltrace binary      RUNTIME  libcalltrace.so
#   BUILD      the build directory
# A test exits 0 (pass), 77 (skip) or 1 (fail), with a one-line reason last.

set -Eeuo pipefail

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "lib.sh holds helpers for the tests; it is not a test"
	exit 77
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
CALLTRACE=${CALLTRACE:-$BUILD/bin/calltrace}
RUNTIME=${RUNTIME:-$BUILD/lib/libcalltrace.so}
# Relative paths are taken from where the test was started.
abs_path() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$PWD/$1" ;;
	esac
}
BUILD=$(abs_path "$BUILD")
CALLTRACE=$(abs_path "$CALLTRACE")
RUNTIME=$(abs_path "$RUNTIME")
PROGRAMS=$ROOT/tests/programs
# Library calls are recorded by default; the expected trees of most tests
# are the program's own calls, so they are off unless a test turns them on
# (libcall_*.sh: unset CALLTRACE_LIBCALL).
export CALLTRACE_LIBCALL=${CALLTRACE_LIBCALL:-0}
TEST_NAME=$(basename "$0" .sh)
WORK=

# Flags of every traced test program: debug info, hooks, no inlining.
CFLAGS_TRACED=(-g -O0 -finstrument-functions -Wall -Wextra)

# In a $(...) subshell the reason goes to stderr, so that it is not captured.
fail() {
	local reason="$*"
	reason=${reason//$'\n'/ | }
	if [ "$BASHPID" != "$$" ]; then
		echo "FAIL $TEST_NAME: $reason" >&2
	else
		echo "FAIL $TEST_NAME: $reason"
	fi
	exit 1
}

skip() {
	echo "SKIP $TEST_NAME: $*"
	exit 77
}

pass() {
	echo "PASS $TEST_NAME"
	exit 0
}

trap 'fail "unexpected error (exit $?) at line $LINENO: $BASH_COMMAND"' ERR

# The shell's own "Segmentation fault" notices go nowhere: a test checks the
# exit codes.

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

# Makes $WORK, removed when the test ends; skips when gcc, python3 or binutils
# are missing.
setup() {
	need_cmd gcc python3 nm addr2line
	[ -x "$CALLTRACE" ] || fail "no calltrace binary at $CALLTRACE"
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT
	# The in-process engine's lasting cache (record --no-cache) is the
	# test's own: what one test's recordings learnt never reaches another.
	export XDG_CACHE_HOME=$WORK/cache
}

# build_c OUT SOURCE... [FLAG...]: compiles an instrumented C program into $WORK/OUT.
build_c() {
	local out=$1
	shift
	gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -o "$WORK/$out" "$@" -pthread ||
		fail "cannot compile $out"
}

# build_cxx OUT SOURCE... [FLAG...]: the same for C++.
build_cxx() {
	local out=$1
	shift
	need_cmd g++
	g++ -std=c++17 "${CFLAGS_TRACED[@]}" -o "$WORK/$out" "$@" -pthread ||
		fail "cannot compile $out"
}

# gen_trace NAME PROGRAM: writes $WORK/NAME.trace from the script on stdin
# (tests/programs/views/trace_gen.c says how): calls of PROGRAM's functions
# (an executable built with -no-pie, never run) at the times the script
# chooses, for the views whose layout depends on durations: the test, not
# the machine's speed or load, decides them.
gen_trace() {
	[ -x "$WORK/trace_gen" ] ||
		gcc -std=gnu11 -O1 -D_GNU_SOURCE -o "$WORK/trace_gen" "$PROGRAMS/views/trace_gen.c" "$ROOT/src/format/kernel_stream.c" \
			"$BUILD/lib/libcalltrace.a" -lelf -ldl -pthread || fail "cannot compile trace_gen"
	"$WORK/trace_gen" "$WORK/$1.trace" "$2" 2>"$WORK/gen.err" ||
		fail "trace_gen $1: $(head -n 1 "$WORK/gen.err")"
}

# build_multimod DIR pie|nopie: builds tests/programs/multimod into DIR:
# DIR/multimod (exe with libstatic.a linked in), DIR/libshared.so, DIR/plugin.so.
build_multimod() {
	local dir=$1 src=$PROGRAMS/multimod pic=(-fPIE) link=(-pie)
	mkdir -p "$dir"
	if [ "$2" = nopie ]; then
		pic=(-fno-pie)
		link=(-no-pie)
	fi
	gcc -std=gnu11 "${CFLAGS_TRACED[@]}" "${pic[@]}" -c "$src/static.c" -o "$dir/static.o" &&
		ar rcs "$dir/libstatic.a" "$dir/static.o" &&
		gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -fPIC -shared "$src/shared.c" -o "$dir/libshared.so" &&
		gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -fPIC -shared "$src/plugin.c" -o "$dir/plugin.so" &&
		gcc -std=gnu11 "${CFLAGS_TRACED[@]}" "${pic[@]}" "${link[@]}" "$src/main.c" -o "$dir/multimod" \
			-L"$dir" -lstatic -lshared -Wl,-rpath,"$dir" -ldl -pthread ||
		fail "cannot build multimod ($2)"
}

# run_plain NAME PROG [ARG...]: runs untraced; $WORK/NAME.plain.{out,err}, $PLAIN_RC.
run_plain() {
	local name=$1
	shift
	PLAIN_RC=0
	{ "$@" >"$WORK/$name.plain.out" 2>"$WORK/$name.plain.err" || PLAIN_RC=$?; } 2>/dev/null
}

# record NAME PROG [ARG...]: records $WORK/NAME.trace; output in
# $WORK/NAME.{out,err}, calltrace's exit code in $RC.
record() {
	local name=$1
	shift
	RC=0
	{ "$CALLTRACE" record -o "$WORK/$name.trace" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		RC=$?; } 2>/dev/null
	[ -s "$WORK/$name.trace" ] || fail "record $name: no trace written (exit $RC): $(head -c 300 "$WORK/$name.err")"
}

# same_as_plain NAME: the traced run printed what the plain run printed (stderr
# apart from calltrace's own lines) and exited the same way.
same_as_plain() {
	local name=$1
	[ "$RC" = "$PLAIN_RC" ] || fail "$name: traced exit code $RC, untraced $PLAIN_RC"
	cmp -s "$WORK/$name.out" "$WORK/$name.plain.out" || {
		diff -u "$WORK/$name.plain.out" "$WORK/$name.out" >&2 || true
		fail "$name: traced stdout differs from the untraced one"
	}
	grep -v '^calltrace: ' "$WORK/$name.err" >"$WORK/$name.err.prog" || true
	cmp -s "$WORK/$name.err.prog" "$WORK/$name.plain.err" ||
		fail "$name: traced stderr differs: $(head -c 300 "$WORK/$name.err")"
	grep -q "^calltrace: .*$name.trace" "$WORK/$name.err" ||
		fail "$name: no 'calltrace: ' line naming the trace on stderr"
}

# ct CMD [ARG...]: runs a calltrace command that must succeed; stdout is passed on.
ct() {
	local rc=0
	"$CALLTRACE" "$@" 2>"$WORK/ct.err" || rc=$?
	[ "$rc" = 0 ] || fail "calltrace $* exited $rc: $(head -c 300 "$WORK/ct.err")"
}

# to_json NAME [OPTION...]: $WORK/NAME.json from $WORK/NAME.trace, schema checked.
to_json() {
	local name=$1
	shift
	ct json "$@" -o "$WORK/$name.json" "$WORK/$name.trace"
	check_tree schema "$WORK/$name.json"
}

check_tree() {
	python3 "$ROOT/tests/e2e/check_tree.py" "$@" 2>"$WORK/check.err" ||
		fail "check_tree $1: $(tail -n 1 "$WORK/check.err")"
}

# expect_text WHAT EXPECTED_FILE GOT_FILE: the two texts are equal.
expect_text() {
	local expected=$2
	if [ "$expected" = - ]; then # read once: cmp, diff and the message all see it
		expected=$(mktemp "$WORK/expected.XXXXXX")
		cat >"$expected"
	fi
	cmp -s "$expected" "$3" && return 0
	diff -u "$expected" "$3" >&2 || true
	fail "$1 differs from the expected (first difference: $(diff "$expected" "$3" | grep -m1 '^[<>]'))"
}

# expect_trees NAME: the rendered trees of $WORK/NAME.json equal stdin.
expect_trees() {
	cat >"$WORK/$1.expected"
	check_tree render "$WORK/$1.json" >"$WORK/$1.got"
	expect_text "call trees of $1" "$WORK/$1.expected" "$WORK/$1.got"
}

# repeat N TEXT: TEXT on N lines.
repeat() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '%s\n' "$2"
	done
}

# meta NAME FIELD: metadata[FIELD] of $WORK/NAME.json.
meta() {
	python3 "$ROOT/tests/e2e/check_tree.py" meta "$WORK/$1.json" "$2"
}

# expect_meta NAME FIELD VALUE
expect_meta() {
	local got
	got=$(meta "$1" "$2")
	[ "$got" = "$3" ] || fail "$1: metadata.$2 is $got, expected $3"
}

# tree_of NAME ROOT: "key pid tid image" of the one tree whose first call is ROOT.
tree_of() {
	local found
	found=$(check_tree trees "$WORK/$1.json" | awk -v r="$2" '$5 == r { print $1, $2, $3, $4 }')
	[ -n "$found" ] && [ "$(printf '%s\n' "$found" | wc -l)" = 1 ] ||
		fail "$1: not exactly one tree rooted at $2"
	printf '%s\n' "$found"
}

# tree_field NAME ROOT N: field N (1 key, 2 pid, 3 tid, 4 image) of that tree.
tree_field() {
	local t
	t=$(tree_of "$1" "$2")
	printf '%s\n' "$t" | cut -d' ' -f"$3"
}

# multimod_test pie|nopie: the whole check of tests/programs/multimod.
multimod_test() {
	setup
	build_multimod "$WORK/mm" "$1"
	multimod_check "$WORK/mm" "$1"
}

# multimod_check DIR pie|nopie [RECORD-OPTION...]: records the multimod built
# in DIR and checks its trees, lines, output, replay and processes.
multimod_check() {
	local dir=$1 mode=$2 modules
	shift 2
	modules=("$dir/libshared.so" "$dir/plugin.so" "$dir/multimod")
	if [ "$mode" = nopie ]; then
		# Not relocated: runtime addresses are nm's.
		modules=("$dir/libshared.so" "$dir/plugin.so" --exact "$dir/multimod")
	fi
	run_plain mm "$dir/multimod" "$dir/plugin.so"
	record mm "$@" "$dir/multimod" "$dir/plugin.so"
	same_as_plain mm
	to_json mm
	check_tree schema "$WORK/mm.json" --command "$dir/multimod $dir/plugin.so" --total --files
	expect_trees mm <<'TREES'
== process 1 main
main
  use_static
    st_square
    st_add
  use_shared
    sh_scale
      sh_clamp
  use_plugin
    pl_entry
      pl_double
  fork_exit_child
    wait_child
  fork_quick_exit_child
    wait_child
  run_threads
== process 1 thread
thread_a_main
  a_step
    st_square
== process 1 thread
thread_b_main
  b_step
    sh_clamp
== process 2 main
child_exit_work
  st_add
  sh_scale
    sh_clamp
== process 3 main
child_quick_work
  sh_clamp
TREES
	check_tree lines "$WORK/mm.json" "${modules[@]}"
	expect_replay mm
	expect_meta mm processes 3
	expect_meta mm threads 5
	multimod_pids
}

# multimod_runs_expected N: the multi-module program built with hooks
# ($WORK/hooks) and plain ($WORK/plain), and in $WORK/expected the trees of
# N runs of the hooks build one after the other (each run 3 processes),
# for a session that runs the plain build N times; TMPDIR (where the
# session's cache goes) in $WORK.
multimod_runs_expected() {
	export TMPDIR=$WORK/tmp
	mkdir -p "$TMPDIR"
	build_multimod "$WORK/hooks" pie
	CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
	build_multimod "$WORK/plain" pie
	record one "$WORK/hooks/multimod" "$WORK/hooks/plugin.so"
	to_json one
	check_tree render "$WORK/one.json" >"$WORK/one.trees"
	[ "$(grep -c '^== process' "$WORK/one.trees")" = 5 ] || fail "the hooks build's run: not 3 processes, 5 threads"
	local run
	for ((run = 0; run < $1; run++)); do
		awk -v base=$((run * 3)) '/^== process / { $3 = $3 + base } { print }' "$WORK/one.trees"
	done >"$WORK/expected"
}

# The threads run in the parent's process, each child in a process of its own.
multimod_pids() {
	local parent a b c1 c2
	parent=$(tree_field mm main 2)
	a=$(tree_field mm thread_a_main 2)
	b=$(tree_field mm thread_b_main 2)
	c1=$(tree_field mm child_exit_work 2)
	c2=$(tree_field mm child_quick_work 2)
	[ "$a" = "$parent" ] && [ "$b" = "$parent" ] || fail "mm: the threads are not in the parent's pid $parent"
	[ "$c1" != "$parent" ] && [ "$c2" != "$parent" ] && [ "$c1" != "$c2" ] ||
		fail "mm: the children's pids $c1 $c2 are not their own (parent $parent)"
}

# counts NAME: "function calls" lines of the report of $WORK/NAME.trace,
# sorted (the table's rows; report's notes under it, "# f: 1 unfinished",
# are not rows).
counts() {
	ct report "$WORK/$1.trace" >"$WORK/$1.report"
	awk 'NR > 2 && $1 != "#" { print $NF, $5 }' "$WORK/$1.report" | sort
}

# report_calls REPORT FUNCTION: the call count that `calltrace report` shows.
report_calls() {
	python3 "$ROOT/tests/e2e/check_tree.py" report-calls "$1" "$2" 2>"$WORK/report.err" ||
		fail "$(tail -n 1 "$WORK/report.err")"
}

# trace_header_u64 TRACE OFFSET: the header's little-endian uint64 at
# OFFSET (128: next_offset, the end of the space claimed).
trace_header_u64() {
	python3 -c 'import struct, sys
with open(sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2]))
    print(struct.unpack("<Q", f.read(8))[0])' "$1" "$2"
}

# expect_trace_length LABEL TRACE: the file is exactly as long as the space
# its claims took (nothing reserved past them is left).
expect_trace_length() {
	local size end
	size=$(stat -c %s "$2")
	end=$(trace_header_u64 "$2" 128)
	[ "$size" = "$end" ] ||
		fail "$1: the trace is $size bytes, the space claimed $end: reserved space is left"
}

# expect_processes_calls LABEL INFO TRACE PROCESSES FUNCTION CALLS: the
# `calltrace info` text INFO counts PROCESSES processes and no problem, and
# `calltrace report` of TRACE counts CALLS calls of FUNCTION.
expect_processes_calls() {
	local label=$1 info=$2 trace=$3 processes=$4 fn=$5 calls=$6 got
	grep -q "^processes: *$processes\b" "$info" ||
		fail "$label: info does not count $processes processes: $(grep '^processes' "$info")"
	grep -q '^problems: *0$' "$info" || fail "$label: info: $(grep '^problems' "$info")"
	ct report "$trace" >"$WORK/$label.report"
	got=$(report_calls "$WORK/$label.report" "$fn")
	[ "$got" = "$calls" ] || fail "$label: report counts $got calls of $fn, $calls expected"
}

# expect_replay NAME [OPTION...]: `calltrace replay OPTION...` of
# $WORK/NAME.trace shows, thread by thread, the calls of $WORK/NAME.json in
# the same order and at the same depths.
expect_replay() {
	local name=$1
	shift
	ct replay "$@" "$WORK/$name.trace" >"$WORK/$name.replay"
	check_tree replay-order "$WORK/$name.replay" "$WORK/$name.json"
}

# ---- the same call trees with and without instrumentation ----------------
# For the engines that need no recompiling (dynamic_same_trees.sh,
# patch_same_trees.sh).  ENGINE_OPTS: the record options that pick the
# engine; ENGINE_SAYS: what record says when it picks it by itself.

# same_trees_build NAME SOURCE [FLAG...]: $WORK/NAME.hooks and $WORK/NAME.plain.
same_trees_build() {
	local name=$1 src=$2 cc=gcc std=-std=gnu11
	shift 2
	case $src in *.cpp) cc=g++ std=-std=c++17 ;; esac
	$cc $std -g -O0 -finstrument-functions -Wall -Wextra -o "$WORK/$name.hooks" "$src" "$@" -pthread ||
		fail "cannot compile $name with hooks"
	$cc $std -g -O0 -Wall -Wextra -o "$WORK/$name.plain" "$src" "$@" -pthread ||
		fail "cannot compile $name"
}

# same_trees NAME auto|chosen [ARG...]: records both builds (the plain one
# with the engine record picks, "auto", or with ENGINE_OPTS), checks the
# plain run against an untraced one and the two sets of trees against each
# other.  "@" in an argument becomes "hooks" or "plain".
same_trees() {
	local name=$1 mode=$2 args_h=() args_p=() a
	shift 2
	for a in "$@"; do
		args_h+=("${a//@/hooks}")
		args_p+=("${a//@/plain}")
	done
	record "${name}_h" "$WORK/$name.hooks" "${args_h[@]}"
	run_plain "${name}_p" "$WORK/$name.plain" "${args_p[@]}"
	if [ "$mode" = auto ]; then
		record "${name}_p" "$WORK/$name.plain" "${args_p[@]}"
		grep -q "$ENGINE_SAYS" "$WORK/${name}_p.err" ||
			fail "$name: record did not pick the engine that says '$ENGINE_SAYS'"
	else
		record "${name}_p" "${ENGINE_OPTS[@]}" "$WORK/$name.plain" "${args_p[@]}"
	fi
	same_as_plain "${name}_p"
	to_json "${name}_h"
	to_json "${name}_p"
	check_tree render "$WORK/${name}_h.json" >"$WORK/${name}_h.trees"
	check_tree render "$WORK/${name}_p.json" >"$WORK/${name}_p.trees"
	[ -s "$WORK/${name}_h.trees" ] || fail "$name: no trees recorded with the hooks"
	expect_text "$name: the trees without recompiling" "$WORK/${name}_h.trees" "$WORK/${name}_p.trees"
}

# wait_for WHAT CONDITION...: until CONDITION holds (30 s at most); a
# failure shows what the attach said when ATTACH_ERR names its stderr.
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 600; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	fail "$what: still not so after 30 s${ATTACH_ERR:+ ($(head -c 200 "$ATTACH_ERR" 2>/dev/null || true))}"
}

# wait_exec PID NAME: waits until process PID runs NAME.  A `prog &` of the
# shell is a copy of the shell until its exec, however long a busy machine
# makes that: a signal, a look at /proc or an attach sent at once would
# reach the shell.
wait_exec() {
	local i
	for ((i = 0; i < 6000; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || fail "process $1 ended before it ran $2"
		sleep 0.01
	done
	fail "process $1 did not run $2 within a minute"
}

# start_target NAME PROG THREADS [ARG...]: runs PROG (an attach target of
# tests/programs/dynamic) in the background until $WORK/NAME.stop exists;
# its pid in $TARGET_PID, its job in $TARGET_JOB.
start_target() {
	local name=$1 prog=$2 threads=$3 i
	shift 3
	rm -f "$WORK/$name.pid" "$WORK/$name.stop"
	# Its status goes to NAME.rc: the shell's notice of a death, nowhere.
	(
		rc=0
		"$prog" "$WORK/$name.pid" "$WORK/$name.stop" "$threads" "$@" >"$WORK/$name.out" \
			2>"$WORK/$name.err" || rc=$?
		echo "$rc" >"$WORK/$name.rc"
	) 2>/dev/null &
	TARGET_JOB=$!
	for ((i = 0; i < 1200; i++)); do # a minute, on the busiest machine
		[ -s "$WORK/$name.pid" ] && break
		sleep 0.05
	done
	[ -s "$WORK/$name.pid" ] || fail "$name did not start: $(head -c 200 "$WORK/$name.err")"
	TARGET_PID=$(cat "$WORK/$name.pid")
}

# finish_target NAME: stops the target, waits for it; its status in $TARGET_RC.
finish_target() {
	local name=$1 i
	touch "$WORK/$name.stop"
	for ((i = 0; i < 1200; i++)); do
		kill -0 "$TARGET_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$TARGET_PID" 2>/dev/null && kill -KILL "$TARGET_PID" 2>/dev/null
	wait "$TARGET_JOB" || true
	TARGET_RC=$(cat "$WORK/$name.rc" 2>/dev/null || echo none)
}
