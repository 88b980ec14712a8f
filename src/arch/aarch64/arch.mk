# arch.mk (aarch64) - the architecture's part of the Makefile (see
# x86_64/arch.mk).  Cross-built from another machine with Debian's
# gcc-aarch64-linux-gnu into build-aarch64/.  The in-process engine is
# built with this folder's relocation and stubs in place of x86-64's
# (src/patch/decoder.c, relocate.c, src/runtime/inprocess/patch_stubs.S and
# src/runtime/libcall/libcall_stubs.S); the ptrace engine (attach's tool
# side) is x86-64 only for now: no_engines.c says so.
ifneq ($(shell uname -m),aarch64)
ifeq ($(origin CC),default)
CC := aarch64-linux-gnu-gcc
endif
ifeq ($(origin CC),file)
CC := aarch64-linux-gnu-gcc
endif
BUILD ?= build-aarch64
endif
ARCH_RUNTIME_SRC := src/arch/aarch64/probe_jump.c src/arch/aarch64/jmpbuf.c \
		    src/arch/aarch64/stub_values.c
ARCH_PATCH_SRC   := src/arch/aarch64/relocate.c src/arch/aarch64/patch_stubs.S \
		    src/arch/aarch64/libcall_stubs.S src/arch/aarch64/vfork.S
ARCH_TOOL_SRC    := src/arch/aarch64/no_engines.c
ARCH_SIG_SRC     := src/arch/aarch64/arg_placement.c
# Expanded where the Makefile uses it, after its lists: x86-64's decoding,
# relocation and stubs, the ptrace engine and attach's tool side.
ARCH_NOT_BUILT    = src/patch/decoder.c src/patch/relocate.c src/patch/insn_info.c \
		    src/runtime/inprocess/patch_stubs.S src/runtime/libcall/libcall_stubs.S \
		    $(wildcard src/ptrace/*.c src/attach/*.c) \
		    tests/unit/test_insn_info.c
