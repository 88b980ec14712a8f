#!/usr/bin/env bash
# reliability_names.sh - no recording ever loses another's trace.  Rounds
# of 20 short programs started at once into one folder, not waiting for one
# another (so that some end before others create their trace), half by
# `calltrace record`, half by LD_PRELOAD: once under the default name,
# once all under one shared name.  Every program is then in exactly one
# trace of the folder, with exactly the calls it made, and the folder holds
# one trace per program.  2 rounds; TORTURE=1: 5.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel concurrent concurrent.c

rounds=$(sized 2 5)
per_round=20
calls=2000
touch "$WORK/go" # nobody waits

# round MODE DIR ROUND: starts the round's programs at once into DIR and
# waits for them; MODE is "default" (no name given) or "shared" (one name).
round() {
	local mode=$1 dir=$2 r=$3 i id pids=() name=()
	[ "$mode" = shared ] && name=(-o shared.trace)
	cd "$dir"
	for ((i = 0; i < per_round; i++)); do
		id=$((r * per_round + i))
		if ((i % 2 == 0)); then
			"$CALLTRACE" record "${name[@]}" "$WORK/concurrent" "$id" "$calls" "$WORK/go" \
				>"$WORK/$mode.$id.out" 2>"$WORK/$mode.$id.err" &
		elif [ "$mode" = shared ]; then
			CALLTRACE_OUTPUT=shared.trace LD_PRELOAD=$RUNTIME "$WORK/concurrent" "$id" "$calls" "$WORK/go" \
				>"$WORK/$mode.$id.out" 2>"$WORK/$mode.$id.err" &
		else
			LD_PRELOAD=$RUNTIME "$WORK/concurrent" "$id" "$calls" "$WORK/go" \
				>"$WORK/$mode.$id.out" 2>"$WORK/$mode.$id.err" &
		fi
		pids+=($!)
	done
	for ((i = 0; i < per_round; i++)); do
		id=$((r * per_round + i))
		rc=0
		wait "${pids[$i]}" || rc=$?
		[ "$rc" = $((10 + id % 50)) ] ||
			fail "$mode, program $id: $(exit_name "$rc"): $(head -c 300 "$WORK/$mode.$id.err")"
	done
	cd "$WORK"
}

# expect_each_once MODE DIR: every program of every round is in exactly one
# trace of DIR, complete, and DIR holds one trace per program.
expect_each_once() {
	local mode=$1 dir=$2 trace base id total=$((rounds * per_round)) traces=()
	shopt -s nullglob
	traces=("$dir"/*.trace)
	shopt -u nullglob
	: >"$WORK/$mode.where"
	for trace in "${traces[@]}"; do
		base=$(basename "$trace")
		info_of "$trace" "$WORK/$mode.$base.info"
		expect_complete "$WORK/$mode.$base.info" "$mode: $base"
		image_commands "$WORK/$mode.$base.info" | while read -r _ cmd; do
			echo "$base $cmd"
		done >>"$WORK/$mode.where"
	done
	for ((id = 0; id < total; id++)); do
		found=$(awk -v c="$WORK/concurrent $id $calls $WORK/go" \
			'{ n = $1; $1 = "" } substr($0, 2) == c { print n }' "$WORK/$mode.where")
		[ "$(printf '%s' "$found" | grep -c .)" = 1 ] ||
			fail "$mode: program $id is in $(printf '%s' "$found" | grep -c .) of the ${#traces[@]} traces, not 1 (lost: its trace was replaced)"
		ct report "$dir/$found" >"$WORK/$mode.$id.report"
		expect_calls "$WORK/$mode.$id.report" work $((calls + id)) "$mode: program $id in $found"
	done
	[ "${#traces[@]}" = "$total" ] || fail "$mode: ${#traces[@]} traces for $total programs"
}

for mode in default shared; do
	mkdir "$WORK/$mode"
	for ((r = 0; r < rounds; r++)); do
		round "$mode" "$WORK/$mode" "$r"
	done
	expect_each_once "$mode" "$WORK/$mode"
done
echo "$rounds rounds of $per_round programs at once, default and shared names: 0 traces lost"
pass
