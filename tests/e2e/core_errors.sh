#!/usr/bin/env bash
# core_errors.sh - errors are one line on stderr starting "calltrace: " and a
# non-zero exit, never a crash nor a hang: a program that does not exist or
# cannot run (a directory, a cut ELF, a script whose interpreter is
# missing) or cannot be started (ulimit -n 6), a missing trace, a FIFO (as the trace, or as a module of it),
# a directory, a file that is not a trace, truncated and corrupted traces
# (where an error or an output that still parses are both right), bad
# filter values, unknown options and commands; --help of every command
# exits 0 with the usage on stdout; control characters of a trace are
# never printed raw.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
READERS=(replay report info json)

# run_ct NAME ARG...: runs calltrace; $WORK/NAME.{out,err}, exit code in $RC.
run_ct() {
	local name=$1
	shift
	RC=0
	{ "$CALLTRACE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?; } 2>/dev/null
	[ "$RC" -lt 128 ] || fail "calltrace $* crashed (exit $RC): $(head -c 200 "$WORK/$name.err")"
}

# one_error NAME WHAT: the run failed with exactly one "calltrace: " line.
one_error() {
	[ "$RC" != 0 ] || fail "$2: exit code 0"
	[ "$(wc -l <"$WORK/$1.err")" = 1 ] && grep -q '^calltrace: ' "$WORK/$1.err" ||
		fail "$2: stderr is not one 'calltrace: ' line: $(head -c 200 "$WORK/$1.err")"
}

# readers_fail FILE WHAT: every reading command rejects FILE.
readers_fail() {
	local cmd
	for cmd in "${READERS[@]}"; do
		run_ct "r_$cmd" "$cmd" "$1"
		one_error "r_$cmd" "$cmd on $2"
	done
}

# valid_json WHAT: $WORK/r_json.out is a valid document (outputs already
# checked are not checked again).
declare -A VALID_JSON
valid_json() {
	local sum
	sum=$(md5sum <"$WORK/r_json.out")
	[ -z "${VALID_JSON[$sum]:-}" ] || return 0
	python3 "$ROOT/tests/e2e/check_tree.py" schema "$WORK/r_json.out" 2>"$WORK/schema.err" ||
		fail "json on $1: exit 0 but the output is not valid: $(tail -n 1 "$WORK/schema.err")"
	VALID_JSON[$sum]=1
}

# readers_cope FILE WHAT: every reading command either fails cleanly or
# succeeds, and then json's output is a valid document.
readers_cope() {
	local cmd
	for cmd in "${READERS[@]}"; do
		run_ct "r_$cmd" "$cmd" "$1"
		if [ "$RC" != 0 ]; then
			[ -s "$WORK/r_$cmd.err" ] || fail "$cmd on $2: exit $RC without a message"
			! grep -qv '^calltrace: ' "$WORK/r_$cmd.err" ||
				fail "$cmd on $2: a stderr line without 'calltrace: ': $(grep -v '^calltrace: ' "$WORK/r_$cmd.err" | head -n 1)"
		elif [ "$cmd" = json ]; then
			valid_json "$2"
		fi
	done
}

# A program that does not exist.
run_ct rec record -o "$WORK/none.trace" "$WORK/no-such-program"
one_error rec "record of a missing program"

# A missing trace, the default one included, a directory, and files that
# are not traces.
run_ct missing replay "$WORK/missing.trace"
one_error missing "replay of a missing file"
cd "$WORK"
run_ct default report
cd "$ROOT"
one_error default "report without calltrace.trace in the directory"
readers_fail "$WORK" "a directory"
: >"$WORK/empty.trace"
readers_fail "$WORK/empty.trace" "an empty file"
printf 'this is not a trace\n%.0s' {1..500} >"$WORK/text.trace"
readers_fail "$WORK/text.trace" "a text file"

# A real trace, cut and damaged: 3000 calls, about 12 KB of events at the
# start of the first event window.
build_c longrun "$PROGRAMS/longrun.c"
record good "$WORK/longrun" 3000
good=$WORK/good.trace
readers_cope "$good" "the intact trace"
size=$(stat -c %s "$good")
head -c 100 "$good" >"$WORK/cut100.trace"
readers_fail "$WORK/cut100.trace" "a trace cut inside its header"
for n in 4096 4200 6000 12000 $((size / 2)) $((size - 1)); do
	[ "$n" -lt "$size" ] || continue
	head -c "$n" "$good" >"$WORK/cut.trace"
	readers_cope "$WORK/cut.trace" "the trace cut to $n of $size bytes"
done

# corrupt OFFSET BYTE COUNT: a copy of the good trace with COUNT bytes of
# value BYTE written at OFFSET.
corrupt() {
	cp "$good" "$WORK/bad.trace"
	head -c "$3" /dev/zero | tr '\0' "\\$(printf '%03o' "$2")" |
		dd of="$WORK/bad.trace" bs=1 seek="$1" conv=notrunc status=none
}
corrupt 0 65 8
readers_fail "$WORK/bad.trace" "a trace with a damaged magic"
for offset in 8 4096 4104 4112 4200 6000 10000 $((size / 2)) $((size * 3 / 4)) $((size - 64)); do
	for byte in 255 0 65; do
		[ "$offset" -lt "$size" ] || continue
		corrupt "$offset" "$byte" 16
		readers_cope "$WORK/bad.trace" "the trace with 16 bytes of $byte at $offset"
	done
done

# --help, unknown options and commands.
for cmd in record replay report info json; do
	run_ct help "$cmd" --help
	[ "$RC" = 0 ] || fail "calltrace $cmd --help exited $RC"
	grep -q "$cmd" "$WORK/help.out" || fail "calltrace $cmd --help: no usage on stdout"
	run_ct badopt "$cmd" --no-such-option "$good"
	one_error badopt "calltrace $cmd --no-such-option"
done
run_ct badcmd no-such-command
one_error badcmd "calltrace no-such-command"
run_ct badcmd replay -D notanumber "$good"
one_error badcmd "replay -D notanumber"
run_ct badcmd replay -F '(' "$good"
one_error badcmd "replay -F '(' (a bad regex)"

# Filter values are taken exactly or refused: no sign, hex, nan, a bare
# fraction (a number without a unit is whole nanoseconds), empty
# lists or numbers that wrap around 32 bits.  (Under ASan, -F twice must
# not leak the first regex.)
for bad in "-t nan" "-t 0x10ms" "-t -1ms" "-t 1e" "-t 10 us" "-t 0.5" "-t 1e-3" "-D -1" "-D 4294967296" \
	"--tid=" "--tid -1" "--tid 4294967297" "--tid 1,,2" "--pid=" "--pid -1" \
	"--pid 4294967297" "-F a -F b"; do
	read -r -a words <<<"$bad"
	[ "$bad" != "-t 10 us" ] || words=(-t "10 us")
	for cmd in replay flame; do
		run_ct badval "$cmd" "${words[@]}" "$good"
		one_error badval "$cmd $bad"
		[ "$RC" = 2 ] || fail "$cmd $bad: exit $RC, not 2"
	done
done
# A time filter no call can reach (past 2^63 ns) is refused, not taken as
# "hide every call"; a long one that fits shows none; exact decimals select
# the same calls as their integer forms.
for long in inf 1e300 99999999999999999999 1e30s 99999999999999999999s; do
	run_ct inf replay -t "$long" "$good"
	one_error inf "replay -t $long"
	[ "$RC" = 2 ] || fail "replay -t $long: exit $RC, not 2"
	[ "$long" = inf ] || grep -q "longer than any call can last" "$WORK/inf.err" ||
		fail "replay -t $long: $(cat "$WORK/inf.err")"
done
run_ct long replay -t 1e6m "$good"
[ "$RC" = 0 ] || fail "replay -t 1e6m: exit $RC"
! grep -q '|' "$WORK/long.out" || fail "replay -t 1e6m shows calls: $(grep -m1 '|' "$WORK/long.out")"
run_ct t1 replay -t 1.5e3ns "$good"
run_ct t2 replay -t 1500 "$good"
cmp -s "$WORK/t1.out" "$WORK/t2.out" || fail "-t 1.5e3ns and -t 1500 differ"

# Things that are not traces are refused at once, a FIFO too (it would
# block the open forever).
mkfifo "$WORK/fifo.trace"
for cmd in "${READERS[@]}"; do
	RC=0
	timeout 10 "$CALLTRACE" "$cmd" "$WORK/fifo.trace" >"$WORK/fifo.out" 2>"$WORK/fifo.err" || RC=$?
	[ "$RC" != 124 ] || fail "$cmd on a FIFO hangs"
	one_error fifo "$cmd on a FIFO"
	grep -q 'pipe' "$WORK/fifo.err" || fail "$cmd on a FIFO: $(cat "$WORK/fifo.err")"
done
run_ct dir info "$WORK"
grep -q 'is a directory' "$WORK/dir.err" || fail "info on a directory: $(cat "$WORK/dir.err")"
head -c 100 "$good" >"$WORK/cut100.trace"
run_ct cuthdr info "$WORK/cut100.trace"
grep -q 'truncated inside its header' "$WORK/cuthdr.err" || fail "info on a cut header: $(cat "$WORK/cuthdr.err")"

# record: what cannot run is refused before anything is recorded, with the
# reason a shell would give and its exit status.
# expect_record_error WHAT STATUS TEXT ARG...
expect_record_error() {
	local what=$1 status=$2 text=$3
	shift 3
	rm -f "$WORK/rec.trace"
	run_ct rec record -o "$WORK/rec.trace" "$@"
	one_error rec "record of $what"
	[ "$RC" = "$status" ] || fail "record of $what: exit $RC, not $status"
	grep -qF -- "$text" "$WORK/rec.err" || fail "record of $what: $(cat "$WORK/rec.err"), not '$text'"
	[ ! -e "$WORK/rec.trace" ] || fail "record of $what wrote a trace"
}
printf '#!/nope\necho hi\n' >"$WORK/badinterp"
head -c 300 "$WORK/longrun" >"$WORK/cutelf"
printf 'echo hi\n' >"$WORK/noshebang"
chmod +x "$WORK/badinterp" "$WORK/cutelf" "$WORK/noshebang"
cd "$WORK"
expect_record_error "a script with a missing interpreter" 127 \
	"calltrace: ./badinterp: cannot run: bad interpreter /nope: No such file or directory" ./badinterp
cd "$ROOT"
expect_record_error "a directory" 126 "cannot run: is a directory" "$WORK"
expect_record_error "a truncated ELF" 126 "cannot run: the ELF file is truncated" "$WORK/cutelf"
expect_record_error "a file with no #!" 126 "cannot run: neither an ELF program nor a #! script" "$WORK/noshebang"
expect_record_error "a missing program" 127 "cannot run: No such file or directory" "$WORK/no-such-program"
expect_record_error "a program not on PATH" 127 "cannot run: No such file or directory" no-such-program-anywhere
# No file descriptor left for the pipe that says whether the program ran:
# said, and no trace left.
(
	ulimit -n 6
	expect_record_error "a program under ulimit -n 6" 127 "cannot start it: Too many open files" -q \
		"$WORK/longrun" 1
) || exit 1
expect_record_error "--max-depth abc" 2 "bad --max-depth 'abc'" --max-depth abc "$WORK/longrun" 1
expect_record_error "--max-depth 0" 2 "bad --max-depth '0'" --max-depth 0 "$WORK/longrun" 1

# A module of the trace that is now a FIFO: its symbols cannot be read,
# and the views must not wait for them.
mv "$WORK/longrun" "$WORK/longrun.moved"
mkfifo "$WORK/longrun"
for cmd in replay report; do
	RC=0
	timeout 10 "$CALLTRACE" "$cmd" "$good" >"$WORK/modfifo.out" 2>"$WORK/modfifo.err" || RC=$?
	[ "$RC" = 0 ] || fail "$cmd with a FIFO for a module: exit $RC $(head -c 200 "$WORK/modfifo.err")"
	grep -q tick "$WORK/modfifo.out" && fail "$cmd named tick() without its module"
	grep -q '0x' "$WORK/modfifo.out" || fail "$cmd with a FIFO for a module: no addresses shown"
done

# Text from a trace (a module's path, the command line, a thread's name)
# never reaches the terminal as control characters: a warning, replay's
# headers and info write them as \xHH.
evil=$'ev\e[31mil\a'
cp "$WORK/longrun.moved" "$WORK/$evil"
record evil "$WORK/$evil" $'3\e]0;title\a'
rm "$WORK/$evil"
run_ct evil_replay replay "$WORK/evil.trace"
run_ct evil_info info "$WORK/evil.trace"
run_ct evil_diff diff "$WORK/evil.trace" "$good"
for f in evil_replay.out evil_replay.err evil_info.out evil_info.err evil_diff.out evil_diff.err; do
	! grep -q $'[\e\a]' "$WORK/$f" || fail "$f: control characters printed raw: $(head -c 300 "$WORK/$f" | cat -v)"
done
grep -qF 'warning: cannot read '"$WORK"'/ev\x1b[31mil\x07: ' "$WORK/evil_replay.err" ||
	fail "the warning of an unreadable module: $(cat "$WORK/evil_replay.err")"
grep -qF 'ev\x1b[31mil\x07 3\x1b]0;title\x07' "$WORK/evil_replay.out" ||
	fail "replay's thread header: $(grep -m1 pid "$WORK/evil_replay.out")"
grep -qF 'command:    '"$WORK"'/ev\x1b[31mil\x07 3\x1b]0;title\x07' "$WORK/evil_info.out" ||
	fail "info's command: $(grep -m1 command "$WORK/evil_info.out")"
grep -qF 'old: '"$WORK"'/evil.trace ('"$WORK"'/ev\x1b[31mil\x07 3\x1b]0;title\x07)' "$WORK/evil_diff.out" ||
	fail "diff's command: $(head -n 1 "$WORK/evil_diff.out")"
pass
