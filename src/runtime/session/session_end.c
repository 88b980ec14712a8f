/*
 * session_end.c - the end of a process, and of the session when it is the
 * last one out.
 *
 * A process ends by exit() (the runtime library's destructor runs after the
 * program's own exit handlers and destructors), by _exit() or _Exit()
 * (wrapped here: the exit status goes into the trace, which a fork child
 * that ends so would otherwise never say), or by a fatal signal (crash.c).
 * Each process of a session holds a shared lock on the trace file; at its
 * end it drops it and tries to take the file exclusively, which only the
 * last one out manages (trace_session_last_out).  When the session asked
 * for JSON (output.c), that one runs `calltrace json` on the trace and
 * waits for it, so the JSON is there when the program's exit status is.
 *
 * A process killed outright (kill -9) ends without a word: the binary
 * trace stays, whole up to that moment, for `calltrace json` to read.
 */
#include "../runtime.h"
#include "../../utils/big_table.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char json_path[PATH_MAX] BIG_TABLE;
static int remove_trace;
static int compact;
static int ended;

void runtime_session_end_init(void)
{
	const char *end = runtime_json_end();
	if (!end)
		return;
	const char *colon = strchr(end, ':');
	if (!colon || !colon[1])
		return;
	remove_trace = strncmp(end, "remove:", 7) == 0;
	snprintf(json_path, sizeof(json_path), "%s", colon + 1);
	const char *pretty = runtime_getenv("CALLTRACE_PRETTY_JSON");
	compact = pretty && (strcmp(pretty, "0") == 0 || strcmp(pretty, "false") == 0);
}

static void write_json(void)
{
	const char *trace = runtime_session.path;
	const char *missing = runtime_tool_missing();
	if (missing) {
		runtime_say("cannot write %s: %s; the calls are in %s: `calltrace json -o %s %s`",
			    json_path, missing, trace, json_path, trace);
		return;
	}
	const char *args[] = {"json", compact ? "--compact" : "--pretty", "-o", json_path, trace,
			      NULL};
	int rc = runtime_tool_run(args, -1);
	if (rc != 0) {
		runtime_say("`calltrace json` failed (exit status %d): %s not written; the calls "
			    "are in %s",
			    rc, json_path, trace);
		return;
	}
	if (remove_trace)
		unlink(trace);
}

void runtime_session_end(void)
{
	if (ended || !runtime_session.header || runtime_session.pid != (uint32_t)getpid())
		return; /* ended already, never began, or a vfork child */
	ended = 1;
	struct thread_state *t = &runtime_thread;
	uint32_t gen = runtime_internal_begin(t);
	int last = json_path[0] && trace_session_last_out(&runtime_session);
	runtime_debug("process ends%s", last ? ", the last of the session" : "");
	if (last)
		write_json();
	runtime_internal_end(t, gen);
}

__attribute__((destructor)) static void runtime_destructor(void)
{
	int saved = errno;
	trace_own_begin();
	runtime_session_end();
	trace_own_end();
	errno = saved;
}

static __attribute__((noreturn)) void end_now(int status)
{
	runtime_write_exit(status, NULL);
	runtime_session_end();
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

RUNTIME_EXPORT void _exit(int status)
{
	end_now(status);
}

RUNTIME_EXPORT void _Exit(int status)
{
	end_now(status);
}
