/*
 * args_plans.c - which functions have their arguments captured, and how.
 *
 * CALLTRACE_CAPTURE_ARGS=1 turns capture on; CALLTRACE_ARGS_FILTER=REGEX
 * keeps it to the functions whose name matches.  A function's capture
 * plan (which registers and stack bytes, which values are strings) is read
 * from its DWARF once, when its entry is patched, by
 * libcalltrace-dwarf.so: loaded from beside this library (or from
 * CALLTRACE_DWARF_LIB) the first time a plan is asked for, so that libdw
 * enters a program only when arguments are captured.  Plans live in
 * memory of the runtime's own, for as long as the process.
 */
#include "../runtime.h"
#include "../../arch/arch.h"

#include <dlfcn.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int runtime_args_on;
static regex_t filter;
static int filter_set;

typedef int (*plan_fn)(const char *path, uint64_t file_address, struct func_plan *plan);
static plan_fn dwarf_plan;
static int dwarf_tried;

#define PLAN_ARENA (1u << 20)
static uint8_t *arena, *arena_end;

void runtime_args_init(void)
{
	const char *on = runtime_getenv("CALLTRACE_CAPTURE_ARGS");
	runtime_args_pending = &runtime_args_lent;
	if (filter_set) /* an earlier attach's */
		regfree(&filter);
	filter_set = 0;
	runtime_args_on = on && *on && strcmp(on, "0") != 0 && strcmp(on, "off") != 0;
	if (runtime_args_on && !ARCH_HAS_ARGS) { /* the plans place values as on x86-64 */
		runtime_say("arguments are captured on x86-64 only for now (this is " ARCH_NAME
			    ")");
		runtime_args_on = 0;
	}
	const char *re = runtime_getenv("CALLTRACE_ARGS_FILTER");
	if (!runtime_args_on || !re || !*re)
		return;
	filter_set = regcomp(&filter, re, REG_EXTENDED | REG_NOSUB) == 0;
	if (!filter_set) {
		runtime_say("bad regular expression in CALLTRACE_ARGS_FILTER: %s; no arguments "
			    "are captured",
			    re);
		runtime_args_on = 0;
	}
}

int runtime_args_wanted(const char *function_name)
{
	return runtime_args_on && (!filter_set || regexec(&filter, function_name, 0, NULL, 0) == 0);
}

static void load_dwarf_reader(void)
{
	char path[4096];
	const char *given = runtime_getenv("CALLTRACE_DWARF_LIB");
	Dl_info self;
	dwarf_tried = 1;
	if (given && *given) {
		snprintf(path, sizeof(path), "%s", given);
	} else if (dladdr((void *)runtime_args_plan, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		int dir = slash ? (int)(slash - self.dli_fname) : 1;
		snprintf(path, sizeof(path), "%.*s/libcalltrace-dwarf.so", dir,
			 slash ? self.dli_fname : ".");
	} else {
		snprintf(path, sizeof(path), "libcalltrace-dwarf.so");
	}
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib)
		dwarf_plan = (plan_fn)dlsym(lib, "calltrace_dwarf_plan");
	if (!dwarf_plan)
		runtime_say("cannot load %s (%s): no arguments are captured", path,
			    lib ? "no calltrace_dwarf_plan" : dlerror());
}

static struct func_plan *plan_memory(void)
{
	if (arena_end - arena < (long)sizeof(struct func_plan)) {
		void *m = mmap(NULL, PLAN_ARENA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		arena = m;
		arena_end = arena + PLAN_ARENA;
	}
	struct func_plan *plan = (struct func_plan *)arena;
	arena += (sizeof(struct func_plan) + 7) & ~(size_t)7;
	return plan;
}

const struct func_plan *runtime_args_plan(const char *path, uint64_t file_address)
{
	if (!dwarf_tried)
		load_dwarf_reader();
	struct func_plan *plan;
	if (!dwarf_plan || !(plan = plan_memory()))
		return NULL;
	if (dwarf_plan(path, file_address, plan) < 0) {
		arena -= (sizeof(struct func_plan) + 7) & ~(size_t)7; /* unused */
		return NULL;
	}
	if (plan->nargs == 0 && !plan->has_return) {
		arena -= (sizeof(struct func_plan) + 7) & ~(size_t)7;
		return NULL; /* nothing to capture */
	}
	return plan;
}
