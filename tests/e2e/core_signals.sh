#!/usr/bin/env bash
# core_signals.sh - signal handlers that call instrumented functions nest
# under the call that raised the signal; errno is the same after each of a
# million instrumented calls (many event windows) and across a handler; the
# program's output and exit code (4) are unchanged.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c signals "$PROGRAMS/signals.c"
run_plain sig "$WORK/signals"
[ "$PLAIN_RC" = 4 ] || fail "untraced run exited $PLAIN_RC, not 4"
record sig "$WORK/signals"
same_as_plain sig
grep -qx 'usr1 2 usr2 1 errno changed 0 kept across handler 1' "$WORK/sig.out" ||
	fail "traced output: $(head -c 200 "$WORK/sig.out")"

# The million errno_bystander calls are hidden from the tree (-N) and
# counted by the report.
to_json sig -N '^errno_bystander$'
check_tree schema "$WORK/sig.json" --files
expect_trees sig <<'TREES'
== process 1 main
main
  install_handlers
  send_self
    on_usr1
      handler_work
        handler_leaf
  send_self
    on_usr2
      handler_leaf
  errno_check
  handler_errno_check
    send_self
      on_usr1
        handler_work
          handler_leaf
TREES
check_tree lines "$WORK/sig.json" "$WORK/signals"
expect_replay sig -N '^errno_bystander$'
ct report "$WORK/sig.trace" >"$WORK/sig.report"
calls=$(report_calls "$WORK/sig.report" errno_bystander)
[ "$calls" = 1000000 ] || fail "report counts $calls calls of errno_bystander, not 1000000"
pass
