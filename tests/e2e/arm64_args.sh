#!/usr/bin/env bash
# arm64_args.sh - `record --args` on aarch64 (under qemu-user), where
# AAPCS64 puts the values: args_capture.sh's program gives exactly the
# values it gives on x86-64 (args_check.py; the replay lines of both the
# same, addresses aside), under the in-process engine (plain build) and
# the hooks (-finstrument-functions, entries patched to read the values);
# an unmodified fib shows fib(n=20) = 6765; the values AAPCS64 places its
# own way (HFAs, a 12-byte struct, a big struct by pointer and one returned
# where x8 points, long double, __int128, a complex double, the stack past
# eight registers) are exact.  `make check` runs the -O2 builds, ARM64_ALL=1
# the -O0 ones too.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
src=$ROOT/tests/programs/args
[ -f "$A64_BUILD/lib/libcalltrace-dwarf.so" ] || fail "no aarch64 libcalltrace-dwarf.so"

# a64_record NAME PROGRAM [ARG...]: PROGRAM recorded with --args by the
# aarch64 tool into $WORK/NAME.trace (its output in NAME.out).
a64_record() {
	local name=$1
	shift
	"$A64_CALLTRACE" record --args -o "$WORK/$name.trace" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		fail "record --args $name: $(tail -n 3 "$WORK/$name.err")"
}

# The replay lines with values, addresses (peek returns one) and
# durations left out.
values_of() {
	"$NATIVE_CALLTRACE" replay --no-duration --no-tid "$1" | grep -v '^#' |
		sed -E 's/0x[0-9a-f]+/0xADDR/g; s/^(\|   peek\(.*\)) = [0-9]{6,};$/\1 = ADDR;/' >"$2" ||
		fail "replay of $1"
}

opts=(-O2)
[ "${ARM64_ALL:-0}" = 1 ] && opts+=(-O0)
for opt in "${opts[@]}"; do
	gcc -g "$opt" -o "$WORK/x86$opt" "$src/args_kinds.c" || fail "cannot compile args_kinds.c"
	"$NATIVE_CALLTRACE" record --args -o "$WORK/x86$opt.trace" "$WORK/x86$opt" >/dev/null 2>&1 ||
		fail "record --args of args_kinds.c on this machine"
	values_of "$WORK/x86$opt.trace" "$WORK/x86$opt.values"
	for how in plain instrumented; do
		flags=(-g "$opt")
		[ $how = instrumented ] && flags+=(-finstrument-functions)
		name=kinds_$how$opt
		"$A64_CC" "${flags[@]}" -o "$WORK/$name" "$src/args_kinds.c" || fail "cannot compile $name"
		a64_record "$name" "$WORK/$name"
		grep -q '^total 2087724321 Xello$' "$WORK/$name.out" || fail "$name: wrong output"
		"$NATIVE_CALLTRACE" json -o "$WORK/$name.json" "$WORK/$name.trace" || fail "json of $name"
		python3 "$ROOT/tests/e2e/args_check.py" "$WORK/$name.json" >"$WORK/$name.check" ||
			fail "$name: $(head -n 3 "$WORK/$name.check")"
		values_of "$WORK/$name.trace" "$WORK/$name.values"
		expect_text "$name's values beside x86-64's" "$WORK/x86$opt.values" "$WORK/$name.values"
	done
done
grep -qF '|   flip(p={x=-3, y=4}) = {x=4, y=-3};' "$WORK/kinds_plain-O2.values" ||
	fail "replay: no flip line in $(head -c 600 "$WORK/kinds_plain-O2.values")"

# An unmodified fib: every call with its argument and result.
"$A64_CC" -g -O0 -o "$WORK/fib" "$ROOT/tests/e2e/arm64/fib.c" || fail "cannot compile fib"
a64_record fib "$WORK/fib" 20
[ "$(cat "$WORK/fib.out")" = 6765 ] || fail "fib printed $(head -c 100 "$WORK/fib.out")"
"$NATIVE_CALLTRACE" replay -D 2 --no-duration --no-tid "$WORK/fib.trace" >"$WORK/fib.txt" ||
	fail "replay of fib"
grep -qxF '|   fib(n=20) = 6765;' "$WORK/fib.txt" || fail "fib: $(cat "$WORK/fib.txt")"
"$NATIVE_CALLTRACE" replay --no-duration --no-tid "$WORK/fib.trace" >"$WORK/fib.all" ||
	fail "replay of fib"
[ "$(grep -cE '^\| +(fib\(n=[0-9]+\) = [0-9]+;|fib\(n=[0-9]+\) \{)$' "$WORK/fib.all")" = 21891 ] ||
	fail "fib: not 21891 calls with their argument"

# What AAPCS64 places its own way.  The aarch64 tool reads this trace, and
# this machine's: a long double is IEEE quad there, x87's here, and both
# read the trace's as quad.
"$A64_CC" -g -O2 -o "$WORK/aapcs" "$ROOT/tests/e2e/arm64/args_aapcs.c" || fail "cannot compile args_aapcs.c"
a64_record aapcs "$WORK/aapcs"
[ "$(cat "$WORK/aapcs.out")" = 'total 10000000244.5000' ] || fail "aapcs printed $(cat "$WORK/aapcs.out")"
"$A64_CALLTRACE" replay --no-duration --no-tid -N '^__' "$WORK/aapcs.trace" >"$WORK/aapcs.txt" ||
	fail "replay of aapcs"
for line in 'hfa_sum(h={a=1.5, b=2, c=3}) = 6.5;' 'hfa_make(x=0.5) = {a=0.5, b=1.5, c=2.5, d=3.5};' \
	'twelve_sum(t={a=1, b=2, c=3}) = 6;' 'big_sum(b={a=10, b=20, c=30}) = 60;' \
	'big_make(a=7) = {a=7, b=14, c=21};' 'ld_half(x=5) = 2.5;' \
	'wide_add(pad=4, v=18446744073709551616) = 18446744073709551620;' \
	'twice(z=1.25 + 2.5i) = 2.5 + 5i;' \
	'ten(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10000000000) = 10000000045;' \
	'ten_d(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9.5, j=10.25) = 55.75;' \
	'no_v_left(h={a=1, b=2, c=3, d=4}, g={a=5, b=6, c=7}, late={a=8, b=9, c=10.5}, f=11.25, n=12) = 40.75;'; do
	grep -qxF "|   $line" "$WORK/aapcs.txt" || fail "aapcs: no line $line in: $(cat "$WORK/aapcs.txt")"
done
"$NATIVE_CALLTRACE" replay --no-duration --no-tid -N '^__' "$WORK/aapcs.trace" >"$WORK/aapcs.native" ||
	fail "replay of aapcs by this machine's tool"
grep -qxF '|   ld_half(x=5) = 2.5;' "$WORK/aapcs.native" ||
	fail "aapcs read here: no ld_half(x=5) = 2.5 in: $(grep ld_half "$WORK/aapcs.native")"
pass
