/*
 * cmd_info.c - `calltrace info`: what a trace holds.
 */
#include "cli.h"
#include "../format/printable.h"
#include "../arch/machines.h"

#include <stdlib.h>
#include <string.h>

#include <getopt.h>
#include <inttypes.h>
#include <time.h>

static void info_usage(FILE *out)
{
	fprintf(out, "usage: calltrace info [TRACE]\n\n"
		     "Tells what a trace holds: the command, when and how long it ran, its\n"
		     "processes, threads and modules, how many calls were recorded (and of\n"
		     "them how many library calls, system calls and off-CPU intervals, with the\n"
		     "time off the CPU, in total and per thread), the CPU time, largest\n"
		     "resident set and context switches of the program (with the children it\n"
		     "waited for) when `calltrace record` started it, each module's build-id,\n"
		     "how many functions the in-process engine marked and how many of them\n"
		     "ran (were patched), and anything lost or damaged.  For a ring (record\n"
		     "--ring): its size, the windows and calls it overwrote (and how many of\n"
		     "them lay between windows a thread kept), the threads that found no slot\n"
		     "of their own, and the span of time each thread's kept calls cover.\n\n"
		     "options:\n"
		     "  -h, --help             this help\n");
}

static const char *how_name(uint32_t how)
{
	switch (how) {
	case PROCESS_START:
		return "started";
	case PROCESS_FORK:
		return "forked";
	case PROCESS_EXEC:
		return "exec'd";
	}
	return "seen";
}

static void print_header(const struct trace_reader *r, const struct walk_stats *st,
			 uint64_t last_ns)
{
	char when[64], dur[32];
	time_t secs = (time_t)(r->header.start_real_ns / 1000000000u);
	struct tm tm;
	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	printf("trace:      %s (%zu bytes, format %u)\n", r->path, r->size, r->header.version);
	printf("command:    ");
	printable_put(stdout, r->command);
	putchar('\n');
	if (r->header.filters[0]) {
		printf("filtered:   ");
		printable_put(stdout, r->header.filters);
		printf(" (calls left out as they were recorded)\n");
	}
	printf("recorded:   %s, for %s\n", when, cli_format_duration(last_ns, dur, sizeof(dur)));
	char other[32];
	printf("machine:    %s\n", machine_name(r->header.machine, other, sizeof(other)));
	printf("clock:      %s, %.3f MHz\n",
	       r->header.clock == TRACE_CLOCK_TSC ? machine_counter_name(r->header.machine)
						  : "CLOCK_MONOTONIC",
	       1e3 / r->ns_per_tick);
	printf("calls:      %" PRIu64 " (%" PRIu64 " events, %.2f bytes per call)\n", st->calls,
	       st->events, st->calls ? (double)r->event_bytes / (double)st->calls : 0.0);
}

/* After the calls and their kinds ("of them:"). */
static void print_depth(const struct walk_stats *st)
{
	printf("max depth:  %" PRIu64 "\n", st->max_depth);
	printf("unfinished: %" PRIu64 " calls had no recorded end\n", st->unfinished);
}

/* Calls of other kinds than the program's own, of a thread or in all. */
struct kind_counts {
	uint64_t library, syscall, offcpu, offcpu_ns;
	uint64_t first_ns, last_ns; /* the span of its calls kept (first_ns
				       UINT64_MAX: none) */
};

struct info_walk {
	uint64_t last_ns;
	struct kind_counts all;
	struct kind_counts *per_thread; /* by index in the reader's threads */
	const struct trace_reader *reader;
};

static int any_kind(const struct kind_counts *k)
{
	return k->library || k->syscall || k->offcpu;
}

/* ", 3 library calls, 2 system calls, 1 off-CPU interval (40.100 ms)" */
static void print_kinds(const struct kind_counts *k, const char *lead)
{
	char dur[32];
	printf("%s%" PRIu64 " library call%s, %" PRIu64 " system call%s, %" PRIu64
	       " off-CPU interval%s",
	       lead, k->library, k->library == 1 ? "" : "s", k->syscall, k->syscall == 1 ? "" : "s",
	       k->offcpu, k->offcpu == 1 ? "" : "s");
	if (k->offcpu)
		printf(" (%s off the CPU)",
		       dur + strspn(cli_format_duration(k->offcpu_ns, dur, sizeof(dur)), " "));
}

/* "user 0.120 s, system 0.004 s, max RSS 66.1 MiB, 5 voluntary and 2
 * involuntary context switches" */
static void print_usage(const char *lead, const struct trace_process_usage *u)
{
	printf("%suser %.3f s, system %.3f s, max RSS %.1f MiB, %" PRIu64 " voluntary and %" PRIu64
	       " involuntary context switches\n",
	       lead, (double)u->user_us / 1e6, (double)u->system_us / 1e6,
	       (double)u->max_rss_kib / 1024, u->voluntary_switches, u->involuntary_switches);
}

/* The processes' usage added up (the largest RSS of them); 0 if none had it. */
static int total_usage(const struct trace_reader *r, struct trace_process_usage *t)
{
	int any = 0;
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < r->nimages; i++) {
		const struct trace_image *im = &r->images[i];
		if (!im->has_usage)
			continue;
		any = 1;
		t->user_us += im->usage.user_us;
		t->system_us += im->usage.system_us;
		if (im->usage.max_rss_kib > t->max_rss_kib)
			t->max_rss_kib = im->usage.max_rss_kib;
		t->voluntary_switches += im->usage.voluntary_switches;
		t->involuntary_switches += im->usage.involuntary_switches;
	}
	return any;
}

static void print_module(const struct trace_module *mod)
{
	char path[PRINTABLE_PATH_MAX];
	printf("    module %#" PRIx64 "-%#" PRIx64 " %s", mod->low, mod->high,
	       printable(mod->path, path, sizeof(path)));
	if (mod->build_id_len) {
		printf(" build-id ");
		for (uint32_t b = 0; b < mod->build_id_len; b++)
			printf("%02x", mod->build_id[b]);
	}
	printf("%s\n", mod->unload_ns != UINT64_MAX ? " (unloaded)" : "");
}

/* A ring's thread: the time span its kept calls cover. */
static void print_kept(const struct kind_counts *k)
{
	char from[32], to[32], span[32];
	if (k->first_ns > k->last_ns) {
		printf(", no calls kept");
		return;
	}
	printf(", kept %s (from %s to %s)",
	       cli_format_duration(k->last_ns - k->first_ns, span, sizeof(span)),
	       cli_format_duration(k->first_ns, from, sizeof(from)),
	       cli_format_duration(k->last_ns, to, sizeof(to)));
}

/* A ring (record --ring): its size and what it overwrote. */
static void print_ring(const struct trace_reader *r, const struct walk_stats *st)
{
	const struct trace_file_header *h = &r->header;
	if (!h->ring_slots)
		return;
	printf("ring:       %" PRIu64 " KiB in %u windows of %u KiB; %" PRIu64 " windows (%" PRIu64
	       " calls) overwritten; %" PRIu64 " calls kept were entered before the kept events\n",
	       (uint64_t)h->ring_slots * h->ring_slot_size >> 10, h->ring_slots,
	       h->ring_slot_size >> 10, h->ring_overwritten_windows, h->ring_overwritten_calls,
	       st->entered_before);
	if (r->ring_gaps)
		printf("            %" PRIu64
		       " of the windows overwritten lay between windows their "
		       "thread kept (no slot was free to take them)\n",
		       r->ring_gaps);
	if (h->ring_private_threads)
		printf("            %u threads found no slot of their own: their windows were "
		       "written in memory, then into the ring\n",
		       h->ring_private_threads);
}

/* "4,222": a count with its thousands apart. */
static const char *grouped(uint32_t n, char *buf, size_t len)
{
	char digits[16];
	int nd = snprintf(digits, sizeof(digits), "%u", n);
	size_t o = 0;
	for (int i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* "functions: 4,222 marked, 312 ran (patched), 5 through their trap";
 * an attach marks none: "functions: 1,204 patched at start". */
/* How many processes: an exec goes on in its process as a new image. */
static void print_processes(const struct trace_reader *r)
{
	size_t processes = trace_reader_processes(r);
	if (processes == r->nimages)
		printf("processes:  %zu\n", processes);
	else
		printf("processes:  %zu (%zu images: an exec starts a new one)\n", processes,
		       r->nimages);
}

static void print_functions(const struct trace_function_counts *f)
{
	char a[16], b[16];
	if (!f->marked && !f->ran) {
		printf("    functions: %s patched at start\n", grouped(f->at_start, a, sizeof(a)));
		return;
	}
	printf("    functions: %s marked, %s ran (patched)", grouped(f->marked, a, sizeof(a)),
	       grouped(f->ran, b, sizeof(b)));
	if (f->trapped)
		printf(", %s through %s trap", grouped(f->trapped, a, sizeof(a)),
		       f->trapped == 1 ? "its" : "their");
	if (f->at_start)
		printf("; %s patched at start", grouped(f->at_start, a, sizeof(a)));
	putchar('\n');
}

static void print_image(const struct trace_reader *r, const struct trace_image *im,
			const struct info_walk *w)
{
	printf("  image %u: pid %u, %s", im->id, im->pid, how_name(im->how));
	if (im->parent_image)
		printf(" from image %u", im->parent_image);
	if (im->has_exit)
		printf(", exit status %d", im->exit_status);
	printf("\n    command: ");
	printable_put(stdout, *im->command ? im->command : im->exe);
	putchar('\n');
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct trace_thread *t = &r->threads[i];
		char name[256];
		if (t->image != im->id)
			continue;
		printf("    thread %u%s%s: %zu event window%s", t->tid, *t->name ? " " : "",
		       printable(t->name, name, sizeof(name)), t->nwindows,
		       t->nwindows == 1 ? "" : "s");
		if (w->per_thread && any_kind(&w->per_thread[i]))
			print_kinds(&w->per_thread[i], ", ");
		if (w->per_thread && r->header.ring_slots)
			print_kept(&w->per_thread[i]);
		putchar('\n');
	}
	if (im->has_usage)
		print_usage("    usage:   ", &im->usage);
	if (im->has_functions)
		print_functions(&im->functions);
	for (size_t m = 0; m < im->nmodules; m++)
		print_module(&im->modules[m]);
}

static void count_kind(struct kind_counts *k, const struct walk_event *e)
{
	k->library += e->sym->kind == CALL_LIBRARY;
	k->syscall += e->sym->kind == CALL_SYSCALL;
	if (e->sym->kind == CALL_OFFCPU) {
		k->offcpu++;
		k->offcpu_ns += e->duration_ns;
	}
}

static void note_exit(void *ctx, const struct walk_event *e)
{
	struct info_walk *w = ctx;
	if (e->end_ns > w->last_ns)
		w->last_ns = e->end_ns;
	size_t i = e->thread->thread->index;
	struct kind_counts *k = w->per_thread && i < w->reader->nthreads ? &w->per_thread[i] : NULL;
	if (k && e->start_ns < k->first_ns)
		k->first_ns = e->start_ns;
	if (k && e->end_ns > k->last_ns)
		k->last_ns = e->end_ns;
	if (e->sym->kind == CALL_FUNCTION)
		return;
	count_kind(&w->all, e);
	if (k)
		count_kind(k, e);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct cli_trace t = {0};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			info_usage(stdout);
			return 0;
		}
		return cli_bad_option("info", argc, argv);
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	const struct trace_reader *r = t.reader;
	struct walk_stats st;
	struct info_walk w = {.reader = r,
			      .per_thread = calloc(r->nthreads + 1, sizeof(*w.per_thread))};
	for (size_t i = 0; w.per_thread && i < r->nthreads; i++)
		w.per_thread[i].first_ns = UINT64_MAX;
	struct walk_consumer c = {.ctx = &w, .exit = note_exit};
	walker_run(t.reader, t.symbols, NULL, &c, &st);
	print_header(r, &st, w.last_ns);
	if (any_kind(&w.all)) { /* of the calls just said */
		print_kinds(&w.all, "of them:    ");
		putchar('\n');
	}
	print_depth(&st);
	print_ring(r, &st);
	struct trace_process_usage total;
	if (total_usage(r, &total))
		print_usage("usage:      ", &total);
	print_processes(r);
	for (size_t i = 0; i < r->nimages; i++)
		print_image(r, &r->images[i], &w);
	free(w.per_thread);
	char losses[256];
	if (cli_describe_losses(r, &st, losses, sizeof(losses)))
		printf("incomplete: %s\n", losses);
	if (r->losses.lost_windows)
		printf("lost:       %" PRIu64 " event windows could not be written (no space for "
		       "them: disk full, or ulimit -f?)\n",
		       r->losses.lost_windows);
	if (r->unwritten_bytes)
		printf("unwritten:  %zu bytes claimed but never written (a process was killed)\n",
		       (size_t)r->unwritten_bytes);
	if (st.unmatched)
		printf("unmatched:  %" PRIu64 " exits without their enter\n", st.unmatched);
	printf("problems:   %zu\n", r->nproblems);
	for (size_t i = 0; i < r->nproblems; i++)
		printf("  at offset %" PRIu64 ": %s\n", r->problems[i].offset,
		       r->problems[i].message);
	for (size_t i = 0; i < r->ncrashes; i++)
		printf("crash:      pid %u tid %u: signal %d at %#" PRIx64 "%s\n",
		       r->crashes[i].pid, r->crashes[i].tid, r->crashes[i].signal,
		       r->crashes[i].fault_address,
		       r->crashes[i].flags & CRASH_STACK_OVERFLOW ? ": stack overflow" : "");
	cli_trace_close(&t);
	return 0;
}
