/*
 * test_symbols.c - unit test of src/symbols/.
 *
 * Builds the C and C++ programs of tests/unit/fixtures/ with gcc and g++
 * (PIE and not) into a temporary directory, takes their function addresses
 * from nm, and checks what the symbol table says about them against the
 * names, against addr2line and against the line markers ("@name") in the
 * sources.  Also: stripped copies, missing files, the cache's pointers and
 * ids, demangling and elf_file_references().
 *
 * Usage: test_symbols [FIXTURE_DIR]  (default: fixtures/ beside this file)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../src/symbols/symbols.h"

static int passed, failed;
static char fixtures[PATH_MAX];
static char tmpdir[PATH_MAX];

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
	return a && b && strcmp(a, b) == 0;
}

static const char *show(const char *s)
{
	return s ? s : "(null)";
}

/* Runs a shell command; returns its exit status. */
static int run(const char *fmt, ...)
{
	char cmd[3 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void join_path(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	if (n < 0 || n >= PATH_MAX) {
		fprintf(stderr, "test_symbols: path too long: %s/%s\n", dir, name);
		exit(1);
	}
}

static void temp_path(char *buf, const char *name)
{
	join_path(buf, tmpdir, name);
}

static void fixture_path(char *buf, const char *name)
{
	join_path(buf, fixtures, name);
}

/* The address nm gives for `name` (demangled with -C when `demangle`). */
static int nm_address(const char *bin, const char *name, int demangle, uint64_t *addr)
{
	char cmd[2 * PATH_MAX], line[1024], found[1024];
	snprintf(cmd, sizeof(cmd), "nm %s '%s'", demangle ? "-C" : "", bin);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	int ok = -1;
	while (fgets(line, sizeof(line), p)) {
		uint64_t value;
		char type;
		if (sscanf(line, "%" SCNx64 " %c %1023[^\n]", &value, &type, found) != 3)
			continue;
		if (strcmp(found, name) == 0 && ok < 0) {
			*addr = value;
			ok = 0;
		}
	}
	pclose(p);
	return ok;
}

/* What `addr2line -e bin addr` says: the file into `file`, the line. */
static int addr2line(const char *bin, uint64_t addr, char *file, size_t size, uint32_t *line)
{
	char cmd[2 * PATH_MAX], out[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' 0x%" PRIx64, bin, addr);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	int ok = fgets(out, sizeof(out), p) != NULL;
	pclose(p);
	if (!ok)
		return -1;
	out[strcspn(out, " \n")] = '\0'; /* drops " (discriminator N)" */
	char *colon = strrchr(out, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	*line = (uint32_t)strtoul(colon + 1, NULL, 10);
	snprintf(file, size, "%s", out);
	return 0;
}

/* The line of `source` that carries the marker for `name`, or 0. */
static uint32_t marker_line(const char *source, const char *name)
{
	char marker[256], text[1024];
	snprintf(marker, sizeof(marker), "/* @%s */", name);
	FILE *f = fopen(source, "r");
	if (!f)
		return 0;
	uint32_t n = 0, found = 0;
	while (!found && fgets(text, sizeof(text), f)) {
		n++;
		if (strstr(text, marker))
			found = n;
	}
	fclose(f);
	return found;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

struct function {
	const char *name;   /* as nm -C and the table show it */
	const char *source; /* fixture file holding it */
	int addr2line_file; /* 0: binutils misreads DWARF 5 file 1 here; compare lines only */
};

static const struct function c_functions[] = {
    {"add", "sym_fixture.c", 1},   {"twice", "sym_fixture.c", 1},
    {"main", "sym_fixture.c", 1},  {"part_square", "sym_fixture_part.h", 0},
    {"shown", "sym_fixture.c", 1},
};

static const struct function cxx_functions[] = {
    {"ns::Widget::run(int)", "sym_fixture_cxx.cc", 1},
    {"over(int)", "sym_fixture_cxx.cc", 1},
    {"over(double)", "sym_fixture_cxx.cc", 1},
    {"main", "sym_fixture_cxx.cc", 1},
};

/* Checks one function of `bin`; returns how many symbols it created. */
static int check_function(struct symbol_table *t, const char *bin, uint64_t bias,
			  const struct function *fn)
{
	uint64_t addr;
	if (nm_address(bin, fn->name, 1, &addr) < 0) {
		check(0, "%s: nm finds %s", bin, fn->name);
		return 0;
	}
	const struct symbol *s = symbol_table_lookup(t, bin, NULL, 0, addr, addr + bias);
	check(str_eq(s->full_name, fn->name), "%s@%#" PRIx64 ": full name %s == %s", base_name(bin),
	      addr, show(s->full_name), fn->name);
	char brief[256]; /* the name shown: short by default */
	symbol_short_name(fn->name, brief, sizeof(brief));
	check(str_eq(s->name, brief), "%s: shown name %s == %s", fn->name, s->name, brief);
	check(str_eq(s->module, bin), "%s: module is the file", fn->name);
	check(s->address == addr + bias, "%s: address is the runtime address", fn->name);
	check(s->filter_state == 0, "%s: filter_state starts at 0", fn->name);
	check(str_eq(base_name(s->file), fn->source), "%s: file %s is %s", fn->name, show(s->file),
	      fn->source);
	char source[PATH_MAX];
	fixture_path(source, fn->source);
	uint32_t want = marker_line(source, fn->name);
	check(want > 0 && s->line == want, "%s: line %u is the marked line %u", fn->name, s->line,
	      want);

	char a2l_file[PATH_MAX];
	uint32_t a2l_line = 0;
	int a2l = addr2line(bin, addr, a2l_file, sizeof(a2l_file), &a2l_line);
	check(a2l == 0 && s->line == a2l_line, "%s: line %u is addr2line's %u", fn->name, s->line,
	      a2l_line);
	if (fn->addr2line_file)
		check(a2l == 0 && str_eq(s->file, a2l_file), "%s: file %s is addr2line's %s",
		      fn->name, show(s->file), a2l_file);

	check(symbol_table_lookup(t, bin, NULL, 0, addr, addr + bias) == s,
	      "%s: a second lookup gives the same pointer", fn->name);
	const struct symbol *inside =
	    symbol_table_lookup(t, bin, NULL, 0, addr + 1, addr + 1 + bias);
	check(inside != s && str_eq(inside->full_name, fn->name) && inside->id != s->id,
	      "%s: an address inside it is its own symbol with the same name", fn->name);
	return 2;
}

static void check_dense_ids(struct symbol_table *t, const char *bin, uint32_t expected)
{
	check(symbol_table_count(t) == expected, "%s: count %u == %u", base_name(bin),
	      symbol_table_count(t), expected);
}

static void test_program(const char *compiler, const char *flags, const char *source_name,
			 const char *bin_name, uint64_t bias, const struct function *fns, size_t n)
{
	char bin[PATH_MAX], source[PATH_MAX];
	temp_path(bin, bin_name);
	fixture_path(source, source_name);
	if (run("%s -g -O0 %s -o '%s' '%s'", compiler, flags, bin, source) != 0) {
		check(0, "%s %s builds %s", compiler, flags, bin_name);
		return;
	}
	struct symbol_table *t = symbol_table_new();
	uint32_t created = 0;
	for (size_t i = 0; i < n; i++)
		created += check_function(t, bin, bias, &fns[i]);
	check_dense_ids(t, bin, created);
	symbol_table_free(t);
}

/* A source compiled by a relative path: DWARF names it relative to the
 * compilation directory, and the table shows it joined to it, as addr2line. */
static void test_relative_source(void)
{
	char bin[PATH_MAX], a2l_file[PATH_MAX];
	temp_path(bin, "c_relative");
	if (run("cd '%s/..' && gcc -g -O0 -o '%s' fixtures/sym_fixture.c", fixtures, bin) != 0) {
		check(0, "gcc builds the fixture by a relative path");
		return;
	}
	uint64_t addr = 0;
	uint32_t a2l_line = 0;
	if (nm_address(bin, "twice", 0, &addr) < 0 ||
	    addr2line(bin, addr, a2l_file, sizeof(a2l_file), &a2l_line) < 0) {
		check(0, "nm and addr2line find twice in c_relative");
		return;
	}
	struct symbol_table *t = symbol_table_new();
	const struct symbol *s = symbol_table_lookup(t, bin, NULL, 0, addr, addr);
	check(s->file && s->file[0] == '/' && str_eq(s->file, a2l_file),
	      "relative source: file %s is addr2line's %s", show(s->file), a2l_file);
	check(s->line == a2l_line, "relative source: line %u is addr2line's %u", s->line, a2l_line);
	symbol_table_free(t);
}

static void test_stripped(void)
{
	char bin[PATH_MAX], stripped[PATH_MAX];
	temp_path(bin, "c_pie");
	temp_path(stripped, "c_pie.stripped");
	if (run("strip -o '%s' '%s'", stripped, bin) != 0) {
		check(0, "strip makes a copy of c_pie");
		return;
	}
	struct symbol_table *t = symbol_table_new();
	const char *names[] = {"add", "main"};
	for (size_t i = 0; i < 2; i++) {
		uint64_t addr = 0;
		if (nm_address(bin, names[i], 0, &addr) < 0) {
			check(0, "nm finds %s in c_pie", names[i]);
			continue;
		}
		char want[64];
		snprintf(want, sizeof(want), "sub_%" PRIx64, addr);
		const struct symbol *s =
		    symbol_table_lookup(t, stripped, NULL, 0, addr, addr + 0x1000);
		check(str_eq(s->name, want), "stripped %s is named %s (%s)", names[i], s->name,
		      want);
		check(s->file == NULL && s->line == 0, "stripped %s has no file:line", names[i]);
		check(str_eq(s->module, stripped), "stripped %s keeps its module path", names[i]);
	}
	symbol_table_free(t);
}

/* Redirects stderr into `file` until stderr_restore(). */
static int stderr_capture(const char *file)
{
	fflush(stderr);
	int saved = dup(2);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	return saved;
}

static void stderr_restore(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

/* Lines of `file` that start with the warning prefix and mention `word`. */
static int count_warnings(const char *file, const char *word)
{
	char text[2048];
	int n = 0;
	FILE *f = fopen(file, "r");
	if (!f)
		return -1;
	while (fgets(text, sizeof(text), f))
		if (strncmp(text, "calltrace: warning: ", 20) == 0 && strstr(text, word))
			n++;
	fclose(f);
	return n;
}

static void test_missing_file(void)
{
	char missing[PATH_MAX], log[PATH_MAX];
	temp_path(missing, "no-such-program");
	temp_path(log, "stderr.txt");
	static const uint8_t build_id[] = {0xde, 0xad, 0xbe, 0xef};

	struct symbol_table *t = symbol_table_new();
	int saved = stderr_capture(log);
	const struct symbol *a = symbol_table_lookup(t, missing, NULL, 0, 0x1234, 0x7f0000001234);
	const struct symbol *b = symbol_table_lookup(t, missing, NULL, 0, 0x5678, 0x7f0000005678);
	const struct symbol *c = symbol_table_lookup(t, missing, build_id, 4, 0x1234, 0x1234);
	const struct symbol *vdso =
	    symbol_table_lookup(t, "[vdso]", NULL, 0, 0x9ab, 0x7ffd000009ab);
	stderr_restore(saved);

	check(str_eq(a->name, "sub_1234") && str_eq(b->name, "sub_5678"),
	      "missing file: names %s, %s", a->name, b->name);
	check(str_eq(a->module, missing) && a->file == NULL && a->line == 0,
	      "missing file: module path kept, no file:line");
	check(a->address == 0x7f0000001234, "missing file: runtime address kept");
	check(c != a && str_eq(c->name, "sub_1234"),
	      "missing file: another build-id, another symbol");
	check(str_eq(vdso->name, "sub_9ab") && str_eq(vdso->module, "[vdso]"),
	      "pseudo path: %s in %s", vdso->name, vdso->module);
	int warnings = count_warnings(log, missing), all = count_warnings(log, "");
	check(warnings == 1 && all == 1, "missing file: warned once (%d), [vdso] never (%d in all)",
	      warnings, all);
	symbol_table_free(t);
}

static void test_build_id_mismatch(void)
{
	char bin[PATH_MAX], log[PATH_MAX];
	temp_path(bin, "c_nopie");
	temp_path(log, "stderr-build-id.txt");
	static const uint8_t other_build[] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint64_t addr = 0;
	if (nm_address(bin, "twice", 0, &addr) < 0) {
		check(0, "nm finds twice in c_nopie");
		return;
	}
	struct symbol_table *t = symbol_table_new();
	int saved = stderr_capture(log);
	const struct symbol *s = symbol_table_lookup(t, bin, other_build, 8, addr, addr);
	symbol_table_lookup(t, bin, other_build, 8, addr + 1, addr + 1);
	stderr_restore(saved);
	check(str_eq(s->name, "twice") && s->line > 0, "other build-id: still resolves %s:%u",
	      s->name, s->line);
	check(count_warnings(log, "build-id") == 1, "other build-id: warned once");
	symbol_table_free(t);
}

static void test_unknown(void)
{
	struct symbol_table *t = symbol_table_new();
	const struct symbol *s = symbol_table_unknown(t, 0xdeadbeef);
	check(str_eq(s->name, "0xdeadbeef") && str_eq(s->module, "?"), "unknown: %s in %s", s->name,
	      s->module);
	check(s->file == NULL && s->line == 0 && s->address == 0xdeadbeef && s->id == 0,
	      "unknown: no file:line, address kept, first id");
	check(symbol_table_unknown(t, 0xdeadbeef) == s, "unknown: same pointer again");
	check(symbol_table_lookup(t, NULL, NULL, 0, 0, 0xdeadbeef) == s,
	      "unknown: a lookup without a path is the unknown symbol");
	symbol_table_free(t);
}

/* 100k symbols: ids dense in creation order, pointers never move. */
static void test_many(void)
{
	enum { N = 100000 };
	const struct symbol **first = malloc(N * sizeof(*first));
	struct symbol_table *t = symbol_table_new();
	for (uint32_t i = 0; i < N; i++)
		first[i] = symbol_table_unknown(t, 0x400000 + 16 * (uint64_t)i);
	int ids_ok = 1, stable = 1;
	for (uint32_t i = 0; i < N; i++) {
		ids_ok &= first[i]->id == i;
		stable &= symbol_table_unknown(t, 0x400000 + 16 * (uint64_t)i) == first[i];
	}
	char want[32];
	snprintf(want, sizeof(want), "0x%x", 0x400000 + 16 * (N - 1));
	check(symbol_table_count(t) == N, "100k symbols: count %u", symbol_table_count(t));
	check(ids_ok, "100k symbols: ids are 0..n-1 in creation order");
	check(stable, "100k symbols: pointers unchanged after growth");
	check(str_eq(first[N - 1]->name, want), "100k symbols: last is %s", first[N - 1]->name);
	symbol_table_free(t);
	free(first);
}

static void test_demangle(void)
{
	char buf[256], tiny[7];
	check(str_eq(symbol_demangle("_ZN2ns6Widget3runEi", buf, sizeof(buf)),
		     "ns::Widget::run(int)"),
	      "demangle: method in a namespace");
	check(str_eq(symbol_demangle("_Z4overd", buf, sizeof(buf)), "over(double)"),
	      "demangle: overload");
	check(str_eq(symbol_demangle("_Z4overi@@V_1", buf, sizeof(buf)), "over(int)@@V_1"),
	      "demangle: symbol version kept apart");
	const char *plain = "main";
	check(symbol_demangle(plain, buf, sizeof(buf)) == plain, "demangle: a C name is itself");
	const char *bad = "_Zjunk";
	check(symbol_demangle(bad, buf, sizeof(buf)) == bad, "demangle: an invalid name is itself");
	check(str_eq(symbol_demangle("_Z4overi", tiny, sizeof(tiny)), "over(i"),
	      "demangle: truncated to the buffer");
}

static void test_elf_references(void)
{
	char inst[PATH_MAX], plain[PATH_MAX], stripped[PATH_MAX], source[PATH_MAX];
	char missing[PATH_MAX];
	temp_path(inst, "c_instrumented");
	temp_path(plain, "c_pie");
	temp_path(stripped, "c_pie.stripped");
	temp_path(missing, "no-such-program");
	fixture_path(source, "sym_fixture.c");
	if (run("gcc -g -finstrument-functions -o '%s' '%s'", inst, source) != 0) {
		check(0, "gcc -finstrument-functions builds the fixture");
		return;
	}
	const char *hook = "__cyg_profile_func_enter";
	check(elf_file_references(inst, hook) == 1, "references: instrumented build has the hook");
	check(elf_file_references(plain, hook) == 0, "references: plain build has not");
	check(elf_file_references(stripped, "part_square") == 0 &&
		  elf_file_references(plain, "part_square") == 1,
	      "references: a local function is in .symtab only until stripped");
	check(elf_file_references(source, hook) == -1, "references: a C source is not ELF");
	check(elf_file_references(missing, hook) == -1, "references: a missing file is -1");
}

static int find_fixtures(int argc, char **argv)
{
	char guess[PATH_MAX];
	if (argc > 1) {
		snprintf(guess, sizeof(guess), "%s", argv[1]);
	} else {
		char here[PATH_MAX];
		snprintf(here, sizeof(here), "%s", __FILE__);
		snprintf(guess, sizeof(guess), "%s/fixtures", dirname(here));
	}
	if (!realpath(guess, fixtures)) {
		fprintf(stderr, "test_symbols: no fixtures at %s\n", guess);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (find_fixtures(argc, argv) < 0)
		return 1;
	if (run("for tool in gcc g++ nm addr2line strip; do command -v $tool || exit 1; done"
		" >/dev/null") != 0) {
		fprintf(stderr, "test_symbols: needs gcc, g++, nm, addr2line and strip on PATH\n");
		return 1;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_symbols.XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
	if (!mkdtemp(tmpdir)) {
		perror("test_symbols: mkdtemp");
		return 1;
	}

	test_program("gcc", "-fPIE -pie", "sym_fixture.c", "c_pie", 0x555555554000, c_functions, 5);
	test_program("gcc", "-fno-pie -no-pie", "sym_fixture.c", "c_nopie", 0, c_functions, 5);
	test_program("g++", "-fPIE -pie", "sym_fixture_cxx.cc", "cxx_pie", 0x555555554000,
		     cxx_functions, 4);
	test_program("g++", "-fno-pie -no-pie", "sym_fixture_cxx.cc", "cxx_nopie", 0, cxx_functions,
		     4);
	test_relative_source();
	test_stripped();
	test_missing_file();
	test_build_id_mismatch();
	test_unknown();
	test_many();
	test_demangle();
	test_elf_references();

	run("rm -rf '%s'", tmpdir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
