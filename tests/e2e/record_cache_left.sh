#!/usr/bin/env bash
# record_cache_left.sh - the folder where a recording's processes share
# what each module's file gives, the recording's own (--no-cache), is
# removed when the recording ends, and,
# when a killed recording left it, by the next recording: a recording
# killed with SIGKILL leaves its folder; the next one removes it, but not
# the folder of a recording still running beside it, nor a folder that is
# not a recording's (no lock in it) or is another's name.
source "$(dirname "$0")/lib.sh"
setup

export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR/calltrace-functions.notours" "$TMPDIR/other"
folders() { find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'calltrace-functions.*' | sort; }
# wait_folders N: until there are N.
wait_folders() {
	for _ in $(seq 100); do
		[ "$(folders | wc -l)" = "$1" ] && return
		sleep 0.1
	done
	fail "not $1 folders: $(folders)"
}

# A recording that runs meanwhile: its folder must stay.
"$CALLTRACE" record -q --no-cache -o "$WORK/running.trace" -- sh -c 'echo $$ >"$1"; exec sleep 30' sh "$WORK/running.pid" &
running=$!
wait_folders 2
kept=$(folders | grep -v notours)
[ -f "$kept/session.lock" ] || fail "no lock in $kept: $(ls -a "$kept")"

# A recording killed with SIGKILL: its folder stays behind.
"$CALLTRACE" record -q --no-cache -o "$WORK/killed.trace" -- sh -c 'echo $$ >"$1"; exec sleep 30' sh "$WORK/killed.pid" &
killed=$!
wait_folders 3
left=$(folders | grep -v -e notours -e "$kept")
[ -n "$left" ] || fail "no folder for the recording to kill: $(folders)"
kill -9 "$killed"
wait "$killed" 2>/dev/null || true
kill "$(cat "$WORK/killed.pid")" 2>/dev/null || true
[ -d "$left" ] || fail "the killed recording's folder is gone already"

# The next recording removes the killed one's folder, and its own at its end.
record next --no-cache /usr/bin/true
[ "$RC" = 0 ] || fail "the next recording exited $RC: $(cat "$WORK/next.err")"
[ ! -e "$left" ] || fail "the killed recording's folder was left: $(ls -a "$left")"
[ -d "$kept" ] || fail "the running recording's folder was removed"
[ -d "$TMPDIR/calltrace-functions.notours" ] && [ -d "$TMPDIR/other" ] ||
	fail "a folder not a recording's was removed"
[ "$(folders)" = "$(printf '%s\n%s' "$TMPDIR/calltrace-functions.notours" "$kept" | sort)" ] ||
	fail "folders now: $(folders)"

kill "$(cat "$WORK/running.pid")"
wait "$running" 2>/dev/null || true
[ ! -e "$kept" ] || fail "the running recording's folder was not removed at its end"
pass
