#!/usr/bin/env bash
# reliability_disk.sh - recording where the trace cannot be written whole:
# a small tmpfs that fills up, a full one, an ext2 image (no fallocate) too
# small and one big enough, `ulimit -f`, a read-only and a missing folder,
# and the trace deleted or truncated while the program runs.  In every case
# the program prints what it prints untraced and exits with its own status
# (four processes filling the disk together: one line says so for all);
# where the trace could not be written whole, a "calltrace: " line on
# stderr says so and `calltrace info` reads what there is without crashing
# and reports the trace incomplete.  The ext2 image that is big enough
# holds every call.  Where the trace cannot even be created (a full disk, a
# read-only or missing folder), `calltrace record` refuses to start, as
# strace -o does, and says why.  Each case runs on its own, with
# `calltrace record` and with LD_PRELOAD; the failing ones are listed.
# Mounting needs root: skipped without it.  CASES="..." runs only these
# cases; VERBOSE=1 prints each case's time.  TORTURE=1: 10 times the calls.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
need_root_mount
need_cmd mkfs.ext2
build_rel diskfill diskfill.c

calls=$(sized 3000000 30000000)
limit=$(sized 30 300)
# Every case runs in a subshell: the mounts under $WORK are found again.
cleanup() {
	local m
	for m in $(awk -v w="$WORK/" 'index($2, w) == 1 { print $2 }' /proc/mounts); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

run_plain plain "$WORK/diskfill" "$calls"
[ "$PLAIN_RC" = 7 ] || fail "diskfill exits $PLAIN_RC untraced"

# mount_tmpfs DIR OPTIONS
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "$2" tmpfs "$1" || fail "cannot mount a tmpfs ($2) on $1"
}

# mount_ext2 DIR SIZE_MB: an ext2 file system in an image file, loop-mounted.
mount_ext2() {
	local img
	img=$WORK/$(basename "$1").img
	truncate -s "${2}M" "$img"
	mkfs.ext2 -q -F "$img" >/dev/null 2>&1 || fail "mkfs.ext2 failed"
	mkdir -p "$1"
	mount -o loop "$img" "$1" 2>"$WORK/mount.err" ||
		skip "cannot loop-mount an ext2 image: $(head -c 200 "$WORK/mount.err")"
}

# traced NAME record|preload TRACE [ARG...]: runs diskfill recording into
# TRACE; $WORK/NAME.{out,err,rc}.  ULIMIT_F, when set, is `ulimit -f`.
# A run that takes longer than $limit seconds (the program alone takes a
# fraction of a second) is stopped: exit 124.
traced() {
	local name=$1 how=$2 trace=$3 rc=0
	shift 3
	{ (
		[ -z "${ULIMIT_F:-}" ] || ulimit -f "$ULIMIT_F"
		if [ "$how" = record ]; then
			exec timeout -k 5 "$limit" "$CALLTRACE" record -o "$trace" "$WORK/diskfill" "$calls" "$@"
		else
			exec timeout -k 5 "$limit" env CALLTRACE_OUTPUT="$trace" LD_PRELOAD="$RUNTIME" "$WORK/diskfill" "$calls" "$@"
		fi
	) >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?; } 2>/dev/null
	echo "$rc" >"$WORK/$name.rc"
}

# unchanged NAME: output and exit status as untraced.
unchanged() {
	local rc
	rc=$(cat "$WORK/$1.rc")
	[ "$rc" != 124 ] || fail "$1: still running after $limit s (untraced it takes well under 1 s)"
	[ "$rc" = "$PLAIN_RC" ] ||
		fail "$1: the program ended with $(exit_name "$rc") (untraced: exit $PLAIN_RC): $(tr '\n' ' ' <"$WORK/$1.err" | head -c 300)"
	cmp -s "$WORK/$1.out" "$WORK/plain.plain.out" ||
		fail "$1: stdout '$(head -c 200 "$WORK/$1.out")', untraced '$(cat "$WORK/plain.plain.out")'"
	! grep -v '^calltrace: ' "$WORK/$1.err" >"$WORK/$1.err.prog" ||
		fail "$1: stderr has more than calltrace's lines: $(head -c 300 "$WORK/$1.err.prog")"
}

# refused NAME: `calltrace record` could not even create the trace, so it
# did not run the program (as strace -o does): exit 2, nothing on stdout,
# one "calltrace: " line that says why.
refused() {
	local rc
	rc=$(cat "$WORK/$1.rc")
	[ "$rc" = 2 ] || fail "$1: record exited $rc, not 2, when it could not create the trace: $(tr '\n' ' ' <"$WORK/$1.err" | head -c 300)"
	[ ! -s "$WORK/$1.out" ] || fail "$1: the program ran although record could not create the trace"
	grep -qE '^calltrace: cannot write trace .*: (No space left on device|Read-only file system|No such file or directory)$' "$WORK/$1.err" ||
		fail "$1: no line says why the trace cannot be written: $(tr '\n' ' ' <"$WORK/$1.err" | head -c 300)"
}

# unwritable NAME HOW: a trace that cannot be created: preloaded by hand,
# the program runs on and the runtime says why; record refuses to start.
unwritable() {
	if [ "$2" = record ]; then
		refused "$1"
	else
		unchanged "$1"
		said "$1"
	fi
}

# said NAME: a "calltrace: " line on stderr tells what went wrong.
said() {
	grep -qiE '^calltrace: .*(space|too large|limit|cannot|could not|read-only|no such|lost|incomplete|truncat|deleted|removed|stopped|fail|error)' \
		"$WORK/$1.err" ||
		fail "$1: no 'calltrace: ' line on stderr says what happened: $(tr '\n' ' ' <"$WORK/$1.err" | head -c 300)"
}

# incomplete NAME TRACE: info reads the trace and reports it incomplete.
incomplete() {
	local info=$WORK/$1.info problems
	[ -s "$2" ] || return 0 # nothing could be written at all
	info_of "$2" "$info"
	problems=$(info_field "$info" problems)
	grep -qiE '^(lost|unwritten|incomplete|truncated)|incomplete' "$info" || [ "${problems:-0}" != 0 ] ||
		fail "$1: info does not report the trace incomplete: $(grep -E '^(calls|unfinished|problems)' "$info" | tr '\n' ' ')"
}

# no_reader_crash NAME TRACE: info on what is left ends normally, with a
# message when it cannot read it.
no_reader_crash() {
	local rc=0
	[ -e "$2" ] || return 0
	"$CALLTRACE" info "$2" >"$WORK/$1.info" 2>"$WORK/$1.info.err" || rc=$?
	[ "$rc" -lt 128 ] || fail "$1: calltrace info crashed ($(exit_name "$rc")) on what is left of the trace"
	[ "$rc" = 0 ] || [ -s "$WORK/$1.info.err" ] || fail "$1: calltrace info failed ($rc) without a message"
}

# full_disk NAME HOW TRACE: a recording that runs out of room.
full_disk() {
	traced "$1" "$2" "$3"
	unchanged "$1"
	said "$1"
	incomplete "$1" "$3"
}

# Each case_X HOW: record (calltrace record) or preload (LD_PRELOAD).
case_tmpfs_fills() {
	mount_tmpfs "$WORK/small-$1" size=1m
	full_disk "tmpfs-$1" "$1" "$WORK/small-$1/a.trace"
}

# Four processes fill a small tmpfs: every one stops recording, one line
# says so for all of them, and each prints what it prints untraced.
case_tmpfs_many() {
	local name=tmpfs-many-$1 dir=$WORK/many-$1 rc=0 lines
	mount_tmpfs "$dir" size=1m
	local four='for i in 1 2 3 4; do "$0" "$1" & done; wait'
	{ if [ "$1" = record ]; then
		timeout -k 5 "$limit" "$CALLTRACE" record -o "$dir/a.trace" sh -c "$four" "$WORK/diskfill" "$calls"
	else
		timeout -k 5 "$limit" env CALLTRACE_OUTPUT="$dir/a.trace" LD_PRELOAD="$RUNTIME" \
			sh -c "$four" "$WORK/diskfill" "$calls"
	fi >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?; } 2>/dev/null
	[ "$rc" = 0 ] || fail "$name: exited $rc: $(tr '\n' ' ' <"$WORK/$name.err" | head -c 300)"
	for _ in 1 2 3 4; do cat "$WORK/plain.plain.out"; done >"$WORK/$name.expected"
	cmp -s "$WORK/$name.out" "$WORK/$name.expected" ||
		fail "$name: stdout '$(head -c 300 "$WORK/$name.out")'"
	lines=$(grep -c 'recording stopped' "$WORK/$name.err" || true)
	[ "$lines" = 1 ] || fail "$name: $lines lines say recording stopped, not one: $(tr '\n' ' ' <"$WORK/$name.err" | head -c 400)"
	! grep -v '^calltrace: ' "$WORK/$name.err" | grep -q . ||
		fail "$name: stderr has more than calltrace's lines: $(head -c 300 "$WORK/$name.err")"
}

case_tmpfs_full() {
	mount_tmpfs "$WORK/full-$1" size=1m
	dd if=/dev/zero of="$WORK/full-$1/filler" bs=64k 2>/dev/null || true
	traced "full-$1" "$1" "$WORK/full-$1/a.trace"
	unwritable "full-$1" "$1"
}

case_ext2_small() {
	mount_ext2 "$WORK/ext2s-$1" 2
	full_disk "ext2-small-$1" "$1" "$WORK/ext2s-$1/a.trace"
}

case_ext2_roomy() {
	local name=ext2-roomy-$1 trace=$WORK/ext2r-$1/a.trace
	mount_ext2 "$WORK/ext2r-$1" $((calls / 20000 + 16))
	traced "$name" "$1" "$trace"
	unchanged "$name"
	info_of "$trace" "$WORK/$name.info"
	expect_complete "$WORK/$name.info" "$name"
	ct report "$trace" >"$WORK/$name.report"
	expect_calls "$WORK/$name.report" work "$calls" "$name"
	expect_calls "$WORK/$name.report" leaf "$calls" "$name"
}

case_ulimit() {
	ULIMIT_F=1024 full_disk "ulimit-$1" "$1" "$WORK/ulimit-$1.trace"
}

case_readonly() {
	mount_tmpfs "$WORK/ro-$1" ro,size=1m
	traced "ro-$1" "$1" "$WORK/ro-$1/a.trace"
	unwritable "ro-$1" "$1"
}

case_missing_folder() {
	traced "missing-$1" "$1" "$WORK/missing/dir/a.trace"
	unwritable "missing-$1" "$1"
}

# meddle NAME HOW ACTION: ACTION (rm, truncate) on the trace half way.
meddle() {
	local name=$1 how=$2 action=$3 trace=$WORK/$1.trace
	traced "$name" "$how" "$trace" "$WORK/$name.ready" "$WORK/$name.go" &
	local pid=$! waited=0
	while [ ! -e "$WORK/$name.ready" ] && [ $waited -lt 3000 ]; do
		sleep 0.01
		waited=$((waited + 1))
	done
	[ -e "$WORK/$name.ready" ] || fail "$name: the program never got half way"
	case $action in
	rm) rm -f "$trace" ;;
	truncate) truncate -s 0 "$trace" ;;
	esac
	touch "$WORK/$name.go"
	wait "$pid"
	unchanged "$name"
	no_reader_crash "$name" "$trace"
}

case_deleted() {
	meddle "deleted-$1" "$1" rm
}

case_truncated() {
	meddle "truncated-$1" "$1" truncate
	said "truncated-$1"
}

failed=()
for c in ${CASES:-tmpfs_fills tmpfs_many tmpfs_full ext2_small ext2_roomy ulimit readonly missing_folder deleted truncated}; do
	for how in record preload; do
		start=$SECONDS
		("case_$c" "$how") || failed+=("$c:$how")
		[ -z "${VERBOSE:-}" ] || echo "case $c $how: $((SECONDS - start)) s"
	done
done
[ ${#failed[@]} = 0 ] || fail "failing cases: ${failed[*]}"
pass
