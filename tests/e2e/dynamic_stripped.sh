#!/usr/bin/env bash
# dynamic_stripped.sh - stripped executables, whose functions the dynamic
# engine finds in .eh_frame: fully stripped, every function is traced and
# named sub_<file address>; stripped after -rdynamic, the exported ones
# (main) keep their .dynsym names.  The trees are those of the unstripped
# program with the names replaced accordingly; output and exit code unchanged.
# One with no .eh_frame_hdr either: a line says why nothing is recorded.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-O0 -Wall -Wextra)
setup
need_cmd strip
build_c tree "$PROGRAMS/tree.c"
build_c tree_rdyn "$PROGRAMS/tree.c" -rdynamic
cp "$WORK/tree" "$WORK/tree_stripped"
nm "$WORK/tree" >"$WORK/stripped.nm"
nm "$WORK/tree_rdyn" >"$WORK/rdyn.nm"
strip "$WORK/tree_stripped" "$WORK/tree_rdyn"

run_plain full "$WORK/tree"
record full --dynamic "$WORK/tree"
to_json full
check_tree render "$WORK/full.json" >"$WORK/full.trees"

# expected VARIANT KEEP...: full.trees with every name not in KEEP replaced by
# sub_<address in VARIANT's binary, from nm before stripping>.
expected() {
	local nm=$WORK/$1.nm
	shift
	python3 - "$nm" "$WORK/full.trees" "$@" <<'PY'
import re, sys
addr = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tT":
        addr[parts[2]] = int(parts[0], 16)
keep = set(sys.argv[3:])
for line in open(sys.argv[2]):
    m = re.match(r"^( *)([^ \[]+)(.*)$", line.rstrip("\n"))
    if line.startswith("==") or not m or m.group(2) in keep:
        print(line, end="")
        continue
    print(f"{m.group(1)}sub_{addr[m.group(2)]:x}{m.group(3)}")
PY
}

for variant in stripped rdyn; do
	run_plain "$variant" "$WORK/tree_$variant"
	record "$variant" "$WORK/tree_$variant"
	same_as_plain "$variant"
	to_json "$variant"
	check_tree render "$WORK/$variant.json" >"$WORK/$variant.trees"
done
expected stripped >"$WORK/stripped.expected"
expect_text "trees of the stripped program" "$WORK/stripped.expected" "$WORK/stripped.trees"
expected rdyn main >"$WORK/rdyn.expected"
expect_text "trees of the stripped -rdynamic program" "$WORK/rdyn.expected" "$WORK/rdyn.trees"
grep -q '^main$' "$WORK/rdyn.trees" || fail "main is not named in the -rdynamic program's trees"

# A file with nothing that lists its functions (no .symtab, no
# .eh_frame_hdr: the section removed): one line says why no call is
# recorded; the program runs as untraced.
if objcopy --remove-section .eh_frame_hdr "$WORK/tree_stripped" "$WORK/tree_bare" 2>/dev/null &&
	! readelf -SW "$WORK/tree_bare" | grep -q eh_frame_hdr; then
	run_plain bare "$WORK/tree_bare"
	record bare --dynamic "$WORK/tree_bare"
	same_as_plain bare
	grep -q "^calltrace: .*tree_bare: no function found to record: it has no symbol table (stripped) and no .eh_frame_hdr" \
		"$WORK/bare.err" || fail "no word on a program with nothing listing its functions: $(cat "$WORK/bare.err")"
	record bare_inprocess "$WORK/tree_bare" # the in-process engine says it too
	grep -q "^calltrace: in-process engine: .*tree_bare: no function found to record" \
		"$WORK/bare_inprocess.err" || fail "in-process: $(cat "$WORK/bare_inprocess.err")"
fi
pass
