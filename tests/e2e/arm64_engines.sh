#!/usr/bin/env bash
# arm64_engines.sh - the in-process engine on aarch64 (under qemu-user):
# an unmodified fib recorded call for call, entries whose first instruction
# reads the program counter moved and run right; what does not run on
# aarch64 yet says so in one line (--engine ptrace, attach); check of an
# instrumented aarch64 program finds nothing missing; the unit tests of the
# aarch64 build pass under qemu-user, with aarch64's compilers (their
# programs' arguments are where AAPCS64 puts them).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require

cat >"$WORK/leaf.c" <<'C'
int leaf(int x) { return x + 1; }
int main(void) { return leaf(41) == 42 ? 0 : 1; }
C
a64_build_c hooks "$WORK/leaf.c"

# one_line WHAT EXPECTED_RC PATTERN COMMAND...: the command exits so and
# says PATTERN on the one line of stderr.
one_line() {
	local what=$1 want=$2 pattern=$3 rc=0
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, not $want: $(head -c 300 "$WORK/err")"
	[ "$(wc -l <"$WORK/err")" = 1 ] || fail "$what: not one line: $(head -c 400 "$WORK/err")"
	grep -q "$pattern" "$WORK/err" || fail "$what said: $(cat "$WORK/err")"
}
one_line "record --engine ptrace" 2 'the ptrace engine .* is x86-64 only for now' \
	"$A64_CALLTRACE" record --engine ptrace -o "$WORK/q.trace" "$WORK/hooks"
one_line "attach" 1 'attach is x86-64 only for now (this calltrace is aarch64)' \
	"$A64_CALLTRACE" attach -p $$

# The in-process engine records a program built without flags: every call
# of fib(20) exactly, and its atoi and printf as library calls.
"$A64_CC" -g -O0 -o "$WORK/fib" "$ROOT/tests/e2e/arm64/fib.c" || fail "cannot compile fib"
CALLTRACE_LIBCALL=1 "$A64_CALLTRACE" record -v -o "$WORK/fib.trace" "$WORK/fib" 20 >"$WORK/fib.out" 2>"$WORK/fib.err" ||
	fail "record of fib: $(tail -n 3 "$WORK/fib.err")"
[ "$(cat "$WORK/fib.out")" = 6765 ] || fail "fib printed $(head -c 100 "$WORK/fib.out")"
grep -q 'in-process engine: 2 of 2 functions patched$' "$WORK/fib.err" ||
	fail "record -v of fib said: $(grep 'in-process' "$WORK/fib.err")"
grep -q 'in-process engine: 2 functions marked, 2 ran$' "$WORK/fib.err" ||
	fail "record -v of fib: not patched at the first calls: $(grep 'in-process' "$WORK/fib.err")"
grep -qE '^calltrace: library calls: [0-9]+ slots hooked in .*/fib$' "$WORK/fib.err" ||
	fail "record -v of fib does not say its slots are hooked: $(cat "$WORK/fib.err")"
"$NATIVE_CALLTRACE" report "$WORK/fib.trace" >"$WORK/fib.report" || fail "report of fib.trace"
[ "$(report_calls "$WORK/fib.report" fib)" = 21891 ] ||
	fail "fib(20): $(report_calls "$WORK/fib.report" fib) calls, not 21891"
[ "$(report_calls "$WORK/fib.report" main)" = 1 ] || fail "main: not one call"
for f in printf@libc.so.6 atoi@libc.so.6; do
	[ "$(report_calls "$WORK/fib.report" $f)" = 1 ] || fail "fib: $f not one library call"
done

# Entries whose first instruction reads the program counter run moved into
# their trampolines (adr, adrp, ldr literal of each width, cbz, cbnz, tbz,
# tbnz, b, b.cond with the caller's flags): the same results as untraced,
# every call recorded.
"$A64_CC" -O1 -o "$WORK/reloc" "$ROOT/tests/e2e/arm64/reloc.c" || fail "cannot compile reloc.c"
"$WORK/reloc" >"$WORK/reloc.plain" || fail "reloc untraced failed"
"$A64_CALLTRACE" record -o "$WORK/reloc.trace" "$WORK/reloc" >"$WORK/reloc.out" 2>"$WORK/reloc.err" ||
	fail "record of reloc: $(tail -n 3 "$WORK/reloc.err")"
expect_text "reloc's output recorded" "$WORK/reloc.plain" "$WORK/reloc.out"
[ "$(head -n 1 "$WORK/reloc.out")" = '11 1234 4886718345 66 -5 2.5' ] ||
	fail "reloc untraced printed $(head -n 1 "$WORK/reloc.out")"
"$NATIVE_CALLTRACE" report "$WORK/reloc.trace" >"$WORK/reloc.report" || fail "report of reloc.trace"
for f in f_adr f_adrp f_ldr_x f_ldr_w f_ldrsw f_ldr_d f_b g_target; do
	[ "$(report_calls "$WORK/reloc.report" $f)" = 1 ] || fail "reloc: $f not called once"
done
for f in f_cbz f_cbnz f_tbz f_tbnz f_bcond; do
	[ "$(report_calls "$WORK/reloc.report" $f)" = 2 ] || fail "reloc: $f not called twice"
done

"$A64_CALLTRACE" check "$WORK/hooks" >"$WORK/check.hooks" 2>&1 ||
	fail "check of an instrumented program: $(tail -n 3 "$WORK/check.hooks")"
grep -q '^verdict: nothing missing' "$WORK/check.hooks" ||
	fail "check of an instrumented program: $(grep verdict "$WORK/check.hooks")"
grep -Eq '^  needs: +libc\.so\.6 \((/usr)?/lib/aarch64-linux-gnu/libc\.so\.6\)' "$WORK/check.hooks" ||
	fail "check of an instrumented program: $(grep 'libc' "$WORK/check.hooks")"
one_line "check of an x86-64 file" 2 'not an aarch64 ELF file' "$A64_CALLTRACE" check "$CALLTRACE"

# The aarch64 build's unit tests, with aarch64's compilers and tools.
a64_shim "$WORK/shim"
n=0
for t in "$A64_BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	PATH="$WORK/shim:$PATH" "$t" >"$WORK/unit.out" 2>&1 || fail "$(basename "$t") on aarch64: $(tail -n 3 "$WORK/unit.out")"
	n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n unit tests in $A64_BUILD/tests"
pass
