#!/usr/bin/env bash
# views_flame.sh - `calltrace flame`: the folded stacks count every call of
# multimod (27, across its threads and processes) and honour the filters;
# the SVG parses as XML, has one band per thread, accounts for every call in
# a frame or a merged frame; 100000 tiny calls are merged while streaming
# into frames "tiny ×N" in a small file, with the places of the calls for
# zooming in; a call left unfinished inside merged frames marks them;
# --merged draws the merged flame graph; time (axis, tooltips) starts at the
# first call.  The merging is checked on traces
# whose durations the test chooses (gen_trace): it depends on them.
source "$(dirname "$0")/lib.sh"
setup
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
to_json mm
calls=$(check_tree count "$WORK/mm.json")
[ "$calls" = 27 ] || fail "multimod made $calls calls, 27 expected"

# Folded stacks: counts round-trip, one line per distinct stack.
ct flame --folded "$WORK/mm.trace" >"$WORK/mm.folded"
total=$(check folded "$WORK/mm.folded")
[ "$total" = 27 ] || fail "folded stacks count $total calls, 27 expected"
for stack in "main;use_shared;sh_scale;sh_clamp=1" "main;fork_exit_child;wait_child=1" \
	"child_exit_work;sh_scale;sh_clamp=1" "thread_a_main;a_step;st_square=1" "main=1"; do
	got=$(check folded-count "$WORK/mm.folded" "${stack%=*}")
	[ "$got" = "${stack##*=}" ] || fail "folded: ${stack%=*} counts $got, ${stack##*=} expected"
done
ct flame --folded --per-thread -o "$WORK/mm.threads.folded" "$WORK/mm.trace"
[ "$(check folded "$WORK/mm.threads.folded")" = 27 ] || fail "--per-thread changes the count"
grep -q "^pid [0-9]* tid [0-9]* multimod;thread_b_main;b_step;sh_clamp 1$" "$WORK/mm.threads.folded" ||
	fail "--per-thread stacks do not start with the thread"
ct flame --folded --self-time "$WORK/mm.trace" >"$WORK/mm.self.folded"
check folded "$WORK/mm.self.folded" >/dev/null

# The filters of replay apply.
ct flame --folded -F '^use_shared$' "$WORK/mm.trace" >"$WORK/mm.F.folded"
[ "$(check folded "$WORK/mm.F.folded")" = 3 ] || fail "flame -F use_shared: not 3 calls"
grep -q "^use_shared;sh_scale;sh_clamp 1$" "$WORK/mm.F.folded" || fail "flame -F: stacks do not start at use_shared"
ct flame --folded -D 1 "$WORK/mm.trace" >"$WORK/mm.D.folded"
[ "$(check folded "$WORK/mm.D.folded")" = 5 ] || fail "flame -D 1: not the 5 outermost calls"

# The SVG: every call drawn or merged, a band per thread.
ct flame -o "$WORK/mm.svg" "$WORK/mm.trace"
read -r drawn bands < <(check flame "$WORK/mm.svg")
[ "$drawn" = 27 ] && [ "$bands" = 5 ] || fail "flame SVG shows $drawn calls in $bands bands, 27 in 5 expected"
check flame-bands "$WORK/mm.svg" >"$WORK/mm.bands"
grep -Eq '^pid [0-9]+ tid [0-9]+ multimod' "$WORK/mm.bands" || fail "band labels are not 'pid N tid M name': $(head -n 1 "$WORK/mm.bands")"
(cd "$WORK" && "$CALLTRACE" flame mm.trace 2>/dev/null) && [ -s "$WORK/flame.svg" ] ||
	fail "flame without -o does not write flame.svg"

# The merged flame graph: every call in it, each function a frame.
ct flame --merged -o "$WORK/mm.merged.svg" "$WORK/mm.trace"
read -r drawn bands < <(check flame "$WORK/mm.merged.svg")
[ "$drawn" = 27 ] || fail "flame --merged accounts for $drawn calls, 27 expected"
check flame-functions "$WORK/mm.merged.svg" >"$WORK/mm.merged.fns"
for f in main use_shared sh_scale sh_clamp thread_a_main a_step st_square; do
	grep -qx "$f" "$WORK/mm.merged.fns" || fail "flame --merged draws no frame of $f"
done
grep -q "siblings in alphabetical order" "$WORK/mm.merged.svg" || fail "flame --merged does not say its order"
ct flame --merged --order weight --value calls -o "$WORK/mm.weight.svg" "$WORK/mm.trace"
grep -q "x: number of calls, siblings heaviest first" "$WORK/mm.weight.svg" ||
	fail "flame --merged --order weight --value calls does not say so"
! "$CALLTRACE" flame --merged --order size "$WORK/mm.trace" 2>"$WORK/err" >/dev/null && grep -q "order" "$WORK/err" ||
	fail "flame --order size does not fail with a message"

# The calls too narrow to draw one by one, with durations chosen by the
# test (gen_trace), not measured: how they merge depends on them.
cat >"$WORK/flat.c" <<'C'
void tiny(void) {}
void pause_a_bit(void) {}
int twice(int i) { return 2 * i; }
void leave(int i) { (void)i; }
void work(int i) { leave(twice(i)); }
int main(void) { return 0; }
C
gcc -g -O0 -no-pie "$WORK/flat.c" -o "$WORK/flat" || fail "cannot compile flat"
# many BURSTS SIZE GAP: main calls tiny BURSTS x SIZE times (10 ns each, 20 ns
# apart), GAP ns idle after each burst, then pause_a_bit for 20 ms.
many() {
	awk -v bursts="$1" -v size="$2" -v gap="$3" 'BEGIN {
		print "0 thread 100"; print "0 enter main"; t = 1000
		for (b = 0; b < bursts; b++) {
			for (i = 0; i < size; i++) { print t, "enter tiny"; print t + 10, "exit"; t += 20 }
			t += gap
		}
		print t, "enter pause_a_bit"; t += 20000000; print t, "exit"
		print t + 10, "exit"; print t + 20, "end 0" }'
}
# many_chart NAME FRAME COUNT: the chart of $WORK/NAME.trace accounts for
# its 100002 calls, in a small file, with COUNT frames "FRAME" and no
# hatched block (only one function runs there).
many_chart() {
	ct flame -o "$WORK/$1.svg" "$WORK/$1.trace"
	read -r drawn bands < <(check flame "$WORK/$1.svg")
	[ "$drawn" = 100002 ] || fail "$1: $drawn calls accounted for in the SVG, 100002 expected"
	size=$(stat -c %s "$WORK/$1.svg")
	[ "$size" -lt 2000000 ] || fail "$1: the SVG of 100000 tiny calls is $size bytes: not merged"
	frames=$(grep -c "<title>$2$" "$WORK/$1.svg" || true)
	[ "$frames" = "$3" ] || fail "$1: $frames frames '$2', $3 expected"
	! grep -q 'class="m"' "$WORK/$1.svg" || fail "$1: a hatched block where one function ran"
}
# One run of 100000 calls: one frame "tiny ×100000" in a small file.
many 1 100000 0 | gen_trace many "$WORK/flat"
many_chart many 'tiny ×100000' 1
# 20 bursts of 5000 calls a millisecond apart: a frame "tiny ×5000" each,
# and the places of their 100000 calls travel for zooming in (at most
# 20000 a frame and 250000 a chart, about 13 bytes each).
many 20 5000 1000000 | gen_trace bursts "$WORK/flat"
many_chart bursts 'tiny ×5000' 20
detail=$(check flame-detail "$WORK/bursts.svg")
[ "$detail" = 100000 ] || fail "bursts: $detail calls travel for zooming in, 100000 expected"

# A call left open by exit() inside merged frames keeps its mark: the
# merged frames holding it say "1 unfinished" and are drawn as unfinished.
# main calls work 20000 times (40 ns apart), work calls twice and leave;
# the last leave never returns.
awk 'BEGIN { print "0 thread 100"; print "0 enter main"; t = 1000
	for (i = 0; i < 20000; i++) {
		print t, "enter work"; print t + 5, "enter twice"; print t + 10, "exit"
		print t + 15, "enter leave"
		if (i == 19999) break
		print t + 20, "exit"; print t + 25, "exit"; t += 40
	}
	print t + 30, "end 0" }' | gen_trace leave "$WORK/flat"
ct flame -o "$WORK/leave.svg" "$WORK/leave.trace"
read -r drawn bands < <(check flame "$WORK/leave.svg")
[ "$drawn" = 60001 ] || fail "leave: $drawn calls accounted for in the SVG, 60001 expected"
check flame-unfinished "$WORK/leave.svg" | sort >"$WORK/leave.unf"
printf '%s\n' "leave 20000 1" "main 1 1" "work 20000 1" >"$WORK/leave.unf.expected"
expect_text "leave: the unfinished marks" "$WORK/leave.unf.expected" "$WORK/leave.unf"

# Errors: a bad option value and a missing trace fail with a message.
! "$CALLTRACE" flame --width abc "$WORK/mm.trace" >/dev/null 2>"$WORK/err" && grep -q "width" "$WORK/err" ||
	fail "flame --width abc does not fail with a message"
! "$CALLTRACE" flame -o "$WORK/x.svg" "$WORK/none.trace" 2>"$WORK/err" && grep -q "^calltrace: " "$WORK/err" ||
	fail "flame on a missing trace does not fail with a message"
! "$CALLTRACE" flame --merged --folded "$WORK/mm.trace" >/dev/null 2>"$WORK/err" && grep -q "pick one" "$WORK/err" ||
	fail "flame --merged --folded does not fail with a message"
# Time starts at the first call, not at the start of the recording (an
# engine's setup before it): a first call 70 ms in starts at 0 on the axis
# and in the tooltips.
printf '%s\n' "0 thread 1 main" "70000000 enter main" "70001000 enter tiny" "70002000 exit" \
	"100000000 exit" "100000010 end 0" | gen_trace late "$WORK/flat"
ct flame -o "$WORK/late.svg" "$WORK/late.trace"
grep -qF 'call #1 · start 0 ns · duration 30.000 ms' "$WORK/late.svg" &&
	grep -qF 'call #2 · start 1.000 us · duration 1.000 us' "$WORK/late.svg" ||
	fail "flame: start times not from the first call: $(grep -F 'call #' "$WORK/late.svg" | head -n 2)"
grep -qF 'var a = view0 / W * span, b = view1 / W * span' "$WORK/late.svg" ||
	fail "flame: the axis does not start at the first call"
! "$CALLTRACE" flame --per-thread -o "$WORK/x.svg" "$WORK/mm.trace" 2>"$WORK/err" && grep -q "go with --folded" "$WORK/err" ||
	fail "flame --per-thread without --folded does not fail with a message"
"$CALLTRACE" flame --help | grep -q -- "--folded" || fail "flame --help says nothing of --folded"
"$CALLTRACE" flame --help | grep -q -- "--merged" || fail "flame --help says nothing of --merged"
pass
