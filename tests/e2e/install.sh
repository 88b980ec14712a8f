#!/usr/bin/env bash
# install.sh - `make install`: with DESTDIR and PREFIX=/usr/local it stages
# exactly the expected files (tool, runtime, header, pkg-config and CMake
# files, a man page per command, bash completion); installed under a
# PREFIX, calltrace finds its own runtime in PREFIX/lib and records a
# program; pkg-config builds a program that links the runtime and is
# recorded; a CMake project with find_package(calltrace) and
# calltrace::calltrace is compiled with -finstrument-functions and records
# its calls (also linked with libcalltrace.a through calltrace::static).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd make pkg-config
unset CALLTRACE_RUNTIME

install_into() { # DESTDIR PREFIX
	make --no-print-directory -s -C "$ROOT" install BUILD="$BUILD" DESTDIR="$1" PREFIX="$2" \
		>"$WORK/install.out" 2>&1 || fail "make install DESTDIR=$1 PREFIX=$2: $(tail -n 3 "$WORK/install.out")"
}

# The staged layout, file by file: one man page per command of --help.
install_into "$WORK/stage" /usr/local
commands=$("$CALLTRACE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(printf '%s\n' "$commands" | wc -l)" -ge 13 ] || fail "calltrace --help lists too few commands"
{
	printf '%s\n' bin/calltrace lib/libcalltrace.so lib/libcalltrace-dwarf.so lib/libcalltrace.a include/calltrace.h \
		lib/pkgconfig/calltrace.pc lib/cmake/calltrace/calltraceConfig.cmake \
		lib/cmake/calltrace/calltraceConfigVersion.cmake share/man/man1/calltrace.1 \
		share/bash-completion/completions/calltrace
	for c in $commands; do echo "share/man/man1/calltrace-$c.1"; done
} | sort >"$WORK/layout.expected"
(cd "$WORK/stage/usr/local" && find . -type f | sed 's|^\./||' | sort) >"$WORK/layout.got"
[ -z "$(cd "$WORK/stage" && find . -maxdepth 2 -mindepth 1 ! -path ./usr ! -path ./usr/local)" ] ||
	fail "make install wrote outside DESTDIR/usr/local"
expect_text "installed files" "$WORK/layout.expected" "$WORK/layout.got"
[ -x "$WORK/stage/usr/local/bin/calltrace" ] || fail "installed calltrace is not executable"
grep -qx 'prefix=/usr/local' "$WORK/stage/usr/local/lib/pkgconfig/calltrace.pc" ||
	fail "the staged calltrace.pc does not name prefix /usr/local"
cmp -s "$BUILD/lib/libcalltrace.so" "$WORK/stage/usr/local/lib/libcalltrace.so" ||
	fail "the staged runtime is not the built one"

# A real prefix: the installed tool knows its version and its runtime.
P=$WORK/prefix
install_into "" "$P"
version=$(sed -n 's/^#define CALLTRACE_VERSION "\(.*\)"$/\1/p' "$ROOT/src/cli/main.c")
[ "$("$P/bin/calltrace" --version)" = "calltrace $version" ] ||
	fail "installed calltrace --version says '$("$P/bin/calltrace" --version)', not 'calltrace $version'"
CALLTRACE=$P/bin/calltrace
build_c tree "$PROGRAMS/tree.c"
record tree "$WORK/tree"
grep -q 'runtime library' "$WORK/tree.err" || fail "installed calltrace did not use the runtime: $(head -c 300 "$WORK/tree.err")"
to_json tree
expect_trees tree <<'TREES'
== process 1 main
main
  parse_input
    read_token [x3]
  compute
    slow_step
      slow_inner
    fast_step
      fast_inner [x2]
  emit_output
    format_line [x2]
TREES
ct replay "$WORK/tree.trace" >"$WORK/tree.replay"
grep -q 'slow_inner' "$WORK/tree.replay" || fail "installed calltrace replay does not show slow_inner"
# It is PREFIX/lib/libcalltrace.so that record preloads: without it, record says so.
mv "$P/lib/libcalltrace.so" "$WORK/hidden.so"
rc=0
"$CALLTRACE" record -o "$WORK/none.trace" "$WORK/tree" >/dev/null 2>"$WORK/none.err" || rc=$?
mv "$WORK/hidden.so" "$P/lib/libcalltrace.so"
if [ $rc != 127 ] || ! grep -q 'cannot find the runtime library' "$WORK/none.err"; then
	fail "record without PREFIX/lib/libcalltrace.so exited $rc: $(head -c 200 "$WORK/none.err")"
fi

# calls_of TRACE FUNCTION: how many calls of FUNCTION the trace holds (0 if none).
calls_of() {
	ct report "$1" >"$WORK/calls.report"
	grep -q " $2\$" "$WORK/calls.report" || { echo 0; return; }
	report_calls "$WORK/calls.report" "$2"
}
# expect_c_api TRACE WHAT: c_api's calls: before 0, during 5, after 0.
expect_c_api() {
	local got
	got="$(calls_of "$1" before) $(calls_of "$1" during) $(calls_of "$1" after)"
	[ "$got" = "0 5 0" ] || fail "$2: before/during/after recorded $got times, not 0 5 0"
}

# pkg-config: the flags compile calltrace.h users with the hooks and link the runtime.
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs calltrace) ||
	fail "pkg-config does not find calltrace in $P/lib/pkgconfig"
flags=${flags%"${flags##*[! ]}"} # pkg-config ends the line with a space
[ "$flags" = "-I$P/include -finstrument-functions -L$P/lib -lcalltrace" ] ||
	fail "pkg-config --cflags --libs calltrace gives '$flags'"
# shellcheck disable=SC2086 # the flags are words
gcc -std=gnu11 -g -O0 "$PROGRAMS/c_api.c" -o "$WORK/pc_app" $flags || fail "cannot build with pkg-config's flags"
readelf -d "$WORK/pc_app" | grep -q 'NEEDED.*\[libcalltrace.so\]' || fail "pc_app does not link libcalltrace.so"
CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/pc.trace LD_LIBRARY_PATH=$P/lib "$WORK/pc_app" >"$WORK/pc.out" ||
	fail "pc_app exited $?"
grep -qx 'c_api ok' "$WORK/pc.out" || fail "pc_app printed $(cat "$WORK/pc.out")"
expect_c_api "$WORK/pc.trace" "pkg-config build"
# Under calltrace record the preloaded runtime is the library it needs (same soname).
CALLTRACE_START=off "$CALLTRACE" record -q -o "$WORK/pc_rec.trace" "$WORK/pc_app" >"$WORK/pc_rec.out" 2>"$WORK/pc_rec.err" ||
	fail "calltrace record pc_app exited $?: $(head -c 300 "$WORK/pc_rec.err")"
expect_c_api "$WORK/pc_rec.trace" "pkg-config build under record"

# CMake: find_package(calltrace) and the calltrace::calltrace target.
need_cmd cmake
mkdir -p "$WORK/cm"
cp "$PROGRAMS/c_api.c" "$WORK/cm/app.c"
cat >"$WORK/cm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(app C)
find_package(calltrace 0.1 REQUIRED)
add_executable(app app.c)
target_link_libraries(app calltrace::calltrace)
add_executable(app_static app.c)
target_link_libraries(app_static calltrace::static)
CMAKE
cmake -S "$WORK/cm" -B "$WORK/cm/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Debug \
	>"$WORK/cmake.out" 2>&1 || fail "cmake configure: $(tail -n 5 "$WORK/cmake.out")"
cmake --build "$WORK/cm/build" -- VERBOSE=1 >"$WORK/cmake.build" 2>&1 ||
	fail "cmake build: $(tail -n 5 "$WORK/cmake.build")"
grep -q -- '-finstrument-functions' "$WORK/cmake.build" || fail "calltrace::calltrace did not add -finstrument-functions"
"$CALLTRACE" check "$WORK/cm/build/app" >"$WORK/cm.check" || fail "calltrace check of the CMake build: $(tail -n 4 "$WORK/cm.check")"
CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/cm.trace "$WORK/cm/build/app" >"$WORK/cm.out" || fail "the CMake app exited $?"
expect_c_api "$WORK/cm.trace" "CMake build"
CALLTRACE_START=off "$CALLTRACE" record -q -o "$WORK/cm_rec.trace" "$WORK/cm/build/app" >/dev/null 2>&1 ||
	fail "calltrace record of the CMake app failed"
expect_c_api "$WORK/cm_rec.trace" "CMake build under record"
# calltrace::static links libcalltrace.a: no libcalltrace.so needed.
! readelf -d "$WORK/cm/build/app_static" | grep -q 'libcalltrace' || fail "app_static needs libcalltrace.so"
CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/cm_static.trace "$WORK/cm/build/app_static" >/dev/null ||
	fail "the CMake app_static exited $?"
expect_c_api "$WORK/cm_static.trace" "CMake build with calltrace::static"
# A version newer than the installed one is refused.
sed -i 's/find_package(calltrace 0.1 REQUIRED)/find_package(calltrace 99 REQUIRED)/' "$WORK/cm/CMakeLists.txt"
if cmake -S "$WORK/cm" -B "$WORK/cm/build99" -DCMAKE_PREFIX_PATH="$P" >"$WORK/cmake99.out" 2>&1; then
	fail "find_package(calltrace 99) accepted version $version"
fi
pass
