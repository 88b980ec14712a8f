#!/usr/bin/env bash
# libcall_kinds.sh - library calls of every kind (tests/programs/libcall/
# host.c), exact trees: dlopen, dlsym and calls through the pointer dlsym
# gave (named by the function's address), dlclose; memcpy and strlen
# (IFUNC); libone's call into libtwo beneath the call into libone when
# --nest-libcall=libone asks for it (and not without); both versions of a
# versioned symbol, each through its own slot, each returning its own
# value (all with --no-own-libraries: the libraries beside the program are
# its own, else recorded as functions); a dlopen'ed plugin recorded with
# --module: called through the dlsym pointer, once, as a function, its own
# call into the C library beneath it.  With hooks (the runtime) and without
# (the in-process engine).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
src=$PROGRAMS/libcall
d=$WORK
gcc -g -O0 -fPIC -shared -o "$d/libtwo.so" "$src/two.c" &&
	gcc -g -O0 -fPIC -shared -o "$d/libone.so" "$src/one.c" -L"$d" -ltwo -Wl,-rpath,"$d" &&
	gcc -g -O0 -fPIC -shared -Wl,--version-script="$src/ver.map" -o "$d/libver.so" "$src/ver.c" &&
	gcc -g -O0 -fPIC -shared -o "$d/plugin.so" "$src/plugin.c" || fail "cannot build the libraries"
for kind in plain hooks; do
	flags=()
	[ $kind = hooks ] && flags=(-finstrument-functions)
	gcc -g -O0 -no-pie -fno-builtin "${flags[@]}" -o "$d/host_$kind" "$src/host.c" -L"$d" -lone \
		-lver -ldl -Wl,-rpath,"$d" || fail "cannot build host_$kind"
done
want_out="plugin 72 ifunc 5 nested 11 versions 1 2"

# tree NAME HOST MODULE... [-- RECORD_OPTION...]: records, prints the tree.
tree() {
	local name=$1 host=$2 mods=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		mods+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	RC=0
	"$CALLTRACE" record -o "$d/$name.trace" "$@" "$d/$host" "$d/plugin.so" >"$d/$name.out" \
		2>"$d/$name.err" || RC=$?
	[ "$RC" = 0 ] || fail "$name: record exited $RC: $(head -c 300 "$d/$name.err")"
	[ "$(cat "$d/$name.out")" = "$want_out" ] || fail "$name: printed '$(cat "$d/$name.out")'"
	ct json -o "$d/$name.json" "$d/$name.trace"
	ct info "$d/$name.trace" >"$d/$name.info"
	python3 "$ROOT/tests/e2e/libcall_tree.py" "$d/$name.json" --info "$d/$name.info" "$d/$host" \
		"${mods[@]}" >"$d/$name.got" 2>"$d/$name.check" ||
		fail "$name: $(tail -n 1 "$d/$name.check")"
}

for kind in plain hooks; do
	tree "nested_$kind" "host_$kind" "$d/libone.so" "$d/plugin.so" -- --nest-libcall=libone --no-own-libraries
	cat >"$d/expected" <<'TREE'
main
  use_plugin
    @dlopen
    @dlsym
    @*plugin_work
    @*plugin_work
    @dlclose
  use_ifuncs
    @strlen
    @memcpy
    @strlen
  @one_call
    @two_call
  @vfunc@VER_2
  @vfunc@VER_1
  @printf
TREE
	expect_text "library calls of host_$kind" "$d/expected" "$d/nested_$kind.got"
	# The runtime defines dlopen, dlsym and dlclose to see them pass: the
	# calls are shown in the C library, which the program meant.
	ct replay "$d/nested_$kind.trace" >"$d/nested_$kind.replay"
	for f in dlopen dlsym dlclose; do
		grep -q " $f@libc\.so\.6(" "$d/nested_$kind.replay" ||
			fail "$kind: $f is not shown in the C library: $(grep -m1 " $f@" "$d/nested_$kind.replay")"
	done

	tree "flat_$kind" "host_$kind" "$d/plugin.so" -- --no-own-libraries
	grep -v '@two_call' "$d/expected" >"$d/expected.flat"
	expect_text "library calls of host_$kind without nesting" "$d/expected.flat" "$d/flat_$kind.got"
done

# The plugin recorded too (in-process engine): its call out beneath it.
tree module host_plain "$d/plugin.so" -- --module plugin --no-own-libraries
sed -n 1,10p "$d/module.got" >"$d/module.head"
cat >"$d/expected" <<'TREE'
main
  use_plugin
    @dlopen
    @dlsym
    plugin_work
      @getpid
    plugin_work
      @getpid
    @dlclose
  use_ifuncs
TREE
expect_text "library calls of the plugin" "$d/expected" "$d/module.head"
pass
