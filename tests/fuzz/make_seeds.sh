#!/usr/bin/env bash
# make_seeds.sh OUTDIR - real traces to start fuzzing from: the small test
# programs of tests/programs, built with -finstrument-functions into
# OUTDIR/bin (kept, so that symbols resolve) and recorded by
# build/bin/calltrace into OUTDIR/*.trace.  Threads, forks, exec, longjmp,
# signals, a crash, C++ and many small windows, and kernel chunks
# (kernel_seed.c), a ring: every kind of chunk and event.  Does nothing when OUTDIR already holds the traces.
# Environment: BUILD (default build), CALLTRACE (default BUILD/bin/calltrace).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: make_seeds.sh OUTDIR}
BUILD=${BUILD:-$ROOT/build}
CALLTRACE=${CALLTRACE:-$BUILD/bin/calltrace}
P=$ROOT/tests/programs
[ -f "$out/.done" ] && exit 0
[ -x "$CALLTRACE" ] || {
	echo "make_seeds: no calltrace at $CALLTRACE (run make)" >&2
	exit 1
}
mkdir -p "$out/bin"
cc() { gcc -std=gnu11 -g -O0 -finstrument-functions -pthread -o "$out/bin/$1" "$2"; }
cc tree "$P/tree.c"
cc threads "$P/threads.c"
cc forks "$P/forks.c"
cc jumps "$P/jumps.c"
cc crash "$P/crash.c"
cc signals "$P/signals.c"
cc exec "$P/exec.c"
cc exec_target "$P/exec_target.c"
cc longrun "$P/longrun.c"
cc ring_crash "$P/ring/ring_crash.c"
g++ -std=c++17 -g -O0 -finstrument-functions -o "$out/bin/cxx" "$P/cxx.cpp"

# rec NAME [RECORD OPTION...] -- PROGRAM [ARG...]: one seed; the program's
# own exit status does not matter (crash segv is meant to die).
rec() {
	local name=$1
	shift
	"$CALLTRACE" record -q -o "$out/$name.trace" "$@" >/dev/null 2>&1 </dev/null || true
	[ -s "$out/$name.trace" ] || echo "make_seeds: $name recorded nothing" >&2
}
rec tree "$out/bin/tree"
rec threads "$out/bin/threads"
rec forks "$out/bin/forks" fork "$out/forks.pid"
rec jumps "$out/bin/jumps"
rec crash --buffer-size 16K "$out/bin/crash" segv
rec signals "$out/bin/signals"
rec exec "$out/bin/exec" "$out/bin/exec_target"
rec cxx "$out/bin/cxx"
rec windows --buffer-size 16K "$out/bin/longrun" 3000
rec depth --max-depth 2 "$out/bin/tree"
# A ring gone round many times (record --ring): windows in reused slots,
# EV_OPEN_CALLS, a crash, two threads.
rec ring --ring 64K "$out/bin/ring_crash" 100000 100 2
# Kernel chunks (system calls, off-CPU intervals) merged into threads.
gcc -std=gnu11 -O1 -D_GNU_SOURCE -o "$out/bin/kernel_seed" "$ROOT/tests/fuzz/kernel_seed.c" \
	"$ROOT/src/format/kernel_stream.c" \
	"$BUILD/lib/libcalltrace.a" -lelf -ldl -pthread
"$out/bin/kernel_seed" "$out/kernel.trace"
rm -f "$out/forks.pid"
touch "$out/.done"
