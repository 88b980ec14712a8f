#!/usr/bin/env bash
# arm64_engines.sh - what does not run on aarch64 yet says so in one line:
# record of a program built without -finstrument-functions (the in-process
# engine) or with --engine ptrace, record --args, attach, and check's verdict;
# check of an instrumented aarch64 program finds nothing missing; the unit
# tests of the aarch64 build pass under qemu-user.
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
"$A64_CC" -g -O0 -o "$WORK/plain" "$WORK/leaf.c" || fail "cannot compile plain"
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
# Only with a tool that has not the engines (on x86-64 they run).
if ! grep -q 'define ARCH_HAS_PATCH_ENGINE 1' "$ROOT/src/arch/aarch64/arch.h"; then
	one_line "record of a plain program" 2 \
		'plain: the in-process engine .* is x86-64 only for now (this calltrace is aarch64): build it with -finstrument-functions' \
		"$A64_CALLTRACE" record -o "$WORK/p.trace" "$WORK/plain"
	[ ! -e "$WORK/p.trace" ] || fail "record of a plain program left a trace"
	one_line "record --engine ptrace" 2 'the ptrace engine .* is x86-64 only for now' \
		"$A64_CALLTRACE" record --engine ptrace -o "$WORK/q.trace" "$WORK/hooks"
	one_line "record --args" 2 '^calltrace: --args is x86-64 only for now (this calltrace is aarch64)$' \
		"$A64_CALLTRACE" record --args -o "$WORK/a.trace" "$WORK/hooks"
	one_line "attach" 1 'attach is x86-64 only for now (this calltrace is aarch64)' \
		"$A64_CALLTRACE" attach -p $$
	rc=0
	"$A64_CALLTRACE" check "$WORK/plain" >"$WORK/check.plain" 2>&1 || rc=$?
	[ $rc = 1 ] || fail "check of a plain program: exit $rc"
	grep -qx 'verdict: .*plain is not built with -finstrument-functions, and the engines that record such programs are x86-64 only for now (this calltrace is aarch64)' \
		"$WORK/check.plain" || fail "check of a plain program said: $(cat "$WORK/check.plain")"
fi
"$A64_CALLTRACE" check "$WORK/hooks" >"$WORK/check.hooks" 2>&1 ||
	fail "check of an instrumented program: $(tail -n 3 "$WORK/check.hooks")"
grep -q '^verdict: nothing missing' "$WORK/check.hooks" ||
	fail "check of an instrumented program: $(grep verdict "$WORK/check.hooks")"
grep -Eq '^  needs: +libc\.so\.6 \((/usr)?/lib/aarch64-linux-gnu/libc\.so\.6\)' "$WORK/check.hooks" ||
	fail "check of an instrumented program: $(grep 'libc' "$WORK/check.hooks")"
one_line "check of an x86-64 file" 2 'not an aarch64 ELF file' "$A64_CALLTRACE" check "$CALLTRACE"

# The aarch64 build's unit tests.
n=0
for t in "$A64_BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	"$t" >"$WORK/unit.out" 2>&1 || fail "$(basename "$t") on aarch64: $(tail -n 3 "$WORK/unit.out")"
	n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n unit tests in $A64_BUILD/tests"
pass
