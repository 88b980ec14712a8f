/*
 * jump_patch.c - planning and building jump entries (see jump_patch.h).
 * Which bytes a jump displaces and how they run in the slot is the
 * patching core's (src/patch): the same rules as the in-process engine's.
 */
#include "jump_patch.h"

#include <stdlib.h>
#include <string.h>
#include "../patch/insn_info.h"
#include "../patch/patch.h"

static int fits_rel32(int64_t v)
{
	return v == (int32_t)v;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Appends `v` to the growing array *a (*n used, *cap allocated); 0 or -1. */
static int append(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		size_t more = *cap ? 2 * *cap : 4096;
		uint64_t *grown = realloc(*a, more * sizeof(**a));
		if (!grown)
			return -1;
		*a = grown;
		*cap = more;
	}
	(*a)[(*n)++] = v;
	return 0;
}

int branch_targets_collect(struct branch_targets *bt, const uint8_t *code, size_t len,
			   uint64_t base)
{
	size_t cap = 0, unknown_cap = 0, off = 0;
	memset(bt, 0, sizeof(*bt));
	while (off < len) {
		struct insn_info in;
		if (insn_info_decode(code + off, len - off, base + off, &in) == 0) {
			if (append(&bt->unknown, &bt->nunknown, &unknown_cap, base + off) < 0)
				return -1;
			off++; /* resynchronise */
			continue;
		}
		if (in.rel_size && append(&bt->v, &bt->n, &cap, in.target) < 0)
			return -1;
		off += in.len;
	}
	qsort(bt->v, bt->n, sizeof(*bt->v), by_value);
	return 0;
}

void branch_targets_free(struct branch_targets *bt)
{
	free(bt->v);
	free(bt->unknown);
	memset(bt, 0, sizeof(*bt));
}

/* The first of the `n` ascending values `v` above `addr`: its index. */
static size_t first_above(const uint64_t *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does any known branch land in (addr, addr + n)? */
static int branch_into(const struct branch_targets *bt, uint64_t addr, size_t n)
{
	size_t i = first_above(bt->v, bt->n, addr);
	return i < bt->n && bt->v[i] < addr + n;
}

/* Are there bytes the sweep could not decode in [addr, addr + size)? */
static int unknown_inside(const struct branch_targets *bt, uint64_t addr, size_t size)
{
	size_t i = first_above(bt->unknown, bt->nunknown, addr - 1);
	return i < bt->nunknown && bt->unknown[i] < addr + size;
}

int jump_plan_build(struct jump_plan *jp, uint64_t addr, const uint8_t *code, size_t size,
		    const struct branch_targets *bt)
{
	size_t displaced, relocated;
	uint8_t trial[PATCH_RELOCATED_MAX];
	memset(jp, 0, sizeof(*jp));
	/* No padding is assumed after the function: its neighbour may start
	 * right there.  Code of its own not decoded may hide a branch into
	 * the bytes the jump covers.  A call that returns inside them could
	 * be running already when they are rewritten (an attach).  The trial
	 * relocation, in place, is the shortest the slot will hold. */
	if (patch_plan(code, size, 0, addr, &displaced) != PATCH_OK ||
	    patch_call_returns_inside(code, displaced, addr) || branch_into(bt, addr, displaced) ||
	    unknown_inside(bt, addr, size) ||
	    patch_relocate(code, displaced, addr, trial, addr, &relocated) != PATCH_OK ||
	    relocated > JUMP_SLOT_SIZE - JUMP_MOVED_OFFSET)
		return 0;
	jp->len = (uint8_t)displaced;
	return 1;
}

/* Writes the displaced instructions, relocated to run at `at`, and the
 * jump back into `out` (up to the slot's end), noting where each went;
 * 0 or -1. */
static int move_insns(struct jump_plan *jp, uint64_t addr, const uint8_t *code, uint64_t at,
		      uint8_t *out)
{
	uint8_t moved[PATCH_RELOCATED_MAX];
	struct patch_layout layout;
	size_t len;
	if (patch_relocate_layout(code, jp->len, addr, moved, at, &len, &layout) != PATCH_OK ||
	    len > JUMP_SLOT_SIZE - JUMP_MOVED_OFFSET || layout.n > JUMP_MAX_INSNS + 1)
		return -1;
	memcpy(out, moved, len);
	jp->nbounds = layout.n;
	memcpy(jp->from, layout.from, layout.n);
	memcpy(jp->to, layout.to, layout.n);
	return 0;
}

int jump_fill_slot(struct jump_plan *jp, uint64_t addr, const uint8_t *code, uint64_t slot,
		   uint64_t trap, uint8_t *out)
{
	static const uint8_t head[JUMP_MOVED_OFFSET] = {
	    0x4c, 0x89, 0x5c, 0x24, 0xf8,	/* mov %r11,-8(%rsp) */
	    0x4c, 0x8b, 0x1c, 0x24,		/* mov (%rsp),%r11 */
	    0xcc,				/* int3 */
	    0x4c, 0x8d, 0x1d, 0,    0,	  0, 0, /* lea trap(%rip),%r11 */
	    0x4c, 0x89, 0x1c, 0x24,		/* mov %r11,(%rsp) */
	    0x4c, 0x8b, 0x5c, 0x24, 0xf8,	/* mov -8(%rsp),%r11 */
	};
	enum { LEA_DISP = 13, LEA_END = 17 };
	memset(out, 0xcc, JUMP_SLOT_SIZE);
	memcpy(out, head, sizeof(head));
	int64_t to_trap = (int64_t)(trap - (slot + LEA_END));
	if (!fits_rel32(to_trap))
		return -1;
	int32_t rel = (int32_t)to_trap;
	memcpy(out + LEA_DISP, &rel, 4);
	return move_insns(jp, addr, code, slot + JUMP_MOVED_OFFSET, out + JUMP_MOVED_OFFSET);
}

void jump_pass_bytes(uint8_t *out)
{
	memset(out, 0x90, JUMP_PASS_LEN); /* nop: every byte is an instruction boundary */
}

void jump_patch_bytes(uint64_t addr, uint64_t slot, uint8_t *patch)
{
	int32_t rel = (int32_t)(slot - (addr + JUMP_PATCH_LEN));
	patch[0] = 0xe9;
	memcpy(patch + 1, &rel, 4);
}

uint64_t jump_rip_back(const struct jump_plan *jp, uint64_t addr, uint64_t slot, uint64_t rip,
		       int *r11_saved)
{
	*r11_saved = rip > slot + JUMP_SAVED_OFFSET && rip < slot + JUMP_MOVED_OFFSET;
	if (rip < slot || rip >= slot + JUMP_SLOT_SIZE)
		return rip;
	if (rip < slot + JUMP_MOVED_OFFSET)
		return addr; /* from the start: the entry is recorded again */
	uint64_t off = rip - (slot + JUMP_MOVED_OFFSET);
	for (unsigned i = 0; i < jp->nbounds; i++)
		if (off == jp->to[i])
			return addr + jp->from[i];
	return rip; /* inside one instruction's stand-in: the slot stays a way through */
}
