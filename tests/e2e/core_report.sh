#!/usr/bin/env bash
# core_report.sh - `calltrace report` counts every function's calls: the
# counts the programs' structure gives, across threads and processes.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup

# expect_counts REPORT FUNCTION=COUNT...
expect_counts() {
	local report=$1 pair got
	shift
	for pair in "$@"; do
		got=$(report_calls "$report" "${pair%=*}")
		[ "$got" = "${pair##*=}" ] || fail "report counts $got calls of ${pair%=*}, expected ${pair##*=}"
	done
}

build_c threads "$PROGRAMS/threads.c"
record threads "$WORK/threads"
ct report "$WORK/threads.trace" >"$WORK/threads.report"
expect_counts "$WORK/threads.report" main=1 spawn_workers=1 join_workers=1 report_totals=1 \
	alpha_thread=1 beta_thread=1 gamma_thread=1 delta_thread=1 begin=4 \
	alpha_work=7 beta_work=11 beta_leaf=11 gamma_work=3 gamma_mid=3 gamma_leaf=6 \
	delta_work=1 delta_mid=1 delta_deep=1 delta_leaf=1

# multimod: the libraries' functions are called from the main thread, the
# threads and both children.
build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
ct report "$WORK/mm.trace" >"$WORK/mm.report"
expect_counts "$WORK/mm.report" main=1 st_square=2 st_add=2 sh_scale=2 sh_clamp=4 \
	pl_entry=1 pl_double=1 wait_child=2 child_exit_work=1 child_quick_work=1 \
	a_step=1 b_step=1

# Recursion with durations the test chooses (gen_trace): read_token nested
# five deep, 10, 9, 8, 7 and 6 us.  Total counts the outermost call once
# (10 us); Avg is over every call as Min and Max are: 40 us / 5 = 8 us, not
# 10 us / 5 = 2 us, which was below Min.
gcc -g -O0 -no-pie "$PROGRAMS/tree.c" -o "$WORK/tree.nopie" || fail "cannot compile tree -no-pie"
gen_trace rec "$WORK/tree.nopie" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter read_token
1500 enter read_token
2000 enter read_token
2500 enter read_token
3000 enter read_token
9000 exit
9500 exit
10000 exit
10500 exit
11000 exit
12000 exit
13000 end 0
SCRIPT
ct report "$WORK/rec.trace" >"$WORK/rec.report"
row=$(grep -E ' read_token$' "$WORK/rec.report" | tr -s ' ')
[ "$row" = " 10.000 us 10.000 us 5 8.000 us 6.000 us 10.000 us read_token" ] ||
	fail "report of the recursion: '$row'"

# With a filter, only what is shown is counted.
ct report -F '^thread_b_main$' "$WORK/mm.trace" >"$WORK/mm_b.report"
expect_counts "$WORK/mm_b.report" thread_b_main=1 b_step=1 sh_clamp=1
! grep -qw main "$WORK/mm_b.report" || fail "report -F thread_b_main still shows main"
pass
