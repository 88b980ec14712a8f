/*
 * patch_lazy.c - the in-process engine patches a function when it is
 * first called.  At start every chosen entry gets a mark (arch_mark: one
 * int3 byte, a BRK #0; nothing decoded, one write per module); the first call traps here,
 * and under one lock the function's trampoline is built and its entry
 * rewritten into the jump (patch_engine.c), the call itself sent on
 * through the trampoline so that it is recorded like every later one.  An
 * entry too short for the jump keeps its mark: each of its calls traps
 * and is sent through its trampoline.
 *
 * Races: a thread that meets a mark while another builds that function
 * waits on the lock, then goes where the entry leads now.  The jump is
 * written with its opcode last (code_memory.c), so a thread reads either
 * the mark or the whole jump.  A trap that finds its mark gone (the jump
 * written, or a detach put the byte back) runs the entry again.  The lock
 * (patch_lock.c) is taken around fork.
 *
 * Ahead of their calls: a function that ran in an earlier process of the
 * session is patched with the marks (patch_warm.c), and one a fork child
 * patched is patched in its parent before the next fork.
 *
 * Signals: the handler runs with every other signal blocked, so no
 * signal handler of the program runs on a thread holding the lock; a
 * first call made by the runtime's own work under the lock (a marked
 * function it calls: the program's own free()) finds the lock its own:
 * the mark is taken out while the lock is held (another thread's call
 * meanwhile is not traced) and written again before it is let go.  SIGTRAP itself is never blocked
 * (the kernel kills a process whose trap is blocked); a trap that is not a
 * mark goes to the handler that was there before (patch_trap.c).
 *
 * A module's code marked at start is shared by the session's processes
 * where the cache folder has it: the writes of its marks and of its warm
 * patches are held back and the cache's code mapped instead
 * (patch_shared.c).
 */
#include "../runtime.h"
#include "../../patch/address_table.h"
#include "../../patch/patch.h"
#include "patch_lock.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "patch_shared.h"
#include "../../utils/sort_addresses.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum mark_state { MARKED = 1, PATCHED, TRAPPED, GIVEN_UP };

struct mark {
	uint64_t address;  /* 0: a free slot */
	uint64_t entry_at; /* its trampoline's entry, once built */
	const struct func_plan *plan;
	const struct patch_decoded *decoded; /* its entry's, or NULL: decoded at its first call */
	uint32_t size;
	uint16_t room;
	uint8_t original[ARCH_MARK_LEN]; /* the bytes the mark took */
	uint8_t state;
	uint8_t by_hooks;
	uint8_t written; /* the mark is in the code */
	uint8_t warm;	 /* it ran in an earlier process: patched with the marks */
};

/* A grown table leaves the old one mapped: a trap under the runtime's own
 * lock reads without it. */
static struct address_table marks = {
    .entry_size = sizeof(struct mark), .first_size = 256, .keep_old = 1};
static size_t unwritten; /* marks noted but not written yet */
static size_t warm_waiting;				 /* warm marks not patched yet */
static uint64_t unwritten_lo = UINT64_MAX, unwritten_hi; /* where they lie */

/* Where marks not written lie (the next write's span); `count`: a new
 * one to write (not a forgotten one, written with the next new ones). */
static void note_unwritten(uint64_t address, int count)
{
	unwritten += (size_t)count;
	unwritten_lo = address < unwritten_lo ? address : unwritten_lo;
	unwritten_hi = address > unwritten_hi ? address : unwritten_hi;
}

static struct patch_lazy_counts counts;
static int stopped; /* an attach's stop: no entry is patched any more */

/* ---- the table -------------------------------------------------------------- */

static int still_there(const struct mark *m);

/* Whether the mark is in the code at `address`. */
static int marked_at(uint64_t address)
{
	const volatile uint8_t *code = (const volatile uint8_t *)address;
	for (int i = 0; i < ARCH_MARK_LEN; i++)
		if (code[i] != arch_mark[i])
			return 0;
	return 1;
}

/* Writes the mark at `address`, or puts back the bytes it took. */
static int put_mark(uint64_t address)
{
	return patch_write_back(address, arch_mark, ARCH_MARK_LEN);
}

static int take_mark(const struct mark *m)
{
	return patch_write_back(m->address, m->original, ARCH_MARK_LEN);
}

int runtime_patch_mark(uint64_t address, size_t size, size_t room, const struct func_plan *plan,
		       int by_hooks)
{
	return runtime_patch_mark_decoded(address, size, room, plan, by_hooks, NULL, 0);
}

int runtime_patch_mark_decoded(uint64_t address, size_t size, size_t room,
			       const struct func_plan *plan, int by_hooks,
			       const struct patch_decoded *decoded, int warm)
{
	runtime_patch_lock();
	struct mark *m = address_table_add(&marks, address); /* the one there, or a new one */
	if (m && m->written && m->state != GIVEN_UP && still_there(m)) {
		runtime_patch_unlock(); /* marked or patched already */
		return 0;
	}
	int rc = m ? 0 : -1;
	if (m) {
		*m = (struct mark){.address = address,
				   .plan = plan,
				   .decoded = decoded,
				   .size = (uint32_t)size,
				   .room = (uint16_t)(room < 0xffff ? room : 0xffff),
				   .state = MARKED,
				   .by_hooks = (uint8_t)by_hooks,
				   .warm = (uint8_t)(warm && decoded)};
		if (decoded) /* read here, in the order of the module's list */
			memcpy(m->original, decoded->entry, ARCH_MARK_LEN);
		warm_waiting += m->warm;
		note_unwritten(address, 1);
	}
	runtime_patch_unlock();
	return rc;
}

void runtime_patch_marks_reserve(size_t more)
{
	runtime_patch_lock();
	address_table_reserve(&marks, more); /* else address_table_add grows it */
	runtime_patch_unlock();
}

static int patch_marked(struct mark *m);

/* The addresses of the warm marks waiting, ascending, in a mapping of
 * `*bytes` (room to sort them); NULL when there is no memory. */
static uint64_t *warm_in_order(size_t *n, size_t *bytes)
{
	*bytes = 2 * warm_waiting * sizeof(uint64_t);
	uint64_t *a =
	    mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return NULL;
	struct mark *m;
	*n = 0;
	for (size_t at = 0; *n < warm_waiting && (m = address_table_next(&marks, &at));)
		if (m->warm && m->state == MARKED && m->written)
			a[(*n)++] = m->address;
	sort_addresses(a, *n, a + warm_waiting);
	return a;
}

/* The marks of the functions that ran in an earlier process of the session
 * (ran_cache.c) are patched with the marks, as their first calls would
 * (the program has one thread, or the module's code has not run): the
 * module's code is open, the jumps are stored, the trampolines copied.
 * In the order of their addresses, so that their trampolines lie where
 * they lay in other processes (patch_shared.c). */
static void patch_warm_marks(void)
{
	size_t n = 0, bytes;
	uint64_t *order = warm_in_order(&n, &bytes);
	patch_code_open_all(1);
	for (size_t i = 0; order && i < n && !stopped; i++) {
		struct mark *m = address_table_find(&marks, order[i]);
		counts.warm += m && patch_marked(m) == 0;
	}
	patch_code_open_all(0);
	patch_code_seal();
	if (order)
		munmap(order, bytes);
	warm_waiting = 0;
}

/* Writes the marks noted, a module's code opened once for all of them
 * (each alone when the span cannot be opened), or its code mapped from
 * the cache folder, where an earlier process left it (patch_shared.c). */
void runtime_patch_marks_write(const char *path, int with_eh_frame, uint64_t bias)
{
	if (!unwritten)
		return;
	runtime_patch_trap_install();
	runtime_patch_lock();
	patch_code_batch(1);
	uint64_t lo = unwritten_lo, hi = unwritten_hi;
	struct mark *m;
	int shared = runtime_patch_shared_begin(
	    path, with_eh_frame, bias, lo, hi, unwritten + 2 * warm_waiting + 64, warm_waiting > 0);
	int opened = !shared && hi >= lo && patch_code_writable(lo, hi, 1) == 0;
	for (size_t at = 0; (m = address_table_next(&marks, &at));) {
		if (m->written)
			continue;
		/* Held back, the module's code is read only where a warm
		 * function is patched: the bytes a mark takes are the entry's
		 * decoding's (made from the same code, unmarked). */
		if (!shared || !m->decoded)
			memcpy(m->original, (const void *)m->address, ARCH_MARK_LEN);
		if (opened) {
			memcpy((void *)m->address, arch_mark, ARCH_MARK_LEN);
			__builtin___clear_cache((char *)m->address,
						(char *)m->address + ARCH_MARK_LEN);
		} else if (put_mark(m->address) < 0) {
			continue;
		}
		m->written = 1;
		counts.marked++;
	}
	if (warm_waiting)
		patch_warm_marks();
	if (opened)
		patch_code_writable(lo, hi, 0);
	if (shared)
		runtime_patch_shared_end();
	unwritten = 0;
	unwritten_lo = UINT64_MAX;
	unwritten_hi = 0;
	patch_code_batch(0);
	runtime_patch_unlock();
}

/* Takes a mark back: the function runs untraced from now on. */
static void give_up(struct mark *m)
{
	take_mark(m);
	m->state = GIVEN_UP;
}

/* Marks the runtime's own work met under the lock (a program's own free()
 * that building a trampoline calls): taken out while the lock is held, so
 * that the work runs the function untraced, and written again before the
 * lock is let go, so that the program's first call is still its own. */
#define TAKEN_OUT_MAX 64
static uint64_t taken_out[TAKEN_OUT_MAX];
static unsigned ntaken_out;

static void take_out_for_now(struct mark *m)
{
	if (ntaken_out == TAKEN_OUT_MAX) {
		give_up(m);
		return;
	}
	take_mark(m);
	taken_out[ntaken_out++] = m->address;
}

static void mark_again(void)
{
	for (unsigned i = 0; i < ntaken_out; i++) {
		struct mark *m = address_table_find(&marks, taken_out[i]);
		if (m && m->state == MARKED)
			put_mark(m->address);
	}
	ntaken_out = 0;
}

/* A copy of the function being patched, its mark taken out: patch_plan
 * reads the whole function for branches into the jump's bytes.  Under the
 * lock; grown as needed, never shrunk. */
static uint8_t *scratch;
static size_t scratch_size;

static const uint8_t *copy_without_mark(const struct mark *m)
{
	if (m->size > scratch_size) {
		size_t size = ((size_t)m->size + 65535) & ~(size_t)65535;
		void *p =
		    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		if (scratch)
			munmap(scratch, scratch_size);
		scratch = p;
		scratch_size = size;
	}
	memcpy(scratch, (const void *)m->address, m->size);
	memcpy(scratch, m->original, m->size < ARCH_MARK_LEN ? m->size : ARCH_MARK_LEN);
	return scratch;
}

/* The first call of the function marked at `m`: its trampoline built,
 * its entry patched (or its mark kept).  Under the lock. */
/* The function's trampoline built from its entry's decoding: only the
 * bytes it displaces are read. */
static enum patch_verdict build_decoded(const struct mark *m, uint64_t *entry_at, int *trapped)
{
	uint8_t code[PATCH_DISPLACED_MAX];
	size_t n = m->decoded->displaced <= sizeof(code) ? m->decoded->displaced : 0;
	if (runtime_patch_shared_holding() && n <= sizeof(m->decoded->code)) {
		/* held back: the code in memory is the decoding's */
		memcpy(code, m->decoded->code, n);
	} else {
		memcpy(code, (const void *)m->address, n);
		memcpy(code, m->original, n < ARCH_MARK_LEN ? n : ARCH_MARK_LEN);
	}
	return runtime_patch_build_decoded(m->address, code, m->decoded, m->plan, m->by_hooks,
					   entry_at, trapped);
}

/* Patches the function marked at `m` (or keeps its mark: too short for a
 * jump); 0, or -1 when it is given up.  Under the lock; the caller seals
 * the trampolines. */
static int patch_marked(struct mark *m)
{
	uint64_t entry_at = 0;
	int trapped = 0;
	const uint8_t *code = m->decoded || !m->size ? NULL : copy_without_mark(m);
	enum patch_verdict v = m->decoded ? build_decoded(m, &entry_at, &trapped)
			       : code
				   ? runtime_patch_build(m->address, code, m->size, m->room,
							 m->plan, m->by_hooks, &entry_at, &trapped)
				   : PATCH_NO_MEMORY;
	runtime_patch_count_verdict(v);
	if (v != PATCH_OK) {
		give_up(m);
		return -1;
	}
	m->entry_at = entry_at;
	m->state = trapped ? TRAPPED : PATCHED;
	counts.trapped += (uint32_t)trapped;
	return 0;
}

/* ---- what fork children patched -------------------------------------------- */

/* A fork child (a shell's, before its exec) calls functions its parent
 * never does, and each child would trap at each of them again.  A child
 * notes the functions of its first calls in a page it shares with its
 * parent; the parent patches them before its next fork, and its later
 * children inherit them patched.  A note lost to a race costs a trap. */
#define CHILD_NOTES 511
struct child_notes {
	uint64_t count; /* notes claimed (may pass CHILD_NOTES) */
	uint64_t address[CHILD_NOTES];
};
static uint32_t first_calls_here;	 /* since this process started or forked */
static struct child_notes *own_notes;	 /* this process's children note here */
static struct child_notes *parent_notes; /* a fork child notes here */
static uint64_t notes_seen;		 /* of own_notes, patched already */

static void note_for_parent(uint64_t address)
{
	uint64_t i = __atomic_fetch_add(&parent_notes->count, 1, __ATOMIC_RELAXED);
	if (i < CHILD_NOTES)
		__atomic_store_n(&parent_notes->address[i], address, __ATOMIC_RELEASE);
}

void runtime_patch_before_fork(void)
{
	if (!own_notes) {
		void *p = mmap(NULL, sizeof(*own_notes), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		own_notes = p == MAP_FAILED ? NULL : p;
		return;
	}
	uint64_t n = __atomic_load_n(&own_notes->count, __ATOMIC_ACQUIRE);
	n = n < CHILD_NOTES ? n : CHILD_NOTES;
	int patched = 0;
	patch_code_batch(1);
	for (; notes_seen < n && !stopped; notes_seen++) {
		uint64_t a = __atomic_load_n(&own_notes->address[notes_seen], __ATOMIC_ACQUIRE);
		struct mark *m = a ? address_table_find(&marks, a) : NULL;
		if (m && m->state == MARKED && m->written && marked_at(a) && patch_marked(m) == 0)
			counts.warm++, patched = 1;
	}
	mark_again();
	patch_code_batch(0);
	if (patched)
		patch_code_seal();
}

void runtime_patch_in_fork_child(void)
{
	first_calls_here = 0;
	parent_notes = own_notes; /* shared with the parent */
	own_notes = NULL;	  /* its own children get a page of their own */
	notes_seen = 0;
}

uint32_t runtime_patch_first_calls_here(void)
{
	return first_calls_here;
}

static void first_call(struct mark *m)
{
	int ok = patch_marked(m) == 0;
	patch_code_seal();
	counts.ran += (uint32_t)ok;
	first_calls_here += (uint32_t)ok;
	if (ok && parent_notes)
		note_for_parent(m->address);
}

/* Whether the mark (or the jump that replaced it) is still in the code:
 * else the module is gone and another may be there. */
static int still_there(const struct mark *m)
{
	if (m->state == MARKED || m->state == TRAPPED)
		return marked_at(m->address);
	return m->state == PATCHED &&
	       patch_jump_target((const uint8_t *)m->address, m->address) == m->entry_at;
}

/* Where the thread that trapped at `pc` goes on: the trampoline, the entry
 * again (the mark is gone), or 0 when the trap is not a mark. */
uint64_t runtime_patch_resume_after_trap(uint64_t pc)
{
	if (runtime_patch_lock_mine()) {
		/* The runtime's own work under the lock called a marked function. */
		struct mark *m = address_table_find(&marks, pc);
		if (!m)
			return marked_at(pc) ? 0 : pc;
		if (m->state == TRAPPED)
			return m->entry_at;
		if (m->state == MARKED)
			take_out_for_now(m);
		return pc;
	}
	runtime_patch_lock();
	patch_code_batch(1);
	struct mark *m = address_table_find(&marks, pc);
	uint64_t resume = 0;
	if (m && m->state == MARKED && marked_at(pc)) {
		if (stopped)
			give_up(m);
		else
			first_call(m);
	}
	if (!marked_at(pc))
		resume = pc; /* patched, given up or put back: run it again */
	else if (m && m->state == TRAPPED)
		resume = m->entry_at;
	mark_again();
	patch_code_batch(0);
	runtime_patch_unlock();
	return resume;
}

/* ---- counts and the attach's stop ---------------------------------------------- */

struct patch_lazy_counts runtime_patch_lazy_counts(void)
{
	return counts;
}

int runtime_patch_original(uint64_t address, uint8_t *out)
{
	struct mark *m = address_table_find(&marks, address);
	if (!m || !m->written || m->state == GIVEN_UP)
		return -1;
	memcpy(out, m->original, ARCH_MARK_LEN);
	return 0;
}

void runtime_patch_marks_stop(void)
{
	__atomic_store_n(&stopped, 1, __ATOMIC_SEQ_CST);
}

uint32_t runtime_patch_marks_remove(void)
{
	uint32_t n = 0;
	runtime_patch_lock();
	struct mark *m;
	for (size_t at = 0; (m = address_table_next(&marks, &at));) {
		if (!m->written || m->state == GIVEN_UP)
			continue;
		if (marked_at(m->address) && take_mark(m) == 0)
			n++;
		m->state = GIVEN_UP;
	}
	runtime_patch_unlock();
	return n;
}

size_t runtime_patch_marks_ran(uint64_t lo, uint64_t hi, uint64_t bias, uint64_t *out, size_t max)
{
	size_t n = 0;
	struct mark *m;
	runtime_patch_lock();
	for (size_t at = 0; (m = address_table_next(&marks, &at));)
		if (!m->warm && (m->state == PATCHED || m->state == TRAPPED) && m->address >= lo &&
		    m->address < hi && n < max)
			out[n++] = m->address - bias;
	runtime_patch_unlock();
	return n;
}

struct span {
	uint64_t lo, hi;
};

static int in_span(void *entry, void *ctx)
{
	const struct mark *m = entry;
	const struct span *s = ctx;
	return m->address >= s->lo && m->address < s->hi;
}

uint32_t runtime_patch_marks_drop(uint64_t lo, uint64_t hi)
{
	struct span s = {lo, hi};
	runtime_patch_lock();
	uint32_t n = (uint32_t)address_table_remove_if(&marks, in_span, &s);
	runtime_patch_unlock();
	return n;
}

void runtime_patch_marks_forget(void)
{
	runtime_patch_lock();
	struct mark *m;
	for (size_t at = 0; (m = address_table_next(&marks, &at));)
		if (m->state == GIVEN_UP) {
			m->written = 0;
			note_unwritten(m->address, 0);
		}
	memset(&counts, 0, sizeof(counts));
	stopped = 0;
	runtime_patch_unlock();
}
