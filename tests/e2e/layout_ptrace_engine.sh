#!/usr/bin/env bash
# layout_ptrace_engine.sh - the ptrace engine's files call each other in one
# direction: in the graph "file A calls a function defined in file B", read
# from the built objects of src/ptrace by scripts/call_layers.py, there is
# no cycle.  The script itself is checked first on two objects made to call
# each other (it must name that cycle) and on a chain (no cycle).  No
# tracing: it reads the build.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
LAYERS=$ROOT/scripts/call_layers.py
OBJ=$BUILD/obj/src/ptrace
[ -d "$OBJ" ] || fail "no objects in $OBJ: build first"

# The checker sees a cycle when there is one, and none in a chain.
mkdir "$WORK/cycle" "$WORK/chain"
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >"$WORK/a.c"
printf 'int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n' >"$WORK/b.c"
printf 'int c(int x) { return x + 1; }\n' >"$WORK/c.c"
gcc -c "$WORK/a.c" -o "$WORK/cycle/a.o"
gcc -c "$WORK/b.c" -o "$WORK/cycle/b.o"
gcc -c "$WORK/b.c" -o "$WORK/chain/b.o"
gcc -c "$WORK/c.c" -o "$WORK/chain/c.o"
sed 's/int b(int)/int c(int)/; s/b(x - 1)/c(x - 1)/' "$WORK/a.c" >"$WORK/a2.c"
gcc -c "$WORK/a2.c" -o "$WORK/chain/a.o"
rc=0
python3 "$LAYERS" --quiet "$WORK/cycle" >"$WORK/cycle.out" || rc=$?
[ "$rc" = 1 ] || fail "call_layers.py exited $rc on a cycle, not 1: $(cat "$WORK/cycle.out")"
grep -qxF 'cycle among 2 files: a b' "$WORK/cycle.out" ||
	fail "call_layers.py did not name the cycle a b: $(cat "$WORK/cycle.out")"
python3 "$LAYERS" "$WORK/chain" >"$WORK/chain.out" ||
	fail "call_layers.py saw a cycle in a chain: $(cat "$WORK/chain.out")"
# b calls a, a calls c: c is the lowest layer, b the highest.
[ "$(grep -E '^  [0-9]+: ' "$WORK/chain.out" | tr -d ' ' | tr '\n' ' ')" = '0:c 1:a 2:b ' ] ||
	fail "call_layers.py: the layers of b -> a -> c are wrong: $(cat "$WORK/chain.out")"
rc=0
python3 "$LAYERS" "$WORK/none" >/dev/null 2>"$WORK/none.err" || rc=$?
if [ "$rc" != 2 ] || [ "$(wc -l <"$WORK/none.err")" != 1 ]; then
	fail "call_layers.py on a missing directory: exit $rc, $(cat "$WORK/none.err")"
fi

# Every source file of src/ptrace, each with an object no older than it.
names=()
for src in "$ROOT"/src/ptrace/*.c; do
	name=$(basename "$src" .c)
	[ -f "$OBJ/$name.o" ] || fail "no object for src/ptrace/$name.c: build first"
	if [ "$src" -nt "$OBJ/$name.o" ]; then
		fail "$OBJ/$name.o is older than its source: build first"
	fi
	names+=("$name")
done
[ ${#names[@]} -ge 20 ] || fail "only ${#names[@]} files in src/ptrace"
only=$(
	IFS=,
	echo "${names[*]}"
)
rc=0
python3 "$LAYERS" --only "$only" "$OBJ" >"$WORK/dynamic.out" || rc=$?
[ "$rc" = 0 ] || fail "src/ptrace calls in a circle: $(sed -n '/^cycle/,$p' "$WORK/dynamic.out")"
# The graph is real: the engine's known calls are in it.
for edge in 'event_loop -> return_trap: entry_hit return_hit' 'follow -> processes:' \
	'modules -> breakpoints: bp_forget_module' 'unwind_watch -> return_trap:'; do
	grep -qF "  $edge" "$WORK/dynamic.out" || fail "no call '$edge' in: $(cat "$WORK/dynamic.out")"
done
# What is loaded, what to plant, the frames and the threads never call up
# into the processes, the following of forks, the event loop or the engine.
up=$(grep -E '^  (modules|instrument|return_trap|rtld_watch|unwind_watch|threads|breakpoints) -> (processes|follow|event_loop|engine):' \
	"$WORK/dynamic.out" || true)
[ -z "$up" ] || fail "a lower layer calls up: $up"
pass
