/*
 * patch_attach.c - the in-process engine in a running process: the
 * bookkeeping that lets a detach put every function entry back (the entry
 * points the tool calls are session/attach_session.c's).
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
 */
#include "../runtime.h"
#include "../attach_abi.h"
#include "../../patch/address_table.h"
#include "../../patch/patch.h"
#include "patch_shadow.h"
#include "../../utils/big_table.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

_Static_assert(ATTACH_GEN_BUSY == RUNTIME_GEN_BUSY, "attach_abi.h: busy generation");
_Static_assert(ATTACH_GEN_INTERNAL == RUNTIME_GEN_INTERNAL, "attach_abi.h: internal generation");

RUNTIME_EXPORT struct attach_info calltrace_attach_info = {.abi = ATTACH_ABI_VERSION};

static uint64_t busy_pcs[ATTACH_BUSY_MAX] BIG_TABLE;
static uint32_t nbusy;

void runtime_patch_attach_busy(const uint64_t *busy, uint32_t n)
{
	memcpy(busy_pcs, busy, n * sizeof(*busy));
	nbusy = n;
}

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
	runtime_patch_original(address, out);
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

int runtime_patch_attach_jumped(uint64_t address)
{
	const struct patched_entry *e = address_table_find(&table, address);
	return e && e->jumped;
}

/* Whether the bytes at `address` are still the jump to `entry` (read so
 * that an unmapped module is no fault). */
static int still_our_jump(uint64_t address, uint64_t entry)
{
	uint8_t now[PATCH_JUMP_LEN], jump[PATCH_JUMP_LEN];
	if (arch_encode_jump(address, entry, jump) < 0)
		return 0;
	struct iovec local = {now, sizeof(now)}, remote = {(void *)address, sizeof(now)};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(now) &&
	       memcmp(now, jump, sizeof(now)) == 0;
}

uint32_t runtime_patch_attach_unpatch(void)
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
