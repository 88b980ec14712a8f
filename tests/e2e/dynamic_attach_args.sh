#!/usr/bin/env bash
# dynamic_attach_args.sh - `calltrace attach --args` records arguments and
# return values, under each engine.
#
# tick_tock.c's tick(x) calls tock(x + 1), which returns
# (x * 2654435761) % 1000003.  An attach with --args must show every call
# of both with those values; --args=tock only tock's; an attach without
# --args after them none (the in-process engine takes its earlier
# trampolines again only when they capture what this attach wants).
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
build_c tick "$PROGRAMS/dynamic/tick_tock.c"

# attach_replay NAME ENGINE [OPTION...]: attaches for 300 ms; the replay
# in $WORK/NAME.replay.
attach_replay() {
	local name=$1 engine=$2 rc=0
	shift 2
	timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --engine "$engine" --duration 300ms \
		-o "$WORK/$name.trace" "$@" >/dev/null 2>"$WORK/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "attach $name exited $rc: $(head -c 300 "$WORK/$name.err")"
	ct replay "$WORK/$name.trace" >"$WORK/$name.replay"
}

# check_values NAME WHICH: in NAME's replay the functions in WHICH
# (tick,tock) show their values, right, and the others none.
check_values() {
	python3 - "$WORK/$1.replay" "$2" <<'PY' 2>"$WORK/values.err" || fail "$1: $(tail -n 1 "$WORK/values.err")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
wanted = set(filter(None, sys.argv[2].split(",")))
seen = {"tick": 0, "tock": 0}
last_tick = None
open_tocks = 0
for line in lines:
    m = re.search(r"\| +(tick|tock)\((.*?)\)( = (-?\d+))?", line)
    if not m:
        continue
    name, args, ret = m.group(1), m.group(2), m.group(4)
    seen[name] += 1
    if name not in wanted:
        if args or ret:
            sys.exit(f"{name} shows values though not asked: {line.strip()}")
        continue
    x = re.fullmatch(r"x=(-?\d+)", args)
    if not x:
        sys.exit(f"{name} without its argument: {line.strip()}")
    x = int(x.group(1))
    if name == "tick":
        last_tick = x
    elif ret is None:
        open_tocks += 1  # the detach came before its return
    elif int(ret) != (x * 2654435761) % 1000003:
        sys.exit(f"tock({x}) returned {ret}, not {(x * 2654435761) % 1000003}")
    elif "tick" in wanted and last_tick is not None and x != last_tick + 1:
        sys.exit(f"tock(x={x}) inside tick(x={last_tick})")
if open_tocks > 1:
    sys.exit(f"{open_tocks} tocks without their return value")
if seen["tick"] < 10 or seen["tock"] < 10:
    sys.exit(f"only {seen['tick']} ticks and {seen['tock']} tocks recorded")
PY
}

for engine in patch ptrace; do
	start_target "$engine" "$WORK/tick" 1
	attach_replay "$engine.all" "$engine" --args
	check_values "$engine.all" tick,tock
	attach_replay "$engine.tock" "$engine" --args=tock
	check_values "$engine.tock" tock
	attach_replay "$engine.none" "$engine"
	check_values "$engine.none" ""
	finish_target "$engine"
	[ "$TARGET_RC" = 3 ] || fail "after the attaches ($engine) the program exited $TARGET_RC"
done
RC=0
"$CALLTRACE" attach -p 1 --args='(' -o "$WORK/bad.trace" >/dev/null 2>"$WORK/bad.err" || RC=$?
[ "$RC" = 2 ] && grep -q "^calltrace: .*--args" "$WORK/bad.err" ||
	fail "--args='(': exit $RC, $(head -c 200 "$WORK/bad.err")"
pass
