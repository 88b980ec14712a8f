# arm64/lib.sh - helpers of the aarch64 tests (tests/e2e/arm64_*.sh), which
# run the aarch64 build (make ARCH=aarch64: build-aarch64/) under qemu-user
# through binfmt_misc, beside the machine's own build.
#
# Environment: A64_BUILD (default build-aarch64/); ARM64_ALL=1 runs every
# case of a test (make check-aarch64), else a bounded part (make check).
# Sourced after lib.sh.

A64_BUILD=$(abs_path "${A64_BUILD:-$ROOT/build-aarch64}")
A64_CALLTRACE=$A64_BUILD/bin/calltrace
A64_RUNTIME=$A64_BUILD/lib/libcalltrace.so
A64_CC=aarch64-linux-gnu-gcc
A64_CXX=aarch64-linux-gnu-g++
# The tool of this machine, which reads the aarch64 traces too.
NATIVE_CALLTRACE=$CALLTRACE

# Skips (with the reason) unless the cross compiler, the aarch64 build and a
# way to run aarch64 programs are all there.
a64_require() {
	if [ "$(uname -m)" = aarch64 ]; then
		A64_CC=gcc A64_CXX=g++
	fi
	command -v "$A64_CC" >/dev/null 2>&1 ||
		skip "no aarch64 cross compiler ($A64_CC; make deps installs gcc-aarch64-linux-gnu)"
	[ -x "$A64_CALLTRACE" ] && [ -f "$A64_RUNTIME" ] ||
		skip "no aarch64 build in $A64_BUILD (make aarch64)"
	"$A64_CALLTRACE" --version >/dev/null 2>&1 ||
		skip "aarch64 programs do not run here (qemu-user-static and binfmt_misc: make deps)"
}

# a64_shim DIR: DIR holds gcc, g++ (cc, c++) and binutils' tools of
# aarch64 under their plain names, for the machine-independent tests run
# for aarch64.
a64_shim() {
	local dir=$1 t
	mkdir -p "$dir"
	[ "$(uname -m)" = aarch64 ] && return 0
	for t in gcc g++ nm addr2line objdump readelf ar strip objcopy; do
		ln -sf "$(command -v aarch64-linux-gnu-$t)" "$dir/$t"
	done
	ln -sf "$dir/gcc" "$dir/cc"
	ln -sf "$dir/g++" "$dir/c++"
}

# a64_shim_plain DIR: the same, but gcc and g++ (cc, c++) leave
# -finstrument-functions out: the test's programs are built plain, and
# recorded by the in-process engine.
a64_shim_plain() {
	local dir=$1 t real
	a64_shim "$dir"
	for t in gcc g++; do
		real=$(command -v aarch64-linux-gnu-$t || command -v $t)
		rm -f "$dir/$t"
		# shellcheck disable=SC2016 # the wrapper's own $a and $@
		printf '#!/bin/sh\nfor a; do shift; [ "$a" = -finstrument-functions ] || set -- "$@" "$a"; done\nexec %s "$@"\n' \
			"$real" >"$dir/$t"
		chmod +x "$dir/$t"
	done
}

# a64_run_test NAME [plain]: runs tests/e2e/NAME.sh with the aarch64 tool,
# runtime and compilers (plain: programs built without
# -finstrument-functions); passes, or fails with the test's last lines.
a64_run_test() {
	local name=$1 how=${2:-} rc=0 shim=$WORK/shim
	if [ "$how" = plain ]; then
		shim=$WORK/shim_plain
		a64_shim_plain "$shim"
	else
		a64_shim "$shim"
	fi
	PATH="$shim:$PATH" CALLTRACE=$A64_CALLTRACE RUNTIME=$A64_RUNTIME BUILD=$A64_BUILD \
		bash "$ROOT/tests/e2e/$name.sh" >"$WORK/$name$how.log" 2>&1 || rc=$?
	[ $rc = 77 ] && skip "$name: $(tail -n 1 "$WORK/$name$how.log")"
	[ $rc = 0 ] || fail "$name ${how:+($how) }on aarch64 (exit $rc): $(tail -n 4 "$WORK/$name$how.log")"
}

# a64_build_c OUT SOURCE... [FLAG...]: an instrumented aarch64 C program in $WORK/OUT.
a64_build_c() {
	local out=$1
	shift
	"$A64_CC" -std=gnu11 "${CFLAGS_TRACED[@]}" -o "$WORK/$out" "$@" -pthread ||
		fail "cannot compile $out for aarch64"
}
