#!/usr/bin/env bash
# arm64_core_threads.sh - on aarch64 (under qemu-user): threads' call trees,
# as core_threads.sh checks them.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_threads
pass
