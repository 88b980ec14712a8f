#!/usr/bin/env bash
# mutate_traces.sh N - the mutation campaign: N damaged copies of real
# traces (see mutate_traces.py for the damage), each read by every reading
# command of the sanitized calltrace (build-asan/bin/calltrace, or
# $CALLTRACE) with a time limit.  Prints the figures: inputs, commands run,
# successes, clean errors, crashes, hangs.  Exits 1 if any command crashed
# (a signal, an ASan or UBSan report, a leak) or hung, with the inputs kept
# in build/fuzz/mutations.*/failed/; 77 if python3 or the tools are missing.
# Each run has its own folder (removed when nothing failed): runs at the
# same time do not meet.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:?usage: mutate_traces.sh N}
CALLTRACE=${CALLTRACE:-$ROOT/build-asan/bin/calltrace}
out=$ROOT/build/fuzz
command -v python3 >/dev/null 2>&1 || {
	echo "mutate_traces: python3 is not installed"
	exit 77
}
[ -x "$CALLTRACE" ] || {
	echo "mutate_traces: no calltrace at $CALLTRACE (make asan)"
	exit 77
}
mkdir -p "$out"
if ! BUILD=$ROOT/build bash "$ROOT/tests/fuzz/make_seeds.sh" "$out/seeds" >"$out/seeds.log" 2>&1; then
	echo "mutate_traces: cannot record the seed traces: $(tail -n 1 "$out/seeds.log")"
	exit 1
fi
work=$(mktemp -d "$out/mutations.XXXXXX") || exit 1
# A copy: a rebuild of the tools meanwhile must not pull it away.
cp "$CALLTRACE" "$work/calltrace" || exit 1
python3 "$ROOT/tests/fuzz/mutate_traces.py" "$n" "$work/calltrace" "$out/seeds" "$work"
rc=$?
[ "$rc" != 0 ] || rm -rf "$work"
exit "$rc"
