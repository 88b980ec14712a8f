#!/usr/bin/env bash
# libcall_threads.sh - four threads make their first calls of the same C
# library functions at once (tests/programs/libcall/lazy_threads.c), so
# that several threads go through a lazily bound slot's resolution
# together: every call is recorded, each beneath the round_calls that made
# it (six each, 100 rounds in each thread), in five runs, with hooks and
# without.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
for kind in plain hooks; do
	flags=()
	[ $kind = hooks ] && flags=(-finstrument-functions)
	gcc -g -O0 -no-pie -fno-builtin -pthread "${flags[@]}" -o "$WORK/lt_$kind" \
		"$PROGRAMS/libcall/lazy_threads.c" || fail "cannot compile lt_$kind"
	for run in 1 2 3 4 5; do
		name=${kind}_$run
		record "$name" "$WORK/lt_$kind" 100
		[ "$RC" = 0 ] && [ "$(cat "$WORK/$name.out")" = 51400 ] ||
			fail "$name: exit $RC, printed '$(cat "$WORK/$name.out")'"
		ct json -o "$WORK/$name.json" "$WORK/$name.trace"
		python3 - "$WORK/$name.json" 2>"$WORK/check.err" <<'PY' || fail "$name: $(cat "$WORK/check.err")"
import json, sys
want = sorted(["abs", "labs", "atoi", "strtol", "toupper", "__ctype_b_loc"])
doc = json.load(open(sys.argv[1]))
rounds = 0
def walk(calls):
    global rounds
    for c in calls:
        if c["function"] == "round_calls":
            kids = sorted(k["function"] for k in c.get("children", []))
            if kids != want or any(k.get("kind") != "library" for k in c["children"]):
                sys.exit("round_calls holds %s" % kids)
            rounds += 1
        walk(c.get("children", []))
for tree in doc["call_trees"].values():
    walk(tree["calls"])
if rounds != 400:
    sys.exit("%d round_calls, 400 expected" % rounds)
PY
	done
done
pass
