#!/usr/bin/env bash
# patch_attach_own.sh - `calltrace attach` with the in-process engine
# records the program's own libraries as `record` does
# (tests/programs/patch/attach_own: a busy program whose work is in
# libown.so, beside it): own_tick and own_tock are recorded as the
# program's functions, every own_tick with one own_tock inside; -v says
# which modules and why (libown.so beside the program, the C library a
# system library), and info the entries patched as -v does.  With
# --no-own-libraries the library is left to the library-call boundary:
# own_tick is a library call, own_tock not seen, and -v says so (library
# calls recorded there).  The process ends as untraced.
source "$(dirname "$0")/lib.sh"
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
src=$PROGRAMS/patch/attach_own
mkdir "$WORK/app"
gcc -std=gnu11 -g -O0 -fPIC -shared -o "$WORK/app/libown.so" "$src/own.c" || fail "cannot build libown.so"
gcc -std=gnu11 -g -O0 -o "$WORK/app/attach_own" "$src/main.c" -L"$WORK/app" -lown \
	-Wl,-rpath,'$ORIGIN' || fail "cannot build attach_own"

# attach NAME [OPTION...]: attaches to a fresh target for 300 ms with -v;
# the trace in NAME.trace, stderr in NAME.err; the target ends as untraced.
attach() {
	local name=$1 rc=0
	shift
	start_target "$name.target" "$WORK/app/attach_own" 1
	timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 300ms -v \
		-o "$WORK/$name.trace" "$@" >/dev/null 2>"$WORK/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: attach exited $rc: $(tail -n 4 "$WORK/$name.err" | head -c 600)"
	grep -q "^calltrace: engine: in-process engine" "$WORK/$name.err" ||
		fail "$name: attach did not use the in-process engine: $(head -c 300 "$WORK/$name.err")"
	finish_target "$name.target"
	[ "$TARGET_RC" = 0 ] || fail "$name: the target exited $TARGET_RC after the detach"
	grep -qx 'rounds made: some' "$WORK/$name.target.out" ||
		fail "$name: the target said $(head -c 200 "$WORK/$name.target.out")"
	TARGET_PID=
}

# calls NAME: "function calls" of the trace's report, of the names asked.
calls() {
	ct report "$WORK/$1.trace" >"$WORK/$1.report"
	awk 'NR > 2 && $NF ~ /^own_t/ { print $NF, $5 }' "$WORK/$1.report" | sort
}

# says NAME LINE: -v said LINE (a fixed string, the whole line).
says() {
	grep -qxF "calltrace: $2" "$WORK/$1.err" ||
		fail "$1: -v did not say '$2': $(grep 'in-process engine' "$WORK/$1.err" | head -c 800)"
}

attach own
says own "in-process engine: $WORK/app/libown.so recorded (the program's own library: beside the program)"
says own "in-process engine: $WORK/app/attach_own recorded (the program)"
libc=$(grep -o "in-process engine: [^ ]*/libc\.so\.6 not recorded (a system library: the calls into it are library calls)" "$WORK/own.err" || true)
[ -n "$libc" ] || fail "own: -v does not say the C library is not recorded: $(grep 'libc' "$WORK/own.err")"
# info gives the entries the attach patched, as -v says them.
patched=$(sed -n 's/^calltrace: in-process engine: \([0-9]*\) of [0-9]* functions patched at the attach$/\1/p' "$WORK/own.err")
[ -n "$patched" ] && [ "$patched" -ge 4 ] || fail "own: -v says $patched functions patched at the attach"
ct info "$WORK/own.trace" >"$WORK/own.info"
grep -qx "    functions: $patched patched at start" "$WORK/own.info" ||
	fail "own: info says $(grep functions: "$WORK/own.info" || echo nothing), -v $patched patched"
read -r tick ticks < <(calls own | grep '^own_tick ') || fail "own: no own_tick in: $(cat "$WORK/own.report")"
read -r tock tocks < <(calls own | grep '^own_tock ') || fail "own: no own_tock in: $(cat "$WORK/own.report")"
[ "$ticks" -gt 0 ] || fail "own: $ticks calls of own_tick"
# Each own_tick has its own_tock (one may be cut by the start or the end).
[ $((ticks - tocks)) -ge -1 ] && [ $((ticks - tocks)) -le 1 ] ||
	fail "own: $ticks own_tick, $tocks own_tock"
to_json own
python3 - "$WORK/own.json" <<'PY' || fail "own: $(cat "$WORK/own.check")"
import json, sys
calls = []
def walk(c):
    calls.append(c)
    for k in c.get("children", []):
        walk(k)
for t in json.load(open(sys.argv[1]))["call_trees"].values():
    for c in t["calls"]:
        walk(c)
ticks = [c for c in calls if c["function"] == "own_tick"]
bad = [c for c in ticks if c.get("kind", "function") != "function" or
       [k["function"] for k in c.get("children", [])] not in (["own_tock"], [])]
if not ticks or len(bad) > 2:
    sys.exit(f"{len(ticks)} own_tick calls, {len(bad)} of them not a function holding one own_tock")
PY

# Library calls recorded (lib.sh leaves them out), to see own_tick's.
unset CALLTRACE_LIBCALL
attach no_own --no-own-libraries
says no_own "in-process engine: $WORK/app/libown.so not recorded (--no-own-libraries, and --module does not match it)"
calls no_own >"$WORK/no_own.calls"
grep -q '^own_tick@libown.so [1-9]' "$WORK/no_own.calls" ||
	fail "no_own: own_tick is no library call: $(tr '\n' ' ' <"$WORK/no_own.calls")"
! grep -q '^own_tock' "$WORK/no_own.calls" ||
	fail "no_own: own_tock recorded: $(tr '\n' ' ' <"$WORK/no_own.calls")"
# info says the library was left out as it was recorded; not of the whole one.
ct info "$WORK/no_own.trace" | grep -qx 'filtered:   --no-own-libraries (calls left out as they were recorded)' ||
	fail "no_own: info's filtered line: $(ct info "$WORK/no_own.trace" | grep filtered || echo none)"
! grep -q '^filtered:' "$WORK/own.info" || fail "own: info says the trace was filtered"
pass
