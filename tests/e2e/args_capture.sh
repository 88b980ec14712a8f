#!/usr/bin/env bash
# args_capture.sh - `record --args`: every kind of argument and return value
# (integers of every width, char, bool, enum, float, double, strings as they
# were at the call, pointers, structs and unions by value, a struct returned
# in memory, stack-passed and variadic arguments, C++ `this` and
# references), exact in JSON and replay, under every engine (runtime,
# in-process, ptrace), at -O0 and -O2, C++ ones too (below); --args=REGEX
# keeps to matching functions;
# CALLTRACE_CAPTURE_ARGS=1 with the runtime preloaded by hand.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$ROOT/tests/programs/args
[ -f "$BUILD/lib/libcalltrace-dwarf.so" ] || fail "libcalltrace-dwarf.so is not built"

for opt in -O0 -O2; do
	for how in instrumented plain; do
		flags=(-g "$opt")
		[ $how = instrumented ] && flags+=(-finstrument-functions)
		name=kinds_${how}${opt}
		gcc "${flags[@]}" -o "$WORK/$name" "$src/args_kinds.c" || fail "cannot compile $name"
		record "$name" --args "$WORK/$name"
		[ "$RC" = 0 ] || fail "$name: exit $RC: $(head -c 300 "$WORK/$name.err")"
		grep -q '^total 2087724321 Xello$' "$WORK/$name.out" || fail "$name: wrong output"
		ct json -o "$WORK/$name.json" "$WORK/$name.trace"
		python3 "$ROOT/tests/e2e/args_check.py" "$WORK/$name.json" >"$WORK/$name.check" ||
			fail "$name: $(head -n 3 "$WORK/$name.check")"
	done
done

# The ptrace engine (static programs, or asked for): values read from the
# stopped thread's registers and memory.
for opt in -O0 -O2; do
	name=kinds_static${opt}
	gcc -g "$opt" -static -o "$WORK/$name" "$src/args_kinds.c" || fail "cannot compile $name"
	record "$name" --args "$WORK/$name"
	grep -q '^total 2087724321 Xello$' "$WORK/$name.out" || fail "$name: wrong output"
	ct json -F '^main$' -o "$WORK/$name.json" "$WORK/$name.trace"
	python3 "$ROOT/tests/e2e/args_check.py" "$WORK/$name.json" >"$WORK/$name.check" ||
		fail "$name: $(head -n 3 "$WORK/$name.check")"
done
record kinds_ptrace --args --engine ptrace "$WORK/kinds_plain-O2"
ct json -o "$WORK/kinds_ptrace.json" "$WORK/kinds_ptrace.trace"
python3 "$ROOT/tests/e2e/args_check.py" "$WORK/kinds_ptrace.json" >"$WORK/kinds_ptrace.check" ||
	fail "--engine ptrace: $(head -n 3 "$WORK/kinds_ptrace.check")"

# The replay line a C programmer reads.
ct replay "$WORK/kinds_plain-O2.trace" >"$WORK/replay.txt"
for line in 'add_ints(a=40, b=2) = 42;' 'shift(c=GREEN, by=1) = BLUE;' \
	'measure(s="tab\there \"q\"") = 12;' 'measure(s=NULL) = 0;' 'peek(s=<unreadable 0x10>) = 16;' \
	'flip(p={x=-3, y=4}) = {x=4, y=-3};' 'sum_va(n=3, ...) = 60;' 'mutate(buf="hello", at=0);' \
	'} = 0; /* main */'; do
	grep -qF -- "$line" "$WORK/replay.txt" || fail "replay lacks: $line"
done

# Chrome carries them as event args; seq labels show them.
ct chrome -o "$WORK/chrome.json" "$WORK/kinds_plain-O2.trace"
python3 - "$WORK/chrome.json" <<'PY' || fail "chrome: arguments missing"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "add_ints"]
assert len(ev) == 1, ev
a = ev[0]["args"]
assert [(x["name"], x["value"]) for x in a["arguments"]] == [("a", 40), ("b", 2)], a
assert a["return_value"] == {"type": "int", "value": 42}, a
PY
ct seq --format mermaid "$WORK/kinds_plain-O2.trace" >"$WORK/seq.txt"
grep -qF 'add_ints(a=40, b=2)' "$WORK/seq.txt" || fail "seq label lacks the arguments"

# --args=REGEX: only those functions carry values; the others are still recorded.
record only --args='^(add_ints|shift)$' "$WORK/kinds_instrumented-O2"
ct json -o "$WORK/only.json" "$WORK/only.trace"
python3 - "$WORK/only.json" <<'PY' || fail "--args=REGEX: $(head -c 300 "$WORK/only.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
kids = [c for t in doc["call_trees"].values() for m in t["calls"] for c in m["children"]]
with_args = sorted({c["function"] for c in kids if "arguments" in c or "return_value" in c})
assert with_args == ["add_ints", "shift"], with_args
assert len(kids) == 23, len(kids)
PY

# The runtime preloaded by hand, as calltrace-rs users do.
CALLTRACE_CAPTURE_ARGS=1 CALLTRACE_OUTPUT="$WORK/preload.trace" \
	LD_PRELOAD="$BUILD/lib/libcalltrace.so" "$WORK/kinds_instrumented-O0" >/dev/null ||
	fail "preloaded run failed"
ct json -o "$WORK/preload.json" "$WORK/preload.trace"
python3 "$ROOT/tests/e2e/args_check.py" "$WORK/preload.json" >"$WORK/preload.check" ||
	fail "preloaded: $(head -n 3 "$WORK/preload.check")"

# C++: this, references (with the object they refer to), a method's
# return value; a class template with
# a copy constructor of its own (through the hidden pointer); a
# destructor without GCC's __in_chrg; an empty class; long double; a
# template argument with parentheses in the name.  Under every engine.
need_cmd g++
cxx_expect() { # NAME: the replay lines of $WORK/NAME.trace
	local name=$1 line
	ct replay "$WORK/$name.trace" >"$WORK/$name.txt"
	for line in 'Counter::add\(this=0x[0-9a-f]+, by=4, times=@0x[0-9a-f]+: 3\) = 17;' \
		'twice\(x=@0x[0-9a-f]+: 21\) = 42;' 'total\(it=@0x[0-9a-f]+: \{id=7, price=2\.25\}\) = 15\.75;' \
		'make_box\(v=7\)' '= \{val=7, extra=9\};( /\* make_box)?' \
		'take_box\(b=\{val=7, extra=10\}\) = 17;' 'Guard::~Guard\(this=0x[0-9a-f]+\);' \
		'with_empty\(e=\{\}, x=4\) = 5;' 'scale_ld\(x=1\.5, by=3\) = 4\.5;' \
		'ld_pair\(re=1\.25\) = 1\.25 \+ 2\.5i;' \
		'[|] +apply\(a=1, b=2, f=0x[0-9a-f]+\) \{'; do
		grep -Eq -- "$line" "$WORK/$name.txt" ||
			fail "$name: no line matching $line in: $(grep -v '^#' "$WORK/$name.txt" | head -c 1500)"
	done
	# the full name, with parentheses in its template arguments
	ct replay --demangle=full "$WORK/$name.trace" >"$WORK/$name.full"
	grep -Eq 'int apply<bool \(\*\)\(int, int\)>\(a=1, b=2, f=0x[0-9a-f]+\) \{' "$WORK/$name.full" ||
		fail "$name: --demangle=full: $(grep apply "$WORK/$name.full")"
}
for how in instrumented plain static; do
	flags=(-g -O2)
	[ $how = instrumented ] && flags+=(-finstrument-functions)
	[ $how = static ] && flags+=(-static)
	g++ "${flags[@]}" -o "$WORK/cxx_$how" "$src/args_cxx.cc" || fail "cannot compile cxx_$how"
	record "cxx_$how" --args "$WORK/cxx_$how"
	[ "$(cat "$WORK/cxx_$how.out")" = "17 42 17 5 4.5 15.75 1 2.5" ] ||
		fail "cxx_$how: wrong output: $(cat "$WORK/cxx_$how.out")"
	cxx_expect "cxx_$how"
done
# JSON: a reference's value is its object, its address beside it
ct json -o "$WORK/cxx_plain.json" "$WORK/cxx_plain.trace"
python3 - "$WORK/cxx_plain.json" <<'PY' || fail "cxx_plain: JSON of the reference"
import json, sys
def calls(c):
    yield c
    for k in c["children"]:
        yield from calls(k)
doc = json.load(open(sys.argv[1]))
found = [c for t in doc["call_trees"].values() for m in t["calls"] for c in calls(m)
         if c["function"] == "total"]
assert len(found) == 1, found
arg = found[0]["arguments"][0]
assert arg["name"] == "it" and arg["type"] == "const Item &", arg
assert arg["value"] == {"id": 7, "price": 2.25}, arg
assert arg["address"].startswith("0x") and int(arg["address"], 16) != 0, arg
PY
# Programs built by clang (DWARF 5, no .debug_aranges: their functions and
# lines are found through the compile units' ranges), C and C++.
if command -v clang >/dev/null 2>&1; then
	clang -g -O2 -o "$WORK/kinds_clang" "$src/args_kinds.c" || fail "cannot compile kinds_clang"
	record kinds_clang --args "$WORK/kinds_clang"
	ct json -o "$WORK/kinds_clang.json" "$WORK/kinds_clang.trace"
	python3 "$ROOT/tests/e2e/args_check.py" "$WORK/kinds_clang.json" >"$WORK/kinds_clang.check" ||
		fail "kinds_clang: $(head -n 3 "$WORK/kinds_clang.check")"
	# their source lines too, as addr2line gives them
	check_tree lines "$WORK/kinds_clang.json" "$WORK/kinds_clang"
	clang++ -g -O2 -o "$WORK/cxx_clang" "$src/args_cxx.cc" || fail "cannot compile cxx_clang"
	record cxx_clang --args "$WORK/cxx_clang"
	cxx_expect cxx_clang
fi
# the seq label of a name with parentheses in its template arguments
ct seq --demangle=full --format mermaid "$WORK/cxx_plain.trace" >"$WORK/cxx_seq.txt"
grep -qF 'int apply#60;bool (*)(int, int)#62;(a=1, b=2, f=0x' "$WORK/cxx_seq.txt" ||
	fail "seq label of apply: $(grep apply "$WORK/cxx_seq.txt")"
pass
