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
 *
 * Kernel chunks (CHUNK_KERNEL: system calls and off-CPU intervals, written
 * by the session's kernel collector with image 0) are checked whole when
 * indexed (a corrupt one is a problem, and skipped) and given to a thread:
 * the same (pid, tid), of the image that ran at the chunk's first event.
 * Each chunk goes whole to one image, by the time of its first event: the
 * images of a pid follow each other, the first from the beginning of time
 * (events before an image's first record belong to it: the loader runs
 * before the runtime starts), each later one from the exec that began it,
 * which the collector marks by starting a new chunk numbered 0 for the
 * thread that execs (kernel_stream_exec); without that mark, from the
 * image's first record.  A pid the runtime never recorded gets an image of
 * its own, kernel_only, so that its threads are not lost.  A thread's
 * kernel chunks are its kernel_windows, in time order; their seq is their
 * own, counted from 0 again at an exec.  For info: trace_thread's
 * nkernel_windows and kernel_events, trace_reader's kernel_chunks,
 * kernel_events and kernel_bytes; missing kernel chunks count in
 * losses.missing_windows, corrupt ones in losses.corrupt.
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
	uint32_t how;	       /* enum trace_process_event: START, FORK or EXEC;
				  0 for a kernel_only image */
	int kernel_only;       /* made for a process only the kernel collector saw
				  (id TRACE_KERNEL_ONLY_IMAGE(pid)): no modules */
	uint64_t first_ns;     /* its first record or window (UINT64_MAX: none) */
	int has_exit;
	int32_t exit_status;
	int has_usage; /* usage: from the exit record, when the recorder had it */
	struct trace_process_usage usage;
	int has_functions; /* functions: from a PROCESS_FUNCTIONS record */
	struct trace_function_counts functions;
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

/* The image of a process only the kernel saw. */
#define TRACE_KERNEL_ONLY_IMAGE(pid) (0x80000000u | (uint32_t)(pid))

struct trace_thread {
	uint32_t image, pid, tid;
	char *name;
	struct trace_window_ref *windows; /* sorted by seq */
	size_t nwindows, cap_windows;
	struct trace_window_ref *kernel_windows; /* its CHUNK_KERNEL chunks, in time order */
	size_t nkernel_windows, cap_kernel_windows;
	uint64_t kernel_events; /* events in them (system calls and off-CPU
				   intervals count two: enter and exit) */
	uint32_t index;		/* position in trace_reader.threads */
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
	uint64_t lost_windows;	     /* the header's count of windows whose space could not be
					claimed (disk full, ulimit -f): their events were dropped */
	uint64_t missing_windows;    /* gaps in the threads' window sequences (kernel
					chunks' included) */
	uint64_t lost_calls;	     /* calls the writer counted but could not record */
	uint64_t lost_kernel_events; /* the header's kernel_lost_events */
	uint64_t corrupt;	     /* corrupt chunks, records and event windows */
	uint64_t truncated_bytes;    /* claimed space the file does not hold */
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
	uint64_t event_bytes;			     /* payload bytes of all event windows */
	uint64_t kernel_chunks;			     /* CHUNK_KERNEL chunks given to threads */
	uint64_t kernel_events;			     /* events in them (the sum of the threads') */
	uint64_t kernel_bytes;			     /* their payload bytes */
	struct trace_kernel_pending *kernel_pending; /* while indexing */
	size_t nkernel_pending, cap_kernel_pending;
	uint64_t unwritten_bytes; /* claimed but never written space */
	uint64_t ring_gaps;	  /* a ring's windows overwritten between two a thread
				     kept (counted in header.ring_overwritten_*, so no
				     loss): a thread's window when no slot could take it */
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
/* How many processes the images are: an exec goes on in its process as a
 * new image. */
size_t trace_reader_processes(const struct trace_reader *r);
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

/*
 * A thread's events come in one stream: its own windows' and, merged by
 * time, its kernel chunks' (on equal times a kernel EXIT comes before the
 * thread's event, a kernel ENTER after it).  Times compare as written, in
 * units of the one clock; time_ns never goes back within a thread.
 * `address` is the full value the EV_DEFINE gave, kind bits included
 * (trace_format.h, "Kinds of calls"): a system call's or off-CPU
 * interval's address never equals a function's, so an exit that names its
 * address finds the right call; TRACE_CALL_WHERE(address) is what is
 * called, call_kind its kind.
 *
 * In a thread that has kernel chunks:
 * - fids of the two dictionaries are kept apart: the thread's own fid f is
 *   2f, a kernel fid k is 2k + 1; window_serial changes when either
 *   dictionary is reset, so a cache keyed by (window_serial, fid) holds.
 *   (A thread without kernel chunks has its fids as written.)
 * - a kernel EXIT names its call (innermost 0, its address and fid): were
 *   calls of the thread's own left above it (times that disagree), they
 *   end there, unfinished; an own exit whose call is below an open kernel
 *   call names its call likewise.  A kernel exit with no kernel call open
 *   (entered before the record, or across a gap) is dropped.
 * - where kernel events are missing (a gap in the chunks, a corrupt one),
 *   the kernel calls open there end: a TRACE_UNWIND with `lost` set keeps
 *   the calls below them; a thread's own gap is a PAUSE as ever.
 * The cursor keeps the open calls to do this; a reader of the events sees
 * one consistent nesting, as in a thread without kernel chunks.
 */
struct trace_event {
	enum trace_event_type type;
	int innermost;	       /* EXIT: ends the innermost open call (address 0) */
	uint32_t fid;	       /* ENTER, and EXIT unless innermost: the function id
				  (see above); for an exit, the id its enter had */
	uint64_t address;      /* ENTER, and EXIT unless innermost: tagged */
	unsigned call_kind;    /* ENTER, and EXIT unless innermost:
				  TRACE_CALL_KIND(address), enum trace_call_kind */
	int kernel;	       /* from the thread's kernel chunks */
	uint64_t time_ns;      /* since the session started */
	const uint8_t *values; /* ENTER: the arguments' tagged values, EXIT: the
				  return value's (trace_format.h), or NULL */
	uint32_t values_len;
	const char *mark; /* MARK: the text (not NUL-terminated) */
	uint32_t mark_len;
	uint32_t stay; /* UNWIND: the open calls that go on (the outermost) */
	int lost;      /* PAUSE, UNWIND: events are missing here (windows or
			  kernel chunks missing, a corrupt one): the open
			  calls' ends were not recorded */
	int before;    /* ENTER: the call was entered before the thread's kept
			  events (a ring reused the window of its enter): its
			  time is the kept window's start */
};

/* One source of a thread's events: its windows, or its kernel chunks. */
struct trace_substream {
	struct trace_reader *reader;
	uint32_t tid;
	const struct trace_window_ref *windows;
	size_t nwindows;
	size_t window; /* next window index */
	int kernel;    /* kernel chunks */
	const uint8_t *p, *end;
	uint64_t chunk_offset;
	uint64_t tick; /* time unit of the last event */
	uint64_t anchor_tick;
	double anchor_ns; /* ns of anchor_tick since session start */
	uint64_t last_ns;
	uint64_t *dict; /* this window's fid -> address */
	uint32_t ndict, cap_dict;
	uint32_t seq;	 /* the open window's sequence number */
	int gap;	 /* windows before the open one are missing */
	int damaged;	 /* the rest of the last window was skipped */
	uint32_t opened; /* windows begun (each resets dict) */
	int quiet;	 /* corruption counted in `corrupt`, not reported */
	uint32_t corrupt;

	/* A ring's windows begin with the calls open then (EV_OPEN_CALLS). */
	int fresh;	     /* the open window follows none read before it */
	uint32_t open_calls; /* ENTERs still to come of an EV_OPEN_CALLS */
};

/* An open call, as the cursor of a merged thread keeps it. */
struct trace_open_frame {
	uint64_t address;
	uint32_t fid;
	uint32_t kernel;
};

struct trace_cursor {
	struct trace_reader *reader;
	const struct trace_thread *thread;
	struct trace_substream own, kernel;
	uint32_t window_serial; /* changes whenever a dictionary is reset */
	uint32_t cap_dict;	/* fids given so far are below it, mostly: a size
				   for caches indexed by fid */
	uint64_t events;	/* decoded so far */
	/* Merging (a thread with kernel chunks): the next event of each. */
	int merging;
	int has_own, has_kernel, own_done, kernel_done;
	struct trace_event next_own, next_kernel;
	uint64_t own_unit, kernel_unit; /* their times in clock units */
	uint64_t last_ns;
	struct trace_open_frame *open; /* the open calls, innermost last */
	size_t depth, cap_open;
};

void trace_cursor_init(struct trace_cursor *c, struct trace_reader *r,
		       const struct trace_thread *t);
/* 1 and *ev filled, or 0 at the end of the thread's events. */
int trace_cursor_next(struct trace_cursor *c, struct trace_event *ev);
void trace_cursor_fini(struct trace_cursor *c);

#endif
