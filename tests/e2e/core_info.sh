#!/usr/bin/env bash
# core_info.sh - `calltrace info` lists the processes, threads and modules of
# a trace and its event count, and says which options left calls out as
# they were recorded (info's "filtered:" line, JSON's metadata.filters).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
to_json mm
ct info "$WORK/mm.trace" >"$WORK/mm.info"
check_tree trees "$WORK/mm.json" >"$WORK/trees"

for pid in $(cut -d' ' -f2 "$WORK/trees" | sort -u); do
	grep -qw "$pid" "$WORK/mm.info" || fail "info does not list pid $pid"
done
for tid in $(cut -d' ' -f3 "$WORK/trees"); do
	grep -qw "$tid" "$WORK/mm.info" || fail "info does not list tid $tid"
done
for module in multimod libshared.so plugin.so; do
	grep -qF "$WORK/mm/$module" "$WORK/mm.info" || fail "info does not list the module $module"
done
grep -qF "$WORK/mm/multimod $WORK/mm/plugin.so" "$WORK/mm.info" || fail "info does not show the command"

# Every call finished: two events (enter, exit) per call.
events=$((2 * $(meta mm total_calls)))
grep -i 'event' "$WORK/mm.info" | tr -d ',' | grep -qw "$events" ||
	fail "info does not show the event count $events: $(grep -i event "$WORK/mm.info" | head -n 3 | tr '\n' ' ')"
grep -q '^filtered:' "$WORK/mm.info" && fail "info says a trace recorded whole was filtered"

record cut -t 1ms -D 3 -N 'never_.*' --no-follow "$WORK/mm/multimod" "$WORK/mm/plugin.so"
ct info "$WORK/cut.trace" >"$WORK/cut.info"
grep '^filtered:' "$WORK/cut.info" >"$WORK/cut.filtered" || true
expect_text "info's filtered line" - "$WORK/cut.filtered" <<'EOF'
filtered:   -t 1ms -D 3 -N 'never_.*' --no-follow (calls left out as they were recorded)
EOF
to_json cut
expect_meta cut filters "-t 1ms -D 3 -N 'never_.*' --no-follow"
pass
