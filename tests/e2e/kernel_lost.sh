#!/usr/bin/env bash
# kernel_lost.sh - kernel events that the rings had no room for are counted
# and said: with rings of one page (CALLTRACE_KERNEL_RING_PAGES=1), a loop
# of 200000 getppid() overflows them; record's summary says how many kernel
# events were lost, the trace holds the same count as the session's (the
# kernel does not say whose they were): info says it, no thread's record
# does, and what was recorded holds together (every getppid
# that ends with a return value returns the same parent pid; one whose exit
# was lost ends, without a value, where the next one begins).  Needs root (or CAP_PERFMON).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
build_c loop "$PROGRAMS/kernel/getppid_loop.c"
RC=0
CALLTRACE_KERNEL_RING_PAGES=1 "$CALLTRACE" record --syscalls --engine runtime \
	-o "$WORK/l.trace" "$WORK/loop" 200000 >"$WORK/l.out" 2>"$WORK/l.err" || RC=$?
grep -q "not recorded" "$WORK/l.err" && skip "$(grep "not recorded" "$WORK/l.err")"
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/l.err")"
said=$(sed -n 's/^calltrace: kernel: .*, \([0-9]*\) kernel events lost (ring buffers full)$/\1/p' "$WORK/l.err")
if [ -z "$said" ]; then
	! grep -q "lost" "$WORK/l.err" || fail "record's summary: $(grep "lost" "$WORK/l.err")"
	skip "no event was lost, even with rings of one page"
fi
ct info "$WORK/l.trace" >"$WORK/l.info"
grep -Eqx "incomplete: $said kernel events lost(, [0-9]+ calls? unfinished)?" "$WORK/l.info" ||
	fail "info does not say '$said kernel events lost': $(grep -E "incomplete|lost" "$WORK/l.info")"
grep -q "^  at offset 0: $said kernel events lost: the kernel's ring buffers had no room" \
	"$WORK/l.info" || fail "info's problems do not say the session lost $said kernel events"
python3 "$ROOT/tests/e2e/kernel_dump.py" "$WORK/l.trace" >"$WORK/l.dump" || fail "cannot read the trace"
! grep -q "^thread .* lost" "$WORK/l.dump" ||
	fail "a thread's record says calls were lost: $(grep "^thread .* lost" "$WORK/l.dump")"
python3 - "$WORK/l.dump" <<'PY' 2>"$WORK/check.err" || fail "$(cat "$WORK/check.err")"
import sys
enters, returns, prev = 0, set(), None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != "kernel":
        continue
    if f[4:7] == ["enter", "syscall", "110"]:
        enters += 1
    elif f[4] == "exit" and prev == ["enter", "syscall", "110"] and f[5] != "-":
        returns.add(f[5])
    prev = f[4:7]
if not 0 < enters <= 200000:
    sys.exit("%d getppid enters recorded" % enters)
if len(returns) != 1:
    sys.exit("getppid returned %s, want one parent pid" % sorted(returns)[:5])
PY
pass
