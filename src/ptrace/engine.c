/*
 * engine.c - the engine's state as a whole: setting up, tearing down and
 * the statistics printed with --verbose.  The top layer: it frees what
 * every layer below holds (messages are engine_log.c's).
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"

void engine_init(struct engine *e, const struct dynamic_options *o)
{
	memset(e, 0, sizeof(*e));
	e->opts = o;
	e->root = o->session;
	e->cpu = -1;
	frames_set_max_depth(o->max_depth);
	frames_set_scope_filter(o->only != NULL);
	const char *debug = getenv("CALLTRACE_DEBUG");
	e->verbose = o->verbose || (debug && *debug && strcmp(debug, "0") != 0);
	const char *no_jump = getenv("CALLTRACE_NO_JUMP");
	e->no_jumps = no_jump && *no_jump && strcmp(no_jump, "0") != 0;
	if (o->session && o->session->header)
		trace_clock_kind = (int)o->session->header->clock;
}

void engine_fini(struct engine *e)
{
	while (e->threads)
		thread_free(e, e->threads);
	while (e->procs)
		process_free(e, e->procs);
	free(e->busy_rips);
}

void engine_print_stats(const struct engine *e)
{
	engine_note(e,
		    "dynamic: %llu functions instrumented (%llu by jump, %llu emulated, "
		    "%llu out of line, %llu skipped); %llu calls, %llu stops, %.2f stops per call",
		    (unsigned long long)e->functions, (unsigned long long)e->jumped,
		    (unsigned long long)e->emulated, (unsigned long long)e->out_of_line,
		    (unsigned long long)e->skipped, (unsigned long long)e->calls,
		    (unsigned long long)e->stops,
		    e->calls ? (double)e->stops / (double)e->calls : 0.0);
}
