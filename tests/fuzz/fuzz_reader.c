/*
 * fuzz_reader.c - libFuzzer harness for the trace reader: every input is a
 * trace file.  It is opened and indexed (trace_reader_open), then every
 * thread is walked through the call-tree walker into one of the views,
 * with symbols on (module paths as recorded) or off (paths blanked).  The
 * input's last byte picks the view and the symbols; a filter (-t, -D) is
 * on for some inputs.  Built and run by run_fuzz.sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../../src/analysis/walker.h"
#include "../../src/format/trace_reader.h"
#include "../../src/views/text_views.h"
#include "../../src/views/views.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char path[64];
static FILE *sink;

/* The input as a file: a memfd, opened again by its /proc path. */
static int put_input(const uint8_t *data, size_t size)
{
	if (memfd < 0) {
		memfd = memfd_create("trace", MFD_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
		sink = fopen("/dev/null", "w");
	}
	if (memfd < 0 || !sink || ftruncate(memfd, 0) < 0)
		return -1;
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(memfd, data + done, size - done, (off_t)done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Symbols off: no module file is read. */
static void blank_module_paths(struct trace_reader *r)
{
	for (size_t i = 0; i < r->nimages; i++)
		for (size_t m = 0; m < r->images[i].nmodules; m++)
			r->images[i].modules[m].path[0] = '\0';
}

static void walk_into_view(struct trace_reader *r, struct symbol_table *symbols,
			   const struct walk_filters *f, unsigned view)
{
	struct walk_consumer c = {0};
	struct walk_stats stats;
	struct replay_options ro = {1, 1};
	switch (view % 5) {
	case 0: {
		struct replay *rp = replay_new(sink, &ro);
		replay_consumer(rp, &c);
		walker_run(r, symbols, f, &c, &stats);
		replay_free(rp);
		break;
	}
	case 1: {
		struct json_tree *jt = json_tree_new(sink, r, 0);
		json_tree_consumer(jt, &c);
		walker_run(r, symbols, f, &c, &stats);
		json_tree_finish(jt, &stats);
		json_tree_free(jt);
		break;
	}
	case 2: {
		struct chrome_json *cj = chrome_json_new(sink, r, 0, UINT64_MAX);
		chrome_json_consumer(cj, &c);
		walker_run(r, symbols, f, &c, &stats);
		chrome_json_finish(cj);
		chrome_json_free(cj);
		break;
	}
	case 3: {
		struct crash_report *cr = crash_report_new(sink, r, symbols);
		crash_report_consumer(cr, &c);
		walker_run(r, symbols, f, &c, &stats);
		crash_report_free(cr);
		break;
	}
	default: {
		struct flame_folded *ff = flame_folded_new(sink, FOLDED_SELF_NS, 1);
		flame_folded_consumer(ff, &c);
		walker_run(r, symbols, f, &c, &stats);
		flame_folded_finish(ff);
		flame_folded_free(ff);
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	if (put_input(data, size) < 0)
		return 0;
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	if (!r)
		return 0;
	unsigned pick = size ? data[size - 1] : 0;
	struct walk_filters f = {0};
	if (pick & 0x20)
		f.min_duration_ns = 1000;
	if (pick & 0x40)
		f.max_depth = 2;
	if (!(pick & 0x80))
		blank_module_paths(r);
	struct symbol_table *symbols = symbol_table_new();
	walk_into_view(r, symbols, &f, pick & 0x1f);
	symbol_table_free(symbols);
	trace_reader_close(r);
	return 0;
}
