#!/usr/bin/env bash
# arm64_core_multimod.sh - on aarch64 (under qemu-user): the call trees of the
# multi-module program (executable, static and shared libraries, a dlopen'ed
# plugin) as core_multimod_pie.sh checks them on x86-64, with the aarch64
# tool, runtime and compiler; the non-PIE build too under ARM64_ALL=1.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_multimod_pie
[ "${ARM64_ALL:-0}" = 1 ] && a64_run_test core_multimod_nopie
pass
