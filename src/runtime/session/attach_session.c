/*
 * attach_session.c - the entry points `calltrace attach` makes a thread of
 * a running process call (the contract is attach_abi.h): each start opens
 * the session the tool created as a new process image and patches; each
 * stop ends recording and puts the entries back (inprocess/patch_attach.c
 * keeps them); the finish closes the trace once no thread is inside the
 * runtime.
 *
 * A fork child of a process being recorded records too, as a new process
 * image of the session; it lists itself in a page shared with its parent,
 * where the tool finds it at the detach (attach_abi.h).
 */
#include "../runtime.h"
#include "../attach_abi.h"
#include "../../patch/patch.h"
#include "../inprocess/patch_record.h"
#include "../inprocess/patch_shadow.h"
#include "../libcall/libcall.h"
#include "../../utils/big_table.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What the tool reads to name the function a fault in a trampoline, the
 * enter stub or the runtime's work for an entry is charged to: the
 * runtime installs no crash handler in a running process. */
static void note_crash_site_facts(struct attach_info *info)
{
	const uint32_t *count;
	info->code_regions = (uint64_t)(uintptr_t)patch_code_regions(&count);
	info->code_region_count = (uint64_t)(uintptr_t)count;
	info->enter_stub = (uint64_t)(uintptr_t)runtime_patch_enter_stub;
	info->enter_stub_end = (uint64_t)(uintptr_t)runtime_patch_enter_stub_end;
	info->entering_offset =
	    (int32_t)((char *)&runtime_patch_entering - (char *)__builtin_thread_pointer());
}

static char settings[ATTACH_SETTINGS_MAX] BIG_TABLE;
static struct attach_children *children; /* shared with every fork child */

/* ---- the tool's entry points ----------------------------------------------- */

/* The functions chosen and those patched: an attach patches every entry
 * at its start (patch_engine.c's lazy_module says why). */
static void count_functions(void)
{
	const uint32_t *v = runtime_patch_verdicts();
	calltrace_attach_info.functions = 0;
	for (int i = 0; i < PATCH_VERDICTS; i++)
		calltrace_attach_info.functions += v[i];
	calltrace_attach_info.patched = v[PATCH_OK];
}

/* Stops recording: no more first calls patch, every jump is put back; the
 * marks wait for put_marks_back (a thread may be inside a first call). */
static void end_recording(void)
{
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	runtime_patch_marks_stop();
	count_functions();
	calltrace_attach_info.unpatched = runtime_patch_attach_unpatch();
	if (runtime_libcall_restore) /* the GOT slots too (libcall_slots.c) */
		runtime_libcall_restore();
	calltrace_attach_info.recording = 0;
}

/* Once no thread is inside a first call: the marks left, and the jumps a
 * first call under way at the stop wrote, are put back. */
static void put_marks_back(void)
{
	count_functions();
	uint32_t n = runtime_patch_marks_remove();
	calltrace_attach_info.unpatched += n + runtime_patch_attach_unpatch();
}

/* ---- fork children ---------------------------------------------------------- */

static int follow_forks;  /* CALLTRACE_FOLLOW_FORKS is not 0 */
static int fork_followed; /* the fork under way is followed */

static int children_page(void)
{
	if (!children) {
		void *page = mmap(NULL, sizeof(*children), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			return -1;
		children = page;
	}
	__atomic_store_n(&children->count, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&children->stopped, 0, __ATOMIC_SEQ_CST);
	calltrace_attach_info.children = (uint64_t)(uintptr_t)children;
	return 0;
}

static void fork_prepare(void)
{
	fork_followed = calltrace_attach_info.recording && children && follow_forks;
	if (fork_followed)
		runtime_fork_prepare();
}

static void fork_parent(void)
{
	if (fork_followed)
		runtime_fork_parent();
}

/* The child records on, as a process of the session, and says so in the
 * shared list, unless the stop came meanwhile (the tool may have read the
 * list already): then it stops by itself. */
static void fork_child(void)
{
	if (!fork_followed) { /* not followed: the child records nothing */
		if (calltrace_attach_info.recording) {
			end_recording();
			put_marks_back();
			runtime_attach_session_close(); /* the child's copy */
		}
		return;
	}
	runtime_fork_child();
	uint32_t i = __atomic_fetch_add(&children->count, 1, __ATOMIC_SEQ_CST);
	if (i < ATTACH_CHILDREN_MAX)
		__atomic_store_n(&children->pids[i], (int32_t)getpid(), __ATOMIC_SEQ_CST);
	if (i >= ATTACH_CHILDREN_MAX || __atomic_load_n(&children->stopped, __ATOMIC_SEQ_CST)) {
		end_recording();
		put_marks_back();
		runtime_attach_session_close();
		return;
	}
	on_exit(runtime_write_exit, NULL); /* its exit status goes into the trace */
}

static void watch_forks(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* Takes the settings block (NUL-ended strings, an empty one last). */
static int take_settings(const char *block)
{
	size_t len = 0;
	while (len + 1 < sizeof(settings) && (block[len] || block[len + 1]))
		len++;
	if (len + 1 >= sizeof(settings))
		return -1;
	memcpy(settings, block, len + 2);
	runtime_env_override(settings);
	return 0;
}

RUNTIME_EXPORT int calltrace_attach_start(const char *block, const uint64_t *busy, uint32_t n)
{
	static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
	struct attach_info *info = &calltrace_attach_info;
	int saved = errno;
	info->message[0] = '\0';
	runtime_said[0] = '\0';
	runtime_said_lines_len = 0;
	if (!runtime_attach_mode && runtime_session.fd >= 0) {
		snprintf(info->message, sizeof(info->message), "it records already, into %.200s",
			 runtime_session.path);
		return -1;
	}
	if (info->recording) { /* an earlier attach that never stopped */
		end_recording();
		put_marks_back();
		runtime_attach_session_close();
	}
	if (take_settings(block) < 0 || n > ATTACH_BUSY_MAX) {
		snprintf(info->message, sizeof(info->message), "settings too long");
		return -1;
	}
	runtime_patch_attach_busy(busy, n);
	info->thread_inside = info->returns_inside = info->reused = 0;
	info->gen_offset =
	    (int32_t)((char *)&runtime_thread.gen - (char *)__builtin_thread_pointer());
	note_crash_site_facts(info);
	pthread_once(&atfork_once, watch_forks);
	const char *follow = runtime_getenv("CALLTRACE_FOLLOW_FORKS");
	follow_forks = !follow || strcmp(follow, "0") != 0;
	if (children_page() < 0) {
		snprintf(info->message, sizeof(info->message), "no memory for the children list");
		return -1;
	}
	runtime_patch_forget();
	runtime_attach_watch_tool();
	int rc = runtime_attach_session_open();
	count_functions();
	info->said_lines = (uint64_t)(uintptr_t)runtime_said_lines;
	info->said_lines_len = runtime_said_lines_len;
	info->image = runtime_session.image;
	info->recording = rc == 0;
	if (rc < 0)
		snprintf(info->message, sizeof(info->message), "%s",
			 runtime_said[0] ? runtime_said : "the runtime did not start");
	errno = saved;
	return rc;
}

RUNTIME_EXPORT int calltrace_attach_stop(void)
{
	int saved = errno;
	if (children) /* before the tool reads the list (fork_child) */
		__atomic_store_n(&children->stopped, 1, __ATOMIC_SEQ_CST);
	end_recording();
	runtime_patch_write_counts(); /* for `calltrace info`: the entries patched */
	errno = saved;
	return 0;
}

RUNTIME_EXPORT int calltrace_attach_finish(void)
{
	int saved = errno;
	runtime_attach_unwatch_tool();
	put_marks_back();
	runtime_attach_session_close();
	errno = saved;
	return 0;
}
