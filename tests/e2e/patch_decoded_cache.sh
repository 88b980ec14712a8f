#!/usr/bin/env bash
# patch_decoded_cache.sh - the processes of a session decode a module's
# function entries once, and patch at start what ran before: a script
# starts the multi-module program five times under one `record`.  The
# first process lists each module and, the module being small, decodes
# every entry into the cache, with the disassembler loaded; the
# later ones take list and decodings from the cache and never load the
# disassembler (libcapstone is none of their modules).  The functions that
# ran in the first run (the program's, its children's, the plugin's, kept
# when the plugin is unloaded) are patched at the start of the later runs,
# none at a first call.  Every process gives the call trees of the
# -finstrument-functions build.
source "$(dirname "$0")/lib.sh"
setup
multimod_runs_expected 5

cat >"$WORK/script.sh" <<'SCRIPT'
for run in 1 2 3 4 5; do
	"$1/multimod" "$1/plugin.so" >/dev/null
done
SCRIPT
record cached -v --program multimod bash "$WORK/script.sh" "$WORK/plain"
[ "$RC" = 0 ] || fail "the script exited $RC: $(grep -v '^calltrace' "$WORK/cached.err" | head -c 300)"

# What -v said of the program's list, in order, and of its decodings.
grep -F "functions of $WORK/plain/multimod:" "$WORK/cached.err" | sed 's/.*: functions of [^:]*: //' |
	sed 's/listed, and kept.*/listed/; s/.*entries decoded$/decoded/; s/from the cache.*/cache/' |
	tr '\n' ' ' >"$WORK/says"
[ "$(cat "$WORK/says")" = "listed decoded decoded decoded decoded " ] ||
	fail "the program's list came from: $(cat "$WORK/says")"
[ "$(grep -c "entries of $WORK/plain/multimod decoded into the cache" "$WORK/cached.err")" = 1 ] ||
	fail "the program's entries were not decoded once: $(grep 'entries of' "$WORK/cached.err")"

# The disassembler in the processes of the first run only (a run is an
# image started by the script and the two it forks); in the later runs
# every function that runs is patched at start (0 ran at a first call),
# and each run alike, process by process.
ct info "$WORK/cached.trace" >"$WORK/info"
awk '/^  image [0-9]+:/ { image = $2 + 0; if (/, started/) run++; runs[image] = run }
	/^    functions: / { sub(/^    functions: /, ""); functions[image] = $0 }
	/libcapstone/ { capstone[image] = 1 }
	END { for (i = 1; i in runs; i++) print runs[i], (i in capstone) ? "capstone" : "-", functions[i] }' \
	"$WORK/info" >"$WORK/images"
[ "$(wc -l <"$WORK/images")" = 15 ] || fail "not 15 processes: $(cat "$WORK/images")"
awk '($1 == 1) != ($2 == "capstone") { bad = 1 } END { exit bad }' "$WORK/images" ||
	fail "the disassembler was loaded where it was not needed, or not where it was: $(cat "$WORK/images")"
awk '$1 >= 2 && !/ 0 ran \(patched\); [0-9]+ patched at start$/ { bad = 1 } END { exit bad }' \
	"$WORK/images" || fail "a later run patched functions at their first calls: $(cat "$WORK/images")"
for run in 3 4 5; do
	[ "$(awk -v r=$run '$1 == r { $1 = $2 = ""; print }' "$WORK/images")" = \
		"$(awk '$1 == 2 { $1 = $2 = ""; print }' "$WORK/images")" ] ||
		fail "run $run marked or patched other functions than run 2: $(cat "$WORK/images")"
done

to_json cached
check_tree render "$WORK/cached.json" >"$WORK/cached.trees"
expect_text "the trees of five runs patched from the session's decodings" "$WORK/expected" "$WORK/cached.trees"
pass
