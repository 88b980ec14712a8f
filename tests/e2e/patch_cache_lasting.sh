#!/usr/bin/env bash
# patch_cache_lasting.sh - what the in-process engine learns of a program
# lasts from one recording to the next: the multi-module program recorded
# twice, each time by a `record` of its own.  The first recording lists
# and decodes each module (the disassembler loaded) into the user's cache,
# $XDG_CACHE_HOME/calltrace/<build-id of libcalltrace.so> (made mode
# 0700); the second takes lists and decodings from there, never loads the
# disassembler and patches at start every function that ran in the first
# (0 at a first call).  Both give the trees of the -finstrument-functions
# build.  --no-cache leaves that folder alone; so does a recording whose
# cache folder is a symbolic link or writable by others (it keeps its
# caches in a folder of its own).  Without XDG_CACHE_HOME the folder is in
# ~/.cache; without HOME either, the recording's own.  After a recording the files are trimmed to 256 MiB, the
# oldest first; temporary files older than an hour go, and empty folders
# of other runtimes.  A plugin met for the first time by a process whose
# program came decoded from the cache loads the disassembler while the
# dynamic linker tells of the plugin: that load's own notice is let pass
# (it marked the plugin twice, and crashed).
source "$(dirname "$0")/lib.sh"
setup
multimod_runs_expected 1
rm -rf "$XDG_CACHE_HOME" # what recording the hooks build left
id=$(readelf -n "$(dirname "$CALLTRACE")/../lib/libcalltrace.so" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "libcalltrace.so has no build-id"
dir=$XDG_CACHE_HOME/calltrace/$id

# images NAME: per process of the trace, "capstone" or "-", and what info
# says of its functions.
images() {
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	awk '/^  image [0-9]+:/ { image = $2 + 0 }
		/^    functions: / { sub(/^    functions: /, ""); functions[image] = $0 }
		/libcapstone/ { capstone[image] = 1 }
		END { for (i = 1; i in functions; i++) print (i in capstone) ? "capstone" : "-", functions[i] }' \
		"$WORK/$1.info"
}
# trees NAME: the recording's trees are the hooks build's.
trees() {
	to_json "$1"
	check_tree render "$WORK/$1.json" >"$WORK/$1.trees"
	expect_text "$1: the trees of the hooks build" "$WORK/expected" "$WORK/$1.trees"
}

record first -v "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the first recording exited $RC"
grep -qF "module caches in $dir (kept for later recordings)" "$WORK/first.err" ||
	fail "-v did not say where the caches are kept: $(grep caches "$WORK/first.err")"
[ "$(stat -c %a "$XDG_CACHE_HOME/calltrace") $(stat -c %a "$dir")" = "700 700" ] ||
	fail "the cache folders are not private: $(stat -c '%n %a' "$XDG_CACHE_HOME/calltrace" "$dir")"
[ "$(find "$dir" -name '*.functions' | wc -l)" = 3 ] ||
	fail "not the three modules' lists in $dir: $(ls "$dir")"
images first >"$WORK/first.images"
[ "$(grep -c '^capstone' "$WORK/first.images")" = 3 ] ||
	fail "the first recording's processes did not decode: $(cat "$WORK/first.images")"
trees first

record second -v "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the second recording exited $RC"
images second >"$WORK/second.images"
[ "$(wc -l <"$WORK/second.images")" = 3 ] || fail "not 3 processes: $(cat "$WORK/second.images")"
awk '$1 != "-" || !/ 0 ran \(patched\); [0-9]+ patched at start$/ { bad = 1 } END { exit bad }' \
	"$WORK/second.images" ||
	fail "the second recording decoded, or patched at first calls: $(cat "$WORK/second.images")"
[ "$(grep -c "functions of $WORK/plain/.*: from the cache, entries decoded" "$WORK/second.err")" = 3 ] ||
	fail "the second recording did not take every list from the cache: $(grep 'functions of' "$WORK/second.err")"
trees second

# --no-cache: a folder of the recording's own; the lasting one untouched.
before=$(ls -l --time-style=+%s.%N "$dir" | md5sum)
record own -v --no-cache "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the --no-cache recording exited $RC"
grep -q "module caches in .* (this recording's, removed at its end)" "$WORK/own.err" ||
	fail "--no-cache: -v said: $(grep caches "$WORK/own.err")"
[ "$(grep -c "functions of $WORK/plain/multimod: listed" "$WORK/own.err")" = 1 ] ||
	fail "--no-cache: the program's list did not come from its file"
[ "$(ls -l --time-style=+%s.%N "$dir" | md5sum)" = "$before" ] || fail "--no-cache wrote into $dir"
trees own

# A cache folder that is not safe is not used.
unsafe() {
	record "$1" -v "$WORK/plain/multimod" "$WORK/plain/plugin.so"
	[ "$RC" = 0 ] || fail "$1: the recording exited $RC"
	grep -q "(this recording's, removed at its end)" "$WORK/$1.err" ||
		fail "$1: the folder was used: $(grep caches "$WORK/$1.err")"
}
chmod 777 "$dir"
unsafe writable
chmod 700 "$dir"
mv "$XDG_CACHE_HOME/calltrace" "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$XDG_CACHE_HOME/calltrace"
unsafe linked
rm "$XDG_CACHE_HOME/calltrace"
mv "$WORK/elsewhere" "$XDG_CACHE_HOME/calltrace"

# Without XDG_CACHE_HOME: ~/.cache, made when missing.
mkdir "$WORK/home"
HOME=$WORK/home XDG_CACHE_HOME= record home "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the recording with HOME exited $RC"
[ "$(find "$WORK/home/.cache/calltrace/$id" -name '*.functions' | wc -l)" = 3 ] ||
	fail "no lists in ~/.cache/calltrace/$id: $(find "$WORK/home" | head)"

# A plugin new to the cache, in a process that has not loaded the
# disassembler: the second recording patches its first calls.
XDG_CACHE_HOME=$WORK/cache2 record noplugin --no-own-libraries "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the recording without the plugin exited $RC"
XDG_CACHE_HOME=$WORK/cache2 record plugin -v --no-own-libraries --module plugin \
	"$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the plugin's first recording exited $RC: $(grep -m1 crashed "$WORK/plugin.err")"
[ "$(grep -c "functions of $WORK/plain/plugin.so:" "$WORK/plugin.err")" = 1 ] ||
	fail "the plugin was not marked once: $(grep "functions of $WORK/plain/plugin.so:" "$WORK/plugin.err")"
ct report "$WORK/plugin.trace" >"$WORK/plugin.report"
grep -q "pl_double" "$WORK/plugin.report" || fail "the plugin's calls are not recorded"

# Neither XDG_CACHE_HOME nor HOME: the recording's own folder.
HOME= XDG_CACHE_HOME= record nohome -v "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the recording without HOME exited $RC"
grep -q "module caches in .* (this recording's, removed at its end)" "$WORK/nohome.err" ||
	fail "without HOME: -v said: $(grep caches "$WORK/nohome.err")"

# Trimming: sparse files stand for a full cache (300 MiB, past 256); the
# oldest goes, until under three quarters of the bound.
other=$XDG_CACHE_HOME/calltrace/0123456789abcdef
mkdir -p "$other" "$XDG_CACHE_HOME/calltrace/fedcba9876543210"
truncate -s 200M "$other/old.functions"
truncate -s 100M "$other/newer.functions"
touch -d '3 days ago' "$other/old.functions"
touch -d '2 days ago' "$other/newer.functions"
touch -d '2 hours ago' "$dir/x.functions.1.tmp"
touch "$dir/y.functions.2.tmp"
stamp=$XDG_CACHE_HOME/calltrace/.trimmed
[ -f "$stamp" ] || fail "no trimming stamp after the recordings above"
touch -d '11 minutes ago' "$stamp" # the last walk is old enough for another
record trimmed "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ "$RC" = 0 ] || fail "the trimmed recording exited $RC"
[ ! -e "$other/old.functions" ] || fail "the oldest file was not removed past the bound"
[ -e "$other/newer.functions" ] || fail "a file was removed that the bound did not need"
[ "$(find "$dir" -name '*.functions' | wc -l)" = 3 ] || fail "the current files were removed"
[ ! -e "$dir/x.functions.1.tmp" ] || fail "a stale temporary file was kept"
[ -e "$dir/y.functions.2.tmp" ] || fail "a fresh temporary file was removed"
[ ! -e "$XDG_CACHE_HOME/calltrace/fedcba9876543210" ] || fail "an empty folder was kept"

# The walk is made at most every ten minutes: a stale temporary file
# stays through a recording right after the last walk, and goes with the
# first recording ten minutes after it.  A stamp dated in the future does
# not stop the walk.
touch -d '2 hours ago' "$dir/z.functions.3.tmp"
record soon "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ -e "$dir/z.functions.3.tmp" ] || fail "the cache was walked again within ten minutes"
touch -d '11 minutes ago' "$stamp"
record later "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ ! -e "$dir/z.functions.3.tmp" ] || fail "the cache was not walked ten minutes after the last walk"
[ "$(stat -c %Y "$stamp")" -ge "$(($(date +%s) - 60))" ] || fail "the stamp was not dated by the walk"
touch "$dir/z.functions.3.tmp"
touch -d '2 hours ago' "$dir/z.functions.3.tmp"
touch -d 'tomorrow' "$stamp"
record future "$WORK/plain/multimod" "$WORK/plain/plugin.so"
[ ! -e "$dir/z.functions.3.tmp" ] || fail "a stamp dated in the future stopped the walk"
pass
