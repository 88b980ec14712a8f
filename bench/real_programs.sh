# shellcheck shell=bash disable=SC2154,SC2034 # sourced by real_bench.sh, which sets its variables
# real_programs.sh - the programs of bench/real_bench.sh (sourced by it):
# each fetched and built the way its packaging builds it, with no tracing
# flags, and kept under $SRC so that the next run does not rebuild it.
#
# obtain_NAME prints the path of the program, or why it cannot be had (and
# fails).  workload_NAME run|start sets the array wargs to the arguments of
# the workload, or of a run that makes next to no calls (the start-up run).

obtain_fib() {
	local exe=$SRC/bin/fib
	if [ ! -x "$exe" ] || [ bench/workloads/fib.c -nt "$exe" ]; then
		mkdir -p "$SRC/bin"
		"$CC" -std=gnu11 -O2 -g -o "$exe" bench/workloads/fib.c || { echo "cannot build fib.c"; return 1; }
	fi
	echo "$exe"
}

workload_fib() {
	if [ "$1" = run ]; then wargs=("$fib_n" 1); else wargs=(0 1); fi
}

# ---------------------------------------------------------------- Lua

# Builds the interpreter as Debian's rules do (`make linux-readline` with
# dpkg-buildflags, -Os for the compiler modules, lua linked with the static
# library and -Wl,-E), without libtool, the C++ library and readline.
build_lua() {
	local dir=$1 exe=$2 obj=$1/obj mk=$1/src/Makefile cflags ldflags o extra
	local -a objs
	read -ra objs <<< "$(sed -n 's/^CORE_O=//p; s/^LIB_O=//p; s/^LUA_O=//p' "$mk" | tr -d '\t' | tr '\n' ' ')"
	[ ${#objs[@]} -gt 20 ] || { echo "no object list in $mk"; return 1; }
	cflags="-g -O2" ldflags=""
	if command -v dpkg-buildflags >/dev/null; then
		cflags="$(cd "$dir" && dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
		ldflags=$(dpkg-buildflags --get LDFLAGS)
	fi
	printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
		"$("$CC" -print-multiarch)" > "$dir/src/lua5.4-deb-multiarch.h"
	mkdir -p "$obj" "$(dirname "$exe")"
	for o in "${objs[@]}"; do
		extra=""
		case $o in llex.o | lparser.o | lcode.o) extra=-Os ;; esac
		echo "$CC -std=gnu99 $cflags -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX $extra" \
			"-c $dir/src/${o%.o}.c -o $obj/$o"
	done | xargs -P 2 -I{} sh -c {} || return 1
	# shellcheck disable=SC2086 # flag lists
	"$CC" $ldflags -o "$exe.tmp" "${objs[@]/#/$obj/}" -Wl,-E -lm -ldl && mv "$exe.tmp" "$exe"
}

obtain_lua() {
	local exe=$SRC/bin/lua5.4 log=$SRC/lua.log dir
	[ ! -x "$exe" ] || { echo "$exe"; return 0; }
	progress "fetching Debian's lua5.4 sources"
	dir=$(debian_source lua5.4 "$SRC/lua" 'lua5.4-*') ||
		{ echo "cannot fetch Debian's lua5.4 sources: $dir"; return 1; }
	[ -f "$dir/src/lua.c" ] || { echo "no src/lua.c in $dir"; return 1; }
	progress "building lua5.4 (-O2 -g, Debian's flags)"
	build_lua "$dir" "$exe" >> "$log" 2>&1 || { echo "the build of lua5.4 failed (see $log)"; return 1; }
	echo "$exe"
}

workload_lua() {
	if [ "$1" = run ]; then wargs=("$root/bench/workloads/real_lua.lua" "$scale"); else wargs=(-e "x = 1"); fi
}

# ---------------------------------------------------------------- SQLite

# The amalgamation inside npm's sqlite3 package (deps/sqlite-autoconf-*.tar.gz).
fetch_sqlite_source() {
	command -v npm >/dev/null || { echo "npm is needed"; return 1; }
	mkdir -p "$SRC/sqlite"
	cd "$SRC/sqlite" || return 1
	rm -rf package ./*.tgz
	npm pack --silent "$SQLITE_NPM"
	tar xzf ./*.tgz package/deps
	tar xzf package/deps/sqlite-autoconf-*.tar.gz
}

sqlite_source_dir() {
	local d
	for d in "$SRC"/sqlite/sqlite-autoconf-*/; do
		[ -f "$d/sqlite3.c" ] && [ -f "$d/shell.c" ] && { echo "${d%/}"; return 0; }
	done
	return 1
}

obtain_sqlite() {
	local exe=$SRC/bin/sqlite3 log=$SRC/sqlite.log dir
	[ ! -x "$exe" ] || { echo "$exe"; return 0; }
	progress "fetching the SQLite amalgamation (npm pack $SQLITE_NPM)"
	if ! dir=$(sqlite_source_dir); then
		# shellcheck disable=SC2015 # either step failing is the same failure
		(fetch_sqlite_source) > "$log" 2>&1 && dir=$(sqlite_source_dir) ||
			{ echo "cannot fetch the SQLite amalgamation (npm pack $SQLITE_NPM; see $log)"; return 1; }
	fi
	progress "building the SQLite shell (-O2 -g, one to a few minutes; kept for the next run)"
	mkdir -p "$SRC/bin"
	if ! "$CC" -O2 -g -o "$exe.tmp" "$dir/shell.c" "$dir/sqlite3.c" -ldl -lpthread -lm >> "$log" 2>&1; then
		echo "the build of the SQLite shell failed (see $log)"
		return 1
	fi
	mv "$exe.tmp" "$exe"
	echo "$exe"
}

workload_sqlite() {
	if [ "$1" = run ]; then
		wargs=(:memory: ".read $root/bench/workloads/real_sqlite.sql")
	else
		wargs=(:memory: "select 1;")
	fi
}
