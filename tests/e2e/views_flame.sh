#!/usr/bin/env bash
# views_flame.sh - `calltrace flame`: the folded stacks count every call of
# multimod (27, across its threads and processes) and honour the filters;
# the SVG parses as XML, has one band per thread, accounts for every call in
# a frame or a merged frame; a run of 100000 tiny calls is merged while
# streaming into frames "tiny ×N" in a small file; a call left unfinished
# inside merged frames marks them; --merged draws the merged flame graph.
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

# 100000 calls of a few ns beside one of 20 ms: one run "tiny ×100000".
cat >"$WORK/many.c" <<'C'
#include <time.h>
static volatile int sink;
static void tiny(int i) { sink += i; }
static void pause_a_bit(void) { struct timespec t = {0, 20000000}; nanosleep(&t, 0); }
int main(void) { for (int i = 0; i < 100000; i++) tiny(i); pause_a_bit(); return 0; }
C
build_c many "$WORK/many.c"
record many "$WORK/many"
ct flame -o "$WORK/many.svg" "$WORK/many.trace"
read -r drawn bands < <(check flame "$WORK/many.svg")
[ "$drawn" = 100002 ] || fail "many: $drawn calls accounted for in the SVG, 100002 expected"
# The file: the merged frames, and the places of at most 250000 calls for
# zooming in (about 20 bytes each).
size=$(stat -c %s "$WORK/many.svg")
[ "$size" -lt 2000000 ] || fail "many: the SVG of 100000 tiny calls is $size bytes: not merged"
detail=$(check flame-detail "$WORK/many.svg")
[ "$detail" -gt 0 ] && [ "$detail" -le 250000 ] || fail "many: $detail calls travel for zooming in"
grep -q '<title>tiny ×[0-9]' "$WORK/many.svg" || fail "many: no frame 'tiny ×N'"
! grep -q 'class="m"' "$WORK/many.svg" || fail "many: a hatched block where one function ran"

# A call left open by exit() inside merged frames keeps its mark: the
# merged frames holding it say "1 unfinished" and are drawn as unfinished.
cat >"$WORK/leave.c" <<'C'
#include <stdlib.h>
static volatile int sink;
static int twice(int i) { return 2 * i; }
static void leave(int i) { if (i == 19999) exit(0); }
static void work(int i) { sink += twice(i); leave(i); }
int main(void) { for (int i = 0; i < 20000; i++) work(i); return 1; }
C
build_c leave "$WORK/leave.c"
record leave "$WORK/leave"
ct flame -o "$WORK/leave.svg" "$WORK/leave.trace"
read -r drawn bands < <(check flame "$WORK/leave.svg")
[ "$drawn" = 60001 ] || fail "leave: $drawn calls accounted for in the SVG, 60001 expected"
check flame-unfinished "$WORK/leave.svg" | sort >"$WORK/leave.unf"
# leave's call is in a frame "leave ×N" or in a hatched block ("-"),
# depending on the timing: either says it.
awk '$1 == "main" && $2 == 1 && $3 == 1 { m++ } $1 == "work" && $3 == 1 { w++; merged += $2 > 1 }
	($1 == "leave" || $1 == "-") && $3 == 1 { l++; merged += $2 > 1 }
	END { exit !(m == 1 && w == 1 && l == 1 && NR == 3 && merged) }' \
	"$WORK/leave.unf" || fail "leave: unfinished marks in merged frames: $(tr '\n' ';' <"$WORK/leave.unf")"

# Errors: a bad option value and a missing trace fail with a message.
! "$CALLTRACE" flame --width abc "$WORK/mm.trace" >/dev/null 2>"$WORK/err" && grep -q "width" "$WORK/err" ||
	fail "flame --width abc does not fail with a message"
! "$CALLTRACE" flame -o "$WORK/x.svg" "$WORK/none.trace" 2>"$WORK/err" && grep -q "^calltrace: " "$WORK/err" ||
	fail "flame on a missing trace does not fail with a message"
! "$CALLTRACE" flame --merged --folded "$WORK/mm.trace" >/dev/null 2>"$WORK/err" && grep -q "pick one" "$WORK/err" ||
	fail "flame --merged --folded does not fail with a message"
! "$CALLTRACE" flame --per-thread -o "$WORK/x.svg" "$WORK/mm.trace" 2>"$WORK/err" && grep -q "go with --folded" "$WORK/err" ||
	fail "flame --per-thread without --folded does not fail with a message"
"$CALLTRACE" flame --help | grep -q -- "--folded" || fail "flame --help says nothing of --folded"
"$CALLTRACE" flame --help | grep -q -- "--merged" || fail "flame --help says nothing of --merged"
pass
