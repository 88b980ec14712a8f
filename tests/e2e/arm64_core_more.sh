#!/usr/bin/env bash
# arm64_core_more.sh - on aarch64 (under qemu-user), more of the core tests
# with the aarch64 tool, runtime and compilers: signals and exit codes in
# make check; under ARM64_ALL=1 (make check-aarch64) every core test of
# -finstrument-functions programs (the others need the engines that are
# x86-64 only for now: arm64_engines.sh).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
tests=(core_signals core_exitcode)
if [ "${ARM64_ALL:-0}" = 1 ]; then
	tests+=(core_child_exit core_closefds core_control core_ctl core_defaults core_errors
		core_filters core_info core_json_output core_linked core_live core_max_lines
		core_memory core_report core_usage)
fi
for t in "${tests[@]}"; do
	a64_run_test "$t"
done
pass
