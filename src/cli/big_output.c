/*
 * big_output.c - a word before writing an output too big to open: the
 * trace's size tells about how many calls it holds (about 3 bytes each),
 * the view how many bytes it writes per call; above what browsers and
 * Perfetto's UI open (about 1 GB), the command says so and names the
 * filters that cut the output down, then writes it all the same.
 */
#include "cli.h"

#define OPEN_LIMIT (1024.0 * 1024 * 1024)
#define TRACE_BYTES_PER_CALL 3.0

static int filtered(const struct cli_trace *t)
{
	const struct walk_filters *f = &t->filters;
	return f->only || f->hide || f->max_depth || f->min_duration_ns || f->ntids || f->npids;
}

double cli_estimate_output(const struct cli_trace *t, double bytes_per_call)
{
	return (double)t->reader->event_bytes / TRACE_BYTES_PER_CALL * bytes_per_call;
}

void cli_warn_big_output(const struct cli_trace *t, const char *what, double bytes_per_call,
			 const char *cuts)
{
	double size = cli_estimate_output(t, bytes_per_call);
	if (filtered(t) || size < OPEN_LIMIT)
		return;
	cli_error("warning: this trace holds about %.1f million calls: the %s will be about "
		  "%.1f GB, more than browsers and Perfetto's UI open (about 1 GB); cut it down "
		  "with %s-D DEPTH, -t DURATION, -F FUNCTION or --tid TID",
		  (double)t->reader->event_bytes / TRACE_BYTES_PER_CALL / 1e6, what, size / 1e9,
		  cuts ? cuts : "");
}
