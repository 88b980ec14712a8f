#!/usr/bin/env bash
# check_build.sh - `calltrace check`, the build validator: a bare build (no
# -g, no -finstrument-functions) fails naming both flags, a good one passes;
# each flag alone is named alone; PIE and non-PIE, stripped (with and
# without a .gnu_debuglink file, and a stale one), static (bare, with
# glibc's empty hooks, with libcalltrace.a), -pg, -mfentry and patchable
# entries, libraries on the command line and needed ones; a C++ program
# with the headers' std:: functions instrumented gets the exclude flag; a
# libtool wrapper names its program; bad input exits 2 with one line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/tree.c
lib=$(dirname "$RUNTIME")

build() { # OUT FLAG...: tree.c built with exactly these flags
	local out=$1
	shift
	gcc -std=gnu11 -O0 "$@" "$src" -o "$WORK/$out" || fail "cannot build $out"
}

# check NAME EXPECTED-STATUS FILE...: runs calltrace check, output in $WORK/NAME.check.
check() {
	local name=$1 want=$2 rc=0
	shift 2
	"$CALLTRACE" check "$@" >"$WORK/$name.check" 2>"$WORK/$name.check.err" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "check $name exited $rc, not $want: $(tail -n 5 "$WORK/$name.check" "$WORK/$name.check.err")"
}
has() { # NAME LINE: the output of check NAME has this exact line
	grep -qxF -- "$2" "$WORK/$1.check" || fail "check $1: no line '$2' in: $(cat "$WORK/$1.check")"
}
lacks() { # NAME TEXT
	! grep -qF -- "$2" "$WORK/$1.check" || fail "check $1: '$2' should not be in: $(cat "$WORK/$1.check")"
}

build bare
check bare 1 "$WORK/bare"
has bare "  hooks:      none (not built with -finstrument-functions)"
has bare "  debug info: none (not built with -g)"
has bare "verdict: something is missing"
has bare "  rebuild $WORK/bare with: -g -finstrument-functions"
grep -q "^  record:     uses the in-process engine" "$WORK/bare.check" || fail "bare: not the in-process engine"

build good -g -finstrument-functions
check good 0 "$WORK/good"
has good "  hooks:      -finstrument-functions (calls __cyg_profile_func_enter)"
has good "  debug info: in the file (.debug_info)"
has good "verdict: nothing missing: every call is recorded, with function names and source lines"
lacks good "fix:"

build hooks_only -finstrument-functions
check hooks_only 1 "$WORK/hooks_only"
has hooks_only "  rebuild $WORK/hooks_only with: -g"
build debug_only -g
check debug_only 1 "$WORK/debug_only"
has debug_only "  rebuild $WORK/debug_only with: -finstrument-functions"

# PIE or not: said, and neither is missing anything.
build pie -g -finstrument-functions -fPIE -pie
build nopie -g -finstrument-functions -fno-pie -no-pie
check pie 0 "$WORK/pie"
check nopie 0 "$WORK/nopie"
has pie "$WORK/pie: program, dynamically linked, PIE, not stripped"
has nopie "$WORK/nopie: program, dynamically linked, not PIE, not stripped"

# Stripped: no names, no lines, unless a debug file is linked.
cp "$WORK/good" "$WORK/stripped"
strip "$WORK/stripped"
check stripped 1 "$WORK/stripped"
has stripped "$WORK/stripped: program, dynamically linked, PIE, stripped (no .symtab)"
has stripped "  $WORK/stripped: stripped: only its exported functions have names"
has stripped "  rebuild $WORK/stripped with: -g, and do not strip it (no -s, no strip)"
cp "$WORK/good" "$WORK/linked"
objcopy --only-keep-debug "$WORK/linked" "$WORK/linked.debug"
strip "$WORK/linked"
objcopy --add-gnu-debuglink="$WORK/linked.debug" "$WORK/linked"
check linked 0 "$WORK/linked"
has linked "  debug info: separate, $WORK/linked.debug (.gnu_debuglink)"
echo >>"$WORK/linked.debug"
check stale 1 "$WORK/linked"
has stale "  debug info: none usable: $WORK/linked.debug (.gnu_debuglink) is from another build (CRC differs)"
rm "$WORK/linked.debug"
check unlinked 1 "$WORK/linked"
has unlinked "  debug info: none: .gnu_debuglink names linked.debug, which is nowhere to be found"

# Static: the ptrace engine, and the runtime must be linked in.
if gcc -static "$src" -o "$WORK/static" 2>/dev/null; then
	check static 1 "$WORK/static"
	has static "$WORK/static: program, statically linked, not PIE, not stripped"
	grep -q "^  record:     uses the ptrace engine (statically linked" "$WORK/static.check" ||
		fail "static: not the ptrace engine: $(cat "$WORK/static.check")"
	has static "  rebuild $WORK/static with: -g -finstrument-functions, and link libcalltrace.a into it (a static program cannot preload the runtime)"
	build static_empty -static -g -finstrument-functions
	check static_empty 1 "$WORK/static_empty"
	has static_empty "  $WORK/static_empty: its hooks are glibc's empty ones: no call is recorded"
	gcc -std=gnu11 -O0 -static -g -finstrument-functions "$src" "$lib/libcalltrace.a" -ldl -lpthread \
		-o "$WORK/static_rt" 2>/dev/null || fail "cannot link libcalltrace.a statically"
	check static_rt 0 "$WORK/static_rt"
	has static_rt "  hooks:      -finstrument-functions, with the runtime linked in"
	# What check promises: the static program records by itself.
	CALLTRACE_OUTPUT=$WORK/static_rt.trace "$WORK/static_rt" >/dev/null || fail "static_rt exited $?"
	ct report "$WORK/static_rt.trace" >"$WORK/static_rt.report"
	[ "$(report_calls "$WORK/static_rt.report" read_token)" = 3 ] || fail "static_rt: read_token not recorded 3 times"
else
	echo "no static libc: static cases left out"
fi

# Hooks calltrace does not use are named, and still missing -finstrument-functions.
build pg -g -pg
check pg 1 "$WORK/pg"
has pg "  hooks:      -pg (mcount): calltrace does not use these"
build fentry -g -pg -mfentry
check fentry 1 "$WORK/fentry"
grep -q "^  hooks:      .*-mfentry (__fentry__)" "$WORK/fentry.check" || fail "fentry: -mfentry not named"
build patchable -g -fpatchable-function-entry=5
check patchable 1 "$WORK/patchable"
has patchable "  hooks:      patchable entries (-fpatchable-function-entry): calltrace does not use these"
has patchable "  rebuild $WORK/patchable with: -finstrument-functions"

# Libraries: named ones are checked, needed ones said instrumented or not.
mm=$WORK/mm
mkdir -p "$mm"
gcc -std=gnu11 -g -finstrument-functions -fPIC -shared "$PROGRAMS/multimod/shared.c" -o "$mm/libshared.so"
gcc -std=gnu11 -fPIC -shared "$PROGRAMS/multimod/plugin.c" -o "$mm/plugin.so"
gcc -std=gnu11 -g -finstrument-functions -c "$PROGRAMS/multimod/static.c" -o "$mm/static.o"
ar rcs "$mm/libstatic.a" "$mm/static.o"
gcc -std=gnu11 -g -finstrument-functions "$PROGRAMS/multimod/main.c" -o "$mm/multimod" \
	-L"$mm" -lstatic -lshared -Wl,-rpath,'$ORIGIN' -ldl -pthread || fail "cannot build multimod"
check libs 1 "$mm/multimod" "$mm/libshared.so" "$mm/plugin.so"
has libs "  needs:      libshared.so ($mm/libshared.so): instrumented"
has libs "$mm/plugin.so: shared library, dynamically linked, not stripped"
has libs "  record:     its calls are not recorded (the program's hooks drive the recording)"
has libs "  rebuild $mm/plugin.so with: -g -finstrument-functions"
lacks libs "rebuild $mm/multimod"
lacks libs "rebuild $mm/libshared.so"
check libs_good 0 "$mm/multimod" "$mm/libshared.so"

# A program found on PATH, as record finds it.
mkdir -p "$WORK/bin"
cp "$WORK/good" "$WORK/bin/goodprog"
PATH=$WORK/bin:$PATH check path 0 goodprog
has path "goodprog: program, dynamically linked, PIE, not stripped"

# Bad input: exit 2, one line on stderr, nothing on stdout.
bad() { # NAME EXPECTED-LINE ARG...
	local name=$1 line=$2
	shift 2
	check "$name" 2 "$@"
	[ ! -s "$WORK/$name.check" ] || fail "check $name wrote to stdout: $(cat "$WORK/$name.check")"
	[ "$(cat "$WORK/$name.check.err")" = "$line" ] ||
		fail "check $name said '$(cat "$WORK/$name.check.err")', not '$line'"
}
bad missing "calltrace: check: $WORK/nope: No such file or directory" "$WORK/nope"
bad not_elf "calltrace: check: $src: not an ELF file" "$src"
bad a_library "calltrace: check: $mm/libshared.so: a shared library, not a program (name the program first)" "$mm/libshared.so"
bad object "calltrace: check: $mm/static.o: an ELF object, not a program or shared library" "$mm/static.o"
bad missing_lib "calltrace: check: $WORK/nolib.so: No such file or directory" "$WORK/good" "$WORK/nolib.so"
bad no_args "calltrace: check: no program given (see 'calltrace check --help')"
bad bad_option "calltrace: check: bad or incomplete option '--nope' (see 'calltrace check --help')" --nope "$WORK/good"
# C++: the functions of the standard library's headers compiled in (template
# instances) are instrumented too unless /usr/include is left out: said, with
# their number (from the symbol table) and the flag; the rebuilt one passes.
cat >"$WORK/sorter.cpp" <<'CXX'
#include <vector>
int sum_of(int n)
{
	std::vector<int> v;
	for (int i = 0; i < n; i++)
		v.push_back(i);
	int s = 0;
	for (int x : v)
		s += x;
	return s;
}
int main() { return sum_of(4) - 6; }
CXX
need_cmd g++
g++ -g -O0 -finstrument-functions -o "$WORK/cxx" "$WORK/sorter.cpp" || fail "cannot compile cxx"
nstd=$(nm --defined-only "$WORK/cxx" | awk '$2 ~ /^[TtWw]$/ && $3 ~ /^_Z(NK?)?(St|Ss|9__gnu_cxx)/' | wc -l)
[ "$nstd" -gt 0 ] || fail "cxx: no std:: function compiled in"
check cxx 1 "$WORK/cxx"
has cxx "  $WORK/cxx: $nstd functions of the C++ standard library's headers (std::) are compiled in and instrumented: their calls can outnumber the program's own many times over"
has cxx "  rebuild $WORK/cxx with: -finstrument-functions-exclude-file-list=/usr/include (the program's own functions stay instrumented)"
g++ -g -O0 -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include -o "$WORK/cxx_ex" \
	"$WORK/sorter.cpp" || fail "cannot compile cxx_ex"
check cxx_ex 0 "$WORK/cxx_ex"
lacks cxx_ex "standard library's headers"

# A libtool wrapper script: said so, with the program it runs.
mkdir -p "$WORK/lt/.libs"
cp "$WORK/good" "$WORK/lt/.libs/tool"
cat >"$WORK/lt/tool" <<'SH'
#! /bin/bash

# tool - temporary wrapper script for .libs/tool
# Generated by libtool (GNU libtool) 2.4.7
exec "$(dirname "$0")/.libs/tool" "$@"
SH
chmod +x "$WORK/lt/tool"
bad libtool "calltrace: check: $WORK/lt/tool: a libtool wrapper script, not an ELF file: check the program it runs, $WORK/lt/.libs/tool" "$WORK/lt/tool"
"$CALLTRACE" check --help | grep -q '^usage: calltrace check PROGRAM' || fail "check --help"
pass
