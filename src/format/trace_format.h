/*
 * trace_format.h - the bytes of a calltrace trace file.
 *
 * A trace file is one 4 KiB header page followed by chunks.  Every chunk
 * starts with a struct trace_chunk and is 8-byte aligned.  Space for chunks
 * is claimed with an atomic add on trace_file_header.next_offset, which lives
 * in the MAP_SHARED header page and so works across threads and forks.
 *
 * Event chunks hold a stream of variable-length events for one thread:
 *
 *   byte0 & 3 == 1      ENTER  fid = byte0 >> 2 (0..63), then varint delta
 *   byte0 & 3 == 3      ENTER  fid = byte0 >> 2 | varint << 6, then varint delta
 *   byte0 & 3 == 2      EXIT of the innermost open call:
 *                              delta = byte0 >> 2 (63: delta = 63 + varint)
 *   byte0 & 3 == 0      extended event, kind = byte0 >> 2 (EV_*)
 *   byte0 == 0          end of the stream (the window is zero-filled)
 *
 * Function ids (fid) index a dictionary that each chunk builds: every
 * EV_DEFINE appends one address.  Time deltas count time units (clock ticks
 * >> header.tick_shift) from the previous event of the chunk (the first from
 * chunk.base_tick, in the same units).  An exit is
 * written in the short form only when the writer's own stack of open calls
 * says it ends the innermost one; otherwise (longjmp, coroutines, very deep
 * recursion) it is EV_EXIT_AT with its function id, and the reader unwinds
 * to that function.
 *
 * Only src/format/ knows these bytes; everything else uses the encoder
 * (event_encode.h, trace_writer.h) or the reader (trace_reader.h).
 */
#ifndef CALLTRACE_TRACE_FORMAT_H
#define CALLTRACE_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_FILE_MAGIC "CALLTRC"
#define TRACE_FILE_VERSION 1
#define TRACE_HEADER_SIZE 4096
#define TRACE_CHUNK_MAGIC 0x4b435443u /* "CTCK" little-endian */
#define TRACE_DEFAULT_WINDOW (1u << 20)
#define TRACE_MIN_WINDOW (16u << 10)
#define TRACE_MAX_WINDOW (64u << 20)

/* trace_file_header.clock */
enum trace_clock { TRACE_CLOCK_TSC = 1, TRACE_CLOCK_MONOTONIC = 2 };

struct trace_file_header {
	char magic[8]; /* "CALLTRC\0" */
	uint32_t version;
	uint32_t header_size; /* TRACE_HEADER_SIZE */
	uint32_t window_size; /* bytes of one event window */
	uint32_t clock;	      /* enum trace_clock */
	uint64_t tick_hz;     /* ticks per second (1e9 for MONOTONIC) */
	uint64_t start_tick;  /* tick, monotonic and realtime ns at creation */
	uint64_t start_mono_ns;
	uint64_t start_real_ns;
	uint32_t tick_shift;  /* event times count ticks >> tick_shift (about 1 ns) */
	uint32_t command_len; /* bytes used in command[] */
	uint32_t machine;     /* ELF e_machine of the recorded programs (system
				 call numbers depend on it); 0: x86-64 */
	/* A ring (record --ring; see below): 0 slots when the file is not one. */
	uint32_t ring_slots;		   /* event windows of the ring */
	uint32_t ring_slot_size;	   /* bytes of each, its chunk header included */
	uint32_t ring_snapshots;	   /* atomic: snapshots taken so far (their names) */
	uint64_t ring_table;		   /* file offset of struct trace_ring_table */
	uint64_t ring_overwritten_windows; /* atomic: windows reused, their events gone */
	uint64_t ring_overwritten_calls;   /* atomic: calls entered in them */
	uint32_t ring_private_threads;	   /* atomic: threads that found no slot
					      of their own, wrote in memory (see below) */
	uint32_t reserved_pad;		   /* 0 */
	/* Kernel events (system calls, off-CPU intervals) the kernel's ring
	 * buffers had no room for: the session's, of no thread (perf does not
	 * say whose they were).  Written by the recorder at the end. */
	uint64_t kernel_lost_events;
	char reserved[8];
	/* Written by every process of the session: own cache line. */
	uint64_t next_offset __attribute__((aligned(64))); /* atomic */
	uint32_t next_image;				   /* atomic */
	uint32_t lost_windows;				   /* atomic */
	/* Below this offset every claim has its disk blocks: a claim past it
	 * backs itself and the space after it (trace_session.c).  0: the
	 * session does not reserve ahead (attach, a runtime's own session,
	 * older traces).  Writers only. */
	uint64_t reserved_end; /* atomic */
	/* Which reason a process last gave for stopping (a hash; atomic): the
	 * others that stop for the same one (a full disk) do not say it again. */
	uint32_t stop_said;
	char pad[64 - 28];
	char command[2048]; /* the command line, arguments NUL-separated */
	/* The recording's options that leave calls out, as given ("-t 1ms -D
	 * 5 -F main"), NUL-terminated; "" when none (and in older traces). */
	char filters[256];
};
_Static_assert(__builtin_offsetof(struct trace_file_header, next_offset) == 128,
	       "the header's layout");
_Static_assert(sizeof(struct trace_file_header) <= TRACE_HEADER_SIZE, "the header fits its page");

/*
 * A ring (`record --ring SIZE`): the file never grows past SIZE of event
 * windows (plus the header page, the slot table and metadata records).
 * Right after the header page, a CHUNK_SKIP chunk holds struct
 * trace_ring_table (header.ring_table is its offset); after it, page
 * aligned, ring_slots chunks of ring_slot_size bytes each, every one an
 * event window (CHUNK_EVENTS) or nothing yet (CHUNK_SKIP).  A thread
 * writes into a slot of its own (RING_WORKING); a full window is copied
 * into a slot, a free one while there are any, else (the fairness rule)
 * the oldest whole window of the thread that holds the most slots (whole,
 * being written, being filled), of threads holding as many the one that
 * wrote the most windows: so every thread keeps its most recent windows,
 * and a thread that calls rarely keeps its own.  An ended thread's last
 * window is not reused while such windows fill at most half the ring.  The
 * events of a reused slot are counted in the header (ring_overwritten_*).
 * A window no slot can take (a thread writes in each, or holds its last) is
 * begun again in place, counted the same: the one gap a thread's run of
 * windows can have.  A thread that finds no slot of its own writes its
 * window in memory and copies it in the same way (ring_private_threads).
 * Each window begins with EV_OPEN_CALLS, the calls open when it began, so
 * that a reader whose first window is a later one knows what the exits in
 * it end.
 */
enum trace_ring_state {
	RING_FREE = 0,	  /* never used */
	RING_WORKING = 1, /* a thread's window, being written */
	RING_KEPT = 2,	  /* a whole window (the oldest is reused first) */
	RING_BUSY = 3,	  /* being replaced */
};

struct trace_ring_slot {
	uint32_t state;	     /* enum trace_ring_state (atomic) */
	uint32_t gen;	     /* odd while the slot's bytes are replaced (a snapshot
				copies a slot whose gen stayed even and unchanged) */
	uint32_t image, tid; /* who wrote it */
	uint64_t stamp;	     /* when it was filled: table.next_stamp */
	uint64_t calls;	     /* calls entered in its window */
	uint32_t pid;	     /* of the process that wrote it */
	uint32_t seq;	     /* its window's number in its thread (chunk seq) */
};

struct trace_ring_table {
	uint32_t next_free;  /* atomic: slots handed out fresh so far */
	uint32_t slots;	     /* = header.ring_slots */
	uint64_t next_stamp; /* atomic */
	uint64_t first_slot; /* file offset of slot 0 */
	uint64_t reserved;
	struct trace_ring_slot slot[];
};

/* Chunk kinds. */
enum trace_chunk_kind {
	CHUNK_EVENTS = 1,  /* a thread's event window */
	CHUNK_PROCESS = 2, /* struct trace_process_record + strings */
	CHUNK_MODULE = 3,  /* struct trace_module_record + build-id + path */
	CHUNK_THREAD = 4,  /* struct trace_thread_record + name */
	CHUNK_CRASH = 5,   /* struct trace_crash_record + stack */
	CHUNK_SKIP = 6,	   /* nothing to read: a window being reset or copied out */
	CHUNK_KERNEL = 7,  /* a thread's events seen by the kernel (see below) */
};

struct trace_chunk {
	uint32_t magic;	      /* TRACE_CHUNK_MAGIC */
	uint16_t kind;	      /* enum trace_chunk_kind */
	uint16_t header_size; /* sizeof(struct trace_chunk) */
	uint32_t length;      /* bytes reserved, header included, 8-aligned */
	uint32_t used;	      /* payload bytes used; 0 for an event window
				 that was never closed: read to the first 0 */
	uint32_t image;	      /* process image (one per exec'd or forked process) */
	uint32_t pid;
	uint32_t tid;
	uint32_t seq;	     /* per-thread window sequence number */
	uint64_t base_tick;  /* events: the time unit the first delta counts from */
	uint64_t clock_tick; /* a tick and the CLOCK_MONOTONIC ns read */
	uint64_t clock_ns;   /* together: anchors this chunk's ticks */
};

/* CHUNK_PROCESS: how an image began or ended. */
enum trace_process_event {
	PROCESS_START = 1,     /* first process of the session */
	PROCESS_FORK = 2,      /* child of parent_image */
	PROCESS_EXEC = 3,      /* new image in an existing pid */
	PROCESS_EXIT = 4,      /* status = exit code, or 128+signal */
	PROCESS_FUNCTIONS = 5, /* struct trace_function_counts after the
				  (empty) strings: the in-process engine's */
};

struct trace_process_record {
	uint32_t event;	       /* enum trace_process_event */
	uint32_t parent_image; /* FORK: the parent; EXEC: the image replaced */
	uint32_t ppid;
	int32_t status;
	uint32_t exe_len; /* then exe path, then command (NUL-separated) */
	uint32_t command_len;
};

/* A PROCESS_EXIT record may carry, after its strings, what the process used,
 * as wait4() gave it to the recorder that started it: the process and the
 * children it waited for.  A reader that does not know of it sees an exit
 * record with bytes to spare, and ignores them; a reader skips a process
 * event it does not know. */
struct trace_process_usage {
	uint64_t user_us, system_us; /* CPU time */
	uint64_t max_rss_kib;	     /* largest resident set */
	uint64_t voluntary_switches, involuntary_switches;
};

/* A PROCESS_FUNCTIONS record: what the in-process engine did with the
 * functions of the image, written by the runtime at the image's end (exit,
 * _exit, a fatal signal); a later one of the image replaces an earlier.
 * Readers from before it skip the event. */
struct trace_function_counts {
	uint32_t marked;   /* entries marked, to be patched at their first call */
	uint32_t ran;	   /* of them, called: patched (or recorded through their mark) */
	uint32_t trapped;  /* of those, recorded through their mark: too short for a jump */
	uint32_t at_start; /* entries patched at start, not marked (the C library's, attach) */
};

/* CHUNK_MODULE: a loaded or unloaded ELF object. */
enum trace_module_event { MODULE_LOAD = 1, MODULE_UNLOAD = 2 };

struct trace_module_record {
	uint32_t event;	       /* enum trace_module_event */
	uint32_t build_id_len; /* then build-id bytes, then path bytes */
	uint64_t load_bias;    /* runtime address = file vaddr + load_bias */
	uint64_t low, high;    /* runtime address range of its PT_LOAD segments */
	uint32_t path_len;
	uint32_t reserved;
};

/* CHUNK_THREAD */
enum trace_thread_event {
	THREAD_START = 1,
	THREAD_END = 2,
	THREAD_NAME = 3,
	THREAD_LOST_CALLS = 4, /* "name": the decimal count of calls the writer
				  could not record (a signal handler's, when
				  they did not fit aside; see the runtime) */
};

struct trace_thread_record {
	uint32_t event;	   /* enum trace_thread_event */
	uint32_t name_len; /* then the name */
};

/* CHUNK_CRASH: a fatal signal, written by the crash handler (the runtime)
 * or by the ptrace engine when the signal killed the thread. */
struct trace_crash_record {
	int32_t signal;
	int32_t code;
	uint64_t fault_address;
	uint32_t frames; /* then frames x uint64_t: the crash site, then return addresses */
	uint32_t flags;	 /* enum trace_crash_flag (0 in traces written before them) */
};

enum trace_crash_flag {
	/* The fault address lies in the guard region below the crashing
	 * thread's stack, or just below its lowest page: the stack is full. */
	CRASH_STACK_OVERFLOW = 1,
	/* The fault hit in the tracer's own code for the entry of a call of
	 * the program (its trampoline or jump slot, the copy of the function's
	 * displaced instructions there, the runtime recording the call);
	 * frames[0] is the function's place, frames[1] the instruction that
	 * faulted. */
	CRASH_IN_TRACER = 2,
};

/* Extended events (byte0 = kind << 2). */
enum trace_event_kind {
	EV_DEFINE = 1,	   /* varint address: next fid of this chunk */
	EV_PAUSE = 2,	   /* varint delta: recording stopped, open calls end */
	EV_MARK = 3,	   /* varint delta, varint length, bytes: a user mark */
	EV_EXIT_AT = 4,	   /* varint fid, varint delta: the exit of that function */
	EV_UNWIND = 5,	   /* varint delta, varint n: a longjmp left all but the
			      n outermost open calls; they end here, unfinished */
	EV_ARGS = 6,	   /* varint len, len bytes: the argument values of the
			      call whose ENTER comes right before (see below) */
	EV_RETVAL = 7,	   /* varint len, len bytes: one value, the return value
			      of the call whose EXIT comes right before */
	EV_OPEN_CALLS = 8, /* varint n: the next n ENTERs (delta 0) are the
			      calls open when the window began, outermost
			      first (ring windows only; see above) */
};

/* The values in EV_ARGS (one per parameter, in the order DWARF lists the
 * function's parameters) and EV_RETVAL (one) are each a tag byte and what
 * it says follows.  What they mean (int, double, struct...) is the
 * function's DWARF type, read again at analysis time. */
enum trace_value_tag {
	VALUE_BYTES = 0,       /* varint n, n bytes: the value as it is in memory
				  (little-endian scalars, struct bytes, pointers) */
	VALUE_STRING = 1,      /* varint n, n bytes: what a char * pointed to,
				  whole (the NUL not included) */
	VALUE_STRING_CUT = 2,  /* varint n, n bytes: the first n bytes of a
				  longer string */
	VALUE_NULL = 3,	       /* a char * that was NULL */
	VALUE_UNAVAILABLE = 4, /* not recoverable here (optimized out) */
	VALUE_UNREADABLE = 5,  /* varint n, n bytes: a char * (the pointer's
				  bytes) whose memory could not be read */
};
#define TRACE_STRING_MAX 64 /* string bytes captured at most */

/*
 * Kinds of calls.  The address an EV_DEFINE gives a function id carries
 * the kind of the call in bits 60..62 (bit 63 is 0); the rest says what is
 * called:
 *
 *   CALL_FUNCTION  the program's own function: its runtime address (kind 0,
 *                  so every trace written before kinds reads the same)
 *   CALL_LIBRARY   a call from a traced module into another shared library:
 *                  the runtime address of the GOT slot it went through (the
 *                  slot's relocation names the function called), or, for a
 *                  call through a pointer dlsym() returned, the function's
 *                  own address
 *   CALL_SYSCALL   a system call: its number (of header.machine)
 *   CALL_OFFCPU    an interval off the CPU: enum trace_offcpu_reason
 *   CALL_KERNEL    a kernel function: its address's low 60 bits (kernel
 *                  addresses have all of bits 60..63 set); none recorded yet
 *
 * EV_ARGS and EV_RETVAL of a library call hold the values its prototype
 * (symbols/prototypes.h) says, in its order; a failed call's EV_RETVAL
 * holds a second value, errno (VALUE_BYTES, 4 bytes), when the prototype
 * says how failure shows.  A system call's EV_ARGS holds six VALUE_BYTES
 * of 8 bytes (the raw argument registers) and its EV_RETVAL one (the raw
 * return value: -errno on failure).  After them may come what its
 * arguments pointed to, copied at the call (EV_ARGS) or at the return
 * (EV_RETVAL): pairs of a VALUE_BYTES of 1 byte (SYSCALL_VALUE_*) and the
 * value: a string or buffer as VALUE_STRING / VALUE_STRING_CUT, a struct
 * as VALUE_BYTES, VALUE_UNREADABLE (no bytes) where the memory could not
 * be read.  Traces written before have no pairs: pointers are shown.
 */
#define SYSCALL_VALUE_ARG 0x07	   /* the argument's index, 0..5 */
#define SYSCALL_VALUE_ELEMENT 0x08 /* one element of an array (argv), in order */
#define SYSCALL_VALUE_MORE 0x10	   /* the array goes on (VALUE_UNAVAILABLE) */
enum trace_call_kind {
	CALL_FUNCTION = 0,
	CALL_LIBRARY = 1,
	CALL_SYSCALL = 2,
	CALL_OFFCPU = 3,
	CALL_KERNEL = 4,
};
#define TRACE_KIND_SHIFT 60
#define TRACE_KIND_BITS 0x7ull
#define TRACE_WHERE_MASK ((1ull << TRACE_KIND_SHIFT) - 1)
#define TRACE_CALL_ADDRESS(kind, where)                                                            \
	((uint64_t)(kind) << TRACE_KIND_SHIFT | ((uint64_t)(where)&TRACE_WHERE_MASK))
#define TRACE_CALL_KIND(address) ((unsigned)((address) >> TRACE_KIND_SHIFT & TRACE_KIND_BITS))
#define TRACE_CALL_WHERE(address) ((address)&TRACE_WHERE_MASK)

enum trace_offcpu_reason {
	OFFCPU_PREEMPTED = 0, /* runnable, but another task had the CPU */
	OFFCPU_BLOCKED = 1,   /* asleep (waiting in a system call, a page fault) */
};

/*
 * CHUNK_KERNEL: the events of one thread that the kernel saw (system calls,
 * off-CPU intervals), written by the session's kernel collector, not by the
 * thread.  The payload is an event stream as in CHUNK_EVENTS (its own fid
 * dictionary, deltas from base_tick, on the trace's clock), with fids of
 * kinds CALL_SYSCALL and CALL_OFFCPU only.  chunk.image is 0: the reader
 * gives the events to the thread (pid, tid) of the image that ran at their
 * time (events before an image's first record belong to it: a program's
 * loader runs before the runtime starts).  seq counts this thread's
 * kernel chunks, apart from its own windows.  The reader merges the two
 * streams by time; on equal times a kernel EXIT comes before the thread's
 * event and a kernel ENTER after it.
 *
 * Each chunk goes whole to one image, by the time of its first event.  At
 * an exec the collector ends the chunk of the thread that execs and
 * numbers the next one 0 again (kernel_stream_exec): the reader takes that
 * chunk's first event for the start of the new image (its loader's system
 * calls come before its first record).  Without the mark, the new image
 * begins at its first record.
 */

#define EV_SHORT_FID_MAX 64   /* fids below this fit in byte0 */
#define EV_SHORT_DELTA_MAX 63 /* exit deltas below this fit in byte0 */
#define EV_MAX_BYTES 40	      /* longest DEFINE + ENTER/EXIT */

#endif
