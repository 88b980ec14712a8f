#!/usr/bin/env bash
# views_diff.sh - `calltrace diff OLD NEW`: per function, the calls, total
# and self time of both traces and the change, the largest change first,
# functions of one trace only marked, report's filters; exact figures on
# traces whose durations the test chooses (gen_trace), exact call counts on
# two recordings of one program with different inputs, where two static
# functions of two files share a name; one-line errors on bad input.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup

cat >"$WORK/flow.c" <<'C'
void parse(void) {}
void draw(void) {}
void render(void) { draw(); }
void old_only(void) {}
void new_only(void) {}
int main(void) { return 0; }
C
gcc -g -O0 -no-pie "$WORK/flow.c" -o "$WORK/flow" || fail "cannot compile flow"
# old: parse twice (10 and 30 us), render 100 us around draw 40 us, old_only
# 5 us; main 200 us.
gen_trace old "$WORK/flow" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter parse
11000 exit
12000 enter parse
42000 exit
50000 enter render
60000 enter draw
100000 exit
150000 exit
160000 enter old_only
165000 exit
200000 exit
200010 end 0
SCRIPT
# new: parse three times (10 us each), render 300 us around draw 250 us,
# new_only 7 us; main 400 us.
gen_trace new "$WORK/flow" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter parse
11000 exit
12000 enter parse
22000 exit
23000 enter parse
33000 exit
40000 enter render
50000 enter draw
300000 exit
340000 exit
350000 enter new_only
357000 exit
400000 exit
400010 end 0
SCRIPT

# The whole table, sorted by the change in total time (main and render tie
# at +200 us: by name).
ct diff "$WORK/old.trace" "$WORK/new.trace" >"$WORK/diff.txt"
cat >"$WORK/diff.expected" <<TEXT
old: $WORK/old.trace ($WORK/flow)
new: $WORK/new.trace ($WORK/flow)

   Total old   Total new  Total change    Self old    Self new   Self change   Calls old   Calls new  Calls change  Function
  ==========  ==========  ============  ==========  ==========  ============  ==========  ==========  ============  ====================
   40.000 us  250.000 us   +210.000 us   40.000 us  250.000 us   +210.000 us           1           1             0  draw
  200.000 us  400.000 us   +200.000 us   55.000 us   63.000 us     +8.000 us           1           1             0  main
  100.000 us  300.000 us   +200.000 us   60.000 us   50.000 us    -10.000 us           1           1             0  render
   40.000 us   30.000 us    -10.000 us   40.000 us   30.000 us    -10.000 us           2           3            +1  parse
           -    7.000 us     +7.000 us           -    7.000 us     +7.000 us           -           1            +1  new_only  [only in new]
    5.000 us           -     -5.000 us    5.000 us           -     -5.000 us           1           -            -1  old_only  [only in old]
TEXT
expect_text "diff of the chosen traces" "$WORK/diff.expected" "$WORK/diff.txt"

# order KEY [OPTION...]: the functions in the order diff --sort KEY gives.
order() {
	local key=$1
	shift
	ct diff -s "$key" "$@" "$WORK/old.trace" "$WORK/new.trace" >"$WORK/order.txt"
	awk 'NR > 5 { print $NF == "new]" || $NF == "old]" ? $(NF - 3) : $NF }' "$WORK/order.txt" | paste -sd' '
}
got=$(order self)
[ "$got" = "draw parse render main new_only old_only" ] || fail "diff -s self orders: $got"
got=$(order calls)
[ "$got" = "new_only parse old_only draw main render" ] || fail "diff -s calls orders: $got"
got=$(order name)
[ "$got" = "draw main new_only old_only parse render" ] || fail "diff -s name orders: $got"
# avg: its own columns; parse's average went from 20 to 10 us.
ct diff -s avg "$WORK/old.trace" "$WORK/new.trace" >"$WORK/avg.txt"
grep -q 'Avg old  *Avg new  *Avg change  *Function$' "$WORK/avg.txt" || fail "diff -s avg has no Avg columns"
grep -Eq ' 20\.000 us +10\.000 us +-10\.000 us +parse$' "$WORK/avg.txt" || fail "diff -s avg: parse's average is not 20 us -> 10 us"
got=$(order total -n 2)
[ "$got" = "draw main" ] || fail "diff -n 2 shows: $got"

# Report's filters: -F keeps render and what it calls, in both traces.
got=$(order total -F '^render$')
[ "$got" = "draw render" ] || fail "diff -F render shows: $got"
# -t hides the calls shorter than 20 us: parse's 10 us calls go.
ct diff -t 20us "$WORK/old.trace" "$WORK/new.trace" >"$WORK/t.txt"
grep -Eq ' 30\.000 us +- +-30\.000 us .* 1 +- +-1 +parse  \[only in old\]$' "$WORK/t.txt" ||
	fail "diff -t 20us does not leave parse's one 30 us call, in old only: $(grep parse "$WORK/t.txt")"

# JSON: the same figures.
ct diff -f json "$WORK/old.trace" "$WORK/new.trace" >"$WORK/diff.json"
python3 - "$WORK/diff.json" <<'PY' || fail "diff -f json: $(tail -n 1 "$WORK/check.err")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {f["name"]: f for f in d["functions"]}
assert [f["name"] for f in d["functions"]] == ["draw", "main", "render", "parse", "new_only", "old_only"], d["functions"]
assert rows["main"]["old"]["self_ns"] == 55000 and rows["main"]["new"]["self_ns"] == 63000
assert rows["parse"]["change"] == {"calls": 1, "total_ns": -10000, "self_ns": -10000, "avg_ns": -10000, "min_ns": 0, "max_ns": -20000}, rows["parse"]
assert rows["new_only"]["old"] is None and rows["new_only"]["new"]["total_ns"] == 7000
assert rows["old_only"]["new"] is None and rows["old_only"]["change"]["calls"] == -1
assert d["sort"] == "total" and d["old"]["trace"].endswith("old.trace")
PY

# Two recordings of one program, 2 and 5: a.c's step 2 -> 5 calls, b.c's
# step 4 -> 10, only_big in the second only; told apart by their files.
build_c prog "$PROGRAMS/diff/main.c" "$PROGRAMS/diff/a.c" "$PROGRAMS/diff/b.c"
record two "$WORK/prog" 2
record five "$WORK/prog" 5
ct diff -s calls "$WORK/two.trace" "$WORK/five.trace" >"$WORK/prog.txt"
# The calls columns and the function, from the end of each line.
sed -n '6,$p' "$WORK/prog.txt" | sed -E 's/  \[only in (old|new)\]$/ \1/' |
	awk '{ tag = ""; if ($NF == "old" || $NF == "new") { tag = " only-" $NF; NF-- }
		if ($NF ~ /^\(.*\)$/) { name = $(NF - 1) " " $NF; NF -= 2 } else { name = $NF; NF-- }
		print name, $(NF - 2), $(NF - 1), $NF tag }' >"$WORK/prog.calls"
cat >"$WORK/prog.expected" <<'TEXT'
step (b.c) 4 10 +6
step (a.c) 2 5 +3
only_big - 1 +1 only-new
count_a 1 1 0
count_b 1 1 0
main 1 1 0
TEXT
expect_text "calls of diff between two runs" "$WORK/prog.expected" "$WORK/prog.calls"
# Filtered to count_b: only b.c's step, with nothing to tell apart.
ct diff -s calls -F '^count_b$' "$WORK/two.trace" "$WORK/five.trace" >"$WORK/b.txt"
got=$(sed -n '6,$p' "$WORK/b.txt" | awk '{ print $NF, $(NF - 1) }' | paste -sd' ')
[ "$got" = "step +6 count_b 0" ] || fail "diff -F count_b shows: $got"

# A second version where b.c's step is renamed step2: a.c's step is still
# matched by its file; b.c's is in the old trace only.
mkdir "$WORK/v2"
gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -Dstep=step2 -c "$PROGRAMS/diff/b.c" -o "$WORK/v2/b.o" ||
	fail "cannot compile b.c with step2"
build_c v2/prog "$PROGRAMS/diff/main.c" "$PROGRAMS/diff/a.c" "$WORK/v2/b.o"
record renamed "$WORK/v2/prog" 5
ct diff -s calls "$WORK/two.trace" "$WORK/renamed.trace" >"$WORK/renamed.txt"
# The calls columns on: each group of three columns is 38 characters wide.
got=$(sed -n '6,$p' "$WORK/renamed.txt" | grep step | cut -c 77- | tr -s ' ' | sed 's/^ //')
[ "$got" = "$(printf '%s\n' "- 10 +10 step2 [only in new]" "4 - -4 step (b.c) [only in old]" "2 5 +3 step (a.c)")" ] ||
	fail "diff after renaming b.c's step: $got"

# Library calls are named as report names them, with their library; the
# program's own atoi-like function of the same name is another row.
cat >"$WORK/lib.c" <<'C'
#include <stdlib.h>
static int parse(const char *s) { return atoi(s); }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, sum = 0;
	for (int i = 0; i < n; i++)
		sum += parse("7");
	return sum == 7 * n ? 0 : 1;
}
C
build_c lib "$WORK/lib.c"
(
	unset CALLTRACE_LIBCALL
	record lib2 "$WORK/lib" 2
	record lib5 "$WORK/lib" 5
)
ct diff -s calls "$WORK/lib2.trace" "$WORK/lib5.trace" >"$WORK/lib.txt"
grep -Eq ' 3 +6 +\+3  atoi@libc\.so\.6$' "$WORK/lib.txt" ||
	fail "diff does not name atoi@libc.so.6 with 3 -> 6 calls: $(grep atoi "$WORK/lib.txt")"
grep -Eq ' 2 +5 +\+3  parse$' "$WORK/lib.txt" || fail "diff: parse: $(grep parse "$WORK/lib.txt")"
ct diff -f json "$WORK/lib2.trace" "$WORK/lib5.trace" >"$WORK/lib.json"
python3 - "$WORK/lib.json" <<'PY' || fail "diff -f json of library calls"
import json, sys
d = json.load(open(sys.argv[1]))
atoi = [f for f in d["functions"] if f["name"] == "atoi"]
assert len(atoi) == 1 and atoi[0]["kind"] == "library" and atoi[0]["module"] == "libc.so.6", atoi
assert atoi[0]["change"]["calls"] == 3, atoi
assert [f["kind"] for f in d["functions"] if f["name"] == "parse"] == ["function"], d["functions"]
PY

# Traces of two programs: compared all the same, with one warning line.
"$CALLTRACE" diff "$WORK/old.trace" "$WORK/two.trace" >"$WORK/other.txt" 2>"$WORK/other.err" ||
	fail "diff of two programs failed: $(cat "$WORK/other.err")"
[ "$(cat "$WORK/other.err")" = "calltrace: warning: $WORK/old.trace ran flow, $WORK/two.trace ran prog: functions are matched by name all the same" ] ||
	fail "diff of two programs warns: $(cat "$WORK/other.err")"

# Bad input: one line, a non-zero exit.
bad() { # EXPECTED-MESSAGE ARG...
	local msg=$1 rc=0
	shift
	"$CALLTRACE" diff "$@" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
	[ "$rc" != 0 ] || fail "diff $* succeeded"
	[ "$(wc -l <"$WORK/bad.err")" = 1 ] || fail "diff $*: not one line: $(cat "$WORK/bad.err")"
	grep -q -- "$msg" "$WORK/bad.err" || fail "diff $*: '$(cat "$WORK/bad.err")' does not say '$msg'"
	[ ! -s "$WORK/bad.out" ] || fail "diff $* wrote to stdout"
}
bad "two traces wanted, OLD and NEW (got 1" "$WORK/old.trace"
bad "two traces wanted, OLD and NEW (got 0"
bad "two traces wanted, OLD and NEW (got 3" "$WORK/old.trace" "$WORK/new.trace" "$WORK/new.trace"
bad "$WORK/missing.trace: No such file" "$WORK/old.trace" "$WORK/missing.trace"
bad "flow.c: not a calltrace trace file" "$WORK/flow.c" "$WORK/new.trace"
bad "unknown sort key 'size'" -s size "$WORK/old.trace" "$WORK/new.trace"
bad "unknown format 'xml'" -f xml "$WORK/old.trace" "$WORK/new.trace"
pass
