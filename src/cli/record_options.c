/*
 * record_options.c - the recording options `record` and `live` share
 * (RECORD_LONGOPTS in record.h): each stored, checked, refused in one line
 * when it is bad.
 */
#include "cli.h"
#include "record.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* --program GLOB, added to the list the runtime reads. */
static int add_program(struct record_options *o, const char *glob)
{
	if (!*glob || strchr(glob, ':')) {
		cli_error("bad --program '%s' (a glob pattern, without ':')", glob);
		return -1;
	}
	size_t had = o->programs ? strlen(o->programs) : 0;
	char *list = realloc(o->programs, had + strlen(glob) + 2);
	if (!list) {
		cli_error("out of memory");
		return -1;
	}
	snprintf(list + had, strlen(glob) + 2, "%s%s", had ? ":" : "", glob);
	o->programs = list;
	return 0;
}

static int parse_engine(const char *name, enum record_engine *out)
{
	static const char *const names[] = {"runtime", "patch", "ptrace"};
	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum record_engine)(ENGINE_RUNTIME + i);
			return 0;
		}
	cli_error("bad --engine '%s' (runtime, patch or ptrace)", name);
	return -1;
}

int record_option(struct record_options *o, int opt, const char *arg)
{
	int rc = cli_dynamic_option(&o->engine, opt, arg);
	if (rc > 0 && opt == CLI_OPT_MODULE)
		o->module = arg;
	else if (rc > 0 && opt == 'F')
		o->only = arg;
	else if (rc > 0 && opt == 'N')
		o->hide = arg;
	if (rc != 0)
		return rc > 0 ? 0 : -1;
	switch (opt) {
	case 'q':
		o->quiet = 1;
		return 0;
	case RECORD_OPT_DYNAMIC:
		o->engine_choice = ENGINE_PTRACE;
		return 0;
	case RECORD_OPT_ENGINE:
		return parse_engine(arg, &o->engine_choice);
	case RECORD_OPT_START_OFF:
		o->start_off = 1;
		return 0;
	case RECORD_OPT_SYSCALLS:
		o->syscalls = 1;
		return 0;
	case RECORD_OPT_SCHED:
		o->sched = 1;
		return 0;
	case RECORD_OPT_PROGRAM:
		return add_program(o, arg);
	case RECORD_OPT_NO_LIBCALL:
		o->no_libcall = 1;
		return 0;
	case RECORD_OPT_NO_OWN_LIBRARIES:
		o->no_own_libraries = 1;
		return 0;
	case RECORD_OPT_NO_CACHE:
		o->no_cache = 1;
		return 0;
	case RECORD_OPT_NEST_LIBCALL:
		if (!*arg) {
			cli_error("bad --nest-libcall '' (library names, comma separated)");
			return -1;
		}
		o->nest_libcall = arg;
		return 0;
	case RECORD_OPT_ARGS:
		o->args = o->engine.dyn.capture_args = 1;
		o->args_filter = arg;
		return arg && cli_compile_regex(&o->engine.args_re, &o->engine.dyn.args_only, arg,
						"--args") < 0
			   ? -1
			   : 0;
	case 'D':
	case RECORD_OPT_DEPTH: {
		uint32_t depth;
		if (cli_parse_count(arg, &depth) < 0 || depth == 0) {
			cli_error("bad --max-depth '%s' (want a number above 0)", arg);
			return -1;
		}
		o->max_depth = arg;
		o->engine.dyn.max_depth = depth;
		return 0;
	}
	case RECORD_OPT_RING:
		if (trace_ring_parse_size(arg, &o->ring) < 0) {
			cli_error("bad --ring '%s' (a size from 64K, e.g. 16M)", arg);
			return -1;
		}
		return 0;
	case 't':
	case RECORD_OPT_TIME_FILTER: {
		uint64_t ns;
		int bad = cli_parse_duration(arg, &ns);
		if (bad < 0 || ns == 0) {
			cli_error(
			    "bad --time-filter '%s' (a duration above 0, e.g. 500us, 20ms, 1s)",
			    arg);
			return -1;
		}
		snprintf(o->time_filter, sizeof(o->time_filter), "%" PRIu64 "ns", ns);
		o->time_filter_given = arg;
		return 0;
	}
	case RECORD_OPT_BUFFER:
		if (parse_size(arg, &o->buffer_size) < 0 || o->buffer_size < TRACE_MIN_WINDOW ||
		    o->buffer_size > TRACE_MAX_WINDOW) {
			cli_error("bad --buffer-size '%s' (16K to 64M)", arg);
			return -1;
		}
		return 0;
	}
	return 1;
}

void record_options_init(struct record_options *o)
{
	memset(o, 0, sizeof(*o));
	o->output = DEFAULT_TRACE;
	o->engine.dyn.follow_forks = 1;
}

void record_options_free(struct record_options *o)
{
	free(o->programs);
	o->programs = NULL;
	cli_dynamic_free(&o->engine);
}
