# arch.mk (aarch64) - the architecture's part of the Makefile (see
# x86_64/arch.mk).  Cross-built from another machine with Debian's
# gcc-aarch64-linux-gnu into build-aarch64/; the in-process patching engine
# and the ptrace engine (attach's tool side) are x86-64 only for now: the
# tool says so in one line (no_engines.c).
ifneq ($(shell uname -m),aarch64)
ifeq ($(origin CC),default)
CC := aarch64-linux-gnu-gcc
endif
ifeq ($(origin CC),file)
CC := aarch64-linux-gnu-gcc
endif
BUILD ?= build-aarch64
endif
ARCH_RUNTIME_SRC := src/arch/aarch64/probe_jump.c src/arch/aarch64/jmpbuf.c
ARCH_TOOL_SRC    := src/arch/aarch64/no_engines.c
# Expanded where the Makefile uses it, after its lists: the in-process
# engine's whole list, the patching core (but the name matching the
# views' filters use too), the ptrace engine.
ARCH_NOT_BUILT    = $(PATCH_SRC) $(filter-out src/patch/name_match.c,$(CORE_SRC)) \
		    $(wildcard src/ptrace/*.c src/attach/*.c) \
		    tests/unit/test_insn_info.c
