#!/usr/bin/env bash
# patch_unload.sh - the in-process engine forgets the marks of a module
# that is unloaded (tests/programs/plugins_reuse/main.c with the plugins of
# tests/programs/patch/unload): plugin A is loaded, its
# entry called (patched at its first call), and unloaded with the entry of
# alpha_unused still marked; plugin B, of the same size, is loaded at the
# same address and runs an int3 of its own where alpha_unused began, for
# the program's SIGTRAP handler.  Both plugins' calls are recorded with
# their own names, the trap reaches the program's handler (as untraced),
# and the program exits as untraced: the old mark taken for B's code sent
# B into A's trampoline.  Skipped when the loader put B elsewhere.
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/patch/unload
for plugin in unload_a unload_b; do
	gcc -std=gnu11 -g -O0 -fPIC -shared "$src/$plugin.c" -o "$WORK/$plugin.so" ||
		fail "cannot build $plugin.so"
done
gcc -std=gnu11 -g -O0 -o "$WORK/unload" "$PROGRAMS/plugins_reuse/main.c" -ldl ||
	fail "cannot compile plugins_reuse/main.c"
# The int3 of B lies where A's unused function began.
a_unused=$(nm "$WORK/unload_a.so" | awk '$3 == "alpha_unused" { print $1 }')
b_trap=$(objdump -d "$WORK/unload_b.so" | awk '/<bravo_entry>:/ { f = 1 } f && /\tint3/ { sub(":", "", $1); print $1; exit }')
[ -n "$a_unused" ] && [ "$((16#$a_unused))" = "$((16#$b_trap))" ] ||
	fail "the plugins' layout: alpha_unused at $a_unused, bravo_entry's int3 at $b_trap"

args=("$WORK/unload" "$WORK/unload_a.so" "$WORK/unload_b.so")
run_plain unload "${args[@]}"
[ "$PLAIN_RC" = 0 ] || fail "untraced run exited $PLAIN_RC: $(head -c 200 "$WORK/unload.plain.err")"
grep -qx 'alpha 21, bravo 22, traps 1' "$WORK/unload.plain.out" ||
	fail "untraced: $(head -n 1 "$WORK/unload.plain.out")"
grep -q '^same address: yes$' "$WORK/unload.plain.out" ||
	skip "the loader put the second plugin elsewhere: $(tr '\n' ' ' <"$WORK/unload.plain.out")"

record unload --engine patch "${args[@]}"
# Where the trace says the plugins were (the program may not have lived to say).
ct info "$WORK/unload.trace" >"$WORK/unload.info"
at() { awk -v m="/$1.so" '$1 == "module" && index($3, m) { split($2, r, "-"); print r[1] }' "$WORK/unload.info"; }
[ -n "$(at unload_a)" ] && [ -n "$(at unload_b)" ] || fail "info lists no plugins: $(grep module "$WORK/unload.info" | tr '\n' ' ')"
[ "$(at unload_a)" = "$(at unload_b)" ] ||
	skip "traced, the loader put the second plugin elsewhere ($(at unload_a), $(at unload_b))"
same_as_plain unload
to_json unload --kind function
expect_trees unload <<'TREES'
== process 1 main
main
  load_and_call
    alpha_entry
  load_and_call
    bravo_entry
      on_trap
TREES
expect_replay unload --kind function
pass
