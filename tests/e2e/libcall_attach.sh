#!/usr/bin/env bash
# libcall_attach.sh - `calltrace attach` records library calls too: the
# running process's GOT slots are hooked at the attach (its calls of getpid
# and labs show beneath `work`), and every slot holds the C library's
# function again after the detach; the process ends as it would have.  A
# library of the program's own that calls its own export through its PLT
# has that call recorded once, by the function's patched entry (not also
# as a library call around it); an export too short for the jump keeps
# the library call's record.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
gcc -g -O1 -no-pie -fno-builtin -o "$WORK/target" "$PROGRAMS/libcall/attach_libcalls.c" ||
	fail "cannot compile the target"

start_target t "$WORK/target" x
RC=0
"$CALLTRACE" attach -p "$TARGET_PID" --duration 1s -o "$WORK/t.trace" >"$WORK/attach.out" \
	2>"$WORK/attach.err" || RC=$?
[ "$RC" = 0 ] || fail "attach exited $RC: $(head -c 300 "$WORK/attach.err")"

# Every hooked slot holds an address in the C library again (read from the
# live process: a non-PIE executable's slots are where readelf says).
python3 - "$TARGET_PID" "$WORK/target" >"$WORK/slots.out" 2>&1 <<'PY' || fail "slots after the detach: $(cat "$WORK/slots.out")"
import re, struct, subprocess, sys
pid, exe = sys.argv[1], sys.argv[2]
libc = []
for line in open("/proc/%s/maps" % pid):
    f = line.split()
    if len(f) >= 6 and "libc.so" in f[5]:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        libc.append((lo, hi))
rel = subprocess.run(["readelf", "-rW", exe], capture_output=True, text=True).stdout
mem = open("/proc/%s/mem" % pid, "rb")
for name in ("getpid", "labs"):
    m = re.search(r"^([0-9a-f]+)\s+\S+\s+R_X86_64_JUMP_SLOT\s+\S+\s+%s@" % name, rel, re.M)
    mem.seek(int(m.group(1), 16))
    value = struct.unpack("<Q", mem.read(8))[0]
    if not any(lo <= value < hi for lo, hi in libc):
        sys.exit("%s's slot holds %#x, in no C library mapping" % (name, value))
PY
finish_target t
[ "$TARGET_RC" = 0 ] || fail "the target ended with status $TARGET_RC: $(head -c 300 "$WORK/t.err")"

ct json -o "$WORK/t.json" "$WORK/t.trace"
python3 "$ROOT/tests/e2e/libcall_tree.py" "$WORK/t.json" "$WORK/target" >"$WORK/t.tree" ||
	fail "cannot read the trees"
# Each work holds a getpid and a labs, in this order (the first and last
# may be cut by the attach and the detach).
python3 - "$WORK/t.tree" <<'PY' || fail "trees: $(head -c 400 "$WORK/t.tree")"
import sys
lines = open(sys.argv[1]).read().split("\n")
whole = 0
for i, line in enumerate(lines):
    if line.strip() != "work":
        continue
    depth = len(line) - len(line.lstrip())
    kids, j = [], i + 1
    while j < len(lines) and len(lines[j]) - len(lines[j].lstrip()) > depth:
        kids.append(lines[j].strip())
        j += 1
    if kids == ["@getpid", "@labs"]:
        whole += 1
    elif set(kids) - {"@getpid", "@labs"}:
        sys.exit("work holds %s" % kids)
if whole < 10:
    sys.exit("only %d whole work calls" % whole)
PY

# A library's call of its own export, through its PLT: recorded once.
gcc -g -O1 -fPIC -shared -o "$WORK/libownexport.so" "$PROGRAMS/libcall/own_export_lib.c" ||
	fail "cannot compile the library"
gcc -g -O1 -o "$WORK/own_export" "$PROGRAMS/libcall/own_export_main.c" -L"$WORK" -lownexport \
	-Wl,-rpath,"$WORK" || fail "cannot compile the program"
start_target o "$WORK/own_export" x
RC=0
"$CALLTRACE" attach -p "$TARGET_PID" --duration 500ms -o "$WORK/o.trace" >"$WORK/attach.out" \
	2>"$WORK/attach.err" || RC=$?
[ "$RC" = 0 ] || fail "attach to own_export exited $RC: $(head -c 300 "$WORK/attach.err")"
finish_target o
[ "$TARGET_RC" = 0 ] || fail "own_export ended with status $TARGET_RC: $(head -c 300 "$WORK/o.err")"
ct json -o "$WORK/o.json" "$WORK/o.trace"
python3 - "$WORK/o.json" >"$WORK/o.check" 2>&1 <<'PY' || fail "own export: $(cat "$WORK/o.check")"
import json, sys
calls = [c for t in json.load(open(sys.argv[1]))["call_trees"].values() for c in t["calls"]]
whole = 0
for c in calls:
    if c["function"] != "outer" or "end_ns" not in c:
        continue
    kids = [(k["function"], k.get("kind", "function"), len(k["children"])) for k in c["children"]]
    if kids != [("inner", "function", 0), ("tiny_inner", "library", 0)]:
        sys.exit("outer holds %s" % kids)
    whole += 1
if whole < 10:
    sys.exit("only %d whole outer calls" % whole)
PY

# attach --no-libcall: the program's own calls only.
start_target u "$WORK/target" x
RC=0
"$CALLTRACE" attach -p "$TARGET_PID" --no-libcall --duration 1s -o "$WORK/u.trace" \
	>"$WORK/attach.out" 2>"$WORK/attach.err" || RC=$?
[ "$RC" = 0 ] || fail "attach --no-libcall exited $RC: $(head -c 300 "$WORK/attach.err")"
finish_target u
[ "$TARGET_RC" = 0 ] || fail "the target ended with status $TARGET_RC: $(head -c 300 "$WORK/u.err")"
ct json -o "$WORK/u.json" "$WORK/u.trace"
grep -q '"function": "work"' "$WORK/u.json" || fail "attach --no-libcall recorded no work call"
! grep -q '"kind": "library"' "$WORK/u.json" || fail "attach --no-libcall recorded library calls"
pass
