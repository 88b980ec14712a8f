/*
 * state.c - what every layer of the runtime shares, at the bottom: the
 * settings, the session's trace file, whether and in which generation it
 * records, and the runtime's messages (on stderr, or kept for the tool
 * that attached).  Also what the layers above the record path lend it
 * when they start (runtime.h: runtime_record_filter and the others), so
 * that nothing here or in core/ calls up but the session's start.
 */
#include "../runtime.h"
#include "../../format/own_work.h"
#include "../../utils/big_table.h"
#include "../../utils/string_hash.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct runtime_config runtime_config;
struct trace_session runtime_session = {.fd = -1};
volatile uint32_t runtime_state = 1; /* not 0, so the first hook initialises */
volatile uint32_t runtime_start_gen;
volatile uint32_t runtime_module_epoch;
uint32_t runtime_max_depth = UINT32_MAX;
uint32_t runtime_fast_depth = 0;

int runtime_attach_mode;
volatile uint32_t runtime_session_epoch;
uint32_t runtime_generation = 2;
int runtime_stopped_for_good;
char runtime_said[256];
char runtime_said_lines[8192] BIG_TABLE;
uint32_t runtime_said_lines_len;

/* Attach mode: a line kept for the tool. */
static void keep_for_tool(const char *line)
{
	snprintf(runtime_said, sizeof(runtime_said), "%s", line);
	size_t len = strlen(line), at = runtime_said_lines_len;
	if (at + len + 1 > sizeof(runtime_said_lines))
		return;
	memcpy(runtime_said_lines + at, line, len);
	runtime_said_lines[at + len] = '\n';
	runtime_said_lines_len = (uint32_t)(at + len + 1);
}

/* The stderr the image started with, kept at a descriptor of the
 * runtime's own: a program that closes its stderr (a daemon) still gets
 * -v's lines at its end, and one whose own file takes descriptor 2 never
 * gets the runtime's lines in it.  Before it is kept, descriptor 2. */
#define SAY_FD_LOW 1010
enum { SAY_UNSET, SAY_KEPT, SAY_NOWHERE };
static int say_state, say_fd = -1;
static dev_t say_dev;
static ino_t say_ino;

void runtime_say_keep_stderr(void)
{
	struct stat st;
	if (say_state != SAY_UNSET)
		return;
	trace_own_begin();
	int kept = fstat(2, &st) == 0 && (say_fd = fcntl(2, F_DUPFD_CLOEXEC, SAY_FD_LOW)) >= 0;
	trace_own_end();
	if (kept) {
		say_dev = st.st_dev;
		say_ino = st.st_ino;
	}
	say_state = kept ? SAY_KEPT : SAY_NOWHERE;
}

static int is_kept_stderr(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == say_dev && st.st_ino == say_ino;
}

/* Where a line goes: the kept stderr, or descriptor 2 while it is that
 * file still (a program closed every descriptor but the first three);
 * -1: nowhere. */
static int say_target(void)
{
	if (say_state == SAY_UNSET)
		return 2;
	if (say_state == SAY_NOWHERE)
		return -1;
	if (is_kept_stderr(say_fd))
		return say_fd;
	return is_kept_stderr(2) ? 2 : -1;
}

/* One line on stderr, `prefix` first; no malloc, one write. */
static void say_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2 * PATH_MAX + 256];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	size_t len = strlen(buf);
	if (runtime_attach_mode) { /* the tool says it: the process's stderr is its own */
		keep_for_tool(buf + strlen(prefix));
		return;
	}
	buf[len] = '\n';
	int fd = say_target();
	if (fd >= 0) {
		ssize_t unused = write(fd, buf, len + 1);
		(void)unused;
	}
}

void runtime_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_line("calltrace: ", fmt, ap);
	va_end(ap);
}

void runtime_debug(const char *fmt, ...)
{
	if (!runtime_config.debug)
		return;
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "calltrace[%d]: ", (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	say_line(prefix, fmt, ap);
	va_end(ap);
}

const struct runtime_record_filter *runtime_record_filter;
const struct runtime_time_filter *runtime_time_filter;
const struct runtime_args_pending *runtime_args_pending;
int (*runtime_crash_guard)(void);
int (*runtime_tool_gone)(void);
int runtime_filters_on;
int runtime_time_filter_on;

void runtime_state_bump(void)
{
	uint32_t next = __atomic_add_fetch(&runtime_generation, 2, __ATOMIC_ACQ_REL);
	uint32_t state = __atomic_load_n(&runtime_state, __ATOMIC_ACQUIRE);
	while (state != 0 && state != 1 &&
	       !__atomic_compare_exchange_n(&runtime_state, &state, next, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
}

/* Whether another process of the session said `why` already (a full disk
 * stops every process that writes: one line says it for all). */
static int said_by_another(const char *why)
{
	uint32_t h = string_hash(why) | 1; /* 0: nothing said yet */
	return runtime_session.header &&
	       __atomic_exchange_n(&runtime_session.header->stop_said, h, __ATOMIC_ACQ_REL) == h;
}

void runtime_stop_for_good(const char *why)
{
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	if (__atomic_exchange_n(&runtime_stopped_for_good, 1, __ATOMIC_ACQ_REL) ||
	    said_by_another(why))
		return;
	runtime_say("%s: %s; recording stopped, the program goes on", runtime_session.path, why);
}
