#!/usr/bin/env bash
# arm64_libcall.sh - library calls on aarch64 (under qemu-user): the GOT
# slots (R_AARCH64_JUMP_SLOT, GLOB_DAT) hooked as on x86-64, with the
# aarch64 tool, runtime and compilers: libcall_record.sh's program gives
# the same trees (the hooks and the in-process engine; lazy binding,
# LD_BIND_NOW, full RELRO, -fno-plt), libcall_kinds.sh's the same values;
# with ARM64_ALL=1 too: threads through lazily bound slots, longjmp,
# signal handlers and fork children across library calls, the addresses a
# program takes of library functions, the -pg build.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
tests=(libcall_record libcall_kinds)
[ "${ARM64_ALL:-0}" = 1 ] && tests+=(libcall_threads libcall_jumps libcall_addresses libcall_profiled)
for t in "${tests[@]}"; do
	a64_run_test "$t"
done
pass
