#!/usr/bin/env bash
# arm64_patch_multimod.sh - on aarch64 (under qemu-user): the multi-module
# program built without instrumentation and recorded by the in-process
# engine gives the call trees of its -finstrument-functions build
# (patch_multimod.sh with the aarch64 tool, runtime and compiler: the
# executable, its shared library, a dlopen'ed plugin, fork children, two
# threads, file:line of every call); PIE, and non-PIE under ARM64_ALL=1.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
MODES=pie
[ "${ARM64_ALL:-0}" = 1 ] && MODES="pie nopie"
MODES=$MODES a64_run_test patch_multimod
pass
