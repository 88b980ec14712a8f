#!/usr/bin/env bash
# arm64_core_fork.sh - on aarch64 (under qemu-user): fork and exec, as
# core_fork.sh and core_exec.sh check them; vfork+exec too under
# ARM64_ALL=1 (core_fork_exec_many execs a program without hooks: the
# in-process engine's, x86-64 only for now).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/arm64/lib.sh
source "$(dirname "$0")/arm64/lib.sh"
setup
a64_require
a64_run_test core_fork
a64_run_test core_exec
[ "${ARM64_ALL:-0}" = 1 ] && a64_run_test core_vfork_exec
pass
