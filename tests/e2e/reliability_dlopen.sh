#!/usr/bin/env bash
# reliability_dlopen.sh - an instrumented plugin dlopen'd, called and
# dlclose'd 1000 times, then plugin A unloaded and plugin B (other names,
# the same layout) loaded at the same address: output and exit status as
# untraced; exactly the calls made (a_entry and a_leaf 1001 times, b_entry
# and b_leaf 3 times: B's calls named after B), 0 problems, 0 unfinished.
# The program says whether the loader really put B where A was; if not,
# the check of the names proves nothing and is skipped with a note.
# TORTURE=1: 10,000 cycles.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel dlcycle dlcycle.c -ldl
for p in a b; do
	gcc -std=gnu11 "${CFLAGS_TRACED[@]}" -fPIC -shared "$RELIABILITY/plugin_$p.c" -o "$WORK/plugin_$p.so" ||
		fail "cannot build plugin_$p.so"
done

cycles=$(sized 1000 10000)
run_plain dl "$WORK/dlcycle" "$cycles" "$WORK/plugin_a.so" "$WORK/plugin_b.so"
[ "$PLAIN_RC" = 0 ] || fail "dlcycle exits $PLAIN_RC untraced: $(head -c 200 "$WORK/dl.plain.err")"
record dl "$WORK/dlcycle" "$cycles" "$WORK/plugin_a.so" "$WORK/plugin_b.so"
# Where the loader put B may differ from the untraced run: only the calls
# line is compared.
reuse=$(sed -n 's/^reuse //p' "$WORK/dl.out")
sed -i '/^reuse /d' "$WORK/dl.out" "$WORK/dl.plain.out"
same_as_plain dl
info_of "$WORK/dl.trace" "$WORK/dl.info"
expect_complete "$WORK/dl.info" dl
ct report "$WORK/dl.trace" >"$WORK/dl.report"
report=$WORK/dl.report
expect_calls "$report" cycle "$cycles" dl
expect_calls "$report" open_plugin $((cycles + 2)) dl
if [ "$reuse" = same ]; then
	expect_calls "$report" a_entry $((cycles + 1)) dl
	expect_calls "$report" a_leaf $((cycles + 1)) dl
	expect_calls "$report" b_entry 3 "dl (B loaded where A was)"
	expect_calls "$report" b_leaf 3 "dl (B loaded where A was)"
else
	echo "note: the loader put plugin B elsewhere than A; the names after address reuse are not checked"
	total=$(($(calls_of "$report" a_entry) + $(calls_of "$report" b_entry)))
	[ "$total" = $((cycles + 4)) ] || fail "dl: $total calls of a_entry and b_entry, the program made $((cycles + 4))"
fi
echo "$cycles dlopen/dlclose cycles; B loaded where A was: $reuse"
pass
