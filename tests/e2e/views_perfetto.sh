#!/usr/bin/env bash
# views_perfetto.sh - `calltrace chrome --format proto`, Perfetto's native
# protobuf trace, read by a real decoder: protoc decodes it with Perfetto's
# field numbers (perfetto_subset.proto) and check_perfetto.py checks it as
# Perfetto's trace processor reads it.  Every call of every thread is a
# slice with the right name, nesting and count (the stacks equal those of
# `flame --folded --per-thread`) on multimod (processes and threads),
# threads and requests; marks are instant events; calls left open by
# exit() say so; recorded arguments and return values are annotations; --from/--to keep the calls chrome's JSON keeps; the file
# is several times smaller than the JSON.
source "$(dirname "$0")/lib.sh"
setup
need_cmd protoc
decode() { # PROTO_FILE: the checked stacks, marks and unfinished calls
	protoc --proto_path="$ROOT/tests/e2e" --decode=perfetto.protos.Trace \
		"$ROOT/tests/e2e/perfetto_subset.proto" <"$1" >"$1.txt" 2>"$WORK/protoc.err" ||
		fail "protoc cannot decode $1: $(head -n 1 "$WORK/protoc.err")"
	python3 "$ROOT/tests/e2e/check_perfetto.py" <"$1.txt" 2>"$WORK/check.err" ||
		fail "$1: $(tail -n 1 "$WORK/check.err")"
}
# same_stacks NAME: the slices of $WORK/NAME.pb are the calls of the trace.
same_stacks() {
	ct chrome --format proto -o "$WORK/$1.pb" "$WORK/$1.trace"
	decode "$WORK/$1.pb" >"$WORK/$1.pb.out"
	grep -Ev '^(mark|unfinished|args|return|category) ' "$WORK/$1.pb.out" >"$WORK/$1.pb.stacks" || true
	# (folded stacks end the kernel's frames in _[k]; slices are named as is)
	"$CALLTRACE" flame --folded --per-thread "$WORK/$1.trace" |
		sed -E 's/^pid ([0-9]+) tid ([0-9]+)[^;]*;/\1 \2;/; s/_\[k\](;| )/\1/g' |
		LC_ALL=C sort >"$WORK/$1.folded"
	LC_ALL=C sort "$WORK/$1.pb.stacks" >"$WORK/$1.pb.sorted"
	expect_text "$1: the slices of the Perfetto trace" "$WORK/$1.folded" "$WORK/$1.pb.sorted"
}

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
same_stacks mm
[ "$(cut -d';' -f1 "$WORK/mm.pb.stacks" | sort -u | wc -l)" = 5 ] || fail "multimod: not 5 threads with slices"

build_c threads "$PROGRAMS/threads.c"
record threads "$WORK/threads"
same_stacks threads
grep -q ';beta_thread;beta_work;beta_leaf 11$' "$WORK/threads.pb.stacks" || fail "threads: not 11 beta_leaf slices"

# exit() inside two calls: three slices end where the trace ends, marked.
cat >"$WORK/leave.c" <<'C'
#include <stdlib.h>
static void leave(int i) { if (i == 99) exit(0); }
static void work(int i) { leave(i); }
int main(void) { for (int i = 0; i < 100; i++) work(i); return 1; }
C
build_c leave "$WORK/leave.c"
record leave "$WORK/leave"
same_stacks leave
[ "$(grep '^unfinished ' "$WORK/leave.pb.out" | tr '\n' ' ')" = "unfinished leave unfinished main unfinished work " ] ||
	fail "leave: unfinished slices: $(grep '^unfinished ' "$WORK/leave.pb.out" | tr '\n' ' ')"

# Recorded arguments and return values are debug annotations.
cat >"$WORK/args.c" <<'C'
static int add(int a, int b) { return a + b; }
int main(void) { return add(40, 2) - 42; }
C
build_c args "$WORK/args.c"
"$CALLTRACE" record --args -o "$WORK/args.trace" "$WORK/args" >/dev/null 2>&1 || fail "cannot record args with --args"
same_stacks args
grep -qx 'args add a=40, b=2' "$WORK/args.pb.out" && grep -qx 'return add 42' "$WORK/args.pb.out" ||
	fail "args: no annotations 'a=40, b=2' and '42' on add: $(grep -E '^(args|return) ' "$WORK/args.pb.out" | tr '\n' ';')"

# Requests, with marks; a window of time keeps what chrome's JSON keeps.
build_c requests "$PROGRAMS"/views/{requests,parse,handle,store}.c
record small "$WORK/requests" 300
same_stacks small
[ "$(grep '^mark ' "$WORK/small.pb.out" | tr '\n' ' ')" = "mark request 0 mark serving " ] ||
	fail "requests: marks $(grep '^mark ' "$WORK/small.pb.out" | tr '\n' ' ')"
ct chrome -o "$WORK/small.json" "$WORK/small.trace"
start=$(python3 -c "import json; e=[x for x in json.load(open('$WORK/small.json'))['traceEvents'] if x.get('name')=='parse_request']; print(int(e[100]['ts']))")
ct chrome --from "${start}us" --to "$((start + 300))us" -o "$WORK/window.json" "$WORK/small.trace"
ct chrome --format proto --from "${start}us" --to "$((start + 300))us" -o "$WORK/window.pb" "$WORK/small.trace"
python3 "$ROOT/tests/e2e/check_views.py" chrome "$WORK/window.json" >"$WORK/window.out"
json_calls=$(head -n 1 "$WORK/window.out")
proto_calls=$(decode "$WORK/window.pb" | awk '!/^(mark|unfinished|args|return) / { n += $NF } END { print n + 0 }')
[ "$json_calls" -gt 0 ] && [ "$proto_calls" = "$json_calls" ] ||
	fail "--from/--to: $proto_calls slices in the Perfetto trace, $json_calls events in the JSON"

# Size: a third of the requests run, about 150000 calls.
record requests "$WORK/requests" 1000
ct chrome -o "$WORK/requests.json" "$WORK/requests.trace"
ct chrome --format proto -o "$WORK/requests.pb" "$WORK/requests.trace"
json_size=$(stat -c %s "$WORK/requests.json")
proto_size=$(stat -c %s "$WORK/requests.pb")
calls=$("$CALLTRACE" info "$WORK/requests.trace" | sed -n 's/^calls: *\([0-9]*\) .*/\1/p')
echo "requests: $calls calls: Chrome JSON $json_size bytes, Perfetto protobuf $proto_size bytes, $((json_size / proto_size)).$((json_size * 10 / proto_size % 10)) times smaller" >&2
[ $((proto_size * 3)) -lt "$json_size" ] || fail "the Perfetto trace ($proto_size bytes) is not 3 times smaller than the JSON ($json_size)"
decode "$WORK/requests.pb" | awk '!/^(mark|unfinished|args|return) / { n += $NF } END { exit n != '"$calls"' }' ||
	fail "requests: not a slice for each of the $calls calls"

# Errors and help.
! "$CALLTRACE" chrome --format xml "$WORK/mm.trace" >/dev/null 2>"$WORK/err" && grep -q "json or proto" "$WORK/err" ||
	fail "chrome --format xml does not fail with a message"
"$CALLTRACE" chrome --help | grep -q -- "--format WHAT" || fail "chrome --help says nothing of --format"
python3 "$ROOT/tests/e2e/run_on_tty.py" "$CALLTRACE" chrome --format proto "$WORK/mm.trace" >"$WORK/tty.out" || true
grep -aq "writes binary: give -o FILE" "$WORK/tty.out" || fail "chrome --format proto writes binary to a terminal"
pass
