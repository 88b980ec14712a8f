#!/usr/bin/env bash
# core_plugin_path.sh - a plugin loaded by dlopen("./plugin.so") is stored
# with its absolute path (and its build-id), so that the trace read from
# another folder still names its functions: with its hooks, and patched
# by the in-process engine (--module).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_multimod "$WORK/hooks" pie
src=$PROGRAMS/multimod
mkdir -p "$WORK/plain"
for lib in plugin shared; do
	out=$lib.so
	[ "$lib" = shared ] && out=libshared.so
	gcc -std=gnu11 -g -O0 -fPIC -shared "$src/$lib.c" -o "$WORK/plain/$out" || fail "cannot build $out"
done
gcc -std=gnu11 -g -O0 "$src/main.c" "$src/static.c" -o "$WORK/plain/multimod" \
	-L"$WORK/plain" -lshared -Wl,-rpath,"$WORK/plain" -ldl -pthread || fail "cannot build the plain multimod"

for build in hooks plain; do
	opts=()
	[ "$build" = plain ] && opts=(--module 'plugin\.so$')
	(cd "$WORK/$build" && "$CALLTRACE" record -q -o "$WORK/$build.trace" "${opts[@]}" ./multimod ./plugin.so \
		>/dev/null 2>"$WORK/$build.err") || fail "$build: record failed: $(head -c 300 "$WORK/$build.err")"
	# Read from elsewhere: the plugin's functions keep their names.
	(cd / && "$CALLTRACE" report "$WORK/$build.trace" >"$WORK/$build.report" 2>"$WORK/$build.report.err") ||
		fail "$build: report failed: $(cat "$WORK/$build.report.err")"
	for f in pl_entry pl_double; do
		[ "$(report_calls "$WORK/$build.report" "$f")" = 1 ] || fail "$build: $f is not named once in the report"
	done
	grep -q 'sub_' "$WORK/$build.report" && fail "$build: nameless functions: $(grep -m1 sub_ "$WORK/$build.report")"
	[ -s "$WORK/$build.report.err" ] && fail "$build: the report warns: $(head -n1 "$WORK/$build.report.err")"
	ct info "$WORK/$build.trace" >"$WORK/$build.info"
	grep -q " $WORK/$build/plugin.so (unloaded)$" "$WORK/$build.info" ||
		fail "$build: the plugin is not stored with its absolute path: $(grep plugin.so "$WORK/$build.info" | head -n1)"
done
pass
