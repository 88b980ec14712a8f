#!/usr/bin/env bash
# patch_shared_code.sh - a module's code, marked and with the functions
# that ran before patched, is kept in the cache folder and mapped by the
# later processes instead of being written in each (its pages shared, none
# copied).  The program tells whether the line of /proc/self/maps holding
# its code names the cache's .code file.  The first recording writes its
# code and saves none (a module met for the first time may never run
# again); the second patches what the first ran and saves its code; the
# third maps it.  A first call in mapped code (in the
# process and in a fork child) is patched and recorded; it changes the list
# of what ran, so the next recording writes and saves again, and the one
# after maps.  Every recording gives the same calls.  A .code file that is
# damaged (its digest, its size), a symbolic link, or another user's is
# not used, and is replaced; one larger than the file size limit is not
# written (the write would kill the program).  A file of other writes is replaced once a
# recording: the processes of a recording that learns what runs do not
# each write their code again.
source "$(dirname "$0")/lib.sh"
setup
gcc -std=gnu11 -g -O0 -o "$WORK/shared_code" "$PROGRAMS/patch/shared_code.c" ||
	fail "cannot compile shared_code"
id=$(readelf -n "$RUNTIME" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "libcalltrace.so has no build-id"
dir=$XDG_CACHE_HOME/calltrace/$id

# run NAME WHERE [ARG]: a recording whose program says its code came from
# WHERE (cache or program), with the calls of ARG's run.
run() {
	local name=$1 where=$2
	shift 2
	record "$name" --engine patch "$WORK/shared_code" "$@"
	[ "$RC" = 0 ] || fail "$name: exited $RC: $(head -c 300 "$WORK/$name.err")"
	[ "$(head -n 1 "$WORK/$name.out")" = "code: $where" ] ||
		fail "$name: not code from the $where: $(head -n 1 "$WORK/$name.out")"
	counts "$name" >"$WORK/$name.counts"
	if [ "${1:-}" = rare ]; then
		expect_text "$name: calls" - "$WORK/$name.counts" <<'COUNTS'
code_source 1
in_child 1
leaf 11
main 1
rare 2
work 3
COUNTS
	else
		expect_text "$name: calls" - "$WORK/$name.counts" <<'COUNTS'
code_source 1
leaf 4
main 1
work 2
COUNTS
	fi
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
}
code_file() {
	local files=("$dir"/*.code)
	[ "${#files[@]}" = 1 ] && [ -f "${files[0]}" ] || fail "not one .code file in $dir: $(ls "$dir")"
	echo "${files[0]}"
}

run first program
[ -z "$(find "$dir" -name '*.code')" ] || fail "the first recording saved its code: $(ls "$dir")"
run second program
file=$(code_file)
[ $(($(stat -c %s "$file") % 4096)) = 0 ] || fail "the .code file is not whole pages"
run third cache
# The same functions marked and patched ahead as in the second.
[ "$(grep -h 'functions:' "$WORK/second.info")" = "$(grep -h 'functions:' "$WORK/third.info")" ] ||
	fail "the mapped code's counts differ: $(grep -h 'functions:' "$WORK/second.info" "$WORK/third.info")"
run rare cache rare
run fourth program
run fifth cache

# damaged FILE: the next recording writes its own code and replaces it.
damaged() {
	run "$1" program
	run "$1-after" cache
	[ ! -L "$file" ] && [ "$(stat -c %u "$file")" = "$(id -u)" ] || fail "$1: the file was not replaced"
}
# The digest, in the header's first page.
printf '\x5a' | dd of="$file" bs=1 seek=$((8 + 4 + 4 + 128 + 8 + 8)) conv=notrunc status=none
damaged digest
truncate -s -4096 "$file"
damaged truncated
cp "$file" "$WORK/saved.code"
rm "$file"
ln -s "$WORK/saved.code" "$file"
damaged link
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown nobody "$file"
	damaged owner
fi
# one_recording NAME SCRIPT: a recording of the program run by a shell
# script, in the cache folder $WORK/scripted; what each run said of its
# code, and how many of its processes mapped, saved the program's code.
one_recording() {
	local name=$1 script=$2
	XDG_CACHE_HOME=$WORK/scripted CALLTRACE_DEBUG=1 record "$name" --engine patch sh -c "$script"
	[ "$RC" = 0 ] || fail "$name: exited $RC"
	echo "$(grep '^code: ' "$WORK/$name.out" | cut -d' ' -f2 | tr '\n' ' ')" \
		"mapped $(grep -c "$WORK/shared_code: its code (.*) mapped from the cache" "$WORK/$name.err" || true)" \
		"saved $(grep -c "$WORK/shared_code: its code saved in the cache" "$WORK/$name.err" || true)"
}
# The first run saves nothing, the second saves, the third and fourth map
# (a first call of rare in mapped code); what ran grew: the fifth and sixth
# write their code, the file is not replaced again in this recording.  The
# next recording's first run replaces it, and the others map.
p=$WORK/shared_code
script="$p; $p; $p; $p rare; $p; $p"
got=$(one_recording learning "$script")
[ "$got" = "program program cache cache program program  mapped 2 saved 1" ] ||
	fail "one recording, what ran growing: $got"
got=$(one_recording learnt "$script")
[ "$got" = "program cache cache cache cache cache  mapped 5 saved 1" ] ||
	fail "the next recording: $got"

# A file size limit (ulimit -f) smaller than the code: nothing is saved,
# and the program is not killed by SIGXFSZ.
rm -rf "$WORK/limited"
for name in limited1 limited2; do
	RC=0
	(ulimit -f 4 && XDG_CACHE_HOME=$WORK/limited exec "$CALLTRACE" record -o "$WORK/$name.trace" \
		--engine patch "$WORK/shared_code" >"$WORK/$name.out" 2>"$WORK/$name.err") || RC=$?
	[ "$RC" = 0 ] && [ "$(tail -n 1 "$WORK/$name.out")" = "sum 12" ] ||
		fail "$name: under ulimit -f 4 the program exited $RC: $(tail -n 1 "$WORK/$name.out")"
done
[ -z "$(find "$WORK/limited" -name '*.code*')" ] || fail "a .code file passed ulimit -f: $(find "$WORK/limited" -name '*.code*')"

# --no-cache: the recording's own folder; the lasting one left alone.
before=$(md5sum <"$file")
record own --engine patch --no-cache "$WORK/shared_code"
[ "$(head -n 1 "$WORK/own.out")" = "code: program" ] || fail "--no-cache: $(head -n 1 "$WORK/own.out")"
[ "$(md5sum <"$file")" = "$before" ] || fail "--no-cache wrote the lasting .code file"
pass
