#!/usr/bin/env bash
# run_fuzz.sh SECONDS - fuzzes the trace reader (fuzz_reader.c) with
# libFuzzer, ASan and UBSan for SECONDS.
#
# Builds build/fuzz/fuzz_reader with clang (again when a source changed),
# seeds build/fuzz/corpus with real traces (make_seeds.sh, compacted by
# compact_trace.py), runs one fuzzing process, and prints the figures.
# Exits 0 when nothing was found, 1 (with the input that fails) when a
# crash, sanitizer report, leak or timeout was, 77 when clang or libFuzzer
# are missing.  The corpus grows from run to run; crash inputs are kept in
# build/fuzz/crashes/.  Reproduce one with: build/fuzz/fuzz_reader FILE.
# Runs at the same time build and log apart.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:?usage: run_fuzz.sh SECONDS}
out=$ROOT/build/fuzz
bin=$out/fuzz_reader
mkdir -p "$out/crashes" "$out/corpus"

command -v clang >/dev/null 2>&1 || {
	echo "run_fuzz: clang is not installed"
	exit 77
}
probe=$out/probe.$$
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$probe.c"
clang -fsanitize=fuzzer "$probe.c" -o "$probe" 2>/dev/null || {
	rm -f "$probe" "$probe.c"
	echo "run_fuzz: clang cannot build a libFuzzer target (libclang-rt-14-dev missing?)"
	exit 77
}

sources=(src/format/trace_reader.c src/format/trace_records.c src/format/trace_kernel_index.c
	src/format/trace_cursor.c src/format/trace_merge.c src/format/proto_wire.c src/format/printable.c src/analysis/*.c src/symbols/*.c src/views/*.c
	src/patch/name_match.c "src/arch/$(uname -m)/arg_placement.c")
stale=1
if [ -x "$bin" ]; then
	stale=0
	for s in "${sources[@]}" src/*/*.h tests/fuzz/fuzz_reader.c; do
		[ "$ROOT/$s" -nt "$bin" ] && stale=1
	done
fi
if [ "$stale" = 1 ]; then
	# Built aside and moved in: a run at the same time keeps its own.
	(cd "$ROOT" && clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude \
		tests/fuzz/fuzz_reader.c "${sources[@]}" -o "$bin.$$" \
		-ldw -lelf -lstdc++ -lm -lpthread) >"$out/build.$$.log" 2>&1 || {
		echo "run_fuzz: cannot build the harness: $(grep -m1 error "$out/build.$$.log")"
		rm -f "$bin.$$"
		exit 1
	}
	mv -f "$bin.$$" "$bin"
	rm -f "$out/build.$$.log"
fi

seeds=$out/seeds
if ! BUILD=$ROOT/build bash "$ROOT/tests/fuzz/make_seeds.sh" "$seeds" >"$out/seeds.log" 2>&1; then
	echo "run_fuzz: cannot record the seed traces: $(tail -n 1 "$out/seeds.log")"
	exit 1
fi
for t in "$seeds"/*.trace; do
	c=$out/corpus/seed-$(basename "$t")
	[ -f "$c" ] || python3 "$ROOT/tests/fuzz/compact_trace.py" "$t" "$c"
	[ "$(stat -c %s "$c")" -le 65536 ] || rm -f "$c"
done

before=$(find "$out/crashes" -type f | wc -l)
log=$out/fuzz.$$.log
# Leaks are checked at the end of each input; a wall-clock time out per
# input catches hangs.
"$bin" "$out/corpus" -max_total_time="$seconds" -max_len=65536 -timeout=20 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/crashes/" \
	>"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
corpus=$(find "$out/corpus" -type f | wc -l)
found=$(find "$out/crashes" -type f -newer "$probe" | head -n 1)
rm -f "$probe" "$probe.c"
echo "run_fuzz: ${runs:-0} inputs in ${seconds} s, corpus of $corpus"
if [ "$rc" != 0 ] || [ "$(find "$out/crashes" -type f | wc -l)" != "$before" ]; then
	grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/run_fuzz: /'
	echo "run_fuzz: found: ${found:-see $log}"
	exit 1
fi
rm -f "$log"
exit 0
