/*
 * test_got_slots.c - unit test of the symbols of library calls and of the
 * calls the kernel sees (src/symbols/symbols.h, "Calls of other kinds").
 *
 * Builds tests/programs/kinds (a program and its library) with gcc, as a
 * non-PIE program with lazy binding (JUMP_SLOT relocations in .rela.plt)
 * and as a PIE built with -fno-plt -z now (GLOB_DAT relocations in
 * .rela.dyn), and checks that every GOT slot readelf lists is named by
 * its relocation's symbol and version, that other addresses are no slot,
 * which names a module's dynamic symbol table defines, and that the
 * symbols of library calls, system calls and off-CPU intervals are ones of
 * their own.
 *
 * Usage: test_got_slots [KINDS_DIR]  (default: ../programs/kinds beside this file)
 */
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/format/trace_format.h"
#include "../../src/symbols/symbols.h"

static int passed, failed;
static char sources[PATH_MAX], tmpdir[PATH_MAX];

static void check(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s ", ok ? "ok  " : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (ok)
		passed++;
	else
		failed++;
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *show(const char *s)
{
	return s ? s : "(null)";
}

static int run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Every JUMP_SLOT and GLOB_DAT relocation readelf lists in `bin` names its
 * slot; the byte after a slot is none.  Returns how many were checked. */
static int check_slots(struct symbol_table *t, const char *bin, const char *what)
{
	char cmd[3 * PATH_MAX], line[1024];
	snprintf(cmd, sizeof(cmd), "readelf -rW '%s'", bin);
	FILE *p = popen(cmd, "r");
	int n = 0;
	while (p && fgets(line, sizeof(line), p)) {
		uint64_t offset, info, value;
		char type[64], symbol[512];
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %63s %" SCNx64 " %511s", &offset, &info,
			   type, &value, symbol) != 5 ||
		    (!strstr(type, "JUMP_SLO") && !strstr(type, "GLOB_DAT")))
			continue;
		char *at = strchr(symbol, '@');
		const char *want_version = at ? at + 1 + (at[1] == '@') : NULL;
		if (at)
			*at = '\0';
		const char *version = "unset";
		const char *name = symbol_table_got_slot(t, bin, NULL, 0, offset, &version);
		check(str_eq(name, symbol) && str_eq(version, want_version),
		      "%s: slot 0x%" PRIx64 " is %s@%s (got %s@%s)", what, offset, symbol,
		      show(want_version), show(name), show(version));
		check(symbol_table_got_slot(t, bin, NULL, 0, offset + 1, &version) == NULL &&
			  version == NULL,
		      "%s: 0x%" PRIx64 " is no slot", what, offset + 1);
		n++;
	}
	if (p)
		pclose(p);
	return n;
}

static void test_build(const char *what, const char *flags)
{
	char lib[2 * PATH_MAX], bin[2 * PATH_MAX];
	struct symbol_table *t = symbol_table_new();
	snprintf(lib, sizeof(lib), "%s/libkinds.so", tmpdir);
	snprintf(bin, sizeof(bin), "%s/kinds_%s", tmpdir, what);
	if (run("gcc -O0 %s -o '%s' '%s/main.c' -L'%s' -lkinds", flags, bin, sources, tmpdir) !=
	    0) {
		check(0, "%s: gcc builds the program", what);
		return;
	}
	int n = check_slots(t, bin, what);
	check(n >= 9, "%s: readelf lists the slots of the program's calls (%d)", what, n);
	const char *version;
	const char *name =
	    symbol_table_got_slot(t, "/nonexistent/kinds", NULL, 0, 0x404000, &version);
	check(name == NULL, "%s: a missing file has no slot", what);
	symbol_table_free(t);
}

static void test_defines(void)
{
	char lib[2 * PATH_MAX], bin[2 * PATH_MAX];
	struct symbol_table *t = symbol_table_new();
	snprintf(lib, sizeof(lib), "%s/libkinds.so", tmpdir);
	snprintf(bin, sizeof(bin), "%s/kinds_nopie", tmpdir);
	check(symbol_table_defines(t, lib, NULL, 0, "atoi") == 1 &&
		  symbol_table_defines(t, lib, NULL, 0, "kinds_lookup") == 1,
	      "the library defines atoi and kinds_lookup");
	check(symbol_table_defines(t, lib, NULL, 0, "strtol") == 0 &&
		  symbol_table_defines(t, lib, NULL, 0, "kinds") == 0,
	      "the library does not define strtol (it calls it), nor kinds");
	check(symbol_table_defines(t, bin, NULL, 0, "puts") == 0 &&
		  symbol_table_defines(t, bin, NULL, 0, "kinds_lookup") == 0,
	      "the program does not define the functions it imports");
	check(symbol_table_defines(t, "/nonexistent/lib.so", NULL, 0, "atoi") == 0,
	      "a missing file defines nothing");
	symbol_table_free(t);
}

static void test_symbols_of_kinds(void)
{
	char lib[2 * PATH_MAX];
	struct symbol_table *t = symbol_table_new();
	snprintf(lib, sizeof(lib), "%s/libkinds.so", tmpdir);
	const struct symbol *own = symbol_table_lookup(t, lib, NULL, 0, 0, 0);
	uint64_t address = 0;
	FILE *p = NULL;
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "nm -D '%s' | awk '$3 == \"kinds_lookup\" { print $1 }'", lib);
	if ((p = popen(cmd, "r")) != NULL && fscanf(p, "%" SCNx64, &address) == 1)
		own = symbol_table_lookup(t, lib, NULL, 0, address, 0x7f0000000000 + address);
	if (p)
		pclose(p);
	const struct symbol *slot_call =
	    symbol_table_library(t, "kinds_lookup", NULL, lib, 0x404038);
	const struct symbol *pointer_call =
	    symbol_table_library(t, own->name, NULL, own->module, own->address);
	check(str_eq(own->name, "kinds_lookup") && own->kind == CALL_FUNCTION,
	      "the function's own symbol: kinds_lookup (%s)", show(own->name));
	check(slot_call != own && slot_call->kind == CALL_LIBRARY &&
		  str_eq(slot_call->name, "kinds_lookup") && str_eq(slot_call->module, lib),
	      "a library call's symbol is another, of kind library, in the library");
	check(str_eq(symbol_table_exported_at(t, lib, NULL, 0, address), "kinds_lookup"),
	      "the function exported at kinds_lookup's address is named kinds_lookup, not its "
	      "alias _kinds_find");
	check(symbol_table_exported_at(t, lib, NULL, 0, address + 1) == NULL,
	      "no function is exported one byte further");
	check(pointer_call == slot_call && slot_call->file == NULL && slot_call->line == 0,
	      "through a slot or a pointer: one symbol for one function of one module, with "
	      "no source line whichever came first");
	check(symbol_table_library(t, "kinds_lookup", NULL, NULL, 0x404038) != slot_call &&
		  str_eq(symbol_table_library(t, "puts@GLIBC_2.2.5", NULL, NULL, 1)->name, "puts"),
	      "another module gives another symbol; a version is cut from the name");

	const struct symbol *preempted =
	    symbol_table_kernel_side(t, CALL_OFFCPU, 0, OFFCPU_PREEMPTED);
	const struct symbol *blocked = symbol_table_kernel_side(t, CALL_OFFCPU, 0, OFFCPU_BLOCKED);
	check(str_eq(preempted->name, "off-cpu:preempted") &&
		  str_eq(blocked->name, "off-cpu:blocked") && str_eq(blocked->module, "[kernel]") &&
		  blocked->kind == CALL_OFFCPU,
	      "off-CPU intervals: off-cpu:preempted, off-cpu:blocked in [kernel]");
	const struct symbol *sys0 = symbol_table_kernel_side(t, CALL_SYSCALL, 0, 0);
	check(sys0->kind == CALL_SYSCALL && str_eq(sys0->name, "read") &&
		  str_eq(sys0->module, "[kernel]") && sys0 != preempted &&
		  symbol_table_kernel_side(t, CALL_SYSCALL, 0, 0) == sys0,
	      "system call 0 (x86-64): read in [kernel], one symbol (%s)", show(sys0->name));
	check(str_eq(symbol_table_kernel_side(t, CALL_SYSCALL, 62, 257)->name, "openat"),
	      "system call 257 of EM_X86_64: openat");
	symbol_table_free(t);
}

int main(int argc, char **argv)
{
	char guess[PATH_MAX], here[PATH_MAX];
	snprintf(here, sizeof(here), "%s", __FILE__);
	snprintf(guess, sizeof(guess), "%s", argc > 1 ? argv[1] : "");
	if (argc <= 1)
		snprintf(guess, sizeof(guess), "%s/../programs/kinds", dirname(here));
	if (!realpath(guess, sources)) {
		fprintf(stderr, "test_got_slots: no sources at %s\n", guess);
		return 1;
	}
	if (run("for tool in gcc readelf nm; do command -v $tool || exit 1; done >/dev/null") !=
	    0) {
		fprintf(stderr, "test_got_slots: needs gcc, readelf and nm on PATH\n");
		return 1;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_got_slots.XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
	if (!mkdtemp(tmpdir)) {
		perror("test_got_slots: mkdtemp");
		return 1;
	}
	if (run("gcc -O0 -fPIC -shared -o '%s/libkinds.so' '%s/libkinds.c'", tmpdir, sources) !=
	    0) {
		check(0, "gcc builds libkinds.so");
	} else {
		test_build("nopie", "-fno-pie -no-pie");
		test_build("pie_now", "-fPIE -pie -fno-plt -Wl,-z,now");
		test_defines();
		test_symbols_of_kinds();
	}
	run("rm -rf '%s'", tmpdir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
