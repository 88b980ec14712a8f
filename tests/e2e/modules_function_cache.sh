#!/usr/bin/env bash
# modules_function_cache.sh - the processes of a session list a module's
# functions once: a script starts the multi-module program (its shared
# library and plugin its own) nine times under one `record --no-cache`
# (the recording's own cache folder, removed at its end); the first
# process lists each module and leaves the list in the cache, the
# others take it from there (-v says which, for every module).  A cache
# file corrupted (one byte), truncated, replaced by a symbolic link, or by
# another module's cache file is ignored (the list comes from the module's
# file, the link's target is left untouched) and written again.  Every process gives the same call trees as
# the -finstrument-functions build; the cache folder is gone at the end.
source "$(dirname "$0")/lib.sh"
setup
multimod_runs_expected 9

cat >"$WORK/script.sh" <<'SCRIPT'
prog=$1
run() { "$prog/multimod" "$prog/plugin.so" >/dev/null; }
file() { ls "$CALLTRACE_FUNCTION_CACHE"/*.functions | xargs grep -l -a "$1" | head -n 1; }
run
run
cache=$(file st_square)
printf 'X' | dd of="$cache" bs=1 seek=$(($(stat -c %s "$cache") - 20)) conv=notrunc status=none
run
run
truncate -s $(($(stat -c %s "$cache") / 2)) "$cache"
run
rm "$cache"
echo "not a cache" >"$2"
ln -s "$2" "$cache"
run
run
cp "$(file pl_double)" "$cache.other"
mv "$cache.other" "$cache"
run
run
echo "cache: $CALLTRACE_FUNCTION_CACHE"
SCRIPT
record cached -v --no-cache --program multimod bash "$WORK/script.sh" "$WORK/plain" "$WORK/victim"
[ "$RC" = 0 ] || fail "the script exited $RC: $(grep -v '^calltrace' "$WORK/cached.err" | head -c 300)"
[ "$(cat "$WORK/victim")" = "not a cache" ] || fail "the symbolic link's target was written"
dir=$(sed -n 's/^cache: //p' "$WORK/cached.out")
[ -n "$dir" ] || fail "the script did not see the cache folder"
[ ! -e "$dir" ] || fail "the cache folder $dir is left after the recording"

# What -v said of each module, in order.
says() {
	grep -F "functions of $1:" "$WORK/cached.err" | sed 's/.*: functions of [^:]*: //' |
		sed 's/listed, and kept.*/listed/; s/from the cache.*/cache/; s/listed: the cache.*/rejected/'
}
for m in multimod libshared.so plugin.so; do
	says "$WORK/plain/$m" | tr '\n' ' ' >"$WORK/says.$m"
done
[ "$(cat "$WORK/says.multimod")" = "listed cache rejected cache rejected listed cache rejected cache " ] ||
	fail "the program's list came from: $(cat "$WORK/says.multimod")"
for m in libshared.so plugin.so; do
	[ "$(cat "$WORK/says.$m")" = "listed cache cache cache cache cache cache cache cache " ] ||
		fail "$m's list came from: $(cat "$WORK/says.$m")"
done

to_json cached
check_tree render "$WORK/cached.json" >"$WORK/cached.trees"
expect_text "the trees of nine runs sharing the cache" "$WORK/expected" "$WORK/cached.trees"
pass
