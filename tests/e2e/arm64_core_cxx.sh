#!/usr/bin/env bash
# arm64_core_cxx.sh - on aarch64 (under qemu-user): C++ exceptions, as
# core_cxx.sh checks them, through the hooks and, with the program built
# plain, through the in-process engine's patched frames (whose return
# addresses the functions saved where their frames have room).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_cxx
a64_run_test core_cxx plain
pass
