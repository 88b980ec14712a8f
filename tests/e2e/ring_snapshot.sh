#!/usr/bin/env bash
# ring_snapshot.sh - record --ring: `calltrace ctl snapshot` while the
# program runs copies the ring into NAME.snapshot-1.trace (ctl prints the
# name once the copy is whole), a valid trace of the most recent calls (the
# last ones all there, the older overwritten), and the program and its
# recording go on (its calls after the snapshot are in the ring, not in the
# copy).  The same with three threads calling all
# the while, the snapshot asked by a plain signal (kill -USR2): no problem in
# the copy, the threads' calls there.  Without CALLTRACE_SIGNAL, ctl says so.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c ring_wait "$PROGRAMS/ring/ring_wait.c"
# A failure lets a waiting program end too.
trap 'trap - ERR; touch "$WORK/go"; wait || true; rm -rf "$WORK"' EXIT

EARLY=500000 LAST=1000
CALLTRACE_SIGNAL=SIGUSR2 "$CALLTRACE" record --ring 256K --no-libcall -o "$WORK/s.trace" \
	"$WORK/ring_wait" $EARLY $LAST "$WORK/ready" "$WORK/go" >"$WORK/s.out" 2>"$WORK/s.err" &
ct_pid=$!
wait_for "the program called $((EARLY + LAST)) times" test -s "$WORK/ready"
pid=$(cat "$WORK/ready")
ct ctl -p "$pid" snapshot >"$WORK/ctl.out"
# ctl prints the copy's name once it is whole (record's CALLTRACE_SESSION names the trace).
[ "$(cat "$WORK/ctl.out")" = "$WORK/s.snapshot-1.trace" ] || fail "ctl printed '$(cat "$WORK/ctl.out")'"
[ ! -e "$WORK/s.snapshot-1.trace.part" ] || fail "the snapshot's .part is left"
said() {
	! grep -q "^calltrace: no snapshot" "$WORK/s.err" || fail "$(grep 'no snapshot' "$WORK/s.err")"
	grep -q "^calltrace: snapshot of the trace: $WORK/s.snapshot-1.trace$" "$WORK/s.err"
}
wait_for "the program said where its snapshot went" said
touch "$WORK/go"
rc=0
wait "$ct_pid" || rc=$?
[ "$rc" = 0 ] || fail "the program exited $rc after its snapshot: $(head -c 300 "$WORK/s.err")"

snap=$WORK/s.snapshot-1.trace
ct info "$snap" >"$WORK/snap.info"
grep -q '^problems: *0$' "$WORK/snap.info" ||
	fail "the snapshot has problems: $(grep -A3 '^problems' "$WORK/snap.info")"
ct report "$snap" >"$WORK/snap.report"
[ "$(report_calls "$WORK/snap.report" last_work)" = $LAST ] ||
	fail "the snapshot keeps $(report_calls "$WORK/snap.report" last_work) calls of last_work, not $LAST"
early=$(report_calls "$WORK/snap.report" early_work)
[ "$early" -gt 0 ] && [ "$early" -lt $EARLY ] || fail "the snapshot keeps $early calls of early_work"
! grep -q after_work "$WORK/snap.report" || fail "the snapshot has calls made after it"
grep -q '^ring: .* [1-9][0-9]* windows' "$WORK/snap.info" || fail "the snapshot counts nothing overwritten"
ct replay "$snap" >"$WORK/snap.replay"
grep -q '} /\* main \*/ /\* entered before the kept calls, unfinished \*/' "$WORK/snap.replay" ||
	fail "main is not shown entered before the kept calls in the snapshot"

ct report "$WORK/s.trace" >"$WORK/s.report"
[ "$(report_calls "$WORK/s.report" after_work)" = 10 ] || fail "the ring lacks the calls after the snapshot"
[ "$(report_calls "$WORK/s.report" last_work)" = $LAST ] || fail "the ring lacks last_work's calls"

# Three busy threads; a plain signal asks a ring for a snapshot.
rm -f "$WORK/ready" "$WORK/go"
CALLTRACE_SIGNAL=SIGUSR2 "$CALLTRACE" record --ring 256K --no-libcall -o "$WORK/b.trace" \
	"$WORK/ring_wait" $EARLY $LAST "$WORK/ready" "$WORK/go" 3 >"$WORK/b.out" 2>"$WORK/b.err" &
ct_pid=$!
wait_for "the program called $((EARLY + LAST)) times" test -s "$WORK/ready"
kill -USR2 "$(cat "$WORK/ready")"
said_b() { grep -q "^calltrace: snapshot of the trace: $WORK/b.snapshot-1.trace$" "$WORK/b.err"; }
wait_for "the program said where its snapshot went" said_b
touch "$WORK/go"
rc=0
wait "$ct_pid" || rc=$?
[ "$rc" = 0 ] || fail "busy: the program exited $rc: $(head -c 300 "$WORK/b.err")"
ct info "$WORK/b.snapshot-1.trace" >"$WORK/b.info"
grep -q '^problems: *0$' "$WORK/b.info" ||
	fail "busy: the snapshot has problems: $(grep -A3 '^problems' "$WORK/b.info")"
ct report "$WORK/b.snapshot-1.trace" >"$WORK/b.report"
[ "$(report_calls "$WORK/b.report" busy_work)" -gt 0 ] || fail "busy: no busy_work in the snapshot"
[ "$(grep -c '^    thread .*kept' "$WORK/b.info")" = 4 ] || fail "busy: not 4 threads in the snapshot"

# A program started without CALLTRACE_SIGNAL: ctl says so, and fails.
rc=0
"$CALLTRACE" ctl -p $$ snapshot 2>"$WORK/nosig.err" || rc=$?
[ "$rc" != 0 ] && grep -q "without CALLTRACE_SIGNAL" "$WORK/nosig.err" ||
	fail "ctl snapshot of a process without the signal: exit $rc, $(head -c 200 "$WORK/nosig.err")"
pass
