#!/usr/bin/env bash
# views_timerange.sh - every view takes --from/--to and keeps exactly the
# calls that overlap the range (as chrome always did): a call that began
# before --from and still ran then is kept, one that ended before it is not,
# one that began at --to is kept, one that began after it is not; marks in
# the range are kept.  The times are the test's (gen_trace).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
cat >"$WORK/range.c" <<'C'
void tw_before(void) {}
void tw_early_child(void) {}
void tw_inside_child(void) {}
void tw_straddle(void) {}
void tw_inside(void) {}
void tw_late_child(void) {}
void tw_at_end(void) {}
void tw_after(void) {}
int main(void) { return 0; }
C
gcc -g -O0 -no-pie "$WORK/range.c" -o "$WORK/range" || fail "cannot compile range"
# The range is --from 5us --to 9us.
gen_trace range "$WORK/range" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter tw_before
2000 exit
3000 enter tw_straddle
4000 enter tw_early_child
4500 exit
5500 enter tw_inside_child
5800 exit
6000 exit
7000 enter tw_inside
7500 mark in range
8000 exit
8500 mark also in range
9000 enter tw_at_end
9500 enter tw_late_child
9600 exit
9700 mark after the range
12000 exit
13000 enter tw_after
14000 exit
15000 exit
15010 end 0
SCRIPT
range=(--from 5us --to 9us)
kept=(main tw_straddle tw_inside_child tw_inside tw_at_end)
dropped=(tw_before tw_early_child tw_late_child tw_after)

# names VIEW FILE: the kept functions are in FILE, the dropped ones are not.
names() {
	local f
	for f in "${kept[@]}"; do
		grep -qw "$f" "$2" || fail "$1 --from/--to: $f is missing"
	done
	for f in "${dropped[@]}"; do
		! grep -qw "$f" "$2" || fail "$1 --from/--to: $f is shown"
	done
}

ct json "${range[@]}" -o "$WORK/range.json" "$WORK/range.trace"
check_tree schema "$WORK/range.json"
expect_trees range <<'TREES'
== process 1 main
main
  tw_straddle
    tw_inside_child
  tw_inside
  tw_at_end
TREES
expect_replay range "${range[@]}"
ct replay "${range[@]}" "$WORK/range.trace" >"$WORK/replay.txt"
names replay "$WORK/replay.txt"
[ "$(grep -c 'in range' "$WORK/replay.txt")" = 2 ] && ! grep -q 'after the range' "$WORK/replay.txt" ||
	fail "replay --from/--to: not the 2 marks in the range: $(grep -i mark "$WORK/replay.txt")"

ct report "${range[@]}" "$WORK/range.trace" >"$WORK/report.txt"
names report "$WORK/report.txt"
for f in "${kept[@]}"; do
	[ "$(report_calls "$WORK/report.txt" "$f")" = 1 ] || fail "report --from/--to: $f not called once"
done

ct flame --folded "${range[@]}" "$WORK/range.trace" >"$WORK/flame.folded"
sort "$WORK/flame.folded" >"$WORK/flame.got"
cat >"$WORK/flame.expected" <<'FOLDED'
main 1
main;tw_at_end 1
main;tw_inside 1
main;tw_straddle 1
main;tw_straddle;tw_inside_child 1
FOLDED
expect_text "flame --folded --from/--to" "$WORK/flame.expected" "$WORK/flame.got"

ct seq -f mermaid "${range[@]}" "$WORK/range.trace" >"$WORK/seq.txt"
names seq "$WORK/seq.txt"
ct graph -f dot "${range[@]}" "$WORK/range.trace" >"$WORK/graph.dot"
names graph "$WORK/graph.dot"
ct speedscope "${range[@]}" -o "$WORK/speedscope.json" "$WORK/range.trace"
names speedscope "$WORK/speedscope.json"
ct chrome "${range[@]}" -o "$WORK/chrome.json" "$WORK/range.trace"
names chrome "$WORK/chrome.json"

# diff: the range applies to both traces; against a trace of main alone,
# the functions in the range are those of the first trace only.
gen_trace bare "$WORK/range" <<'SCRIPT'
0 thread 100
0 enter main
15000 exit
15010 end 0
SCRIPT
ct diff "${range[@]}" "$WORK/range.trace" "$WORK/bare.trace" >"$WORK/diff.txt"
names diff "$WORK/diff.txt"

# Without the range, every call is there (the test's trace is right).
ct replay "$WORK/range.trace" >"$WORK/all.txt"
kept+=("${dropped[@]}")
dropped=()
names replay "$WORK/all.txt"

# Only --from, only --to.
ct flame --folded --from 13us "$WORK/range.trace" | sort >"$WORK/from.got"
printf 'main 1\nmain;tw_after 1\n' >"$WORK/from.expected"
expect_text "flame --from" "$WORK/from.expected" "$WORK/from.got"
ct flame --folded --to 2us "$WORK/range.trace" | sort >"$WORK/to.got"
printf 'main 1\nmain;tw_before 1\n' >"$WORK/to.expected"
expect_text "flame --to" "$WORK/to.expected" "$WORK/to.got"

# Bad ranges say so.
for bad in "--from 2s --to 1s" "--from soon" "--to -1ms"; do
	rc=0
	# shellcheck disable=SC2086
	"$CALLTRACE" replay $bad "$WORK/range.trace" >/dev/null 2>"$WORK/bad.err" || rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] && grep -q '^calltrace: .*\(--from\|--to\|time\)' "$WORK/bad.err" ||
		fail "replay $bad: exit $rc, $(head -c 200 "$WORK/bad.err")"
done
pass
