#!/usr/bin/env bash
# core_plugin_path.sh - a plugin loaded by dlopen("./plugin.so") is stored
# with its absolute path (and its build-id), so that the trace read from
# another folder still names its functions: with its hooks, patched by the
# in-process engine (--module), and under the ptrace engine.
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

for run in hooks plain ptrace; do
	build=$run opts=()
	case $run in
	plain) opts=(--module 'plugin\.so$') ;;
	ptrace) build=plain opts=(--engine ptrace --module 'plugin\.so$') ;;
	esac
	(cd "$WORK/$build" && "$CALLTRACE" record -q -o "$WORK/$run.trace" "${opts[@]}" ./multimod ./plugin.so \
		>/dev/null 2>"$WORK/$run.err") || fail "$run: record failed: $(head -c 300 "$WORK/$run.err")"
	# Read from elsewhere: the plugin's functions keep their names.
	(cd / && "$CALLTRACE" report "$WORK/$run.trace" >"$WORK/$run.report" 2>"$WORK/$run.report.err") ||
		fail "$run: report failed: $(cat "$WORK/$run.report.err")"
	for f in pl_entry pl_double; do
		[ "$(report_calls "$WORK/$run.report" "$f")" = 1 ] || fail "$run: $f is not named once in the report"
	done
	grep -q 'sub_' "$WORK/$run.report" && fail "$run: nameless functions: $(grep -m1 sub_ "$WORK/$run.report")"
	[ -s "$WORK/$run.report.err" ] && fail "$run: the report warns: $(head -n1 "$WORK/$run.report.err")"
	ct info "$WORK/$run.trace" >"$WORK/$run.info"
	grep -Eq " $WORK/$build/plugin\.so (build-id [0-9a-f]+ )?\(unloaded\)$" "$WORK/$run.info" ||
		fail "$run: the plugin is not stored with its absolute path: $(grep plugin.so "$WORK/$run.info" | head -n1)"
done
pass
