/*
 * tool_watch.c - a runtime that `calltrace attach` brought into a process
 * stops recording by itself when that calltrace is gone without a detach
 * (killed, together with the process that watches it).
 *
 * The attach names its tracing process (CALLTRACE_ATTACH_TOOL, in the
 * settings of each start); the runtime holds a pidfd of it, which turns
 * readable when it ends.  A thread whose window is full asks it before
 * taking the next one: the trace grows by at most a window per thread
 * after the tool's end.  The entries stay patched (the trampolines only
 * pass the calls on) until a later attach takes them again: only a
 * process that holds every thread stopped may put them back.  The GOT
 * slots of library calls go back at once (one store each).
 */
#include "../runtime.h"
#include "../libcall/libcall.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int tool_fd = -1;

void runtime_attach_watch_tool(void)
{
	runtime_attach_unwatch_tool();
	runtime_tool_gone = runtime_attach_tool_gone;
	const char *pid = runtime_getenv("CALLTRACE_ATTACH_TOOL");
	if (pid && *pid)
		tool_fd = (int)syscall(SYS_pidfd_open, atoi(pid), 0);
	/* Out of the program's way: its next open() must get the descriptor it
	 * would have got unattached. */
	if (tool_fd >= 0 && tool_fd < 1000) {
		int high = fcntl(tool_fd, F_DUPFD_CLOEXEC, 1000);
		if (high >= 0) {
			close(tool_fd);
			tool_fd = high;
		}
	}
}

void runtime_attach_unwatch_tool(void)
{
	if (tool_fd >= 0)
		close(tool_fd);
	tool_fd = -1;
}

int runtime_attach_tool_gone(void)
{
	struct pollfd p = {.fd = tool_fd, .events = POLLIN};
	if (tool_fd < 0 || poll(&p, 1, 0) <= 0)
		return 0;
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	if (runtime_libcall_restore)
		runtime_libcall_restore();
	return 1;
}
