#!/usr/bin/env bash
# reliability_early.sh - a program with its own instrumented malloc family
# and an instrumented function run from .preinit_array, before libc and
# the runtime's constructor.
#  - CALLTRACE_OUTPUT=x.trace LD_PRELOAD=...: everything goes to x.trace
#    (no stray ./calltrace.trace): early_init and early_leaf once, main
#    once, use_heap once with its one malloc and one free; output as
#    untraced.
#  - forking (calltrace record): the child's process holds exactly the
#    program's own calls: use_heap, one malloc, one free (the runtime's
#    fork handling must not call the program's allocator where it shows).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel ownmalloc ownmalloc.c

# Preloaded by hand, before libc is ready.
mkdir "$WORK/cwd"
cd "$WORK/cwd"
run_plain early "$WORK/ownmalloc"
RC=0
{ CALLTRACE_OUTPUT=x.trace LD_PRELOAD=$RUNTIME "$WORK/ownmalloc" >"$WORK/early.out" 2>"$WORK/early.err" || RC=$?; } 2>/dev/null
cd "$WORK"
[ "$RC" = "$PLAIN_RC" ] || fail "early: $(exit_name "$RC"), untraced $(exit_name "$PLAIN_RC"): $(head -c 200 "$WORK/early.err")"
cmp -s "$WORK/early.out" "$WORK/early.plain.out" || fail "early: stdout '$(head -c 200 "$WORK/early.out")'"
[ ! -e "$WORK/cwd/calltrace.trace" ] || fail "early: a stray calltrace.trace was written beside x.trace"
[ -s "$WORK/cwd/x.trace" ] || fail "early: nothing written to CALLTRACE_OUTPUT=x.trace ($(ls "$WORK/cwd" | tr '\n' ' '))"
info_of "$WORK/cwd/x.trace" "$WORK/early.info"
expect_complete "$WORK/early.info" early
ct report "$WORK/cwd/x.trace" >"$WORK/early.report"
for f in early_init early_leaf main use_heap; do
	expect_calls "$WORK/early.report" $f 1 "early"
done
ct report -F early_init "$WORK/cwd/x.trace" >"$WORK/early.init.report"
expect_calls "$WORK/early.init.report" malloc 1 "early (in early_init)"
expect_calls "$WORK/early.init.report" free 1 "early (in early_init)"
ct report -F use_heap "$WORK/cwd/x.trace" >"$WORK/early.heap.report"
expect_calls "$WORK/early.heap.report" malloc 1 "early (in use_heap)"
expect_calls "$WORK/early.heap.report" free 1 "early (in use_heap)"

# A fork: the child's calls are the program's only.
run_plain fork "$WORK/ownmalloc" fork
record fork "$WORK/ownmalloc" fork
same_as_plain fork
info_of "$WORK/fork.trace" "$WORK/fork.info"
expect_complete "$WORK/fork.info" fork
[ "$(info_field "$WORK/fork.info" processes)" = 2 ] || fail "fork: $(info_field "$WORK/fork.info" processes) processes, expected 2"
child=$(sed -n 's/^  image [0-9]*: pid \([0-9]*\), forked.*/\1/p' "$WORK/fork.info")
[ -n "$child" ] || fail "fork: info shows no forked process"
ct report --pid "$child" "$WORK/fork.trace" >"$WORK/fork.child.report"
for f in use_heap malloc free carve; do
	expect_calls "$WORK/fork.child.report" $f 1 "fork (the child)"
done
ct report "$WORK/fork.trace" >"$WORK/fork.report"
for f in malloc free use_heap; do
	[ "$f" = use_heap ] && n=2 || n=3 # early_init, the parent, the child
	expect_calls "$WORK/fork.report" $f $n "fork (both processes)"
done
pass
