#!/usr/bin/env bash
# patch_preinit.sh - a .preinit_array function runs before any library's
# constructor: the hooks and the ptrace engine record it; the in-process
# engine, which starts in the runtime's constructor, cannot, and -v says so.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
same_trees_build pre "$PROGRAMS/preinit.c"

printf 'early_setup 1\nmain 1\n' >"$WORK/both.expected"
record hooks "$WORK/pre.hooks"
counts hooks >"$WORK/hooks.calls"
expect_text "the hooks' calls" "$WORK/both.expected" "$WORK/hooks.calls"
record ptrace --engine ptrace "$WORK/pre.plain"
counts ptrace >"$WORK/ptrace.calls"
expect_text "the ptrace engine's calls" "$WORK/both.expected" "$WORK/ptrace.calls"

record patch -v "$WORK/pre.plain"
grep -qx 'early value 42' "$WORK/patch.out" || fail "patch: the program printed $(cat "$WORK/patch.out")"
counts patch >"$WORK/patch.calls"
printf 'main 1\n' >"$WORK/patch.expected"
expect_text "the in-process engine's calls" "$WORK/patch.expected" "$WORK/patch.calls"
grep -q '^calltrace: in-process engine: the 1 .preinit_array function ran before it started: not recorded' \
	"$WORK/patch.err" || fail "patch -v does not say the .preinit_array function is not recorded: $(cat "$WORK/patch.err")"
record quiet "$WORK/pre.plain"
grep -q 'preinit_array' "$WORK/quiet.err" && fail "without -v, the .preinit_array line is said"
pass
