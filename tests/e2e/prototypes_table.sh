#!/usr/bin/env bash
# prototypes_table.sh - the checked-in table of built-in prototypes
# (src/symbols/prototypes_table.c) is what scripts/gen_prototypes.py makes
# of prototypes.list; a list changed without running the script is caught
# in one line, and a malformed line is named with its line number.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup

out=$(python3 "$ROOT/scripts/gen_prototypes.py" --check) ||
	fail "the checked-in table is out of date: $out"
[[ $out == "prototypes_table.c is up to date ("*" functions)" ]] || fail "check said: $out"

# A copy of the generator and its list, changed.
mkdir -p "$WORK/scripts" "$WORK/src/symbols"
cp "$ROOT/scripts/gen_prototypes.py" "$ROOT/scripts/gen_syscalls.py" "$WORK/scripts/"
cp "$ROOT/src/symbols/prototypes.list" "$ROOT/src/symbols/prototypes_table.c" "$WORK/src/symbols/"
echo "int my_new_function(int x) fails -1" >>"$WORK/src/symbols/prototypes.list"
rc=0
python3 "$WORK/scripts/gen_prototypes.py" --check >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "a stale table: exit $rc, not 1"
[ "$(wc -l <"$WORK/err")" = 1 ] && grep -q "prototypes_table.c is out of date" "$WORK/err" ||
	fail "a stale table: $(cat "$WORK/err")"
python3 "$WORK/scripts/gen_prototypes.py" >/dev/null
grep -qF '{"my_new_function", PT_INT, PF_MINUS_ONE, 1, 0, {{"x", PT_INT, PROTO_NO_LEN}}},' \
	"$WORK/src/symbols/prototypes_table.c" || fail "the new function is not in the table"
python3 "$WORK/scripts/gen_prototypes.py" --check >/dev/null || fail "regenerated, still stale"

# A malformed line: its number, one line, exit 1.
echo "int broken(widget w)" >>"$WORK/src/symbols/prototypes.list"
lines=$(wc -l <"$WORK/src/symbols/prototypes.list")
rc=0
python3 "$WORK/scripts/gen_prototypes.py" --check >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] || fail "a malformed line: exit $rc, not 1"
grep -q "prototypes.list:$lines: bad argument 'widget w'" "$WORK/err" ||
	fail "a malformed line: $(cat "$WORK/err")"
pass
