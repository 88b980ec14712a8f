# helpers.sh - shared by the tests/e2e/reliability_*.sh scripts, sourced
# after tests/e2e/lib.sh.  TORTURE=1 makes every test bigger and longer.

RELIABILITY=$PROGRAMS/reliability

# sized CHECK TORTURE: the size of a test, CHECK normally, TORTURE when
# TORTURE=1 is set.
sized() {
	if [ "${TORTURE:-0}" = 1 ]; then
		echo "$2"
	else
		echo "$1"
	fi
}

# build_rel OUT SOURCE [FLAG...]: compiles tests/programs/reliability/SOURCE.
build_rel() {
	local out=$1 src=$2
	shift 2
	build_c "$out" "$RELIABILITY/$src" "$@"
}

# exit_name RC: "exit N" or "signal NAME" for a shell exit code.
exit_name() {
	if [ "$1" -gt 128 ]; then
		echo "signal $(kill -l "$(($1 - 128))" 2>/dev/null || echo $(($1 - 128)))"
	else
		echo "exit $1"
	fi
}

# info_of TRACE OUT: `calltrace info TRACE` into OUT; fails unless it exits
# 0 (a crash of the reader is named as such).
info_of() {
	local rc=0
	"$CALLTRACE" info "$1" >"$2" 2>"$2.err" || rc=$?
	[ "$rc" = 0 ] || fail "calltrace info $(basename "$1") ended with $(exit_name "$rc"): $(head -c 300 "$2.err")"
}

# info_field INFO LABEL: the value after "LABEL:" in an info text.
info_field() {
	sed -n "s/^$2: *//p" "$1" | head -n 1
}

# expect_complete INFO WHAT: the trace that INFO describes lost nothing:
# 0 problems, 0 unfinished calls, nothing lost, unwritten or unmatched.
expect_complete() {
	local info=$1 what=$2 problems unfinished
	problems=$(info_field "$info" "problems")
	unfinished=$(info_field "$info" "unfinished" | cut -d' ' -f1)
	[ "$problems" = 0 ] || fail "$what: info shows $problems problems: $(grep -A3 '^problems' "$info" | tr '\n' ' ' | head -c 400)"
	[ "$unfinished" = 0 ] || fail "$what: info shows $unfinished unfinished calls"
	! grep -E '^(lost|unwritten|unmatched|dropped|incomplete)' "$info" >"$info.bad" ||
		fail "$what: info says: $(head -n 2 "$info.bad" | tr '\n' ' ')"
}

# calls_of REPORT FUNCTION: the Calls column of FUNCTION in a
# `calltrace report` text (the number that ends where the header's "Calls"
# ends), 0 when it has no row, "rows:N" when it has N > 1.
calls_of() {
	awk -v f="$2" '
		!end && (i = index($0, "Calls")) { end = i + 4; next }
		end && $NF == f { n = split(substr($0, 1, end), cell, " "); got = cell[n]; rows++ }
		END { print (rows > 1 ? "rows:" rows : rows ? got : 0) }' "$1"
}

# expect_calls REPORT FUNCTION N WHAT: the report counts N calls of FUNCTION.
expect_calls() {
	local got
	got=$(calls_of "$1" "$2")
	[ "$got" = "$3" ] || fail "$4: $got calls of $2 recorded, the program made $3"
}

# image_commands INFO: "pid command" per process image of an info text.
image_commands() {
	awk '/^  image [0-9]+: pid / { pid = $4; sub(",", "", pid) }
	     /^    command: / { sub(/^    command: /, ""); print pid, $0 }' "$1"
}

# need_root_mount: skips unless this shell may mount file systems.
need_root_mount() {
	local probe
	[ "$(id -u)" = 0 ] || skip "mounting needs root"
	probe=$(mktemp -d)
	if ! mount -t tmpfs -o size=64k tmpfs "$probe" 2>/dev/null; then
		rmdir "$probe"
		skip "mount is not permitted here"
	fi
	umount "$probe"
	rmdir "$probe"
}
