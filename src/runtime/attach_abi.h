/*
 * attach_abi.h - what `calltrace attach` and the runtime it loads into a
 * running process agree on: the runtime's entry points for the tool (it
 * makes a thread of the process call them) and the state it reads back.
 *
 *   int calltrace_attach_start(const char *settings, const uint64_t *busy,
 *                              uint32_t nbusy)
 *       settings: "NAME=value" strings, each NUL-ended, then an empty one
 *       (the CALLTRACE_* variables `record` would set; CALLTRACE_SESSION
 *       names the trace file the tool created).  busy: where the threads
 *       stand (and restart a system call): no bytes rewritten hold one.
 *       Opens the session, patches, records; 0, or -1 (see message).
 *   int calltrace_attach_stop(void)
 *       Recording off and every entry put back but the unwinder's: calls
 *       still running go on returning through the runtime, and exceptions
 *       that pass them get the real return addresses from it.
 *   int calltrace_attach_finish(void)
 *       Closes the trace file: once no thread is inside the runtime.
 *   Processes the recording one forks record too, each a new process image
 *   of the session; the tool finds them in `children` and makes each call
 *   calltrace_attach_stop and calltrace_attach_finish at the detach.
 *   struct attach_info calltrace_attach_info
 */
#ifndef CALLTRACE_ATTACH_ABI_H
#define CALLTRACE_ATTACH_ABI_H

#include <stdint.h>

#define ATTACH_ABI_VERSION 6
#define ATTACH_SETTINGS_MAX 16384
#define ATTACH_BUSY_MAX 4096
#define ATTACH_CHILDREN_MAX 1000

/* A thread's generation while it is inside the runtime (writing an event,
 * or doing the runtime's own work): runtime.h's RUNTIME_GEN_BUSY and
 * RUNTIME_GEN_INTERNAL. */
#define ATTACH_GEN_BUSY 3u
#define ATTACH_GEN_INTERNAL 7u

struct attach_info {
	uint32_t abi;		 /* ATTACH_ABI_VERSION */
	int32_t gen_offset;	 /* a thread's generation (uint32_t), from its thread pointer */
	uint32_t image;		 /* the process image the last start wrote */
	uint32_t functions;	 /* functions the last start looked at */
	uint32_t patched;	 /* ... and patched */
	uint32_t thread_inside;	 /* left alone: a thread stood in their first bytes */
	uint32_t returns_inside; /* left alone: a call there would return inside them */
	uint32_t reused;	 /* patched with the trampoline of an earlier attach */
	uint32_t unpatched;	 /* entries the last stop put back */
	uint32_t recording;	 /* between a start and its stop */
	char message[256];	 /* why the last call failed, "" when none */
	uint64_t children;	 /* where the struct attach_children is */
	/* Where a fault in calltrace's code for a call's entry is charged to
	 * (src/patch/trampoline_site.h): the trampoline memory (a table of
	 * struct patch_code_region and its uint32_t count), the enter stub, and
	 * a thread's record being entered (uint64_t) from its thread pointer. */
	uint64_t code_regions, code_region_count;
	uint64_t enter_stub, enter_stub_end;
	int32_t entering_offset;
	/* The runtime's lines since the last start (which modules it records
	 * and why, with CALLTRACE_PATCH_VERBOSE), each ended by a newline: where
	 * they are and how many bytes. */
	uint64_t said_lines;
	uint32_t said_lines_len;
};

/* The processes forked while recording, which record too (fork children of
 * children among them): a page shared by them all, its address the same in
 * each.  A stop sets `stopped` before the tool reads the list; a child
 * that finds it set as it starts stops by itself. */
struct attach_children {
	uint32_t count;	  /* pids taken, may exceed ATTACH_CHILDREN_MAX */
	uint32_t stopped; /* the attach's stop came */
	int32_t pids[ATTACH_CHILDREN_MAX];
};

#endif
