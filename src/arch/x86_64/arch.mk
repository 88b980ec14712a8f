# arch.mk (x86-64) - the architecture's part of the Makefile: its sources in
# the runtime (ARCH_RUNTIME_SRC), in libcalltrace.so alone (ARCH_PATCH_SRC:
# the in-process engine's part, and the runtime's vfork, which a program
# linking the static runtime keeps from the C library) and in the tool
# (ARCH_TOOL_SRC), where its calling convention puts values (ARCH_SIG_SRC:
# in the tool and libcalltrace-dwarf.so), and the sources it does not
# build (ARCH_NOT_BUILT: none here).
ARCH_RUNTIME_SRC := src/arch/x86_64/probe_jump.c src/arch/x86_64/stub_values.c
ARCH_PATCH_SRC   := src/arch/x86_64/trampoline.c src/arch/x86_64/vfork.S
ARCH_TOOL_SRC    :=
ARCH_SIG_SRC     := src/arch/x86_64/arg_placement.c
ARCH_NOT_BUILT    =
