#!/usr/bin/env bash
# arm64_core_longjmp.sh - on aarch64 (under qemu-user): calls left by longjmp
# and siglongjmp end at the jump (the jmp_buf's stack pointer as glibc mangles
# it on aarch64: src/arch/aarch64/jmpbuf.c), as core_longjmp.sh checks.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_longjmp
pass
