#!/usr/bin/env bash
# libcall_exceptions.sh - a C++ exception thrown three times through two
# frames and caught (tests/programs/libcall/throws.cpp), recorded with its
# library calls: __cxa_throw never returns.  Every catcher() ends before
# the next begins: main's children are the three catcher() calls and
# printf (the exact tree).  With hooks (-finstrument-functions, whose exits
# come as the exception passes the frames: the three __cxa_throw calls are
# the only unfinished ones) and without (the in-process engine, which ends
# the frames left at the catch: none unfinished).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
for kind in hooks plain; do
	flags=(-g -O0)
	[ $kind = hooks ] && flags+=(-finstrument-functions)
	g++ "${flags[@]}" -o "$WORK/throws_$kind" "$PROGRAMS/libcall/throws.cpp" ||
		fail "cannot compile throws_$kind"
	record "t_$kind" "$WORK/throws_$kind"
	[ "$RC" = 0 ] || fail "$kind: record exited $RC"
	grep -qx "caught 3" "$WORK/t_$kind.out" || fail "$kind: the program printed $(cat "$WORK/t_$kind.out")"
	ct json -o "$WORK/t_$kind.json" "$WORK/t_$kind.trace"
	check_tree render "$WORK/t_$kind.json" >"$WORK/t_$kind.tree"
	# hooks: the exits of the frames passed come first, and __cxa_throw
	# is left unfinished; the in-process engine ends all three at the catch
	left=" [unfinished]" unfinished=3
	[ $kind = plain ] && left="" unfinished=0
	cat >"$WORK/want" <<TREE
== process 1 main
main
  catcher [x3]
    thrower
      thrower
        __cxa_allocate_exception
        __cxa_throw$left
    __cxa_end_catch
  printf
TREE
	diff -u "$WORK/want" "$WORK/t_$kind.tree" >&2 || fail "$kind: not the tree expected"
	ct info "$WORK/t_$kind.trace" >"$WORK/t_$kind.info"
	grep -qx "unfinished: $unfinished calls had no recorded end" "$WORK/t_$kind.info" ||
		fail "$kind: $(grep '^unfinished' "$WORK/t_$kind.info"); the tree: $(head -c 1500 "$WORK/t_$kind.tree")"
done
pass
