#!/usr/bin/env bash
# reliability_concurrent.sh - 20 programs recorded at the same time in one
# folder under the default trace name, half by `calltrace record`, half by
# LD_PRELOAD: each program prints what it printed untraced and exits as it
# did; each one is in exactly one *.trace of the folder, with exactly the
# calls it made, 0 problems and 0 unfinished calls; a program whose trace is
# not calltrace.trace named its trace on stderr.  TORTURE=1: 40 programs,
# 8 times the calls.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel concurrent concurrent.c

per_kind=$(sized 10 20)
calls=$(sized 400000 3200000)
programs=$((2 * per_kind))
dir=$WORK/shared
mkdir "$dir"

# Untraced, one after the other: the expected output and exit code.
for ((id = 0; id < programs; id++)); do
	touch "$WORK/go.plain"
	run_plain "p$id" "$WORK/concurrent" "$id" "$calls" "$WORK/go.plain"
	echo "$PLAIN_RC" >"$WORK/p$id.plain.rc"
done

# All of them at once, started in alternation, released together.
cd "$dir"
pids=()
for ((id = 0; id < programs; id++)); do
	if ((id % 2 == 0)); then
		"$CALLTRACE" record "$WORK/concurrent" "$id" "$calls" "$WORK/go" \
			>"$WORK/p$id.out" 2>"$WORK/p$id.err" &
	else
		LD_PRELOAD=$RUNTIME "$WORK/concurrent" "$id" "$calls" "$WORK/go" \
			>"$WORK/p$id.out" 2>"$WORK/p$id.err" &
	fi
	pids+=($!)
done
sleep 1
touch "$WORK/go"
for ((id = 0; id < programs; id++)); do
	rc=0
	wait "${pids[$id]}" || rc=$?
	echo "$rc" >"$WORK/p$id.rc"
done
cd "$WORK"

for ((id = 0; id < programs; id++)); do
	kind=$( ((id % 2 == 0)) && echo "record" || echo "LD_PRELOAD")
	rc=$(cat "$WORK/p$id.rc")
	[ "$rc" = "$(cat "$WORK/p$id.plain.rc")" ] ||
		fail "program $id ($kind): $(exit_name "$rc"), untraced $(exit_name "$(cat "$WORK/p$id.plain.rc")"): $(head -c 300 "$WORK/p$id.err")"
	cmp -s "$WORK/p$id.out" "$WORK/p$id.plain.out" ||
		fail "program $id ($kind): stdout '$(head -c 200 "$WORK/p$id.out")', untraced '$(cat "$WORK/p$id.plain.out")'"
	! grep -v '^calltrace: ' "$WORK/p$id.err" >"$WORK/p$id.err.prog" ||
		fail "program $id ($kind): stderr has more than calltrace's lines: $(head -c 300 "$WORK/p$id.err.prog")"
done

# Which trace holds which program: every process image of every trace.
shopt -s nullglob
traces=("$dir"/*.trace)
shopt -u nullglob
[ ${#traces[@]} -gt 0 ] || fail "no *.trace file in the folder"
: >"$WORK/where"
for trace in "${traces[@]}"; do
	name=$(basename "$trace")
	info_of "$trace" "$WORK/$name.info"
	image_commands "$WORK/$name.info" | while read -r pid cmd; do
		echo "$name $pid $cmd"
	done >>"$WORK/where"
done
for ((id = 0; id < programs; id++)); do
	kind=$( ((id % 2 == 0)) && echo "record" || echo "LD_PRELOAD")
	awk -v c="$WORK/concurrent $id $calls $WORK/go" \
		'{ n = $1; p = $2; $1 = ""; $2 = ""; sub(/^  /, "") } $0 == c { print n, p }' \
		"$WORK/where" >"$WORK/p$id.where"
	found=$(wc -l <"$WORK/p$id.where")
	[ "$found" = 1 ] ||
		fail "program $id ($kind) is in $found process images of the ${#traces[@]} traces ($(cut -d' ' -f1 "$WORK/p$id.where" | tr '\n' ' '))"
	read -r name pid <"$WORK/p$id.where"
	if [ "$name" != calltrace.trace ]; then
		grep -q "$name" "$WORK/p$id.err" ||
			fail "program $id ($kind) was recorded into $name but its stderr does not say so: $(head -c 300 "$WORK/p$id.err")"
	fi
	expect_complete "$WORK/$name.info" "$name (program $id, $kind)"
	report=$WORK/p$id.report
	ct report --pid "$pid" "$dir/$name" >"$report"
	expect_calls "$report" work $((calls + id)) "program $id ($kind) in $name"
	expect_calls "$report" leaf $((calls + id)) "program $id ($kind) in $name"
	expect_calls "$report" main 1 "program $id ($kind) in $name"
done
echo "$programs programs at once, $((programs * calls)) calls, ${#traces[@]} traces"
pass
