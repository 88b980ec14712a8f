#!/usr/bin/env bash
# core_usage.sh - `calltrace info` shows the CPU time, largest resident set
# and context switches of a program `calltrace record` ran, per process and
# in total, and each module's build-id as `readelf -n` gives it.  Only lower
# bounds the program itself sets are asserted, no durations.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd readelf
build_c usage "$PROGRAMS/usage.c"
record usage "$WORK/usage"
ct info "$WORK/usage.trace" >"$WORK/usage.info"

# "usage: user U s, system S s, max RSS R MiB, V voluntary and I involuntary ..."
check_usage() {
	local line=$1 what=$2
	[ -n "$line" ] || fail "info shows no $what usage: $(head -c 600 "$WORK/usage.info")"
	read -r user sys rss vol invol < <(sed -E \
		's/.*user ([0-9.]+) s, system ([0-9.]+) s, max RSS ([0-9.]+) MiB, ([0-9]+) voluntary and ([0-9]+) involuntary.*/\1 \2 \3 \4 \5/' \
		<<<"$line")
	[ -n "$invol" ] || fail "$what usage unreadable: $line"
	awk -v u="$user" -v s="$sys" 'BEGIN { exit !(u + s > 0) }' || fail "$what: no CPU time: $line"
	awk -v r="$rss" 'BEGIN { exit !(r >= 64) }' || fail "$what: max RSS under the 64 MiB touched: $line"
	[ "$vol" -ge 5 ] || fail "$what: fewer voluntary switches than the 5 sleeps: $line"
}
check_usage "$(grep -E '^usage: ' "$WORK/usage.info")" total
check_usage "$(grep -E '^ +usage: ' "$WORK/usage.info")" process

want=$(readelf -n "$WORK/usage" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$want" ] || fail "readelf shows no build-id for the program"
grep -qE "module .* $WORK/usage build-id $want( |\$)" "$WORK/usage.info" ||
	fail "info does not show the program's build-id $want: $(grep module "$WORK/usage.info" | head -n 2)"
libc=$(grep -oE 'module [^ ]+ /[^ ]*libc\.so\.6 build-id [0-9a-f]+' "$WORK/usage.info" | head -n 1)
[ -n "$libc" ] || fail "info shows no build-id for libc"
path=$(cut -d' ' -f3 <<<"$libc")
[ "$(cut -d' ' -f5 <<<"$libc")" = "$(readelf -n "$path" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')" ] ||
	fail "libc's build-id differs from readelf's: $libc"
pass
