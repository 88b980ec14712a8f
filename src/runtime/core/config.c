/*
 * config.c - the runtime's settings, from CALLTRACE_* environment variables.
 *
 * CALLTRACE_OUTPUT       trace file (default calltrace.trace)
 * CALLTRACE_MAX_DEPTH    record calls at most this deep (default: no limit)
 * CALLTRACE_BUFFER_SIZE  bytes of one per-thread window (default 1 MiB)
 * CALLTRACE_START        "off": load with recording off (calltrace_start())
 * CALLTRACE_DEBUG        "1": say what the runtime does on stderr
 * CALLTRACE_REPLACE      "1": a finished trace named CALLTRACE_OUTPUT is
 *                        replaced, not kept under a numbered name
 * CALLTRACE_CAPTURE_ARGS "1": record arguments and return values (args_plans.c;
 *                        CALLTRACE_ARGS_FILTER=REGEX keeps it to some functions)
 * CALLTRACE_SIGNAL       a signal that switches recording on and off (control.c)
 * CALLTRACE_FORMAT       "json": CALLTRACE_OUTPUT gets the JSON call tree (output.c)
 * CALLTRACE_TOOL         the calltrace program the runtime runs (tool.c)
 * CALLTRACE_PROGRAMS, CALLTRACE_NO_FOLLOW  which processes record (image.c)
 * CALLTRACE_LIBCALL      "0": no library calls (libcall_slots.c; also
 *                        CALLTRACE_LIBCALL_NESTED, CALLTRACE_LIBCALL_ARGS)
 */
#include "../runtime.h"

#include <stdlib.h>
#include <string.h>

static int env_flag(const char *name)
{
	const char *v = runtime_getenv(name);
	return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0 && strcmp(v, "off") != 0;
}

static uint64_t env_size(const char *name, uint64_t fallback)
{
	const char *v = runtime_getenv(name);
	if (!v || !*v)
		return fallback;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		n <<= 10;
	else if (*end == 'm' || *end == 'M')
		n <<= 20;
	return n;
}

void runtime_config_load(struct runtime_config *c)
{
	const char *out = runtime_getenv("CALLTRACE_OUTPUT");
	memset(c, 0, sizeof(*c));
	strncpy(c->output, out && *out ? out : "calltrace.trace", sizeof(c->output) - 1);
	c->max_depth = (uint32_t)env_size("CALLTRACE_MAX_DEPTH", 0);
	c->window_size = (uint32_t)env_size("CALLTRACE_BUFFER_SIZE", TRACE_DEFAULT_WINDOW);
	const char *start = runtime_getenv("CALLTRACE_START");
	c->start_off = start && strcmp(start, "off") == 0;
	c->debug = env_flag("CALLTRACE_DEBUG");
	c->replace = env_flag("CALLTRACE_REPLACE");
	/* Read here, before the session is published: a runtime started from
	 * a .preinit_array function finds environ empty but for it after. */
	const char *libcall = runtime_getenv("CALLTRACE_LIBCALL");
	c->libcall = !libcall || !*libcall || env_flag("CALLTRACE_LIBCALL");
	const char *args = runtime_getenv("CALLTRACE_LIBCALL_ARGS");
	c->libcall_args = args && *args ? env_flag("CALLTRACE_LIBCALL_ARGS") : -1;
	const char *nested = runtime_getenv("CALLTRACE_LIBCALL_NESTED");
	strncpy(c->libcall_nested, nested ? nested : "", sizeof(c->libcall_nested) - 1);
}
