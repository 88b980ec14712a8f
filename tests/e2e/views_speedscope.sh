#!/usr/bin/env bash
# views_speedscope.sh - `calltrace speedscope` on multimod: the JSON parses,
# has speedscope's schema, one evented profile per thread whose O/C events
# balance and never go back in time, and an O event for every call.
source "$(dirname "$0")/lib.sh"
setup
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
ct speedscope -o "$WORK/mm.speedscope.json" "$WORK/mm.trace"
read -r opens profiles < <(check speedscope "$WORK/mm.speedscope.json")
[ "$opens" = 27 ] && [ "$profiles" = 5 ] || fail "speedscope: $opens calls in $profiles profiles, 27 in 5 expected"
python3 - "$WORK/mm.speedscope.json" <<'PY' || fail "speedscope: frames are not the 20 functions with file and line"
import json, sys
frames = json.load(open(sys.argv[1]))["shared"]["frames"]
names = {f["name"] for f in frames}
assert len(frames) == 20 and len(names) == 20, frames
assert all(f.get("file") and f.get("line") for f in frames), frames
assert {"main", "sh_clamp", "pl_double", "thread_a_main"} <= names
PY
ct speedscope -D 2 "$WORK/mm.trace" >"$WORK/d2.json"
read -r opens profiles < <(check speedscope "$WORK/d2.json")
[ "$opens" -lt 27 ] || fail "speedscope -D 2 still shows every call"
pass
