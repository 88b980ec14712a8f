/*
 * record_kernel.c - record's and attach's side of --syscalls and --sched:
 * start the kernel collector for the program's processes, say in one line
 * why it could not start (the rest is recorded all the same), and what it
 * recorded.
 */
#include "cli.h"
#include "record.h"
#include "../kernel/kernel_collector.h"
#include "../kernel/kernel_rights.h"

void record_kernel_clock(int syscalls, int sched, int verbose)
{
	if ((syscalls || sched) && kernel_collector_pick_clock() && verbose)
		cli_error("kernel: no conversion of the kernel's times to the TSC here: the "
			  "trace's clock is CLOCK_MONOTONIC");
}

struct kernel_collector *record_kernel_start(struct trace_session *s, int syscalls, int sched,
					     int verbose, const pid_t *tids, int ntids,
					     int from_exec)
{
	if (!syscalls && !sched)
		return NULL;
	if (verbose) {
		char offers[256];
		kernel_offers(offers, sizeof(offers));
		cli_error("%s", offers);
	}
	char err[512] = "", note[512] = "";
	struct kernel_collect_options ko = {.syscalls = syscalls,
					    .sched = sched,
					    .verbose = verbose,
					    .from_exec = from_exec,
					    .note = note,
					    .note_len = sizeof(note)};
	struct kernel_collector *kc = kernel_collector_start(s, &ko, tids, ntids, err, sizeof(err));
	if (*err)
		cli_error("%s; the rest is recorded", err);
	if (*note)
		cli_error("%s", note);
	return kc;
}

void record_kernel_stop(struct kernel_collector *kc, int quiet)
{
	char summary[256];
	if (!kc)
		return;
	kernel_collector_stop(kc, summary, sizeof(summary));
	if (!quiet)
		cli_error("%s", summary);
}
