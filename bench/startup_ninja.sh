# shellcheck shell=bash disable=SC2154 # sourced by startup_bench.sh, which sets $SRC, $tmp
# startup_ninja.sh - the ninja workload of bench/startup_bench.sh (sourced by
# it): ninja from Debian's sources (ninja-build), built as Debian builds it
# (`configure.py --bootstrap` with dpkg-buildflags' flags: -g -O2 ...) and
# again with `--profile=gmon` (-pg, for uftrace), both kept under
# $SRC/ninja; and the build it runs.
#
# The build is not ninja's own: compiling ninja takes a minute, and the
# start-up cost being measured is that of many short processes.  It is a
# generated build.ninja shaped like a C project's: 15 libraries of 18
# sources, each source "compiled" by `sed` (its output) and `cksum` (a
# second file, as a compiler writes a depfile), each library archived by
# `rm -f` and `ar` (ninja's own archive rule), each library "linked" into a
# program by `cat` and `chmod`.  300 edges, each a `sh -c` running two
# programs: 900 processes under ninja, run with -j2.

ninja_edges_per_lib=18 ninja_libs=15

# ninja_build_one SRCDIR EXE [CONFIGURE_ARGS]: a copy of SRCDIR built with
# configure.py --bootstrap, its ninja moved to EXE.
ninja_build_one() {
	local src=$1 exe=$2 work=$SRC/ninja/work cflags ldflags
	shift 2
	rm -rf "$work"
	cp -R "$src" "$work"
	cflags="-g -O2" ldflags=""
	if command -v dpkg-buildflags >/dev/null; then
		cflags="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
		ldflags=$(dpkg-buildflags --get LDFLAGS)
	fi
	(cd "$work" && CFLAGS=$cflags LDFLAGS=$ldflags python3 configure.py --bootstrap "$@") || return 1
	mv "$work/ninja" "$exe"
	rm -rf "$work"
}

# ninja_paths: sets ninja_plain and ninja_pg, the two builds.
ninja_paths() { ninja_plain=$SRC/ninja/ninja-plain ninja_pg=$SRC/ninja/ninja-pg; }

# ninja_obtain: the two builds made, the first time (a few minutes); on
# failure prints why, in one line, and fails.
ninja_obtain() {
	local dir=$SRC/ninja src log=$SRC/ninja/build.log
	ninja_paths
	[ ! -x "$ninja_plain" ] || [ ! -x "$ninja_pg" ] || return 0
	command -v python3 >/dev/null || { echo "python3 is needed to build ninja"; return 1; }
	mkdir -p "$dir"
	src=$(debian_source ninja-build "$dir/src" 'ninja-build-*') || { echo "$src"; return 1; }
	echo "startup_bench: building ninja from $(basename "$src") twice (plain, -pg): a few minutes" >&2
	if ! ninja_build_one "$src" "$ninja_plain" >"$log" 2>&1 ||
		! ninja_build_one "$src" "$ninja_pg" --profile=gmon >>"$log" 2>&1; then
		echo "the build of ninja failed (see $log)"
		return 1
	fi
}

# ninja_workload DIR: the sources and build.ninja in DIR.
ninja_workload() {
	local dir=$1 l s objs progs=""
	mkdir -p "$dir/src"
	cat >"$dir/build.ninja" <<'NINJA'
rule cc
  command = sed -e 's/^/  /' $in > $out && cksum $out > $out.sum
rule ar
  command = rm -f $out && ar crs $out $in
rule link
  command = cat $in > $out && chmod +x $out
NINJA
	for ((l = 0; l < ninja_libs; l++)); do
		objs=""
		for ((s = 0; s < ninja_edges_per_lib; s++)); do
			printf 'int f%d_%d(int x) { return x + %d; }\n' "$l" "$s" "$s" >"$dir/src/l$l.s$s.c"
			echo "build obj/l$l.s$s.o: cc src/l$l.s$s.c" >>"$dir/build.ninja"
			objs="$objs obj/l$l.s$s.o"
		done
		echo "build lib/libl$l.a: ar$objs" >>"$dir/build.ninja"
		echo "build bin/p$l: link lib/libl$l.a" >>"$dir/build.ninja"
		progs="$progs bin/p$l"
	done
	echo "default$progs" >>"$dir/build.ninja"
}

# ninja_edges: the edges of the build; ninja_processes: the processes a run
# starts, ninja itself included (3 an edge).
ninja_edges() { echo $((ninja_libs * (ninja_edges_per_lib + 2))); }
ninja_processes() { echo $((3 * $(ninja_edges) + 1)); }

# ninja_clean DIR: the outputs removed, for a full build the next run.
ninja_clean() { rm -rf "${1:?}/obj" "${1:?}/lib" "${1:?}/bin" "$1/.ninja_log" "$1/.ninja_deps" "$1/gmon.out"; }
