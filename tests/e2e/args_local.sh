#!/usr/bin/env bash
# args_local.sh - `record --args` of functions whose DWARF is inside another
# function's (GCC puts a lambda's closure class, and any class a function
# defines, among the function's children): a lambda's operator() and a
# local struct's member get their values like any other; and a base class
# whose name is longer than 128 characters is written whole, with its '=';
# the " const" after a C++ name's parameter list stays after its values
# (replay, seq), as overloads differ by it.
# Instrumented and plain, by GCC and by clang.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd g++
[ -f "$BUILD/lib/libcalltrace-dwarf.so" ] || fail "libcalltrace-dwarf.so is not built"
src=$ROOT/tests/programs/args/args_local.cpp

long=Long_type_name_that_makes_the_template_argument_list_long_enough_
base="Base<${long}0, ${long}1, ${long}2, ${long}3>"
builds="gcc_hooks gcc_plain"
command -v clang++ >/dev/null 2>&1 && builds="$builds clang_plain"
for build in $builds; do
	flags=(-g -O0)
	cxx=g++
	[ "$build" = gcc_hooks ] && flags+=(-finstrument-functions)
	[ "$build" = clang_plain ] && cxx=clang++
	$cxx "${flags[@]}" -o "$WORK/$build" "$src" || fail "cannot compile $build"
	record "$build" --args "$WORK/$build"
	[ "$(cat "$WORK/$build.out")" = "1 42 7 6 4" ] || fail "$build: wrong output: $(cat "$WORK/$build.out")"
	# the qualifiers of full names (--demangle=full) after the values
	ct replay --demangle=full "$WORK/$build.trace" >"$WORK/$build.txt"
	for line in '::operator\(\)\((__closure|this)=0x[0-9a-f]+, a=5, b=2\) const = true;$' \
		'P::get\(this=0x[0-9a-f]+, k=1\) const = 6;$' 'P::get\(this=0x[0-9a-f]+, k=1\) = 4;$' \
		'twice_local\(int\)::Local::twice\(y=21\) = 42;$' \
		"sum_derived\\(v=\\{$base=\\{b=3\\}, d=4\\}\\) = 7;\$"; do
		grep -Eq -- "$line" "$WORK/$build.txt" ||
			fail "$build: no line matching $line in: $(grep -v '^#' "$WORK/$build.txt" | head -c 1200)"
	done
	# short names (the default): no parameter list, the values in its place
	ct replay "$WORK/$build.trace" >"$WORK/$build.short"
	grep -Eq '::operator\(\)\((__closure|this)=0x[0-9a-f]+, a=5, b=2\) = true;$' \
		"$WORK/$build.short" || fail "$build: short lambda line: $(grep lambda "$WORK/$build.short")"
	grep -Eq '^ .*twice_local::Local::twice\(y=21\) = 42;$' "$WORK/$build.short" ||
		fail "$build: short local class method: $(grep Local "$WORK/$build.short")"
	ct seq --demangle=full --format mermaid "$WORK/$build.trace" >"$WORK/$build.seq"
	grep -Eq 'P::get\(this=0x[0-9a-f]+, k=1\) const$' "$WORK/$build.seq" ||
		fail "$build: seq has no label of get() const: $(grep get "$WORK/$build.seq")"
done
pass
