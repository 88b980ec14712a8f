#!/usr/bin/env bash
# patch_no_disassembler.sh - libcalltrace.so opens the disassembler
# (libcapstone.so.4) only when an entry must be decoded: a program that
# finds none in its place (LD_LIBRARY_PATH leads to an empty file of that
# name) says so in one line, runs as it does untraced, and its library
# calls are still recorded (one printf or dprintf a line it prints); its
# functions are marked but none is patched.
source "$(dirname "$0")/lib.sh"
setup
unset CALLTRACE_LIBCALL # library calls recorded
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
build_multimod "$WORK/plain" pie
mkdir -p "$WORK/fake"
: >"$WORK/fake/libcapstone.so.4"

run_plain nodis "$WORK/plain/multimod" "$WORK/plain/plugin.so"
record nodis env LD_LIBRARY_PATH="$WORK/fake" "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = "$PLAIN_RC" ] || fail "exit $RC, untraced $PLAIN_RC"
cmp -s "$WORK/nodis.out" "$WORK/nodis.plain.out" || fail "stdout differs from the untraced run's"
said=$(grep -c "disassembler" "$WORK/nodis.err" || true)
[ "$said" = 1 ] || fail "said $said times: $(cat "$WORK/nodis.err")"
grep -qx "calltrace: in-process engine: cannot set up the disassembler ($WORK/fake/libcapstone.so.4: file too short): functions are not traced" \
	"$WORK/nodis.err" || fail "not the one line expected: $(grep disassembler "$WORK/nodis.err")"

# The program's three processes: marked, none patched; its printf calls recorded.
ct info "$WORK/nodis.trace" >"$WORK/info"
[ "$(grep -c '^    functions: 20 marked, 0 ran' "$WORK/info")" = 3 ] ||
	fail "the program's processes patched functions: $(grep functions: "$WORK/info")"
ct report "$WORK/nodis.trace" >"$WORK/report"
printed=$(awk '$NF == "printf@libc.so.6" || $NF == "dprintf@libc.so.6" { n += $5 } END { print n + 0 }' "$WORK/report")
[ "$printed" = "$(grep -c . "$WORK/nodis.plain.out")" ] ||
	fail "not one printf or dprintf call a line of output: $(grep printf "$WORK/report" || true)"
pass
