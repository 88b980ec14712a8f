#!/usr/bin/env bash
# libcall_record.sh - the calls a program makes into the C library are
# recorded, each at the slot it goes through, nested under the function
# that made it (and qsort's callback under qsort): built with hooks (the
# runtime records) and without (the in-process engine); with lazy binding,
# LD_BIND_NOW=1, full RELRO and -fno-plt.  --no-libcall and
# CALLTRACE_LIBCALL=0 give the program's own calls alone.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
src=$PROGRAMS/libcall/libcalls.c
echo "some bytes" >"$WORK/in.txt"

gcc -g -O0 -no-pie -finstrument-functions -o "$WORK/hooks" "$src" || fail "cannot compile hooks"
gcc -g -O0 -no-pie -o "$WORK/lazy" "$src" || fail "cannot compile lazy"
gcc -g -O0 -no-pie -Wl,-z,now,-z,relro -o "$WORK/relro" "$src" || fail "cannot compile relro"
gcc -g -O0 -no-pie -fno-plt -o "$WORK/noplt" "$src" || fail "cannot compile noplt"
readelf -lW "$WORK/relro" | grep -q GNU_RELRO || fail "relro has no GNU_RELRO segment"
readelf -dW "$WORK/relro" | grep -q 'BIND_NOW\|FLAGS.*NOW' || fail "relro is not bound now"
# (aarch64's start-up code calls through the PLT even so)
readelf -rW "$WORK/noplt" | grep JUMP_SLOT | grep -qvE ' (__libc_start_main|__gmon_start__|abort)[@ ]' &&
	fail "noplt has PLT slots"

cat >"$WORK/expected" <<'TREE'
main
  copy_file
    @open
    @open
    @read
    @write
    @close
    @close
  missing
    @open
  buffers
    @malloc
    @getpid
    @free
  sort_three
    @qsort
      compare
      compare
      compare
TREE

# check NAME PROGRAM [ENV...]: records PROGRAM under ENV, its tree as expected.
check() {
	local name=$1 prog=$2
	shift 2
	RC=0
	env "$@" "$CALLTRACE" record -o "$WORK/$name.trace" "$WORK/$prog" "$WORK/in.txt" \
		"$WORK/$name.out" >"$WORK/$name.stdout" 2>"$WORK/$name.err" || RC=$?
	[ "$RC" = 0 ] || fail "$name: record exited $RC: $(head -c 300 "$WORK/$name.err")"
	cmp -s "$WORK/in.txt" "$WORK/$name.out" || fail "$name: the program did not copy its file"
	ct json -o "$WORK/$name.json" "$WORK/$name.trace"
	python3 "$ROOT/tests/e2e/libcall_tree.py" "$WORK/$name.json" "$WORK/$prog" >"$WORK/$name.got" ||
		fail "$name: cannot read the trees"
	expect_text "library calls of $name" "$WORK/expected" "$WORK/$name.got"
}

check hooks hooks
check hooks_now hooks LD_BIND_NOW=1
check lazy lazy
check lazy_now lazy LD_BIND_NOW=1
check relro relro
check noplt noplt

# Values (--args): open's path and flags, read's count, what they return,
# errno by name after the failed open (in replay and json); none without
# --args.
for prog in lazy hooks; do
	"$CALLTRACE" record --args -o "$WORK/args_$prog.trace" "$WORK/$prog" "$WORK/in.txt" \
		"$WORK/args.out" 2>"$WORK/args.err" || fail "record --args failed"
	ct replay "$WORK/args_$prog.trace" >"$WORK/args_$prog.replay"
	for want in 'open@libc.so.6("' 'in.txt", O_RDONLY) = ' \
		'args.out", O_WRONLY|O_CREAT|O_TRUNC, 0600) = ' \
		'open@libc.so.6("/nonexistent/calltrace", O_RDONLY) = -1 ENOENT (No such file or directory);' \
		', 64) = 11;' 'getpid@libc.so.6() = ' 'malloc@libc.so.6(32) = 0x'; do
		grep -qF -- "$want" "$WORK/args_$prog.replay" ||
			fail "args_$prog: replay lacks '$want': $(head -c 900 "$WORK/args_$prog.replay")"
	done
done
ct replay "$WORK/lazy.trace" >"$WORK/lazy.replay"
grep -qF 'open@libc.so.6();' "$WORK/lazy.replay" || fail "no open@libc.so.6() without --args"
grep -qF 'open@libc.so.6("' "$WORK/lazy.replay" && fail "values recorded without --args"
ct json -o "$WORK/args.json" "$WORK/args_lazy.trace"
grep -q '"errno": "ENOENT"' "$WORK/args.json" || fail "json has no errno ENOENT for the failed open"

# Without library calls: the program's own calls only, as before them.
for how in option env; do
	args=(--no-libcall)
	envs=()
	[ $how = env ] && args=() && envs=(CALLTRACE_LIBCALL=0)
	env "${envs[@]}" "$CALLTRACE" record "${args[@]}" -o "$WORK/off_$how.trace" "$WORK/hooks" \
		"$WORK/in.txt" "$WORK/off.out" 2>"$WORK/off.err" || fail "record --no-libcall failed"
	ct json -o "$WORK/off_$how.json" "$WORK/off_$how.trace"
	python3 "$ROOT/tests/e2e/libcall_tree.py" "$WORK/off_$how.json" "$WORK/hooks" >"$WORK/off.got"
	printf '%s\n' main '  copy_file' '  missing' '  buffers' '  sort_three' '    compare' '    compare' \
		'    compare' >"$WORK/off.expected"
	expect_text "calls without library calls ($how)" "$WORK/off.expected" "$WORK/off.got"
done
pass
