#!/usr/bin/env bash
# views_graph_focus.sh - `calltrace graph --focus FUNC`: on a trace whose
# durations the test chooses (gen_trace), the exact tree of the call paths
# to rec (reached through a, through b and other, and in a second thread,
# recursing) with the calls of rec under each function and their time, a
# recursive call counted once, and rec's callees beneath, and with -f dot
# the graph of those calls alone; on a recording of tests/programs/focus,
# the exact counts, the two static step() functions merged and told apart;
# C++ overloads by the name without its parameters, a template's
# instances by the scope and name alone; an unknown name is an error.
source "$(dirname "$0")/lib.sh"
setup

cat >"$WORK/fns.c" <<'C'
void leaf(void) {}
void rec(int n) { (void)n; }
void a(void) {}
void b(void) {}
void other(void) {}
void worker(void) {}
int main(void) { return 0; }
C
gcc -g -O0 -no-pie "$WORK/fns.c" -o "$WORK/fns" || fail "cannot compile fns"
# rec, outermost: 1000 + 200 ns under a, 1000 under b/other, 1000 in the
# worker thread: 3.200 us in 4 calls (inner calls 1200 ns more, not added).
gen_trace focus "$WORK/fns" <<'SCRIPT'
0 thread 100
0 enter main
100 enter a
200 enter rec
300 enter rec
400 enter leaf
500 exit
800 exit
900 enter leaf
1000 exit
1200 exit
1300 enter rec
1500 exit
1600 exit
1700 enter b
1800 enter other
1900 enter rec
2000 enter rec
2100 enter rec
2200 exit
2400 exit
2900 exit
3000 exit
3100 enter leaf
3200 exit
3300 exit
4000 exit
4000 thread 101 worker
4100 enter worker
4200 enter rec
4300 enter leaf
4400 exit
5200 exit
5300 exit
5400 end 0
SCRIPT
ct graph --focus rec "$WORK/focus.trace" >"$WORK/rec.got"
cat >"$WORK/rec.expected" <<'TEXT'
# call paths to rec: 4 calls, 3.200 us (a recursive call counted once, at the outermost);
# each function: the calls of rec made under it, and their time
  Total time       Calls  Function
  ==========  ==========  ====================
    2.200 us           3  main
    1.200 us           2  +-a
    1.200 us           2  | +-rec
    1.000 us           1  +-b
    1.000 us           1    +-other
    1.000 us           1      +-rec
    1.000 us           1  worker
    1.000 us           1  +-rec

# rec and the functions it calls: each one's calls and time there
  Total time       Calls  Function
  ==========  ==========  ====================
    3.200 us           4  rec
      900 ns           2  +-rec
      100 ns           1  | +-leaf
      100 ns           1  | +-rec
      200 ns           2  +-leaf
TEXT
expect_text "graph --focus rec" "$WORK/rec.expected" "$WORK/rec.got"

# A call of rec left open at the end: said so on its path and beneath.
gen_trace open "$WORK/fns" <<'SCRIPT'
0 thread 100
0 enter main
100 enter rec
200 enter leaf
300 exit
1000 end 0
SCRIPT
ct graph --focus rec "$WORK/open.trace" >"$WORK/open.got"
if [ "$(grep -c '(1 unfinished)$' "$WORK/open.got")" != 3 ] ||
	! grep -qE '^ +[0-9.]+ [nmu]?s +1  \+-rec \(1 unfinished\)$' "$WORK/open.got"; then
	fail "graph --focus rec does not mark the call left open: $(cat "$WORK/open.got")"
fi

# The filters apply before: -N other puts rec's path under b; -o writes a file.
ct graph --focus rec -N '^other$' --format text -o "$WORK/rec-N.txt" "$WORK/focus.trace"
grep -A1 -xF '    1.000 us           1  +-b' "$WORK/rec-N.txt" | grep -qxF '    1.000 us           1    +-rec' ||
	fail "graph --focus rec -N other: rec is not right under b: $(sed -n 5,10p "$WORK/rec-N.txt")"

# As a dot graph: the calls on the paths to rec and beneath it, b's call of
# leaf left out.
ct graph --focus rec -f dot "$WORK/focus.trace" >"$WORK/rec.dot"
python3 "$ROOT/tests/e2e/check_views.py" dot "$WORK/rec.dot" | sort >"$WORK/rec.graph" ||
	fail "check_views dot failed on graph --focus rec -f dot"
cat >"$WORK/rec.graph.expected" <<'TEXT'
a -> rec: 2 calls\n1.200 us
b -> other: 1 call\n1.200 us
cluster fns: a b leaf main other rec worker
main -> a: 1 call\n1.500 us
main -> b: 1 call\n1.600 us
other -> rec: 1 call\n1.000 us
rec -> leaf: 3 calls\n300 ns
rec -> rec: 3 calls\n900 ns
worker -> rec: 1 call\n1.000 us
TEXT
expect_text "graph --focus rec -f dot" "$WORK/rec.graph.expected" "$WORK/rec.graph"

# Errors: an unknown name (in text and in dot), text without --focus.
rc=0
"$CALLTRACE" graph --focus nosuch "$WORK/focus.trace" >"$WORK/out" 2>"$WORK/err" || rc=$?
if [ "$rc" != 1 ] || [ -s "$WORK/out" ] || [ "$(wc -l <"$WORK/err")" != 1 ] ||
	! grep -qF "no call of a function named 'nosuch'" "$WORK/err"; then
	fail "graph --focus nosuch: exit $rc, $(head -n 1 "$WORK/err")"
fi
rc=0
"$CALLTRACE" graph -f text "$WORK/focus.trace" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] || fail "graph -f text without --focus: exit $rc"
grep -q -- "give --focus" "$WORK/err" || fail "graph -f text without --focus: $(cat "$WORK/err")"
rc=0
"$CALLTRACE" graph -f dot --focus nosuch "$WORK/focus.trace" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "graph -f dot --focus nosuch: exit $rc"
[ ! -s "$WORK/out" ] || fail "graph -f dot --focus nosuch wrote a graph"
grep -qF "no call of a function named 'nosuch'" "$WORK/err" || fail "graph -f dot --focus nosuch: $(cat "$WORK/err")"

# A recording: counts exact, times left out (the machine's).
build_c walk "$PROGRAMS"/focus/{walk,util}.c
record walk "$WORK/walk"
counts() { sed -E 's/^ +([0-9.]+ [nmu]?s|Total time|==========)  //'; }
ct graph --focus walk "$WORK/walk.trace" | counts >"$WORK/walk.got"
cat >"$WORK/walk.expected" <<'TEXT'
# call paths to walk: 4 calls, (a recursive call counted once, at the outermost);
# each function: the calls of walk made under it, and their time
     Calls  Function
==========  ====================
         4  main
         3  +-first
         3  | +-walk
         1  +-second
         1    +-walk

# walk and the functions it calls: each one's calls and time there
     Calls  Function
==========  ====================
         4  walk
         4  +-walk
         3  | +-walk
         3  | | +-step
         4  | +-step
         4  +-step
TEXT
sed -i -E 's/^(# call paths to walk: 4 calls, )[0-9.]+ [nmu]?s /\1/' "$WORK/walk.got"
expect_text "graph --focus walk" "$WORK/walk.expected" "$WORK/walk.got"

# Two static step()s: merged, listed, and told apart by their places.
ct graph --focus step "$WORK/walk.trace" | counts >"$WORK/step.got"
head -n 1 "$WORK/step.got" | grep -qxF "# 2 functions match 'step', merged: step (walk.c:6), step (util.c:3)" ||
	fail "graph --focus step does not list the two step functions: $(head -n 1 "$WORK/step.got")"
sed -n '/^# step and/,$p' "$WORK/step.got" >"$WORK/step.callees"
cat >"$WORK/step.expected" <<'TEXT'
# step and the functions it calls: each one's calls and time there
     Calls  Function
==========  ====================
        11  step (walk.c:6)
         3  step (util.c:3)
TEXT
expect_text "graph --focus step's callees" "$WORK/step.expected" "$WORK/step.callees"
grep -qxF '         3      +-step (util.c:3)' "$WORK/step.got" ||
	fail "graph --focus step: not 3 calls of util.c's step under util_run"
grep -qxF '        14  main' "$WORK/step.got" || fail "graph --focus step: not 14 calls under main"

# C++ overloads: the name without its parameter list takes both.
cat >"$WORK/over.cpp" <<'CXX'
namespace ns {
int f(int i) { return i + 1; }
double f(double d) { return d / 2; }
template <typename T> T twice(T v) { return v + v; }
}
int main() { return ns::f(1) + (int)ns::f(4.0) + ns::f(2) + ns::twice(1) + (int)ns::twice(2.0) == 99; }
CXX
build_cxx over "$WORK/over.cpp"
record over "$WORK/over"
ct graph --focus ns::f "$WORK/over.trace" | counts >"$WORK/over.got"
grep -qxF "# 2 functions match 'ns::f', merged: ns::f(int) (over.cpp:2), ns::f(double) (over.cpp:3)" "$WORK/over.got" ||
	fail "graph --focus ns::f does not merge the overloads: $(head -n 1 "$WORK/over.got")"
grep -qxF '         3  main' "$WORK/over.got" || fail "graph --focus ns::f: not 3 calls under main"
ct graph --focus 'ns::f(int)' "$WORK/over.trace" | counts >"$WORK/over1.got"
if grep -q "functions match" "$WORK/over1.got" || ! grep -qxF '         2  main' "$WORK/over1.got"; then
	fail "graph --focus 'ns::f(int)': $(head -n 6 "$WORK/over1.got")"
fi
# A template's instances by the scope and name alone.
ct graph --focus ns::twice "$WORK/over.trace" | counts >"$WORK/twice.got"
grep -qxF "# 2 functions match 'ns::twice', merged: int ns::twice<int>(int) (over.cpp:4), double ns::twice<double>(double) (over.cpp:4)" "$WORK/twice.got" ||
	fail "graph --focus ns::twice does not merge the instances: $(head -n 1 "$WORK/twice.got")"
grep -qxF '         2  main' "$WORK/twice.got" || fail "graph --focus ns::twice: not 2 calls under main"
pass
