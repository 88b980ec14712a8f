#!/usr/bin/env bash
# record_filter_names.sh - record-time -F/-N take a C++ function by the name
# the views show (`shop::Parser::parse`), its full demangled name or its
# symbol, and mean the same under every engine: -F records the function and
# what it calls, -N leaves the function out and keeps its callees.  The
# runtime (-finstrument-functions build), the in-process engine and the
# ptrace engine (plain build) write the same trees.
source "$(dirname "$0")/lib.sh"
setup
prog=$ROOT/tests/programs/filters/cxx_names.cpp
build_cxx instrumented "$prog"
need_cmd g++
g++ -std=c++17 -g -O0 -o "$WORK/plain" "$prog" || fail "cannot compile plain"

# tree ENGINE OPTION...: the calls recorded so, one a line, names cut at
# their parameters.
tree() {
	local engine=$1 program=plain
	shift
	[ "$engine" = runtime ] && program=instrumented
	record t --engine "$engine" --no-libcall "$@" "$WORK/$program"
	[ "$RC" = 0 ] || fail "$engine $*: exit $RC: $(head -c 300 "$WORK/t.err")"
	grep -qx 15 "$WORK/t.out" || fail "$engine $*: the program printed $(cat "$WORK/t.out")"
	ct replay --no-duration --no-tid "$WORK/t.trace" | sed -e '/^#/d' -e '/^| *}/d' -e 's/(.*//'
}

check() { # WHAT WANT GOT
	[ "$2" = "$3" ] || fail "$1: got
$3
want
$2"
}

parse_tree='| shop::Parser::parse
|   shop::Parser::count
|     std::max
|   shop::Parser::parse
|     std::max'
want_f=$(printf '%s\n%s\n%s' "$parse_tree" "$parse_tree" "$parse_tree")
inner='|     shop::Parser::parse
|       shop::Parser::count
|       shop::Parser::parse'
want_n=$(printf '| main\n|   run\n%s\n%s\n%s' "$inner" "$inner" "$inner")
# Only the overload that takes an int, and what it calls.
int_tree='| shop::Parser::parse
|   std::max'
want_int=$(printf '%s\n%s\n%s' "$int_tree" "$int_tree" "$int_tree")

for engine in runtime patch ptrace; do
	check "$engine -F short name" "$want_f" "$(tree $engine -F 'Parser::parse$')"
	check "$engine -F symbol" "$want_f" "$(tree $engine -F '^_ZN4shop6Parser5parseEPNSt7__cxx11')"
	check "$engine -F full name" "$want_int" "$(tree $engine -F 'Parser::parse\(int\)')"
	check "$engine -N std::" "$want_n" "$(tree $engine -N '^std::')"
	check "$engine -N unanchored std::" "$want_n" "$(tree $engine -N 'std::')"
done

# -v: how many functions -F and -N matched, per module: both overloads of
# parse; the standard library's functions built into the program (how many
# depends on the library's version: at least std::max, the same for both).
matches() { # ENGINE: the count line -v wrote for the program
	local program=plain
	[ "$1" = runtime ] && program=instrumented
	record v --engine "$1" -v -F 'Parser::parse' -N '^std::' "$WORK/$program"
	grep -o "/$program: [0-9]* functions match -F, [0-9]* match -N" "$WORK/v.err" |
		sed 's,^/[a-z]*,,'
}
patch_says=$(matches patch) || fail "in-process -v: no count: $(head -c 300 "$WORK/v.err")"
ptrace_says=$(matches ptrace) || fail "ptrace -v: no count: $(head -c 300 "$WORK/v.err")"
case $patch_says in
": 2 functions match -F, "[1-9]*) ;;
*) fail "in-process -v: $patch_says" ;;
esac
check "-v counts" "$patch_says" "$ptrace_says"
runtime_says=$(matches runtime) || fail "runtime -v: no count: $(head -c 300 "$WORK/v.err")"
[ "$(printf '%s\n' "$runtime_says" | wc -l)" = 1 ] || fail "runtime -v: said twice: $runtime_says"
check "runtime -v" "$patch_says" "$runtime_says"
pass
