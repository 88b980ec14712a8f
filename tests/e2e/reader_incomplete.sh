#!/usr/bin/env bash
# reader_incomplete.sh - a trace that cannot be complete is never shown as
# if it were: with windows lost (the header's count), a window missing from
# a thread's sequence, or a corrupt window, every reading command prints
# one "calltrace: warning: trace incomplete: ..." line on stderr and still
# exits 0, and `calltrace info` lists it ("incomplete:", problems above 0),
# even when no event is left at all.
# The intact trace gets no warning and 0 problems.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c longrun "$PROGRAMS/longrun.c"
record good --buffer-size 16K "$WORK/longrun" 20000
good=$WORK/good.trace

VIEWS=("replay" "report" "json" "flame -o $WORK/f.svg" "flame --folded" "seq" "graph" "chrome"
	"speedscope" "crash" "diff $good")

# views_say TRACE WARNING: every view exits 0 and prints WARNING (a fixed
# string) as its only stderr line; WARNING "" means no stderr at all.
views_say() {
	local view rc
	for view in "${VIEWS[@]}"; do
		read -r -a words <<<"$view"
		rc=0
		"$CALLTRACE" "${words[@]}" "$1" >"$WORK/view.out" 2>"$WORK/view.err" || rc=$?
		[ "$rc" = 0 ] || fail "$view on $(basename "$1"): exit $rc: $(head -c 300 "$WORK/view.err")"
		grep -v '^calltrace: wrote ' "$WORK/view.err" >"$WORK/view.warn" || true
		if [ -z "$2" ]; then
			[ ! -s "$WORK/view.warn" ] || fail "$view on $(basename "$1") says: $(cat "$WORK/view.warn")"
		else
			[ "$(cat "$WORK/view.warn")" = "$2" ] ||
				fail "$view on $(basename "$1"): stderr is '$(cat "$WORK/view.warn")', not '$2'"
		fi
	done
}

# info_says TRACE INCOMPLETE: the "incomplete:" line of info matches the
# extended regex INCOMPLETE (whole) and problems is not 0 (INCOMPLETE "":
# no such line, 0 problems).  The line is left in $INFO_LINE.
info_says() {
	local line problems rc=0
	"$CALLTRACE" info "$1" >"$WORK/info.out" 2>"$WORK/info.err" || rc=$?
	[ "$rc" = 0 ] || fail "info $(basename "$1"): exit $rc: $(head -c 300 "$WORK/info.err")"
	line=$(sed -n 's/^incomplete: //p' "$WORK/info.out")
	problems=$(sed -n 's/^problems: *//p' "$WORK/info.out")
	INFO_LINE=$line
	[ -z "$2" ] && [ -z "$line" ] || printf '%s\n' "$line" | grep -qxE "$2" ||
		fail "info $(basename "$1"): incomplete is '$line', not '$2'"
	if [ -z "$2" ]; then
		[ "$problems" = 0 ] || fail "info $(basename "$1"): $problems problems"
	else
		[ "${problems:-0}" != 0 ] || fail "info $(basename "$1"): problems: 0 on an incomplete trace"
	fi
}

views_say "$good" ""
info_says "$good" ""

# patch FILE OFFSET FORMAT VALUE: writes VALUE packed by python's struct.
patch() {
	python3 -c 'import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); f.write(struct.pack(sys.argv[3], int(sys.argv[4])))' "$@"
}

# expect_incomplete NAME REGEX: info on $WORK/NAME.trace says the trace is
# incomplete (REGEX), and every view warns with the same words.
expect_incomplete() {
	local trace=$WORK/$1.trace
	info_says "$trace" "$2"
	views_say "$trace" "calltrace: warning: trace incomplete: $INFO_LINE; see 'calltrace info $trace'"
}

# The header's lost-window counter (at byte 140), as a full disk leaves it.
cp "$good" "$WORK/lost.trace"
patch "$WORK/lost.trace" 140 '<I' 3
expect_incomplete lost '3 windows lost \(disk full, or ulimit -f\?\)'
grep -q '^lost: .*3 event windows' "$WORK/info.out" || fail "info: no 'lost:' line"

# Windows lost from the start (a disk full at once): no events at all, yet
# info describes the trace and the views say why they show nothing.
cp "$good" "$WORK/none.trace"
python3 - "$WORK/none.trace" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    off = 4096
    while off + 64 <= len(data):
        magic, kind, hsize, length = struct.unpack_from("<IHHI", data, off)
        if magic != 0x4b435443 or length < 64:
            break
        if kind in (1, 4):  # events and thread records: none written
            struct.pack_into("<H", data, off + 4, 6)
        off += length
    struct.pack_into("<I", data, 140, 5)
    f.seek(0)
    f.write(data)
PY
expect_incomplete none '5 windows lost \(disk full, or ulimit -f\?\)'
grep -q '^calls: *0 ' "$WORK/info.out" || fail "none: info shows calls: $(grep '^calls' "$WORK/info.out")"

# window_offset N: the offset of the trace's Nth event chunk.
window_offset() {
	python3 - "$good" "$1" <<'PY'
import struct, sys
data, want = open(sys.argv[1], "rb").read(), int(sys.argv[2])
off, seen = 4096, 0
while off + 64 <= len(data):
    magic, kind, hsize, length = struct.unpack_from("<IHHI", data, off)
    if magic != 0x4b435443 or length < 64:
        break
    seen += kind == 1
    if kind == 1 and seen == want:
        print(off)
        break
    off += length
PY
}
offset=$(window_offset 3)
[ -n "$offset" ] || fail "no third event window in the trace"

# A window missing from the middle of the thread's sequence (its chunk
# made a CHUNK_SKIP): the calls open across it (main, maybe a tick) are
# cut there.
cp "$good" "$WORK/gap.trace"
patch "$WORK/gap.trace" $((offset + 4)) '<H' 6
expect_incomplete gap '1 window missing, [12] calls? unfinished'

# A corrupt stretch inside that window: the rest of it is skipped.
cp "$good" "$WORK/bad.trace"
printf '\xff%.0s' {1..32} | dd of="$WORK/bad.trace" bs=1 seek=$((offset + 200)) conv=notrunc status=none
expect_incomplete bad '1 corrupt region, [12] calls? unfinished'
pass
