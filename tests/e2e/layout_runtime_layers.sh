#!/usr/bin/env bash
# layout_runtime_layers.sh - libcalltrace.so's folders are layers that call
# and include only downwards: core/ (the hooks' record path, the threads'
# streams, deferred events, longjmp, modules, settings) at the bottom;
# filters/, args/, inprocess/ and libcall/ (the engines inside the process,
# the filters, argument capture) above it; session/ (a session's start and
# end, crash, control, spawn, the tool) on top.  A file "calls" another
# when its built object (build/rt) leaves undefined a symbol the other's
# defines; it "includes" a header of a folder when its #include "..."
# names one there.  No file may call or include one of a higher layer,
# but for one call: the hooks start the session (runtime_init) at a
# process's first event, which may come before any constructor of the
# runtime has run (another library's); what the layers above lend the
# record path they hand it when they start (runtime.h).  A function the C
# library defines is its API, not a layer's: the runtime may define it in
# the program's place (sigaction, waitpid, dladdr), and a lower layer that
# calls it calls the C library's function, whoever serves it.
# The checker is checked first on a made-up tree with one of each.  No
# tracing: it reads the sources and the build.
source "$(dirname "$0")/lib.sh"
setup
SRC=$ROOT/src/runtime
OBJ=$BUILD/rt/src/runtime
[ -d "$OBJ" ] || fail "no objects in $OBJ: build first"

# check SRC OBJ: one line per call or include that goes up; exit 1 if any.
check() {
	python3 - "$1" "$2" <<'PY'
import os, re, subprocess, sys
src, obj = sys.argv[1], sys.argv[2]
libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True, text=True,
                      check=True).stdout.strip()
libc_api = {line.split()[0].split("@")[0] for line in subprocess.run(
    ["nm", "-D", "--defined-only", "-P", libc], capture_output=True, text=True,
    check=True).stdout.splitlines() if line.strip()}
if "dladdr" not in libc_api:
    sys.exit(f"no dynamic symbols read from {libc}")
LAYER = {"core": 0, "filters": 1, "args": 1, "inprocess": 1, "libcall": 1, "session": 2}
ALLOWED = {("core/hooks", "session/session", "runtime_init")}
def files(root, exts):
    for folder in sorted(os.listdir(root)):
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        if folder not in LAYER:
            sys.exit(f"{d}: a folder of no layer")
        for name in sorted(os.listdir(d)):
            if name.endswith(exts):
                yield folder, name, os.path.join(d, name)
defined, undefined = {}, {}
for folder, name, path in files(obj, (".o",)):
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True, check=True).stdout
    key = f"{folder}/{name[:-2]}"
    undefined[key] = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1] == "U":
            undefined[key].add(f[0])
        elif len(f) >= 2 and f[1] in "TDBRVGS":
            defined.setdefault(f[0], key)
bad = []
for user, symbols in sorted(undefined.items()):
    for sym in sorted(symbols):
        owner = defined.get(sym)
        if (owner and LAYER[owner.split("/")[0]] > LAYER[user.split("/")[0]] and
                (user, owner, sym) not in ALLOWED and sym not in libc_api):
            bad.append(f"call {user} -> {owner}: {sym}")
for folder, name, path in files(src, (".c", ".h", ".S")):
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M):
        target = os.path.normpath(os.path.join(src, folder, inc))
        rel = os.path.relpath(target, src).split(os.sep)
        if len(rel) == 2 and rel[0] in LAYER and LAYER[rel[0]] > LAYER[folder]:
            bad.append(f"include {folder}/{name} -> {rel[0]}/{rel[1]}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# The checker sees a call and an include that go up, and nothing in a tree
# that only goes down.
fake=$WORK/fake
mkdir -p "$fake/src/core" "$fake/src/session" "$fake/obj/core" "$fake/obj/session"
printf 'int top(int);\nint getpid(void);\nint low(int x) { return x + getpid(); }\n' >"$fake/src/core/low.c"
printf '#include "../core/low.h"\nint low(int);\nint top(int x) { return low(x); }\nint getpid(void) { return 1; }\n' >"$fake/src/session/top.c"
printf 'int low(int);\n' >"$fake/src/core/low.h"
gcc -c "$fake/src/core/low.c" -o "$fake/obj/core/low.o"
gcc -c "$fake/src/session/top.c" -o "$fake/obj/session/top.o"
check "$fake/src" "$fake/obj" >"$WORK/down.out" || fail "the checker sees a layer going up in a tree that only goes down: $(cat "$WORK/down.out")"
printf '#include "../session/top.h"\nint top(int);\nint low(int x) { return top(x); }\n' >"$fake/src/core/low.c"
printf 'int top(int);\n' >"$fake/src/session/top.h"
gcc -c "$fake/src/core/low.c" -o "$fake/obj/core/low.o"
rc=0
check "$fake/src" "$fake/obj" >"$WORK/up.out" || rc=$?
[ "$rc" = 1 ] || fail "the checker exited $rc on a tree going up: $(cat "$WORK/up.out")"
grep -qx 'call core/low -> session/top: top' "$WORK/up.out" || fail "the checker missed the call up: $(cat "$WORK/up.out")"
grep -qx 'include core/low.c -> session/top.h' "$WORK/up.out" || fail "the checker missed the include up: $(cat "$WORK/up.out")"

# Every source file of the runtime has its object, no older than it.
n=0
for src in "$SRC"/*/*.c "$SRC"/*/*.S; do
	rel=${src#"$SRC"/}
	o=$OBJ/${rel%.*}.o
	[ -f "$o" ] || fail "no object for src/runtime/$rel: build first"
	[ "$src" -nt "$o" ] && fail "$o is older than its source: build first"
	n=$((n + 1))
done
[ "$n" -ge 35 ] || fail "only $n files in src/runtime's folders"
check "$SRC" "$OBJ" >"$WORK/runtime.out" || fail "a lower layer calls or includes an upper one:
$(cat "$WORK/runtime.out")"
pass
