#!/usr/bin/env bash
# Runs every test: the unit tests of the normal, the sanitized (ASan +
# UBSan) and the clang builds, then every end-to-end script in tests/e2e/,
# first with the normal tools, then the core ones again with the sanitized
# tools, then those that show values and views with the clang build (what
# one compiler lets pass, such as an order of evaluation C leaves open,
# the other may not).  A build that is not there is left out.
# Ends with the line "N passed, N failed, N skipped"; exits non-zero on any
# failure.  TESTS=pattern runs only the scripts whose name matches (a
# substring; several with '|': TESTS='patch_|libcall').
set -u
cd "$(dirname "$0")/.." || exit 1

passed=0 failed=0 skipped=0
failures=()
pattern=${TESTS:-}

# Whether the name is left out by TESTS.
skipped_by_pattern() {
	[ -n "$pattern" ] || return 1
	local part
	IFS='|' read -ra parts <<<"$pattern"
	for part in "${parts[@]}"; do
		[ -n "$part" ] && [[ "$1" == *$part* ]] && return 1
	done
	return 0
}

run_one() { # name, command...
	local name=$1
	shift
	local out rc start=$SECONDS
	out=$(timeout 600 "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $name ($((SECONDS - start)) s)"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
		echo "SKIP $name: $(printf '%s\n' "$out" | tail -n 1)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL $name (exit $rc)"
		printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /'
	fi
}

for build in build build-asan build-clang; do
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *.d) continue ;; esac
		skipped_by_pattern "$t" && continue
		run_one "$t" "$t"
	done
done

export RUNTIME=$PWD/build/lib/libcalltrace.so
for script in tests/e2e/*.sh; do
	[ "$(basename "$script")" = lib.sh ] && continue
	skipped_by_pattern "$script" && continue
	CALLTRACE=$PWD/build/bin/calltrace BUILD=$PWD/build run_one "$script" bash "$script"
done
# The sanitized tools read the same traces: any memory error fails the test.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=99
for script in tests/e2e/core_*.sh tests/e2e/views_*.sh tests/e2e/dynamic_*.sh tests/e2e/ring_*.sh \
	tests/e2e/check_build.sh; do
	[ -f "$script" ] && [ -x build-asan/bin/calltrace ] || continue
	# The browser does not run the tools; the storm repeats dynamic_attach.
	case "$script" in *browser* | *attach_storm*) continue ;; esac
	skipped_by_pattern "$script" && continue
	CALLTRACE=$PWD/build-asan/bin/calltrace BUILD=$PWD/build-asan run_one "asan:$script" bash "$script"
done

unset ASAN_OPTIONS UBSAN_OPTIONS
if [ -x build-clang/bin/calltrace ]; then
	export RUNTIME=$PWD/build-clang/lib/libcalltrace.so
	for script in tests/e2e/args_capture.sh tests/e2e/core_json_output.sh tests/e2e/views_*.sh; do
		case "$script" in *browser*) continue ;; esac
		skipped_by_pattern "$script" && continue
		CALLTRACE=$PWD/build-clang/bin/calltrace BUILD=$PWD/build-clang run_one "clang:$script" bash "$script"
	done
fi

echo
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
