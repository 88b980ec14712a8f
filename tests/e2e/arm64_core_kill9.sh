#!/usr/bin/env bash
# arm64_core_kill9.sh - on aarch64 (under qemu-user): what a program killed
# with SIGKILL had written is in the trace, as core_kill9.sh checks.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_kill9
pass
