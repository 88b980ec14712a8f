/*
 * patch_attach.c - the in-process engine in a running process: the entry
 * points `calltrace attach` makes a thread of the process call (the
 * contract is attach_abi.h), and the bookkeeping that lets a detach put
 * every function entry back.
 *
 * The tool holds every other thread stopped while a start patches the
 * entries (all of them: a running process may block the trap a first-call
 * mark needs) and while a stop unpatches, and hands over where each thread stood at the start: no
 * bytes rewritten may hold a thread, nor be where a call among them would
 * return to.  Every entry rewritten is noted with its original bytes; a
 * stop writes those back (where the jump is still ours) and leaves the
 * trampolines and the return stub in place for the calls still running;
 * the marks of the functions that never ran are put back at the finish,
 * once no thread is inside a first call.
 * A later attach takes a function's old trampoline again when the bytes
 * it displaced are the same.
 *
 * The unwinder's entries (patch_engine.c) stay patched after the detach:
 * a call still running may return through the runtime, and an exception
 * that passes it must find the real return address (they only hand the
 * real return addresses back, and are patched once for all attaches).
 *
 * A fork child of a process being recorded records too, as a new process
 * image of the session; it lists itself in a page shared with its parent,
 * where the tool finds it at the detach (attach_abi.h).
 */
#include "../runtime.h"
#include "../attach_abi.h"
#include "../../patch/address_table.h"
#include "../../patch/patch.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "../libcall/libcall.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

_Static_assert(ATTACH_GEN_BUSY == RUNTIME_GEN_BUSY, "attach_abi.h: busy generation");
_Static_assert(ATTACH_GEN_INTERNAL == RUNTIME_GEN_INTERNAL, "attach_abi.h: internal generation");

RUNTIME_EXPORT struct attach_info calltrace_attach_info = {.abi = ATTACH_ABI_VERSION};

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

static char settings[ATTACH_SETTINGS_MAX];
static uint64_t busy_pcs[ATTACH_BUSY_MAX];
static uint32_t nbusy;
static struct attach_children *children; /* shared with every fork child */

/* ---- the entries rewritten ------------------------------------------------ */

struct patched_entry {
	uint64_t address; /* 0: a free slot */
	uint64_t entry;	  /* its trampoline's entry */
	uint8_t displaced;
	uint8_t jumped; /* the jump is written now */
	/* The bytes the jump covers and those displaced: a function shorter
	 * than the jump displaces fewer bytes than the jump overwrites. */
	uint8_t original[PATCH_DISPLACED_MAX];
	const struct func_plan *plan; /* the arguments its trampoline captures */
};

static struct address_table table = {.entry_size = sizeof(struct patched_entry),
				     .first_size = 4096};
static struct patched_entry pending; /* the function being patched */

/* How many bytes of an entry that displaces `displaced` a patch changes. */
static size_t bytes_changed(size_t displaced)
{
	return displaced > PATCH_JUMP_LEN ? displaced : PATCH_JUMP_LEN;
}

/* ---- patching and unpatching ---------------------------------------------- */

static int thread_inside(uint64_t address, size_t len)
{
	for (uint32_t i = 0; i < nbusy; i++)
		if (busy_pcs[i] > address && busy_pcs[i] < address + len)
			return 1;
	return 0;
}

/* The bytes at `address` as the compiler wrote them: the mark that waits
 * for the first call taken out. */
static void original_bytes(uint64_t address, uint8_t *out, size_t len)
{
	memcpy(out, (const void *)address, len);
	int byte = runtime_patch_original_byte(address);
	if (byte >= 0)
		out[0] = (uint8_t)byte;
}

/* The earlier trampoline of the function at `address`, when the bytes it
 * displaced are still those and it captures the arguments this attach
 * wants: the jump to it written again. */
static int jump_again(struct patched_entry *e, const uint8_t *now, size_t displaced,
		      const struct func_plan *plan)
{
	if (!e || e->jumped || e->displaced != displaced || e->plan != plan ||
	    memcmp(now, e->original, bytes_changed(displaced)) != 0 ||
	    patch_write_jump(e->address, e->entry) < 0)
		return 0;
	e->jumped = 1;
	calltrace_attach_info.reused++;
	return 1;
}

int runtime_patch_attach_vet(uint64_t address, size_t displaced, const struct func_plan *plan)
{
	if (thread_inside(address, displaced)) {
		calltrace_attach_info.thread_inside++;
		return PATCH_THREAD_INSIDE;
	}
	if (patch_call_returns_inside((const uint8_t *)address, displaced, address)) {
		calltrace_attach_info.returns_inside++;
		return PATCH_RETURNS_INSIDE;
	}
	uint8_t now[PATCH_DISPLACED_MAX];
	original_bytes(address, now, bytes_changed(displaced));
	if (jump_again(address_table_find(&table, address), now, displaced, plan))
		return PATCH_OK;
	pending.address = address;
	pending.displaced = (uint8_t)displaced;
	memcpy(pending.original, now, bytes_changed(displaced));
	pending.plan = plan;
	return -1;
}

void runtime_patch_attach_note(uint64_t address, uint64_t entry)
{
	struct patched_entry *e =
	    pending.address == address ? address_table_add(&table, address) : NULL;
	if (!e) {
		runtime_say("cannot keep the original bytes of %#lx", (unsigned long)address);
		return;
	}
	*e = pending;
	e->entry = entry;
	e->jumped = 1;
}

/* Whether the bytes at `address` are still the jump to `entry` (read so
 * that an unmapped module is no fault). */
static int still_our_jump(uint64_t address, uint64_t entry)
{
	uint8_t now[PATCH_JUMP_LEN], jump[PATCH_JUMP_LEN] = {0xe9};
	int32_t rel = (int32_t)(entry - (address + PATCH_JUMP_LEN));
	memcpy(jump + 1, &rel, 4);
	struct iovec local = {now, sizeof(now)}, remote = {(void *)address, sizeof(now)};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(now) &&
	       memcmp(now, jump, sizeof(now)) == 0;
}

/* Puts the entries back, but the unwinder's: a thread may still throw
 * through a call whose return goes through the runtime. */
static uint32_t unpatch_all(void)
{
	uint32_t n = 0;
	struct patched_entry *e;
	for (size_t at = 0; (e = address_table_next(&table, &at));) {
		if (!e->jumped || runtime_patch_is_unwinder(e->address))
			continue;
		e->jumped = 0;
		if (still_our_jump(e->address, e->entry) &&
		    patch_write_back(e->address, e->original, PATCH_JUMP_LEN) == 0)
			n++;
	}
	return n;
}

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
	calltrace_attach_info.unpatched = unpatch_all();
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
	calltrace_attach_info.unpatched += n + unpatch_all();
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
	memcpy(busy_pcs, busy, n * sizeof(*busy));
	nbusy = n;
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
