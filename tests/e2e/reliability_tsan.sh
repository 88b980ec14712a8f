#!/usr/bin/env bash
# reliability_tsan.sh - the runtime under ThreadSanitizer: its sources (the
# Makefile's RUNTIME_SRC, built with its RT_CFLAGS but default visibility,
# plus -fsanitize=thread) linked into tests/programs/reliability/
# tsan_stress.c, whose threads make calls and marks while another stops
# and starts recording and another forks, threads coming and going every
# round.  Passes when ThreadSanitizer reports nothing, the program prints
# what it prints untraced, exits 0, and the trace reads with 0 problems.
# Skipped when the compiler cannot build or run a ThreadSanitizer program.
# TORTURE=1: 20 rounds instead of 3.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
need_cmd make

echo 'int main(void) { return 0; }' >"$WORK/probe.c"
gcc -fsanitize=thread "$WORK/probe.c" -o "$WORK/probe" 2>/dev/null || skip "gcc cannot build with -fsanitize=thread"
"$WORK/probe" >/dev/null 2>&1 || skip "a ThreadSanitizer program does not run here"

# What the Makefile builds the runtime from, and how.
make -s --no-print-directory -C "$ROOT" \
	--eval '_rt_print: ; @echo $(RUNTIME_SRC); echo $(RT_CFLAGS)' _rt_print >"$WORK/rt.vars" ||
	fail "cannot ask the Makefile for RUNTIME_SRC and RT_CFLAGS"
read -r -a sources < <(sed -n 1p "$WORK/rt.vars")
mapfile -t flags < <(sed -n 2p "$WORK/rt.vars" | tr ' ' '\n' | grep -v -e '^-fvisibility' -e '^-M' -e '^$')
[ ${#sources[@]} -gt 0 ] || fail "the Makefile names no runtime sources"
objects=()
for src in "${sources[@]}"; do
	obj=$WORK/rt/$(basename "${src%.*}").o
	mkdir -p "$WORK/rt"
	(cd "$ROOT" && gcc "${flags[@]}" -fsanitize=thread -c "$src" -o "$obj") 2>"$WORK/cc.err" ||
		fail "cannot compile $src with -fsanitize=thread: $(head -c 300 "$WORK/cc.err")"
	objects+=("$obj")
done
gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -fsanitize=thread -I"$ROOT/include" \
	"$RELIABILITY/tsan_stress.c" "${objects[@]}" -o "$WORK/stress" -ldl -pthread 2>"$WORK/cc.err" ||
	fail "cannot link tsan_stress with the runtime: $(head -c 300 "$WORK/cc.err")"
gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -I"$ROOT/include" "$RELIABILITY/tsan_stress.c" \
	-o "$WORK/plain" -L"$BUILD/lib" -Wl,-Bstatic -lcalltrace -Wl,-Bdynamic -ldl -pthread ||
	fail "cannot build tsan_stress without ThreadSanitizer"

rounds=$(sized 3 20)
# The same program and runtime without ThreadSanitizer: the output to expect.
run_plain stress env CALLTRACE_OUTPUT="$WORK/plain.trace" "$WORK/plain" "$rounds"
RC=0
{ CALLTRACE_OUTPUT=$WORK/stress.trace TSAN_OPTIONS="halt_on_error=0 exitcode=66 history_size=4" \
	"$WORK/stress" "$rounds" >"$WORK/stress.out" 2>"$WORK/stress.err" || RC=$?; } 2>/dev/null
races=$(grep -c '^WARNING: ThreadSanitizer' "$WORK/stress.err" || true)
died=
if [ "$RC" -gt 128 ]; then
	# Where it died, from the runtime's own crash record.
	"$CALLTRACE" crash "$WORK/stress.trace" >"$WORK/stress.crash" 2>&1 || true
	died="; it died of $(exit_name "$RC") $(sed -n '2s/^ *//p' "$WORK/stress.crash" | head -c 200)"
fi
if [ "$races" != 0 ]; then
	# One line per report: its kind and the first frame of each of its stacks.
	awk '/^WARNING: ThreadSanitizer/ { sub(/ \(pid=.*/, ""); printf "\n%s:", $0; n = 0 }
	     /^    #0 / && n < 2 { printf " %s", $2 " " $3; n++ }' "$WORK/stress.err" | sort | uniq -c >&2
	fail "ThreadSanitizer reported $races problems$died; the first: $(grep -m1 -A6 '^WARNING: ThreadSanitizer' "$WORK/stress.err" | tr '\n' ' ' | head -c 600)"
fi
[ "$RC" = 0 ] || fail "tsan_stress ended with $(exit_name "$RC")$died: $(head -c 300 "$WORK/stress.err")"
cmp -s "$WORK/stress.out" "$WORK/stress.plain.out" || fail "tsan_stress printed '$(head -c 200 "$WORK/stress.out")'"
info_of "$WORK/stress.trace" "$WORK/stress.info"
[ "$(info_field "$WORK/stress.info" problems)" = 0 ] ||
	fail "$(info_field "$WORK/stress.info" problems) problems in the trace: $(grep -A2 '^problems' "$WORK/stress.info" | tr '\n' ' ')"
echo "$rounds rounds, $(info_field "$WORK/stress.info" processes) processes, $(grep -c '^    thread ' "$WORK/stress.info") threads, no race reported"
pass
