#!/usr/bin/env bash
# kernel_args_threads.sh - each copy of a system call's arguments goes with
# its own call when many threads make calls at once: 8 threads
# (tests/programs/kernel/sysargs_threads.c), started together, each write
# "t<i>:<k>" 300 times and read its own file ("file<i>"); in replay every
# thread has exactly 300 writes, k = 0..299 in order, all of one i, and 300
# reads, each of its own file's bytes.  And a path the program has not
# touched (a mapped page) that the BPF program cannot read at the call is
# read at the return: openat shows it.  Needs root.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c threads "$PROGRAMS/kernel/sysargs_threads.c"
for i in $(seq 0 7); do printf 'file%d' "$i" >"$WORK/file$i"; done
printf '%s/target\0' "$WORK" >"$WORK/path"
: >"$WORK/target"
RC=0
"$CALLTRACE" record --syscalls -o "$WORK/t.trace" "$WORK/threads" 8 300 "$WORK" \
	>"$WORK/t.out" 2>"$WORK/t.err" || RC=$?
grep -q "not recorded" "$WORK/t.err" && skip "$(grep "not recorded" "$WORK/t.err")"
grep -q "shown as pointers" "$WORK/t.err" && skip "$(grep "shown as pointers" "$WORK/t.err")"
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/t.err")"
grep -q "events lost" "$WORK/t.err" && skip "kernel events were lost: $(cat "$WORK/t.err")"
ct replay "$WORK/t.trace" >"$WORK/t.replay"
python3 - "$WORK/t.replay" "$WORK" <<'PY' 2>"$WORK/check.err" || fail "$(cat "$WORK/check.err")"
import re, sys
replay, work = sys.argv[1], sys.argv[2]
line_re = re.compile(r'\[\s*(\d+)\] \| +\[syscall\] (\w+)\((.*)\) = (-?\d+)')
writes, reads, opened = {}, {}, False
for line in open(replay):
    m = line_re.search(line)
    if not m:
        continue
    tid, name, args = m.group(1), m.group(2), m.group(3)
    w = re.match(r'\d+, "t(\d+):(\d+)", \d+$', args)
    if name == "write" and w:
        writes.setdefault(tid, []).append((int(w.group(1)), int(w.group(2))))
    elif name == "write" and re.match(r'\d+, 0x', args):
        sys.exit("a write without its bytes: " + line.strip())
    if name == "pread64" and args.endswith(", 16, 0"):
        r = re.match(r'\d+, "file(\d)", 16, 0$', args)
        if not r:
            sys.exit("a pread64 without its file's bytes: " + line.strip())
        reads.setdefault(tid, []).append(int(r.group(1)))
    if name == "openat" and args.startswith('AT_FDCWD, "%s/target", O_RDONLY' % work):
        opened = True
if not opened:
    sys.exit("no openat of the untouched path read at the return")
if len(writes) != 8:
    sys.exit("%d threads wrote, want 8" % len(writes))
seen = set()
for tid, ws in writes.items():
    ids = {i for i, _ in ws}
    if len(ids) != 1 or [k for _, k in ws] != list(range(300)):
        sys.exit("thread %s wrote %s..." % (tid, ws[:8]))
    i = ids.pop()
    seen.add(i)
    if reads.get(tid) != [i] * 300:
        sys.exit("thread %s (t%d) read %d times: %s..." % (tid, i, len(reads.get(tid, [])),
                                                       reads.get(tid, [])[:8]))
if seen != set(range(8)):
    sys.exit("threads %s" % sorted(seen))
PY
pass
