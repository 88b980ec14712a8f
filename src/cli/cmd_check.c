/*
 * cmd_check.c - `calltrace check PROGRAM [LIB...]`: the build validator.
 *
 * For the program and each library named, says how it was built as far as
 * calltrace cares (the instrumentation hooks, debug info and where it is,
 * PIE, stripped, static), which engine `record` will use and what that
 * leaves out, then a verdict with the exact flags that fix what is missing.
 * Exit status: 0 when nothing is missing, 1 when something is, 2 on bad
 * input.
 */
#include "check_locate.h"
#include "cli.h"
#include "../arch/arch.h"

#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	MISSING_HOOKS = 1,	  /* -finstrument-functions */
	MISSING_DEBUG = 2,	  /* -g */
	MISSING_SYMTAB = 4,	  /* stripped, with no separate debug file */
	MISSING_RUNTIME = 8,	  /* static and instrumented, without the runtime linked in */
	MISSING_STD_EXCLUDE = 16, /* C++ headers' functions instrumented */
};

struct module_check {
	const char *name; /* as given */
	char path[PATH_MAX];
	int is_program;
	struct elf_facts facts;
	struct debug_location debug;
	char package[128]; /* the Debian package it came from, or "" */
	unsigned missing;
	size_t std_functions; /* instrumented functions of the C++ headers */
};

static void check_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace check PROGRAM [LIBRARY...]\n\n"
		"Checks that a program (and the shared libraries named) is built so that\n"
		"calltrace records every call with names and source lines.  For each file:\n"
		"the instrumentation hooks it calls (-finstrument-functions; -pg, -mfentry\n"
		"and patchable entries are named too, calltrace does not use them), where its\n"
		"debug info is (in the file, .gnu_debuglink, /usr/lib/debug/.build-id, or a\n"
		"package to install), PIE, stripped, static, and the libraries it needs.\n"
		"Then which engine 'calltrace record' will use, what it leaves out, and the\n"
		"flags that fix what is missing.\n\n"
		"  -h, --help   this help\n\n"
		"Exit status: 0 when nothing is missing, 1 when something is, 2 when a file\n"
		"is missing or not an x86-64 ELF file.\n");
}

static int is_static(const struct elf_facts *f)
{
	return !f->has_interp && (f->type == ET_EXEC || f->pie_flag);
}

static int is_program(const struct elf_facts *f)
{
	return f->type == ET_EXEC || (f->type == ET_DYN && (f->has_interp || f->pie_flag));
}

/* Reads the facts of m->name; 0, or 2 after one line saying why not. */
static int load_module(struct module_check *m)
{
	char found[PATH_MAX];
	const char *path = m->name;
	if (m->is_program && !strchr(m->name, '/') && access(m->name, F_OK) < 0 &&
	    cli_find_program(m->name, found, sizeof(found)) == 0)
		path = found;
	struct stat st;
	if (stat(path, &st) < 0) {
		cli_error("check: %s: %s", m->name, strerror(errno));
		return 2;
	}
	char program[PATH_MAX];
	if (S_ISREG(st.st_mode) && check_libtool_wrapper(path, program, sizeof(program)) == 0) {
		cli_error("check: %s: a libtool wrapper script, not an ELF file: check the program "
			  "it runs, %s",
			  m->name, program);
		return 2;
	}
	if (!S_ISREG(st.st_mode) || elf_file_facts(path, &m->facts) < 0) {
		cli_error("check: %s: not an ELF file", m->name);
		return 2;
	}
	if (m->facts.elf_class != ELFCLASS64 || m->facts.machine != ARCH_ELF_MACHINE) {
		cli_error("check: %s: not an " ARCH_NAME " ELF file", m->name);
		return 2;
	}
	if (m->facts.type != ET_EXEC && m->facts.type != ET_DYN) {
		cli_error("check: %s: an ELF object, not a program or shared library", m->name);
		return 2;
	}
	if (m->is_program && !is_program(&m->facts)) {
		cli_error("check: %s: a shared library, not a program (name the program first)",
			  m->name);
		return 2;
	}
	if (!realpath(path, m->path))
		snprintf(m->path, sizeof(m->path), "%s", path);
	check_locate_debug(m->path, &m->facts, &m->debug);
	return 0;
}

static void say_kind(const struct module_check *m)
{
	const struct elf_facts *f = &m->facts;
	const char *kind = is_program(f) ? "program" : "shared library";
	const char *linking = is_static(f) ? "statically linked" : "dynamically linked";
	const char *pie = f->type == ET_DYN ? (is_program(f) ? ", PIE" : "") : ", not PIE";
	printf("%s: %s, %s%s, %s\n", m->name, kind, linking, pie,
	       f->has_symtab ? "not stripped" : "stripped (no .symtab)");
}

/* Which -finstrument-functions hooks a file's calls go to. */
enum hooks {
	HOOKS_NONE,	/* not built with -finstrument-functions */
	HOOKS_CALLED,	/* calls them: the runtime (preloaded or linked) receives them */
	HOOKS_RUNTIME,	/* the runtime is linked in and defines them */
	HOOKS_EMPTY,	/* a static program with glibc's empty ones linked in */
	HOOKS_PROVIDED, /* a library that defines them, and is not the runtime (libc) */
};

static enum hooks hooks_of(const struct elf_facts *f)
{
	if (f->cyg_hooks == 1)
		return HOOKS_CALLED;
	if (f->cyg_hooks == 0)
		return HOOKS_NONE;
	if (f->runtime_linked)
		return HOOKS_RUNTIME;
	return is_static(f) ? HOOKS_EMPTY : HOOKS_PROVIDED;
}

static int instrumented(const struct elf_facts *f)
{
	enum hooks h = hooks_of(f);
	return h == HOOKS_CALLED || h == HOOKS_RUNTIME;
}

static void say_hooks(const struct elf_facts *f)
{
	static const char *const words[] = {
	    [HOOKS_NONE] = "",
	    [HOOKS_CALLED] = "-finstrument-functions (calls __cyg_profile_func_enter)",
	    [HOOKS_RUNTIME] = "-finstrument-functions, with the runtime linked in",
	    [HOOKS_EMPTY] = ("-finstrument-functions, but linked with glibc's empty hooks, "
			     "not the runtime"),
	    [HOOKS_PROVIDED] = "",
	};
	const char *sep = "";
	printf("  hooks:      ");
	if (*words[hooks_of(f)])
		printf("%s", words[hooks_of(f)]), sep = "; ";
	if (f->mcount)
		printf("%s-pg (mcount)", sep), sep = "; ";
	if (f->fentry)
		printf("%s-mfentry (__fentry__)", sep), sep = "; ";
	if (f->patchable_entries)
		printf("%spatchable entries (-fpatchable-function-entry)", sep), sep = "; ";
	if (!*sep)
		printf("none (not built with -finstrument-functions)");
	else if (!f->cyg_hooks)
		printf(": calltrace does not use these");
	printf("\n");
}

static void say_debug(const struct module_check *m)
{
	printf("  debug info: ");
	switch (m->debug.where) {
	case DEBUG_IN_FILE:
		printf("in the file (.debug_info)\n");
		break;
	case DEBUG_LINK:
		printf("separate, %s (.gnu_debuglink)\n", m->debug.path);
		break;
	case DEBUG_BUILD_ID:
		printf("separate, %s (build-id)\n", m->debug.path);
		break;
	case DEBUG_LINK_STALE:
		printf("none usable: %s (.gnu_debuglink) is from another build (CRC differs)\n",
		       m->debug.path);
		break;
	default:
		if (m->facts.has_debuglink)
			printf("none: .gnu_debuglink names %s, which is nowhere to be found\n",
			       m->facts.debuglink);
		else if (m->package[0])
			printf("none in the file, none under /usr/lib/debug (package %s)\n",
			       m->package);
		else
			printf("none (not built with -g)\n");
	}
}

static const char *engine_cost(enum record_engine e, const struct elf_facts *f)
{
	switch (e) {
	case ENGINE_RUNTIME:
		return "the runtime library (-finstrument-functions hooks): every call of "
		       "instrumented code, ~20 ns a call";
	case ENGINE_PATCH:
		return f->has_symtab
			   ? "the in-process engine (function entries patched): ~0.1-0.3 us a "
			     "call, and functions too short to patch are left out"
			   : "the in-process engine (function entries patched; stripped: "
			     "functions found through .eh_frame): ~0.1-0.3 us a call";
	default:
		return "the ptrace engine (statically linked: the runtime cannot be preloaded): "
		       "~50-90 us a call, two stops per call";
	}
}

/* For a library: how `record` of `program` records its calls. */
static const char *library_recording(const struct elf_facts *lib, enum record_engine engine)
{
	if (instrumented(lib))
		return "its calls are recorded through its hooks";
	if (engine == ENGINE_RUNTIME)
		return "its calls are not recorded (the program's hooks drive the recording)";
	return "its calls are recorded only when 'calltrace record --module REGEX' names it";
}

/* The libraries `m` needs: where each one is and whether it is instrumented. */
static void say_needed(const struct module_check *m)
{
	for (size_t i = 0; i < m->facts.nneeded; i++) {
		const char *name = m->facts.needed[i];
		char path[PATH_MAX];
		struct elf_facts lib;
		printf("  %s %s", i == 0 ? "needs:     " : "           ", name);
		if (check_find_library(name, m->path, &m->facts, path, sizeof(path)) < 0)
			printf(": not found\n");
		else if (elf_file_facts(path, &lib) < 0)
			printf(" (%s): not an ELF file\n", path);
		else
			printf(" (%s): %s\n", path,
			       instrumented(&lib) ? "instrumented" : "not instrumented");
	}
}

static void find_missing(struct module_check *m)
{
	if (hooks_of(&m->facts) == HOOKS_EMPTY)
		m->missing |= MISSING_RUNTIME;
	else if (!instrumented(&m->facts))
		m->missing |= MISSING_HOOKS;
	int no_debug = m->debug.where == DEBUG_NONE || m->debug.where == DEBUG_LINK_STALE;
	if (no_debug)
		m->missing |= MISSING_DEBUG;
	if (no_debug && !m->facts.has_symtab)
		m->missing |= MISSING_SYMTAB;
	if (instrumented(&m->facts))
		m->std_functions = check_count_std_functions(m->path);
	if (m->std_functions)
		m->missing |= MISSING_STD_EXCLUDE;
	if ((m->missing & MISSING_DEBUG) &&
	    check_owner_package(m->path, m->package, sizeof(m->package)) < 0)
		m->package[0] = '\0';
}

static void report_module(struct module_check *m, enum record_engine engine)
{
	find_missing(m);
	say_kind(m);
	say_hooks(&m->facts);
	say_debug(m);
	if (m->is_program)
		printf("  record:     uses %s%s\n", engine_cost(engine, &m->facts),
		       hooks_of(&m->facts) == HOOKS_EMPTY ? ", but the program's hooks are empty"
							  : "");
	else
		printf("  record:     %s\n", library_recording(&m->facts, engine));
	say_needed(m);
}

/* What a missing piece costs, in the words of the verdict. */
static void say_losses(const struct module_check *m, enum record_engine engine)
{
	if (m->missing & MISSING_HOOKS)
		printf("  %s: no -finstrument-functions: %s%s\n", m->name,
		       m->is_program ? "record uses " : "",
		       m->is_program ? engine_cost(engine, &m->facts)
				     : library_recording(&m->facts, engine));
	if (m->missing & MISSING_RUNTIME)
		printf("  %s: its hooks are glibc's empty ones: no call is recorded\n", m->name);
	if (m->missing & MISSING_DEBUG)
		printf("  %s: no debug info (-g): its functions have no source file:line in the "
		       "views\n",
		       m->name);
	if (m->missing & MISSING_SYMTAB)
		printf("  %s: stripped: only its exported functions have names\n", m->name);
	if (m->missing & MISSING_STD_EXCLUDE)
		printf("  %s: %zu functions of the C++ standard library's headers (std::) are "
		       "compiled in and instrumented: their calls can outnumber the program's own "
		       "many times over\n",
		       m->name, m->std_functions);
}

/* The exact flags (or package) that fix what is missing in `m`. */
static void say_fix(const struct module_check *m)
{
	char flags[64] = "";
	if (m->missing & MISSING_DEBUG)
		strcat(flags, " -g");
	if (m->missing & MISSING_HOOKS)
		strcat(flags, " -finstrument-functions");
	if (m->missing & MISSING_RUNTIME)
		printf("  relink %s with libcalltrace.a (after its objects: -l:libcalltrace.a "
		       "-ldl -lpthread, or $(pkg-config --static --libs calltrace))\n",
		       m->name);
	if (flags[0])
		printf("  rebuild %s with:%s%s%s\n", m->name, flags,
		       (m->missing & MISSING_HOOKS) && is_static(&m->facts)
			   ? ", and link libcalltrace.a into it (a static program cannot preload "
			     "the runtime)"
			   : "",
		       m->missing & MISSING_SYMTAB ? ", and do not strip it (no -s, no strip)"
						   : "");
	if (m->missing & MISSING_STD_EXCLUDE)
		printf("  rebuild %s with: -finstrument-functions-exclude-file-list=/usr/include "
		       "(the program's own functions stay instrumented)\n",
		       m->name);
	if ((m->missing & MISSING_DEBUG) && m->package[0]) {
		char debug_pkg[160];
		check_debug_package(m->package, debug_pkg, sizeof(debug_pkg));
		printf("  or, for the packaged %s: apt-get install %s\n", m->name, debug_pkg);
	}
}

static int verdict(struct module_check *m, size_t n, enum record_engine engine)
{
	unsigned missing = 0;
	for (size_t i = 0; i < n; i++)
		missing |= m[i].missing;
	if (!missing) {
		printf("verdict: nothing missing: every call is recorded, with function names "
		       "and source lines\n");
		return 0;
	}
	printf("verdict: something is missing\n");
	for (size_t i = 0; i < n; i++)
		say_losses(&m[i], engine);
	printf("fix:\n");
	for (size_t i = 0; i < n; i++)
		say_fix(&m[i]);
	return 1;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			check_usage(stdout);
			return 0;
		}
		return cli_bad_option("check", argc, argv);
	}
	if (optind >= argc) {
		cli_error("check: no program given (see 'calltrace check --help')");
		return 2;
	}
	size_t n = (size_t)(argc - optind);
	struct module_check *modules = calloc(n, sizeof(*modules));
	if (!modules) {
		cli_error("check: out of memory");
		return 2;
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		modules[i].name = argv[optind + (int)i];
		modules[i].is_program = i == 0;
		rc = load_module(&modules[i]);
	}
	if (rc == 0) {
		enum record_engine engine =
		    cli_auto_engine(modules[0].path, modules[0].facts.cyg_hooks > 0);
		if ((engine == ENGINE_PATCH && !ARCH_HAS_PATCH_ENGINE) ||
		    (engine == ENGINE_PTRACE && !ARCH_HAS_PTRACE_ENGINE)) {
			printf("verdict: %s is not built with -finstrument-functions, and the "
			       "engines that record such programs are x86-64 only for now (this "
			       "calltrace is " ARCH_NAME ")\n",
			       modules[0].name);
			free(modules);
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			report_module(&modules[i], engine);
		rc = verdict(modules, n, engine);
	}
	free(modules);
	return rc;
}
