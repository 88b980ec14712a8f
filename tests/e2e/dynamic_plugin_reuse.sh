#!/usr/bin/env bash
# dynamic_plugin_reuse.sh - tests/programs/plugins_reuse recorded by the
# dynamic engine: plugin A is loaded, called and unloaded, then plugin B,
# of identical layout, is loaded at the same address and called.  B's
# calls must bear B's names and A's calls A's, with jump entries and with
# int3 entries (CALLTRACE_NO_JUMP=1, where both plugins' breakpoints sit
# at the same addresses).  Skipped when the loader did not reuse the
# address.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
src=$PROGRAMS/plugins_reuse
for plugin in plugin_a plugin_b; do
	gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -fPIC -shared "$src/$plugin.c" -o "$WORK/$plugin.so" ||
		fail "cannot build $plugin.so"
done
build_c reuse "$src/main.c" -ldl
args=("$WORK/reuse" "$WORK/plugin_a.so" "$WORK/plugin_b.so")
run_plain reuse "${args[@]}"
[ "$PLAIN_RC" = 0 ] || fail "untraced run exited $PLAIN_RC: $(head -c 200 "$WORK/reuse.plain.err")"
grep -q '^same address: yes$' "$WORK/reuse.plain.out" ||
	skip "the loader put the second plugin elsewhere: $(tr '\n' ' ' <"$WORK/reuse.plain.out")"

for entries in jump int3; do
	name=reuse_$entries
	no_jump=0
	[ "$entries" = int3 ] && no_jump=1
	cp "$WORK/reuse.plain.out" "$WORK/$name.plain.out"
	cp "$WORK/reuse.plain.err" "$WORK/$name.plain.err"
	CALLTRACE_NO_JUMP=$no_jump record "$name" --dynamic --module 'plugin_' "${args[@]}"
	grep -q '^same address: yes$' "$WORK/$name.out" ||
		skip "traced, the loader put the second plugin elsewhere ($entries entries)"
	same_as_plain "$name"
	to_json "$name"
	expect_trees "$name" <<'TREES'
== process 1 main
main
  load_and_call
    alpha_entry
      alpha_twice
  load_and_call
    bravo_entry
      bravo_twice
TREES
	expect_replay "$name"
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
	for plugin in plugin_a plugin_b; do
		[ "$(grep -c "module .*/$plugin.so" "$WORK/$name.info")" = 1 ] ||
			fail "$name: info does not show $plugin.so once: $(grep module "$WORK/$name.info" | tr '\n' ' ')"
	done
done
pass
