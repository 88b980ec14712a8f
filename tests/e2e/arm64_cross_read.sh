#!/usr/bin/env bash
# arm64_cross_read.sh - every trace reads the same on either architecture.
# An instrumented fib built for aarch64, recorded by the aarch64 tool and
# runtime (under qemu-user): every call is there (fib(20): 21,891 calls of
# fib) and this machine's tool reports it exactly, with names and lines, as
# the aarch64 tool does; the header says the trace is of aarch64 programs.
# An x86-64 trace with argument values (record --args), read by the aarch64
# tool: the same values, report, replay and call trees as this machine's
# tool gives.  Every view (folded stacks, sequence diagram, call graph,
# Chrome, speedscope, diff) of either trace the same with either tool.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require

cat >"$WORK/fib.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
int main(int argc, char **argv)
{
	printf("%d\n", fib(argc > 1 ? atoi(argv[1]) : 20));
	return 0;
}
C
a64_build_c fib "$WORK/fib.c"
CALLTRACE=$A64_CALLTRACE record fib "$WORK/fib" 20
[ "$RC" = 0 ] || fail "aarch64 fib: exit $RC: $(head -c 300 "$WORK/fib.err")"
grep -qx 6765 "$WORK/fib.out" || fail "aarch64 fib printed: $(head -c 100 "$WORK/fib.out")"

# Both tools, every reading command that shows names, lines and counts.
same_reading() { # NAME COMMAND [ARG...]: the two tools print the same
	local name=$1
	shift
	"$NATIVE_CALLTRACE" "$@" >"$WORK/$name.native" 2>"$WORK/$name.native.err" ||
		fail "native calltrace $*: $(head -c 300 "$WORK/$name.native.err")"
	"$A64_CALLTRACE" "$@" >"$WORK/$name.a64" 2>"$WORK/$name.a64.err" ||
		fail "aarch64 calltrace $*: $(head -c 300 "$WORK/$name.a64.err")"
	[ -s "$WORK/$name.native" ] || fail "calltrace $*: nothing printed"
	expect_text "calltrace $* on either architecture" "$WORK/$name.native" "$WORK/$name.a64"
}
same_reading fib_report report "$WORK/fib.trace"
awk '$NF == "fib" { fib = $5 } $NF == "main" { main = $5 }
	END { if (fib != "21891" || main != "1") { print "fib " fib ", main " main; exit 1 } }' \
	"$WORK/fib_report.native" >"$WORK/fib.why" || fail "report: $(cat "$WORK/fib.why")"
same_reading fib_replay replay --max-lines 0 -D 3 "$WORK/fib.trace"
grep -q '^ *\[ *[0-9]*\] |   fib() {$' "$WORK/fib_replay.native" ||
	fail "replay shows no fib under main: $(head -c 300 "$WORK/fib_replay.native")"
same_reading fib_json json -D 3 "$WORK/fib.trace"
grep -q "\"function\": \"fib\", .*\"file\": \"$WORK/fib.c\", \"line\": 4," "$WORK/fib_json.native" ||
	fail "json gives fib no file and line: $(grep -m1 '"function": "fib"' "$WORK/fib_json.native")"
same_reading fib_info info "$WORK/fib.trace"
# Every view, of each trace.
every_view() { # NAME TRACE
	same_reading "$1_folded" flame --folded -o /dev/stdout "$2"
	same_reading "$1_seq" seq --format mermaid -o /dev/stdout "$2"
	same_reading "$1_graph" graph -o /dev/stdout "$2"
	same_reading "$1_chrome" chrome -o /dev/stdout "$2"
	same_reading "$1_speedscope" speedscope -o /dev/stdout "$2"
	same_reading "$1_diff" diff "$2" "$2"
}
every_view fib "$WORK/fib.trace"
[ "$(awk '{ n += $NF } END { print n }' "$WORK/fib_folded.native")" = 21892 ] ||
	fail "folded stacks do not count 21892 calls"
grep -q '^machine: *aarch64' "$WORK/fib_info.native" ||
	fail "info does not say aarch64: $(head -n 6 "$WORK/fib_info.native")"

# An x86-64 trace with argument values, read on aarch64.
[ "$(uname -m)" = x86_64 ] || pass
gcc -g -O0 -finstrument-functions -o "$WORK/kinds" "$ROOT/tests/programs/args/args_kinds.c" ||
	fail "cannot compile args_kinds"
record kinds --args "$WORK/kinds"
[ "$RC" = 0 ] || fail "kinds: exit $RC: $(head -c 300 "$WORK/kinds.err")"
same_reading kinds_json json -o /dev/stdout "$WORK/kinds.trace"
python3 "$ROOT/tests/e2e/args_check.py" "$WORK/kinds_json.a64" >"$WORK/kinds.check" ||
	fail "kinds read on aarch64: $(head -n 3 "$WORK/kinds.check")"
same_reading kinds_replay replay --max-lines 0 "$WORK/kinds.trace"
same_reading kinds_report report "$WORK/kinds.trace"
same_reading kinds_info info "$WORK/kinds.trace"
every_view kinds "$WORK/kinds.trace"
pass
