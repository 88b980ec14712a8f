#!/usr/bin/env bash
# views_kinds.sh - every view tells library calls, system calls and off-CPU
# intervals apart from the program's own calls, on a trace whose events and
# times the test chooses (gen_trace): JSON kinds, replay's marks, report's
# On-CPU column and --by-kind totals, info's counts, folded _[k] frames and
# flame colours, seq's library and kernel lifelines, Chrome categories,
# speedscope names, the dot graph's clusters.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
grep -q 'NS offcpu' "$PROGRAMS/views/trace_gen.c" || skip "trace_gen writes no off-CPU intervals"

cat >"$WORK/kinds.c" <<'C'
#include <unistd.h>
static char buf[64];
int load_config(void) { return (int)read(3, buf, sizeof(buf)); }
void work(void) {}
int main(void) { load_config(); work(); return 0; }
C
gcc -g -O0 -fno-pie -no-pie "$WORK/kinds.c" -o "$WORK/kinds" || fail "cannot compile kinds"
libc=$(ldd "$WORK/kinds" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || skip "no libc.so.6 found for the kinds program"

# main 200 us { load_config 59 us { read@libc 48 us { read(2) 45 us {
# blocked 40 us } } } work 30 us { preempted 10 us } }
gen_trace kinds "$WORK/kinds" <<SCRIPT
0 thread 100 main
0 load $libc
0 enter main
1000 enter load_config
2000 libcall read 3 0x601040 64
3000 syscall 0 3 0x601040 64
4000 offcpu blocked
44000 exit
48000 exit 12
50000 exit 12
60000 exit 12
70000 enter work
80000 offcpu preempted
90000 exit
100000 exit
200000 exit 0
200010 end 0
SCRIPT
trace=$WORK/kinds.trace

# ---- JSON: "kind" on the calls of other kinds only --------------------------
ct json -o "$WORK/kinds.json" "$trace"
check_tree schema "$WORK/kinds.json"
python3 - "$WORK/kinds.json" >"$WORK/kinds.kinds" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def visit(calls, depth):
    for c in calls:
        print("  " * depth + c["function"] + " " + c.get("kind", "-"))
        visit(c.get("children", []), depth + 1)
for tree in doc["call_trees"].values():
    visit(tree["calls"], 0)
PY
cat >"$WORK/kinds.kinds.expected" <<'KINDS'
main -
  load_config -
    read library
      read syscall
        off-cpu:blocked sched
  work -
    off-cpu:preempted sched
KINDS
expect_text "JSON kinds" "$WORK/kinds.kinds.expected" "$WORK/kinds.kinds"

# ---- replay: library calls with their library, system calls marked, off-CPU
# intervals as comments; the program's own calls as ever ----------------------
ct replay "$trace" >"$WORK/kinds.replay"
grep -v '^#' "$WORK/kinds.replay" >"$WORK/kinds.replay.lines"
cat >"$WORK/kinds.replay.expected" <<'REPLAY'
           [   100] | main() {
           [   100] |   load_config() {
           [   100] |     read@libc.so.6(3, 0x601040, 64) {
           [   100] |       [syscall] read(3, 0x601040, 64) {
 40.000 us [   100] |         /* off-CPU: blocked */
 45.000 us [   100] |       } = 12; /* [syscall] read */
 48.000 us [   100] |     } = 12; /* read@libc.so.6 */
 59.000 us [   100] |   } = 12; /* load_config */
           [   100] |   work() {
 10.000 us [   100] |     /* off-CPU: preempted */
 30.000 us [   100] |   } /* work */
200.000 us [   100] | } = 0; /* main */
REPLAY
expect_text "replay" "$WORK/kinds.replay.expected" "$WORK/kinds.replay.lines"

# ---- report: On-CPU beside the total, kinds named apart, --by-kind ----------
ct report "$trace" >"$WORK/kinds.report"
cat >"$WORK/kinds.report.expected" <<'REPORT'
  Total time      On-CPU   Self time       Calls         Avg         Min         Max  Function
  ==========  ==========  ==========  ==========  ==========  ==========  ==========  ====================
  200.000 us  150.000 us  111.000 us           1  200.000 us  200.000 us  200.000 us  main
   59.000 us   19.000 us   11.000 us           1   59.000 us   59.000 us   59.000 us  load_config
   48.000 us    8.000 us    3.000 us           1   48.000 us   48.000 us   48.000 us  read@libc.so.6
   45.000 us    5.000 us    5.000 us           1   45.000 us   45.000 us   45.000 us  [syscall] read
   40.000 us        0 ns   40.000 us           1   40.000 us   40.000 us   40.000 us  off-cpu:blocked
   30.000 us   20.000 us   20.000 us           1   30.000 us   30.000 us   30.000 us  work
   10.000 us        0 ns   10.000 us           1   10.000 us   10.000 us   10.000 us  off-cpu:preempted
REPORT
expect_text "report" "$WORK/kinds.report.expected" "$WORK/kinds.report"
ct report --by-kind -s oncpu "$trace" >"$WORK/kinds.bykind"
grep -v '^  [=T]' "$WORK/kinds.bykind" | awk '/^#/ { print; next } { print "  " $NF }' >"$WORK/kinds.bykind.got"
cat >"$WORK/kinds.bykind.expected" <<'BYKIND'
# function: 3 functions, 3 calls, self time 142.000 us
  main
  work
  load_config
# library: 1 function, 1 call, self time 3.000 us
  read@libc.so.6
# syscall: 1 function, 1 call, self time 5.000 us
  read
# off-CPU: 2 functions, 2 calls, self time 50.000 us
  off-cpu:blocked
  off-cpu:preempted
BYKIND
expect_text "report --by-kind" "$WORK/kinds.bykind.expected" "$WORK/kinds.bykind.got"

# ---- info: how many of each kind, and the time off the CPU ------------------
ct info "$trace" >"$WORK/kinds.info"
grep -qx 'of them:    1 library call, 1 system call, 2 off-CPU intervals (50.000 us off the CPU)' \
	"$WORK/kinds.info" || fail "info's totals: $(grep '^of them' "$WORK/kinds.info")"
# "of them" are of the calls: the line right after "calls:", before "unfinished:"
[ "$(grep -A1 '^calls:' "$WORK/kinds.info" | tail -n 1 | cut -c1-8)" = "of them:" ] ||
	fail "info: 'of them:' does not follow 'calls:': $(head -n 12 "$WORK/kinds.info" | tr '\n' '|')"
grep -q '^    thread 100 main: 1 event window, 1 library call, 1 system call, 2 off-CPU intervals (50.000 us off the CPU)$' \
	"$WORK/kinds.info" || fail "info's thread line: $(grep '^    thread' "$WORK/kinds.info")"

# ---- flame: the kernel's folded frames end in _[k]; frames coloured by kind -
ct flame --folded -o "$WORK/kinds.folded" "$trace"
cat >"$WORK/kinds.folded.expected" <<'FOLDED'
main 1
main;load_config 1
main;load_config;read 1
main;load_config;read;read_[k] 1
main;load_config;read;read_[k];off-cpu:blocked_[k] 1
main;work 1
main;work;off-cpu:preempted_[k] 1
FOLDED
expect_text "folded stacks" "$WORK/kinds.folded.expected" "$WORK/kinds.folded"
# colour classes of the frames' fills (and the legend's one of each kind):
# warm for the program's own, blue library, green system call, grey off-CPU
colours() {
	python3 - "$1" <<'PY'
import re, sys
classes = {"warm": 0, "blue": 0, "green": 0, "grey": 0}
for fill in re.findall(r'<rect [^>]*fill="#([0-9a-f]{6})"', open(sys.argv[1]).read()):
    r, g, b = (int(fill[i:i + 2], 16) for i in (0, 2, 4))
    if r == g == b:
        classes["grey"] += 170 <= r < 180
    elif b > r and b > g:
        classes["blue"] += 1
    elif g > r and g > b:
        classes["green"] += 1
    elif r > b:
        classes["warm"] += 1
print(" ".join(f"{k} {v}" for k, v in classes.items()))
PY
}
ct flame --merged -o "$WORK/kinds.merged.svg" "$trace"
got=$(colours "$WORK/kinds.merged.svg")
[ "$got" = "warm 4 blue 2 green 2 grey 3" ] || fail "merged flame graph colours: $got"
ct flame -o "$WORK/kinds.svg" "$trace"
got=$(colours "$WORK/kinds.svg")
[ "$got" = "warm 4 blue 2 green 2 grey 3" ] || fail "flame chart colours: $got"
grep -q '<g id="legend"' "$WORK/kinds.svg" || fail "no legend in the flame chart"

# ---- seq: the library and the kernel as lifelines --------------------------
ct seq -f mermaid --by module -o "$WORK/kinds.mmd" "$trace"
python3 "$ROOT/tests/e2e/check_views.py" mermaid "$WORK/kinds.mmd" >"$WORK/kinds.msgs" ||
	fail "mermaid: $(cat "$WORK/kinds.msgs")"
cat >"$WORK/kinds.msgs.expected" <<'MSGS'
start -> kinds: main()
kinds -> kinds: load_config()
kinds -> libc.so.6: read(3, 0x601040, 64)
libc.so.6 -> kernel: read(3, 0x601040, 64)
kernel -> kernel: off-cpu:blocked
kernel --> kernel
kernel --> libc.so.6
libc.so.6 --> kinds
kinds --> kinds
kinds -> kinds: work()
kinds -> kernel: off-cpu:preempted
kernel --> kinds
kinds --> kinds
kinds --> start
MSGS
expect_text "sequence diagram" "$WORK/kinds.msgs.expected" "$WORK/kinds.msgs"

# ---- Chrome: the kind as category, values in args --------------------------
ct chrome -o "$WORK/kinds.chrome.json" "$trace"
python3 - "$WORK/kinds.chrome.json" >"$WORK/kinds.cats" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e["ph"] == "X":
        a = e["args"]
        print(e["cat"], e["name"], "%g" % e["ts"], "%g" % e["dur"], a.get("library", "-"),
              "args" if "arguments" in a else "-")
PY
cat >"$WORK/kinds.cats.expected" <<'CATS'
sched off-cpu:blocked 4 40 - -
syscall read 3 45 - args
library read 2 48 libc.so.6 args
function load_config 1 59 - -
sched off-cpu:preempted 80 10 - -
function work 70 30 - -
function main 0 200 - -
CATS
expect_text "chrome events" "$WORK/kinds.cats.expected" "$WORK/kinds.cats"

# ---- Perfetto: the kind as the slices' category -----------------------------
if command -v protoc >/dev/null; then
	ct chrome --format proto -o "$WORK/kinds.pb" "$trace"
	protoc --proto_path="$ROOT/tests/e2e" --decode=perfetto.protos.Trace \
		"$ROOT/tests/e2e/perfetto_subset.proto" <"$WORK/kinds.pb" >"$WORK/kinds.pb.txt" ||
		fail "protoc cannot decode the Perfetto trace"
	python3 "$ROOT/tests/e2e/check_perfetto.py" <"$WORK/kinds.pb.txt" 2>"$WORK/check.err" |
		grep '^category ' >"$WORK/kinds.pb.cats" || fail "perfetto: $(tail -n 1 "$WORK/check.err")"
	cat >"$WORK/kinds.pb.cats.expected" <<'CATS'
category off-cpu:blocked sched
category off-cpu:preempted sched
category read library
category read syscall
CATS
	expect_text "Perfetto categories" "$WORK/kinds.pb.cats.expected" "$WORK/kinds.pb.cats"
fi

# ---- speedscope: frames named as replay names them -------------------------
ct speedscope -o "$WORK/kinds.speedscope.json" "$trace"
python3 -c 'import json, sys; print(" ".join(sorted(f["name"] for f in json.load(open(sys.argv[1]))["shared"]["frames"])))' \
	"$WORK/kinds.speedscope.json" >"$WORK/kinds.frames"
[ "$(cat "$WORK/kinds.frames")" = "[syscall] read load_config main off-cpu:blocked off-cpu:preempted read@libc.so.6 work" ] ||
	fail "speedscope frames: $(cat "$WORK/kinds.frames")"

# ---- graph: library and kernel clusters; --kind hides kinds ----------------
ct graph -f dot -o "$WORK/kinds.dot" "$trace"
for cluster in kinds libc.so.6 '\[kernel\]'; do
	grep -q "^    label=\"$cluster\";" "$WORK/kinds.dot" || fail "no $cluster cluster in the graph"
done
[ "$(grep -c 'shape=hexagon' "$WORK/kinds.dot")" = 3 ] || fail "not 3 kernel nodes in the graph"
[ "$(grep -c 'shape=ellipse' "$WORK/kinds.dot")" = 1 ] || fail "not 1 library node in the graph"
ct graph -f dot --kind=function,library -o "$WORK/kinds.lib.dot" "$trace"
! grep -q 'shape=hexagon\|label="\[kernel\]"' "$WORK/kinds.lib.dot" || fail "--kind=function,library shows the kernel"
[ "$(grep -c 'shape=ellipse' "$WORK/kinds.lib.dot")" = 1 ] || fail "--kind=function,library hides the library call"
ct report --kind=-offcpu "$trace" >"$WORK/kinds.nooff"
! grep -q 'On-CPU\|off-cpu' "$WORK/kinds.nooff" || fail "report without off-CPU intervals shows them"

pass
