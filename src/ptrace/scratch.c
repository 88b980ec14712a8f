/*
 * scratch.c - memory the engine maps into the tracee: the trap page and
 * regions of out-of-line slots.
 *
 * Every region starts with a return trap (an int3: a return into it is
 * recognised by its address); the first, the trap page, also holds a
 * "syscall; int3" gadget for remote system calls.  Then come slots.  Regions are mapped close to
 * the code they serve so that a copied instruction's %rip operand still reaches its target. They
 * stay mapped after a detach: a signal frame might still return into a slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "engine.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE 4096ull
#define TRAP_OFFSET 0
#define SYSCALL_OFFSET 8
#define FIRST_SLOT 64
#define REACH (1ull << 30) /* keep slots within 1 GiB of their code */

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static long remote_mmap(struct engine *e, struct thread *t, uint64_t insn, uint64_t hint,
			uint64_t size, int flags)
{
	return remote_syscall(e, t, insn, SYS_mmap, (long)hint, (long)size, PROT_READ | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

/* Maps `size` bytes near `near`; returns the address or 0. */
static uint64_t map_near(struct engine *e, struct thread *t, uint64_t insn, uint64_t near,
			 uint64_t size)
{
	for (int k = 1; k <= 64; k++) {
		uint64_t step = (uint64_t)k << 20;
		uint64_t below = near > step + size ? (near - step - size) & ~(PAGE - 1) : 0;
		uint64_t above = (near + step) & ~(PAGE - 1);
		uint64_t hints[2] = {below, above};
		for (int i = 0; i < 2; i++) {
			if (hints[i] < (1ull << 20) || hints[i] + size >= (1ull << 47))
				continue;
			long got = remote_mmap(e, t, insn, hints[i], size, MAP_FIXED_NOREPLACE);
			if (got == -ESRCH)
				return 0;
			if (got > 0 && (uint64_t)got == hints[i])
				return (uint64_t)got;
		}
	}
	long got = remote_mmap(e, t, insn, 0, size, 0);
	return got > 0 ? (uint64_t)got : 0;
}

static int add_region(struct process *p, uint64_t base, uint64_t size, uint64_t used)
{
	struct scratch_region *r = realloc(p->regions, (p->nregions + 1) * sizeof(*r));
	if (!r)
		return -1;
	p->regions = r;
	r[p->nregions++] = (struct scratch_region){base, size, used};
	return 0;
}

/* Fills a fresh region with int3s. */
static int fill_traps(struct process *p, uint64_t base, uint64_t size)
{
	uint8_t page[PAGE];
	memset(page, 0xcc, sizeof(page));
	for (uint64_t off = 0; off < size; off += PAGE)
		if (mem_poke_code(p, base + off, page, PAGE) < 0)
			return -1;
	return 0;
}

int scratch_setup_trap_page(struct engine *e, struct thread *t, const struct module *exe)
{
	struct process *p = t->proc;
	static const uint8_t gadget[3] = {0x0f, 0x05, 0xcc};
	uint8_t saved[3];
	uint64_t at = exe->exec_low; /* any code no other thread runs now */
	if (mem_read_code(p, at, saved, 3) < 0 || mem_poke_code(p, at, gadget, 3) < 0)
		return -1;
	uint64_t base = map_near(e, t, at, exe->low, PAGE);
	if (mem_poke_code(p, at, saved, 3) < 0 || base == 0)
		return -1;
	if (fill_traps(p, base, PAGE) < 0 || mem_poke_code(p, base + SYSCALL_OFFSET, gadget, 2) < 0)
		return -1;
	p->trap = base + TRAP_OFFSET;
	p->syscall_insn = base + SYSCALL_OFFSET;
	return add_region(p, base, PAGE, FIRST_SLOT);
}

int is_trap(const struct process *p, uint64_t address)
{
	for (size_t i = 0; i < p->nregions; i++)
		if (p->regions[i].base == address)
			return 1;
	return 0;
}

uint64_t scratch_slot(struct engine *e, struct thread *t, uint64_t near, size_t len, size_t want,
		      uint64_t *trap)
{
	struct process *p = t->proc;
	for (size_t i = 0; i < p->nregions; i++) {
		struct scratch_region *r = &p->regions[i];
		if (r->used + len <= r->size && distance(r->base, near) < REACH) {
			uint64_t slot = r->base + r->used;
			r->used += len;
			*trap = r->base;
			return slot;
		}
	}
	if (!p->syscall_insn)
		return 0;
	uint64_t size = (want + FIRST_SLOT + len + PAGE - 1) & ~(PAGE - 1);
	uint64_t base = map_near(e, t, p->syscall_insn, near, size);
	/* The region's first bytes are its return trap. */
	if (base == 0 || distance(base, near) >= REACH || fill_traps(p, base, size) < 0 ||
	    add_region(p, base, size, FIRST_SLOT + len) < 0)
		return 0;
	*trap = base;
	return base + FIRST_SLOT;
}
