# calltrace - build, test, demo and benchmark.
#
#   make          build/bin/calltrace, build/lib/libcalltrace.so and .a
#   make demo     install what is needed, build, trace examples/, write every view
#   make check    install what is needed, build (also with ASan/UBSan), run every test
#   make bench    recording overhead, trace size and analysis speed beside uftrace
#   make torture  the reliability, reader-fuzz and attach-storm tests, bigger and longer (TORTURE=1)
#   make install  PREFIX (default /usr/local) and DESTDIR: the tool, the runtime, the header,
#                 pkg-config and CMake files, man pages, bash completion (scripts/install.sh)

CC      ?= gcc
BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?=
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=gnu11 -Wall -Wextra -MMD -MP -D_GNU_SOURCE
TOOL_LIBS = -ldw -lelf -lcapstone -lstdc++ -lm -lpthread

FORMAT_SRC   := $(wildcard src/format/*.c)
# The in-process patching engine (and capstone) goes into libcalltrace.so
# only: a program that links the runtime is instrumented already.
PATCH_SRC    := src/runtime/patch_engine.c src/runtime/patch_attach.c src/runtime/patch_stubs.S \
		$(filter-out src/patch/elf_functions.c src/patch/eh_frame_functions.c src/patch/insn_info.c,$(wildcard src/patch/*.c))
RUNTIME_SRC  := $(filter-out $(PATCH_SRC),$(wildcard src/runtime/*.c)) \
		src/format/trace_writer.c src/format/trace_file.c src/format/trace_clock.c \
		src/format/value_encode.c \
		src/patch/elf_functions.c src/patch/eh_frame_functions.c
# The ptrace engine shares the patching core's decoding and relocation.
CORE_SRC     := src/patch/decoder.c src/patch/insn_info.c src/patch/relocate.c \
		src/patch/special_functions.c
ANALYSIS_SRC := $(FORMAT_SRC) $(wildcard src/symbols/*.c src/analysis/*.c src/views/*.c src/dynamic/*.c) \
		$(CORE_SRC)
CLI_SRC      := $(wildcard src/cli/*.c)
UNIT_SRC     := $(wildcard tests/unit/test_*.c)

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
DWARF_OBJ  := $(BUILD)/dw/src/symbols/func_signature.o $(BUILD)/dw/src/symbols/dwarf_plans.o

all: $(CALLTRACE) $(RUNTIME_SO) $(RUNTIME_A) $(DWARF_SO) $(UNIT_BIN)

# The runtime is never instrumented itself, never sanitized (it lives inside
# the traced program), and exports only the hooks and the public API.
# Loops stay loops (-fno-tree-loop-distribute-patterns): a memcpy the
# compiler made up could be a patched function of the program's.
RT_CFLAGS = $(filter-out -fsanitize=%,$(CFLAGS)) -O2 -fPIC -fvisibility=hidden \
	-fno-instrument-functions -ftls-model=initial-exec -fno-tree-loop-distribute-patterns \
	-Iinclude

$(BUILD)/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(BUILD)/rt/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -fPIC -c $< -o $@

$(BUILD)/dw/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Iinclude -c $< -o $@

$(RUNTIME_SO): $(RT_OBJ) $(PATCH_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libcalltrace.so -o $@ $^ -lcapstone -ldl -lpthread -Wl,-z,nodelete

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

check: deps
	$(MAKE) all
	$(MAKE) asan
	bash tests/run_tests.sh

demo: demo-deps
	$(MAKE) all
	bash examples/run_demo.sh

bench: deps
	$(MAKE) all
	bash bench/run_bench.sh

TORTURE_TESTS = reliability_ reader_fuzz dynamic_attach_storm patch_attach
torture: deps
	$(MAKE) all asan
	@failed=0; for t in $(TORTURE_TESTS); do \
		TORTURE=1 TESTS=$$t bash tests/run_tests.sh || failed=1; \
	done; exit $$failed

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan

.PHONY: all deps demo-deps install asan check demo bench torture format clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
