/*
 * trace_writer.h - write a trace file: the one encoder every event source uses.
 *
 * A trace_session is one process's handle on the session's file: the shared
 * header page mapped, the file descriptor, the process image id.  Metadata
 * (process, module, thread, crash records) is written with pwrite into
 * claimed space.  Events go through a trace_stream: one per traced thread,
 * writing into a MAP_SHARED window of the file, so what is written is in the
 * page cache at once and survives the writer's crash or kill -9.
 *
 * A session made a ring (trace_session_make_ring: record --ring) keeps its
 * windows in a fixed set of slots, reused oldest first (trace_ring.c), so
 * that the file keeps its size; the streams' API is the same.
 *
 * The code: trace_session.c (the file, its header, claims of space),
 * trace_records_write.c (metadata records), trace_writer.c (streams),
 * trace_ring.c and trace_ring_count.c (a ring's slots), trace_snapshot.c.
 */
#ifndef CALLTRACE_TRACE_WRITER_H
#define CALLTRACE_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "event_encode.h"
#include "trace_file.h"
#include "trace_clock.h"
#include "trace_format.h"

struct trace_session {
	int fd;				  /* kept high, out of the traced program's way */
	uint64_t dev, ino;		  /* what fd must still be (a program may close it) */
	char path[4096];		  /* to open it again then */
	struct trace_file_header *header; /* MAP_SHARED */
	uint32_t window_size;
	uint32_t tick_shift; /* time unit = tick >> tick_shift */
	uint32_t image;	     /* this process image's id */
	uint32_t pid;
	int broken;	 /* the file cannot grow (disk full, size limit,
			    truncated): nothing more is claimed */
	int claim_errno; /* why, when broken */
	/* How trace_session_create went. */
	struct trace_file_outcome created;
	struct trace_ring_table *ring; /* MAP_SHARED; NULL when the file is no ring */
	size_t ring_map_len;
};

/* Creates a new trace file named `path` and writes the header (see
 * trace_file.c: never through a symbolic link, never over another
 * recording's trace).  0, or -1 with errno (trace_session_refusal says
 * why).  Every process of a session holds a shared lock on the file; a
 * file held so by another session is in use, and left alone: the session
 * is then created under the first free name of path.2.trace,
 * path.3.trace, ...  A file of the name that no session holds is kept
 * under such a name.  s->path says where the trace went,
 * trace_session_placement says it in words. */
int trace_session_create(struct trace_session *s, const char *path, const char *command,
			 size_t command_len, uint32_t window_size);
/* The same, but a file at `path` that no session holds is replaced. */
int trace_session_create_replacing(struct trace_session *s, const char *path, const char *command,
				   size_t command_len, uint32_t window_size);
/* Why trace_session_create failed with errno `err`. */
const char *trace_session_refusal(const struct trace_session *s, int err);
/* Into `out`: what a user is told when the trace did not simply go to the
 * name asked for (another recording had it, or a file had it and was kept
 * under another name); "" when it did. */
void trace_session_placement(const struct trace_session *s, const char *asked, char *out,
			     size_t len);
/* Makes the session just created a ring of `size` bytes of event windows
 * (trace_format.h, "A ring"), before anything else is written to it.  0,
 * or -1 with errno (EINVAL: `size` is below TRACE_RING_MIN; ENOSPC: it is
 * more than the file's filesystem has free). */
int trace_session_make_ring(struct trace_session *s, uint64_t size);
/* Notes in the header the recording's options that leave calls out
 * (trace_file_header.filters; cut to fit). */
void trace_session_note_filters(struct trace_session *s, const char *filters);
/* Why trace_session_make_ring failed with errno `err` (ENOSPC: the ring
 * is larger than the free space of the file's filesystem). */
const char *trace_ring_refusal(int err);
#define TRACE_RING_MIN (64u << 10)
#define TRACE_RING_MAX (1ull << 40)
/* A ring's size as a user writes it: 1048576, 512K, 64M, 2G (KiB, MiB...
 * spelt either way); 0, or -1 when it is no size or out of bounds. */
int trace_ring_parse_size(const char *text, uint64_t *size);
/* Copies the session's trace as it is now into a new file named after it
 * (NAME.snapshot-N.trace next to NAME.trace, never over a file), the
 * recording going on: windows being replaced meanwhile are left out.  The
 * new file's name into `out`.  0, or -1 with errno.  Safe in a signal
 * handler (no allocation, no lock); one snapshot at a time a process. */
int trace_session_snapshot(struct trace_session *s, char *out, size_t len);

/* A process of a session finds it in CALLTRACE_SESSION=<image>:<pid>:<trace
 * path>, which `calltrace record` sets for the first process and each
 * process image sets for its own children.  The ids have a fixed width
 * (zeros first): an image rewrites an inherited entry in place, never
 * longer or shorter (runtime/session/session.c). */
#define TRACE_SESSION_ID_DIGITS 10
#define TRACE_SESSION_IDS "%010u:%010u:" /* image, pid */

/* Opens an existing session file to append to it.  0, or -1 with errno. */
int trace_session_open(struct trace_session *s, const char *path);
/* The same with the file open already as `fd` (taken, closed on failure):
 * a process that may not open `path` itself is handed it. */
int trace_session_open_fd(struct trace_session *s, const char *path, int fd);
void trace_session_close(struct trace_session *s);
/* From now on the claims of the session reserve disk blocks ahead of
 * them (one fallocate for many windows: trace_session.c), not for a ring.
 * For `calltrace record`, which gives back what is left at its end: */
void trace_session_reserve_ahead(struct trace_session *s);
/* Gives back the disk space reserved past the last claim.  For the
 * session's last process (trace_session_last_out); a claim made meanwhile
 * by a process that had not joined yet backs itself. */
void trace_session_trim(struct trace_session *s);
/* A fork child shares its parent's open file description, and so its lock
 * (mappings of the file keep that description alive, even after the child
 * closes its descriptor).  So that each process holds a lock of its own,
 * the parent opens the file again and locks it shared before it forks
 * (trace_session_lock_again: the descriptor, or -1 with errno); the child
 * takes that descriptor as its own (trace_session_adopt_lock: 0, or -1 and
 * then it goes on with the shared one), and the parent closes it. */
int trace_session_lock_again(const struct trace_session *s);
int trace_session_adopt_lock(struct trace_session *s, int fd);
/* At a process's end: drops its shared lock and tries to take the file
 * exclusively.  1 when that worked, so no other process of the session
 * holds it any more (this one is the last out); 0 otherwise.  Of processes
 * ending together, at most one gets 1, and the last to try does. */
int trace_session_last_out(struct trace_session *s);
/* A new image id (fork child, exec'd image); also sets s->image and s->pid. */
uint32_t trace_session_new_image(struct trace_session *s, uint32_t pid);
/* Claims `len` bytes (rounded up to 8) of file space, backed by disk
 * blocks; returns the offset, or 0 when the file could not grow (then the
 * session is marked broken, with the reason in claim_errno).  In a
 * session that reserves ahead (trace_session_reserve_ahead), the blocks of
 * the space after it are reserved with it, for the next claims
 * (header.reserved_end). */
uint64_t trace_session_claim(struct trace_session *s, uint32_t len);
/* The same for bytes written at once with pwrite (a record): no blocks
 * are given first (the write gives them; an fallocate took longer than
 * the write).  A write that fails then calls trace_session_write_failed,
 * which marks the session broken as a failed claim does. */
uint64_t trace_session_claim_written(struct trace_session *s, uint32_t len);
void trace_session_write_failed(struct trace_session *s);

/* Why the session's file cannot grow (broken), or NULL. */
const char *trace_session_broken_reason(const struct trace_session *s);

/* Metadata records.  All return 0, or -1 with errno. */
int trace_write_process(struct trace_session *s, uint32_t event, uint32_t parent_image,
			uint32_t ppid, int32_t status, const char *exe, const char *command,
			size_t command_len);
/* An exit record carrying what the process used (struct trace_process_usage). */
int trace_write_exit_usage(struct trace_session *s, int32_t status,
			   const struct trace_process_usage *usage);
/* The in-process engine's counts of functions (PROCESS_FUNCTIONS). */
int trace_write_functions(struct trace_session *s, const struct trace_function_counts *counts);
/* The exit status of another process of the session (a child its parent
 * reaped), for the last image of `pid`. */
int trace_write_exit_of(struct trace_session *s, uint32_t pid, int32_t status);
int trace_write_module(struct trace_session *s, uint32_t event, uint64_t load_bias, uint64_t low,
		       uint64_t high, const void *build_id, uint32_t build_id_len,
		       const char *path);
int trace_write_thread(struct trace_session *s, uint32_t tid, uint32_t event, const char *name);
/* The records this thread writes from trace_records_gather to
 * trace_records_flush go into the file together, with one claim and one
 * write (an image's start: its process, its modules, its thread).  One
 * thread gathers at a time: another's records, and one that does not fit,
 * are written at once.  The flush returns 0, or -1 with errno. */
void trace_records_gather(void);
int trace_records_flush(struct trace_session *s);
/* flags: enum trace_crash_flag. */
int trace_write_crash(struct trace_session *s, uint32_t tid, int signal, int code,
		      uint64_t fault_address, const uint64_t *frames, uint32_t nframes,
		      uint32_t flags);

/* ---- event streams ------------------------------------------------------ */

#define TRACE_FID_SETS 1024 /* address -> fid cache: sets of 2 slots */
#define TRACE_FID_CACHE_SIZE (2 * TRACE_FID_SETS)
#define TRACE_OPEN_CALLS                                                                           \
	4096			       /* open calls remembered at first; the stack                \
					  grows (doubling) as deep as calls go */
#define TRACE_FIRST_WINDOW (16u << 10) /* windows grow 4x from here */
#define TRACE_SMALL_WINDOWS 3	       /* 16, 64 and 256 KiB, then window_size */

/* A slot's key is the address with the generation of the window that
 * wrote it in bits 52..59, which no address uses (user space lies below
 * 2^52, and a call's kind is in bits 60..62): a new window forgets every
 * fid by counting its generation up, not by writing the cache's 8 pages (a
 * fork child would copy each, a new process fault each in), and a hit is
 * still one compare.  Generation 0 is no window's: a fresh cache's zeros
 * are no key. */
#define TRACE_FID_GENERATION_SHIFT 52
#define TRACE_FID_GENERATIONS 255 /* then the cache is cleared once */
struct trace_fid_slot {
	uint64_t key;
	uint32_t fid;
	uint32_t pad;
};

/* An open call as the writer remembers it. */
struct trace_open_call {
	uint64_t address;
	uint64_t sp; /* a stack pointer inside its frame, 0: unknown */
};

struct trace_stream {
	uint8_t *pos;	    /* next byte to write */
	uint8_t *limit;	    /* window end - EV_MAX_BYTES; NULL: no window */
	uint64_t last_unit; /* time of the last event: tick >> tick_shift */
	uint32_t tick_shift;
	struct trace_fid_slot *fids;	    /* TRACE_FID_CACHE_SIZE slots */
	struct trace_open_call *open_calls; /* innermost last */
	uint32_t open_cap;		    /* entries of open_calls */
	uint32_t depth;			    /* open calls (may exceed open_cap when
					       the stack could not grow) */
	uint32_t depth_base;		    /* open calls the stream never wrote the enter of
					       (a fork child's, from its parent) */
	uint32_t next_fid;
	uint64_t fid_tag; /* the open window's generation, as keys carry it */
	uint32_t seq;
	uint32_t tid;
	uint32_t lost;	       /* windows that could not be opened */
	uint32_t window_calls; /* calls entered in the open window */
	uint32_t slot;	       /* a ring's: the open window's slot + 1, or 0, or
				  TRACE_RING_PRIVATE (a window in memory) */
	struct trace_session *session;
	/* Called when an address gets its first id in a window (optional):
	 * the runtime checks there that the address's module is recorded. */
	void (*on_define)(uint64_t address);
	struct trace_chunk *chunk; /* the open window's header */
	void *map;		   /* the window mapping */
	size_t map_len;
};

#define TRACE_RING_PRIVATE UINT32_MAX

/* Opens the stream's next window; 0, or -1 (then events are dropped). */
int trace_stream_refill(struct trace_stream *st, uint64_t tick);
/* Closes the open window (records its length) and unmaps it. */
void trace_stream_close(struct trace_stream *st);
/* Forgets the window without touching it (in a fork child: it is the
 * parent's); the next event opens a fresh one. */
void trace_stream_abandon(struct trace_stream *st);
/* In a fork child: the parent's window is let go (unwritten) and the next
 * one is the child's first. */
void trace_stream_fork_child(struct trace_stream *st);

/* The fid cache is 2-way set-associative: a program's hot functions share
 * a set now and then, and a direct-mapped cache would define them again and
 * again.  A new address takes the first slot and pushes the older to the
 * second. */
static inline struct trace_fid_slot *trace_stream_fid_set(struct trace_stream *st, uint64_t address)
{
	uint32_t set = (uint32_t)((address * 0x9e3779b97f4a7c15ull) >> 54) & (TRACE_FID_SETS - 1);
	return &st->fids[2 * set];
}

/* The fid `set` holds for `key` (an address and its window's tag), or -1. */
static inline int64_t trace_fid_set_find(const struct trace_fid_slot *set, uint64_t key)
{
	if (__builtin_expect(set[0].key == key, 1))
		return set[0].fid;
	if (set[1].key == key)
		return set[1].fid;
	return -1;
}

/* The fid of `address` in the open window, or -1 when it has none yet. */
static inline int64_t trace_stream_cached_fid(struct trace_stream *st, uint64_t address)
{
	return trace_fid_set_find(trace_stream_fid_set(st, address), address ^ st->fid_tag);
}

/* The function id of `address` in the open window, defining it on a miss. */
static inline uint32_t trace_stream_fid(struct trace_stream *st, uint64_t address, uint8_t **p)
{
	struct trace_fid_slot *set = trace_stream_fid_set(st, address);
	uint64_t key = address ^ st->fid_tag;
	int64_t cached = trace_fid_set_find(set, key);
	if (__builtin_expect(cached >= 0, 1))
		return (uint32_t)cached;
	if (st->on_define)
		st->on_define(address);
	*p = encode_define(*p, address);
	set[1] = set[0];
	set[0] = (struct trace_fid_slot){key, st->next_fid++, 0};
	return set[0].fid;
}

static inline uint64_t trace_stream_delta(struct trace_stream *st, uint64_t tick)
{
	uint64_t unit = tick >> st->tick_shift;
	uint64_t delta = unit - st->last_unit;
	st->last_unit = unit;
	return (int64_t)delta < 0 ? 0 : delta;
}

/* The enter of `address`, whose fid is known, at p (with room); `sp` is a
 * stack pointer inside the new call's frame (0: unknown). */
static inline void trace_stream_put_enter_fid(struct trace_stream *st, uint8_t *p, uint64_t address,
					      uint32_t fid, uint64_t tick, uint64_t sp)
{
	uint32_t depth = st->depth++;
	st->window_calls++;
	if (__builtin_expect(depth < st->open_cap, 1))
		st->open_calls[depth] = (struct trace_open_call){address, sp};
	st->pos = encode_enter(p, fid, trace_stream_delta(st, tick));
}

/* Enter/exit with room guaranteed (st->pos < st->limit); an exit only
 * while st->depth > 0. */
static inline void trace_stream_put_enter(struct trace_stream *st, uint64_t address, uint64_t tick,
					  uint64_t sp)
{
	uint8_t *p = st->pos;
	uint32_t fid = trace_stream_fid(st, address, &p);
	trace_stream_put_enter_fid(st, p, address, fid, tick, sp);
}

/* Whether the exit of `address` ends the innermost open call (st->depth > 0). */
static inline int trace_stream_exits_innermost(const struct trace_stream *st, uint64_t address)
{
	uint32_t top = st->depth - 1;
	return __builtin_expect(top < st->open_cap && st->open_calls[top].address == address, 1);
}

/* The exit just counted ended a call the stream never wrote the enter of. */
static inline int trace_stream_below_base(const struct trace_stream *st)
{
	return __builtin_expect(st->depth < st->depth_base, 0);
}

/* The exit of the innermost open call (with room). */
static inline void trace_stream_put_exit_innermost(struct trace_stream *st, uint64_t tick)
{
	st->depth--;
	if (trace_stream_below_base(st))
		st->depth_base = st->depth; /* an inherited call ended (a fork child's) */
	st->pos = encode_exit(st->pos, trace_stream_delta(st, tick));
}

/* The exit of a call that is not the innermost open one (longjmp): the
 * calls above it are forgotten, and the exit names its function.  The
 * exit of a call not open (among those remembered) writes nothing: it
 * ended already (a library call an exception left, whose caller's exit,
 * the hooks' as the exception passed it, closed it).  Returns where the
 * events go on. */
uint8_t *trace_stream_exit_elsewhere(struct trace_stream *st, uint8_t *p, uint64_t address,
				     uint64_t tick);

static inline void trace_stream_put_exit(struct trace_stream *st, uint64_t address, uint64_t tick)
{
	/* Deeper than remembered (the stack could not grow): nothing says
	 * otherwise, so it ends the innermost call, as exits almost always do. */
	if (trace_stream_exits_innermost(st, address) || st->depth > st->open_cap) {
		trace_stream_put_exit_innermost(st, tick);
		return;
	}
	st->pos = trace_stream_exit_elsewhere(st, st->pos, address, tick);
}

/* Checked versions for the slow paths and the dynamic engine: open a window
 * when needed; an exit with no call open is dropped (its enter came before
 * recording began).  0, or -1 when the event was dropped. */
int trace_stream_enter(struct trace_stream *st, uint64_t address, uint64_t tick, uint64_t sp);
/* A longjmp to the frame whose stack pointer is `sp`: the open calls whose
 * frames lie below it were abandoned and end now, unfinished.  Only the
 * first `max_written` open calls were written (a depth limit).  The event
 * names how many open calls stay, so that a reader agrees with the writer
 * even if the jump interrupted a hook half-way through its last event.
 * 0, or -1 when the event was dropped. */
int trace_stream_unwind_to(struct trace_stream *st, uint64_t sp, uint64_t tick,
			   uint32_t max_written);
/* How many open calls a jump to the frame at `sp` leaves open (all of them
 * when the stream is deeper than it remembers). */
uint32_t trace_stream_calls_kept(const struct trace_stream *st, uint64_t sp);
/* Whether a jump to `sp` surely lands inside the innermost open call (and
 * so leaves no call, nor a hook that call's code was in). */
int trace_stream_jump_stays_inside(const struct trace_stream *st, uint64_t sp);
/* An enter that is counted, not written (a depth limit); `sp` as above. */
void trace_stream_skip_enter(struct trace_stream *st, uint64_t sp);
/* For a writer interrupted (by a signal handler that never returns) while
 * its limit was set aside: the window's limit back. */
void trace_stream_restore_limit(struct trace_stream *st);
/* For a writer interrupted elsewhere, but never inside a refill: closes the
 * window at its last whole event, so that the next event starts a fresh
 * one and dictionary.  0, or -1 (the window forgotten) when there is no
 * whole window. */
int trace_stream_close_interrupted(struct trace_stream *st);
int trace_stream_exit(struct trace_stream *st, uint64_t address, uint64_t tick);
int trace_stream_pause(struct trace_stream *st, uint64_t tick);
#define TRACE_MARK_MAX 256 /* longer marks are cut */
int trace_stream_mark(struct trace_stream *st, uint64_t tick, const char *text);
/* Makes sure `len` bytes more than one event fit in the open window
 * (opening the next one if not), so that an enter and the values that
 * follow it land in one window.  0, or -1. */
int trace_stream_make_room(struct trace_stream *st, uint32_t len, uint64_t tick);
#define TRACE_VALUES_MAX 4096 /* bytes of one EV_ARGS or EV_RETVAL, at most */
/* The EV_ARGS or EV_RETVAL that belongs to the event just written: in the
 * same window, or not at all (then -1). */
int trace_stream_values(struct trace_stream *st, unsigned kind, const uint8_t *values,
			uint32_t len);

/* Sets up a stream of thread `tid` writing into session `s`; 0 or -1. */
int trace_stream_init(struct trace_stream *st, struct trace_session *s, uint32_t tid);
/* Makes room to remember `depth` + 1 open calls; 0, or -1 when the stack
 * could not grow (then calls that deep are counted, not remembered). */
int trace_stream_reserve_depth(struct trace_stream *st, uint32_t depth);
/* Forgets every address -> fid of the open window, so that the next call of
 * each address defines it again (and the runtime checks its module again):
 * after a module was unloaded, its addresses may belong to another one. */
void trace_stream_forget_functions(struct trace_stream *st);
/* Closes the window and frees the fid cache. */
void trace_stream_destroy(struct trace_stream *st);

#endif
