#!/usr/bin/env bash
# patch_decoded_cache.sh - the processes of a session decode a module's
# function entries once: a script starts the multi-module program five
# times under one `record`.  The first process lists each module (and
# decodes the entries it calls, with the disassembler loaded); the second
# takes the list from the session's cache and decodes every entry into it;
# the last three patch their first calls from those decodings and never
# load the disassembler (libcapstone is none of their modules).  Every
# process gives the call trees of the -finstrument-functions build, and
# the same counts of functions marked and run.
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
	sed 's/listed, and kept.*/listed/; s/.*entries decoded$/decoded/; s/from the session.*/cache/' |
	tr '\n' ' ' >"$WORK/says"
[ "$(cat "$WORK/says")" = "listed cache decoded decoded decoded " ] ||
	fail "the program's list came from: $(cat "$WORK/says")"
[ "$(grep -c "entries of $WORK/plain/multimod decoded into the session's cache" "$WORK/cached.err")" = 1 ] ||
	fail "the program's entries were not decoded once: $(grep 'entries of' "$WORK/cached.err")"

# The disassembler in the processes of the first two runs only (a run is
# an image started by the script and the two it forks), and in every run
# the same functions marked and run, process by process.
ct info "$WORK/cached.trace" >"$WORK/info"
awk '/^  image [0-9]+:/ { image = $2 + 0; if (/, started/) run++; runs[image] = run }
	/^    functions: / { sub(/^    functions: /, ""); functions[image] = $0 }
	/libcapstone/ { capstone[image] = 1 }
	END { for (i = 1; i in runs; i++) print runs[i], (i in capstone) ? "capstone" : "-", functions[i] }' \
	"$WORK/info" >"$WORK/images"
[ "$(wc -l <"$WORK/images")" = 15 ] || fail "not 15 processes: $(cat "$WORK/images")"
awk '($1 <= 2) != ($2 == "capstone") { bad = 1 } END { exit bad }' "$WORK/images" ||
	fail "the disassembler was loaded where it was not needed, or not where it was: $(cat "$WORK/images")"
for run in 2 3 4 5; do
	[ "$(awk -v r=$run '$1 == r { $1 = $2 = ""; print }' "$WORK/images")" = \
		"$(awk '$1 == 1 { $1 = $2 = ""; print }' "$WORK/images")" ] ||
		fail "run $run marked or ran other functions than run 1: $(cat "$WORK/images")"
done

to_json cached
check_tree render "$WORK/cached.json" >"$WORK/cached.trees"
expect_text "the trees of five runs patched from the session's decodings" "$WORK/expected" "$WORK/cached.trees"
pass
