/*
 * trace_reader.h - read a trace file; the one parser every tool uses.
 *
 * trace_reader_open() maps the file and indexes it in one pass over the
 * chunk headers: process images, modules, threads and each thread's event
 * windows in order.  Nothing in the file is trusted: every length and index
 * is bounds-checked, and a corrupt or truncated chunk becomes a problem
 * (offset + message) and is skipped where the framing allows.
 *
 * Events are then read one thread at a time with a trace_cursor.
 */
#ifndef CALLTRACE_TRACE_READER_H
#define CALLTRACE_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>
#include "trace_format.h"

struct trace_module {
	char *path;
	uint8_t *build_id;
	uint32_t build_id_len;
	uint64_t load_bias, low, high; /* runtime addresses */
	uint64_t load_ns, unload_ns;   /* unload_ns: UINT64_MAX while loaded */
	int file_state;		       /* left to the walker: whether `path` may be read */
};

struct trace_image {
	uint32_t id, pid, ppid;
	uint32_t parent_image; /* 0: none */
	uint32_t how;	       /* enum trace_process_event: START, FORK or EXEC */
	int has_exit;
	int32_t exit_status;
	uint64_t start_ns;
	char *exe;
	char *command; /* arguments joined with spaces */
	struct trace_module *modules;
	size_t nmodules, cap_modules;
};

struct trace_window_ref {
	uint64_t offset; /* of the chunk header */
	uint32_t seq;
};

struct trace_thread {
	uint32_t image, pid, tid;
	char *name;
	struct trace_window_ref *windows; /* sorted by seq */
	size_t nwindows, cap_windows;
	uint32_t index; /* position in trace_reader.threads */
};

struct trace_problem {
	uint64_t offset;
	char message[160];
};

struct trace_crash {
	uint32_t image, pid, tid;
	int32_t signal, code;
	uint64_t fault_address, time_ns;
	uint64_t *frames;
	uint32_t nframes;
	uint32_t flags; /* enum trace_crash_flag */
};

/* What the record is known to lack; all 0 for a whole trace.  Each also
 * has a line in trace_reader.problems. */
struct trace_losses {
	uint64_t lost_windows;	  /* the header's count of windows whose space could not be
				     claimed (disk full?): their events were dropped */
	uint64_t missing_windows; /* gaps in the threads' window sequences */
	uint64_t lost_calls;	  /* calls the writer counted but could not record */
	uint64_t corrupt;	  /* corrupt chunks, records and event windows */
	uint64_t truncated_bytes; /* claimed space the file does not hold */
};

struct trace_reader {
	const char *path;
	const uint8_t *data;
	size_t size;
	struct trace_file_header header;
	double ns_per_tick; /* of the raw clock */
	double ns_per_unit; /* of event times: ticks >> header.tick_shift */
	char *command;	    /* the recorded command, joined with spaces */
	struct trace_image *images;
	size_t nimages, cap_images;
	struct trace_thread *threads; /* in order of first appearance */
	size_t nthreads, cap_threads;
	struct trace_problem *problems;
	size_t nproblems, cap_problems;
	struct trace_crash *crashes;
	size_t ncrashes, cap_crashes;
	uint64_t event_bytes;	  /* payload bytes of all event windows */
	uint64_t unwritten_bytes; /* claimed but never written space */
	struct trace_losses losses;
	uint32_t *thread_hash; /* (image, tid) -> index + 1 */
	size_t thread_hash_size;
	uint32_t *image_hash; /* id -> index + 1 */
	size_t image_hash_size;
	int fd; /* while indexing: to find holes; else -1 */
};

/* Event times saturate here (about 146 years): views may add and subtract
 * them without overflow. */
#define TRACE_TIME_MAX (UINT64_C(1) << 62)

/* Opens and indexes `path`.  On failure returns NULL and writes a one-line
 * reason into err. */
struct trace_reader *trace_reader_open(const char *path, char *err, size_t errlen);
void trace_reader_close(struct trace_reader *r);

const struct trace_image *trace_reader_image(const struct trace_reader *r, uint32_t id);
/* The module of `image` that holds `address` at time `ns`, or NULL. */
const struct trace_module *trace_reader_find_module(const struct trace_reader *r, uint32_t image,
						    uint64_t address, uint64_t ns);
/* Records a problem found while reading (also used by the cursor): a
 * corrupt region, counted in losses.corrupt.  The same problem at the same
 * offset is kept once; after the first thousand only the count grows. */
void trace_reader_problem(struct trace_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- events of one thread ------------------------------------------------- */

enum trace_event_type { TRACE_ENTER = 1, TRACE_EXIT, TRACE_PAUSE, TRACE_MARK, TRACE_UNWIND };

struct trace_event {
	enum trace_event_type type;
	int innermost;	  /* EXIT: ends the innermost open call (address 0) */
	uint32_t fid;	  /* ENTER, and EXIT unless innermost: index into cursor.dict */
	uint64_t address; /* ENTER, and EXIT unless innermost */
	uint64_t time_ns; /* since the session started */
	const uint8_t *values; /* ENTER: the arguments' tagged values, EXIT: the
				  return value's (trace_format.h), or NULL */
	uint32_t values_len;
	const char *mark; /* MARK: the text (not NUL-terminated) */
	uint32_t mark_len;
	uint32_t stay; /* UNWIND: the open calls that go on (the outermost) */
	int lost;      /* PAUSE: events are missing here (windows missing, a
			  corrupt window): the open calls' ends were not recorded */
};

struct trace_cursor {
	struct trace_reader *reader;
	const struct trace_thread *thread;
	size_t window; /* next window index */
	const uint8_t *p, *end;
	uint64_t chunk_offset;
	uint64_t tick; /* time unit of the last event */
	uint64_t anchor_tick;
	double anchor_ns; /* ns of anchor_tick since session start */
	uint64_t last_ns;
	uint64_t *dict; /* this window's fid -> address */
	uint32_t ndict, cap_dict;
	uint32_t window_serial; /* changes whenever dict is reset */
	uint32_t seq;		/* the open window's sequence number */
	int gap;		/* windows before the open one are missing */
	int damaged;		/* the rest of the last window was skipped */
	uint64_t events;	/* decoded so far */
};

void trace_cursor_init(struct trace_cursor *c, struct trace_reader *r,
		       const struct trace_thread *t);
/* 1 and *ev filled, or 0 at the end of the thread's events. */
int trace_cursor_next(struct trace_cursor *c, struct trace_event *ev);
void trace_cursor_fini(struct trace_cursor *c);

#endif
