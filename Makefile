# calltrace - build, test, demo and benchmark.
#
#   make          build/bin/calltrace, build/lib/libcalltrace.so and .a
#   make demo     install what is needed, build, trace examples/, write every view
#   make check    install what is needed, build (also with ASan/UBSan, with clang and for
#                 aarch64), run every test (a bounded part of the aarch64 ones, under qemu-user)
#   make ARCH=aarch64  cross-build for 64-bit Arm into build-aarch64/
#   make check-aarch64  every aarch64 test under qemu-user (tests/e2e/arm64_*.sh)
#   make bench    recording overhead, trace size and analysis speed beside uftrace
#   make bench-sqlite  only the SQLite shell's library calls counted by calltrace and uftrace,
#                 and the slowdown of each (Debian's sources; minutes the first time; bench runs it last)
#   make torture  the reliability, reader-fuzz, attach-storm and killed-attach tests, bigger and longer (TORTURE=1)
#   make install  PREFIX (default /usr/local) and DESTDIR: the tool, the runtime, the header,
#                 pkg-config and CMake files, man pages, bash completion (scripts/install.sh)

CC      ?= gcc
# The target architecture (src/arch/<ARCH>/): the machine's own by default;
# `make ARCH=aarch64` cross-builds into build-aarch64/ with Debian's cross
# compiler and its arm64 libraries (multiarch; scripts/install-deps.sh).
ARCH    ?= $(shell uname -m)
ifeq ($(wildcard src/arch/$(ARCH)/arch.mk),)
$(error ARCH=$(ARCH): no src/arch/$(ARCH)/ (x86_64 and aarch64 are there))
endif
include src/arch/$(ARCH)/arch.mk
BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?=
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=gnu11 -Wall -Wextra -MMD -MP -D_GNU_SOURCE
TOOL_LIBS = -ldw -lelf -lcapstone -lm -lpthread -ldl

FORMAT_SRC   := $(wildcard src/format/*.c)
# The in-process patching engine goes into libcalltrace.so only: a program
# that links the runtime is instrumented already.  libcalltrace.so does not
# link capstone: it opens it when an entry must be decoded (decoder.c).
PATCH_SRC    := $(wildcard src/runtime/inprocess/*.c src/runtime/inprocess/*.S) \
		src/runtime/session/attach_session.c \
		$(wildcard src/runtime/libcall/*.c src/runtime/libcall/*.S) \
		src/symbols/prototypes.c src/symbols/prototypes_table.c \
		$(filter-out src/patch/elf_functions.c src/patch/eh_frame_functions.c src/patch/insn_info.c \
			src/patch/special_functions.c src/patch/name_match.c,$(wildcard src/patch/*.c))
RUNTIME_SRC  := $(filter-out $(PATCH_SRC),$(wildcard src/runtime/*/*.c)) \
		src/format/trace_writer.c src/format/trace_session.c src/format/trace_records_write.c \
		src/format/trace_ring.c src/format/trace_ring_count.c src/format/trace_snapshot.c src/format/trace_file.c src/format/trace_clock.c \
		src/format/value_encode.c src/format/own_work.c \
		src/patch/elf_functions.c src/patch/eh_frame_functions.c src/patch/special_functions.c \
		src/patch/name_match.c src/views/view_util.c src/format/printable.c \
		src/symbols/short_name.c
# The ptrace engine shares the patching core's decoding and relocation,
# and attach the place of a fault in a trampoline.
CORE_SRC     := src/patch/decoder.c src/patch/insn_info.c src/patch/relocate.c src/patch/verdicts.c \
		src/patch/special_functions.c src/patch/trampoline_site.c src/patch/name_match.c
ANALYSIS_SRC := $(FORMAT_SRC) $(wildcard src/symbols/*.c src/analysis/*.c src/views/*.c) \
		$(wildcard src/ptrace/*.c src/attach/*.c) \
		$(wildcard src/kernel/*.c) \
		$(CORE_SRC)
CLI_SRC      := $(wildcard src/cli/*.c)
UNIT_SRC     := $(wildcard tests/unit/test_*.c)

# What the architecture adds, and the engines it does not have yet (arch.mk).
RUNTIME_SRC  += $(ARCH_RUNTIME_SRC)
PATCH_SRC    := $(filter-out $(ARCH_NOT_BUILT),$(PATCH_SRC)) $(ARCH_PATCH_SRC)
ANALYSIS_SRC := $(filter-out $(ARCH_NOT_BUILT),$(ANALYSIS_SRC)) $(ARCH_TOOL_SRC) $(ARCH_SIG_SRC) \
		src/arch/machines.c
UNIT_SRC     := $(filter-out $(ARCH_NOT_BUILT),$(UNIT_SRC))

# The BPF program that copies system call arguments (src/kernel/bpf/),
# compiled by clang for the BPF target and embedded in the tool as a
# libbpf skeleton; without clang, bpftool or libbpf (a cross build), the
# tool is built without it and says so where it would be used.
BPF_CLANG ?= clang
HAVE_BPF := $(shell [ "$(ARCH)" = "$$(uname -m)" ] && command -v $(BPF_CLANG) >/dev/null && \
	command -v bpftool >/dev/null && [ -f /usr/include/bpf/libbpf.h ] && echo 1)
ifeq ($(HAVE_BPF),1)
BPF_SKEL  := $(BUILD)/gen/syscall_args.skel.h
CFLAGS    += -DCALLTRACE_BPF=1
TOOL_LIBS += -lbpf
endif

RT_OBJ   := $(RUNTIME_SRC:%.c=$(BUILD)/rt/%.o)
PATCH_OBJ := $(patsubst %.S,$(BUILD)/rt/%.o,$(PATCH_SRC:%.c=$(BUILD)/rt/%.o))
LIB_OBJ  := $(ANALYSIS_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

CALLTRACE := $(BUILD)/bin/calltrace
RUNTIME_SO := $(BUILD)/lib/libcalltrace.so
RUNTIME_A  := $(BUILD)/lib/libcalltrace.a
# Loaded by the runtime only when it captures arguments: DWARF through libdw.
DWARF_SO   := $(BUILD)/lib/libcalltrace-dwarf.so
DWARF_SRC  := src/symbols/func_signature.c src/symbols/ctype_dwarf.c src/symbols/signature_abi.c \
	      src/symbols/signature_text.c src/symbols/unit_ranges.c src/symbols/dwarf_plans.c \
	      $(ARCH_SIG_SRC)
DWARF_OBJ  := $(DWARF_SRC:%.c=$(BUILD)/dw/%.o)

all: $(CALLTRACE) $(RUNTIME_SO) $(RUNTIME_A) $(DWARF_SO) $(UNIT_BIN)

# The runtime is never instrumented itself, never sanitized (it lives inside
# the traced program), and exports only the hooks and the public API.
# Loops stay loops (-fno-tree-loop-distribute-patterns): a memcpy the
# compiler made up could be a patched function of the program's.
# Each variable in a section of its own (-fdata-sections), sorted by
# alignment at the link (RT_LDFLAGS): the page-aligned tables go first and
# the small state every image writes at start lies together, on a few
# pages (src/utils/big_table.h).  Its imports are bound at load (-z now):
# lazily, every fork child of a shell would look up again, page by page of
# the libraries' symbol tables, the ones only a child calls.
RT_CFLAGS = $(filter-out -fsanitize=% -finstrument-functions,$(CFLAGS)) -O2 -fPIC \
	-fvisibility=hidden -ftls-model=initial-exec -fdata-sections $(RT_NO_LIBC_LOOPS) -Iinclude
RT_LDFLAGS = -Wl,--sort-section=alignment -Wl,-z,now
# gcc: no hooks, loops kept; clang has neither option (and no hooks unless
# asked): -fno-builtin keeps it from turning loops into library calls.
ifeq ($(shell $(CC) --version 2>/dev/null | grep -c clang),0)
RT_NO_LIBC_LOOPS = -fno-instrument-functions -fno-tree-loop-distribute-patterns
else
RT_NO_LIBC_LOOPS = -fno-builtin
endif

$(BUILD)/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

# The stubs' fast paths: their stubs save no vector register for them.
RT_GPR_ONLY := src/runtime/inprocess/patch_fast.c src/runtime/libcall/libcall_fast.c
$(RT_GPR_ONLY:%.c=$(BUILD)/rt/%.o): RT_CFLAGS += -mgeneral-regs-only

$(BUILD)/rt/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -fPIC -c $< -o $@

$(BUILD)/dw/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Iinclude -c $< -o $@

ifeq ($(HAVE_BPF),1)
$(BUILD)/gen/%.bpf.o: src/kernel/bpf/%.bpf.c src/kernel/syscall_capture.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -O2 -g -target bpf -I/usr/include/$(shell $(CC) -print-multiarch) -c $< -o $@

$(BUILD)/gen/%.skel.h: $(BUILD)/gen/%.bpf.o
	bpftool gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

.SECONDARY: $(BUILD)/gen/syscall_args.bpf.o
$(BUILD)/obj/src/kernel/syscall_bpf.o: $(BPF_SKEL)
$(BUILD)/obj/src/kernel/syscall_bpf.o: CFLAGS += -I$(BUILD)/gen
endif

$(RUNTIME_SO): $(RT_OBJ) $(PATCH_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libcalltrace.so $(RT_LDFLAGS) -o $@ $^ -ldl -lpthread -Wl,-z,nodelete

$(DWARF_SO): $(DWARF_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ -ldw -lelf

$(RUNTIME_A): $(RT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CALLTRACE): $(CLI_OBJ) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ $(TOOL_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Iinclude -o $@ $< $(LIB_OBJ) $(TOOL_LIBS) -ldl -lpthread

deps:
	@bash scripts/install-deps.sh

demo-deps:
	@bash scripts/install-deps.sh --demo

install: $(CALLTRACE) $(RUNTIME_SO) $(RUNTIME_A)
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BUILD="$(BUILD)" bash scripts/install.sh

# Sanitized build of the tools and unit tests in its own tree.
asan:
	$(MAKE) BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" OPT=-O1

# The tools and the runtime built with clang as well: run_tests.sh runs the
# unit tests and the value and view tests with them too.
clang:
	$(MAKE) BUILD=build-clang CC=clang all

check: deps
	$(MAKE) all
	$(MAKE) asan
	$(MAKE) clang
	$(MAKE) aarch64
	bash tests/run_tests.sh

# The tool and the runtime for aarch64 in build-aarch64/ (on another machine
# when Debian's cross compiler is there); their tests run under qemu-user.
# make check runs a bounded part of them; check-aarch64 every one.
aarch64:
	@if [ "$$(uname -m)" = aarch64 ] || command -v aarch64-linux-gnu-gcc >/dev/null; then \
		$(MAKE) ARCH=aarch64 all; \
	else \
		echo "aarch64: no cross compiler (aarch64-linux-gnu-gcc; make deps): not built"; \
	fi

check-aarch64: deps
	$(MAKE) all
	$(MAKE) aarch64
	ARM64_ALL=1 TESTS=arm64_ bash tests/run_tests.sh

demo: demo-deps
	$(MAKE) all
	bash examples/run_demo.sh

bench: deps
	$(MAKE) all
	bash bench/run_bench.sh

bench-sqlite: deps
	$(MAKE) all
	bash bench/world_sqlite.sh

TORTURE_TESTS = reliability_ reader_fuzz dynamic_attach_storm dynamic_attach_killed patch_attach
torture: deps
	$(MAKE) all asan
	@failed=0; for t in $(TORTURE_TESTS); do \
		TORTURE=1 TESTS=$$t bash tests/run_tests.sh || failed=1; \
	done; exit $$failed

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan build-clang build-aarch64

.PHONY: all deps demo-deps install asan clang aarch64 check-aarch64 check demo bench bench-sqlite torture format clean

-include $(shell find $(BUILD) -name '*.d' -type f -not -path '$(BUILD)/bench-src/*' 2>/dev/null)
