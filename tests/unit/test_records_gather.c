/*
 * test_records_gather.c - records gathered (trace_records_gather) reach
 * the file only at the flush, together and in their order; more than
 * the gathering holds is written on the way, and another thread's record
 * meanwhile is written at once; the reader finds every one of them.
 */
#include "../../src/format/trace_reader.h"
#include "../../src/format/trace_writer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MODULES 40 /* with paths of 300 bytes: more than one gathering holds */

static uint64_t claimed(const struct trace_session *s)
{
	return __atomic_load_n(&s->header->next_offset, __ATOMIC_ACQUIRE);
}

static void module_path(char *out, size_t len, int i)
{
	snprintf(out, len, "/lib/%0280d/libm%d.so", 0, i);
}

static void *other_thread(void *arg)
{
	struct trace_session *s = arg;
	uint64_t before = claimed(s);
	trace_write_thread(s, 77, THREAD_START, "other");
	CHECK(claimed(s) > before, "another thread's record is written at once");
	return NULL;
}

static void test_gathered(const char *path)
{
	struct trace_session s;
	if (trace_session_create_replacing(&s, path, "prog", 5, 1 << 16) < 0) {
		perror(path);
		exit(2);
	}
	trace_session_new_image(&s, 4321);
	uint64_t start = claimed(&s);
	trace_records_gather();
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/prog", "prog", 5);
	trace_write_module(&s, MODULE_LOAD, 0x1000, 0x400000, 0x500000, "\x01\x02", 2, "/bin/prog");
	CHECK(claimed(&s) == start, "nothing claimed while gathering");
	pthread_t t;
	pthread_create(&t, NULL, other_thread, &s);
	pthread_join(t, NULL);
	uint64_t after_other = claimed(&s);
	char name[400];
	for (int i = 0; i < MODULES; i++) {
		module_path(name, sizeof(name), i);
		trace_write_module(&s, MODULE_LOAD, 0x10000 * (uint64_t)(i + 2), 0x600000, 0x601000,
				   NULL, 0, name);
	}
	CHECK(claimed(&s) > after_other, "a gathering that is full is written on the way");
	trace_write_thread(&s, 4321, THREAD_START, "prog");
	CHECK(trace_records_flush(&s) == 0, "the flush writes");
	uint64_t end = claimed(&s);
	trace_write_thread(&s, 4322, THREAD_START, "later");
	CHECK(claimed(&s) > end, "after the flush, a record is written at once");
	trace_session_close(&s);

	char err[256];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "the trace opens: %s", r ? "" : err);
	if (!r)
		return;
	const struct trace_image *im = r->nimages == 1 ? &r->images[0] : NULL;
	CHECK(r->nproblems == 0, "no problems, got %zu", r->nproblems);
	CHECK(im && im->how == PROCESS_START && strcmp(im->exe, "/bin/prog") == 0,
	      "the process record read back");
	CHECK(im && im->nmodules == MODULES + 1, "every module read back: %zu",
	      im ? im->nmodules : 0);
	int in_order =
	    im && im->nmodules == MODULES + 1 && strcmp(im->modules[0].path, "/bin/prog") == 0;
	for (int i = 0; in_order && i < MODULES; i++) {
		module_path(name, sizeof(name), i);
		in_order = strcmp(im->modules[i + 1].path, name) == 0;
	}
	CHECK(in_order, "the modules in the order they were written");
	int threads = 0;
	for (size_t i = 0; i < r->nthreads; i++)
		threads +=
		    r->threads[i].name != NULL && (strcmp(r->threads[i].name, "prog") == 0 ||
						   strcmp(r->threads[i].name, "other") == 0 ||
						   strcmp(r->threads[i].name, "later") == 0);
	CHECK(threads == 3, "the three threads' records read back: %d", threads);
	trace_reader_close(r);
}

int main(void)
{
	char dir[4096], path[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/calltrace-test-gather-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/g.trace", dir);
	test_gathered(path);
	unlink(path);
	rmdir(dir);
	return CHECK_SUMMARY("test_records_gather");
}
