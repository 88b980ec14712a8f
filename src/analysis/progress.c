/*
 * progress.c - a progress line on a terminal (see progress.h).
 */
#include "progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define DEFAULT_AFTER 1.0 /* seconds */

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* CALLTRACE_PROGRESS_AFTER, or the default; a bad value is said once. */
static double delay_from_env(void)
{
	static int warned;
	const char *env = getenv("CALLTRACE_PROGRESS_AFTER");
	char *end;
	if (!env)
		return DEFAULT_AFTER;
	errno = 0;
	double seconds = strtod(env, &end);
	if (end != env && !*end && !errno && seconds >= 0 && seconds <= 3600)
		return seconds;
	if (!warned++)
		fprintf(
		    stderr,
		    "calltrace: warning: CALLTRACE_PROGRESS_AFTER=%s is not a number of seconds "
		    "from 0 to 3600; the default, %g s, applies\n",
		    env, DEFAULT_AFTER);
	return DEFAULT_AFTER;
}

void progress_begin(struct progress *p, const char *what)
{
	p->what = what;
	p->on = isatty(2);
	p->after = p->on ? delay_from_env() : DEFAULT_AFTER;
	p->shown = 0;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &p->start);
	p->last = p->start;
}

void progress_update(struct progress *p, uint64_t done, uint64_t total, const char *unit)
{
	struct timespec now;
	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (since(&p->start, &now) < p->after || (p->shown && since(&p->last, &now) < 0.5))
		return;
	p->last = now;
	if (total) {
		double pct = 100.0 * (double)done / (double)total;
		fprintf(stderr, "\r\033[Kcalltrace: %s: %.0f%%", p->what, pct > 99 ? 99 : pct);
	} else {
		fprintf(stderr, "\r\033[Kcalltrace: %s: %.1f million %s, %.0f s", p->what,
			(double)done / 1e6, unit, since(&p->start, &now));
	}
	p->shown = 1;
}

void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}
