#!/usr/bin/env bash
# libcall_jumps.sh - library calls that never return and library calls a
# signal handler or a child process leaves (tests/programs/jumps.c): each
# longjmp is recorded every time (a lazily bound slot resolved by a call
# that never returns gets its trampoline back), the handler runs beneath
# raise, and a fork child's trace goes on below its own return from fork
# (a later longjmp there keeps the calls it should).  Exact trees, with
# hooks (the runtime) and without (the in-process engine).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
cat >"$WORK/expected" <<'TREE'
main
  jump_plain
    dive_1
      dive_2
        dive_3
          @longjmp
    after_jump
    after_jump
  jump_plain
    dive_1
      dive_2
        dive_3
          @longjmp
    after_jump
    after_jump
  jump_from_handler
    @signal
    sig_dive
      @raise
        on_usr1
          @siglongjmp
    after_jump
  jump_nested
    catcher
      dive_1
        dive_2
          dive_3
            @longjmp
      after_jump
    after_jump
  @fflush
  jump_in_child
    @fork
    @waitpid
  @printf
jump_plain
  dive_1
    dive_2
      dive_3
        @longjmp
  after_jump
  after_jump
@exit
TREE
for kind in hooks plain; do
	flags=(-finstrument-functions)
	[ $kind = plain ] && flags=()
	gcc -std=gnu11 -g -O0 -no-pie "${flags[@]}" -o "$WORK/jumps_$kind" "$PROGRAMS/jumps.c" ||
		fail "cannot compile jumps_$kind"
	record "$kind" "$WORK/jumps_$kind"
	[ "$RC" = 0 ] || fail "$kind: record exited $RC: $(head -c 300 "$WORK/$kind.err")"
	[ "$(cat "$WORK/$kind.out")" = "jumps 4" ] || fail "$kind: printed '$(cat "$WORK/$kind.out")'"
	ct json -o "$WORK/$kind.json" "$WORK/$kind.trace"
	python3 "$ROOT/tests/e2e/libcall_tree.py" "$WORK/$kind.json" "$WORK/jumps_$kind" \
		>"$WORK/$kind.got" || fail "$kind: cannot read the trees"
	expect_text "library calls of jumps ($kind)" "$WORK/expected" "$WORK/$kind.got"
done
pass
