/*
 * jump_patch.c - planning and building jump entries (see jump_patch.h).
 */
#include "jump_patch.h"

#include <stdlib.h>
#include <string.h>
#include "insn_decode.h"

static int fits_rel32(int64_t v)
{
	return v == (int32_t)v;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int branch_targets_collect(struct branch_targets *bt, const uint8_t *code, size_t len,
			   uint64_t base)
{
	size_t cap = 4096, off = 0;
	bt->n = 0;
	bt->v = malloc(cap * sizeof(*bt->v));
	if (!bt->v)
		return -1;
	while (off < len) {
		struct x86_insn in;
		if (x86_decode(code + off, len - off, &in) == 0) {
			off++; /* data or padding: resynchronise */
			continue;
		}
		if (in.rel_size) {
			if (bt->n == cap) {
				uint64_t *v = realloc(bt->v, 2 * cap * sizeof(*v));
				if (!v)
					return -1;
				bt->v = v;
				cap *= 2;
			}
			bt->v[bt->n++] = base + off + in.len + (uint64_t)in.imm;
		}
		off += in.len;
	}
	qsort(bt->v, bt->n, sizeof(*bt->v), by_value);
	return 0;
}

void branch_targets_free(struct branch_targets *bt)
{
	free(bt->v);
	bt->v = NULL;
	bt->n = 0;
}

/* Does any known branch land in (addr, addr + n)? */
static int branch_into(const struct branch_targets *bt, uint64_t addr, size_t n)
{
	size_t lo = 0, hi = bt->n;
	while (lo < hi) { /* first target > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (bt->v[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bt->n && bt->v[lo] < addr + n;
}

int jump_plan_build(struct jump_plan *jp, uint64_t addr, const uint8_t *code, size_t size,
		    const struct branch_targets *bt)
{
	size_t off = 0;
	memset(jp, 0, sizeof(*jp));
	while (off < JUMP_PATCH_LEN) {
		struct x86_insn in;
		if (jp->ninsns == JUMP_MAX_INSNS || x86_decode(code + off, size - off, &in) == 0 ||
		    in.rel_size || (in.map == MAP_ONE && (in.opcode == 0xc3 || in.opcode == 0xc2)))
			return 0;
		/* Nothing that uses %r11 before the slot has restored it. */
		jp->bounds[jp->ninsns++] = (uint8_t)off;
		off += in.len;
	}
	if (off > size || branch_into(bt, addr, off))
		return 0;
	jp->len = (uint8_t)off;
	return 1;
}

/* Copies the moved instructions to `out` (at address `at`) with their
 * %rip operands fixed; 0 or -1. */
static int move_insns(const struct jump_plan *jp, uint64_t addr, const uint8_t *code, uint64_t at,
		      uint8_t *out)
{
	memcpy(out, code, jp->len);
	for (unsigned i = 0; i < jp->ninsns; i++) {
		struct x86_insn in;
		unsigned start = jp->bounds[i];
		x86_decode(code + start, jp->len - start, &in);
		if (!in.rip_disp_off)
			continue;
		int32_t disp;
		memcpy(&disp, code + start + in.rip_disp_off, 4);
		int64_t moved = (int64_t)disp + (int64_t)(addr - at);
		if (!fits_rel32(moved))
			return -1;
		int32_t fixed = (int32_t)moved;
		memcpy(out + start + in.rip_disp_off, &fixed, 4);
	}
	return 0;
}

int jump_fill_slot(const struct jump_plan *jp, uint64_t addr, const uint8_t *code, uint64_t slot,
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
	if (move_insns(jp, addr, code, slot + JUMP_MOVED_OFFSET, out + JUMP_MOVED_OFFSET) < 0)
		return -1;
	uint64_t jmp_at = slot + JUMP_MOVED_OFFSET + jp->len;
	int64_t back = (int64_t)(addr + jp->len - (jmp_at + 5));
	if (!fits_rel32(back))
		return -1;
	rel = (int32_t)back;
	out[JUMP_MOVED_OFFSET + jp->len] = 0xe9;
	memcpy(out + JUMP_MOVED_OFFSET + jp->len + 1, &rel, 4);
	return 0;
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
	for (unsigned i = 0; i < jp->ninsns; i++)
		if (off == jp->bounds[i])
			return addr + off;
	return addr + jp->len; /* at the jmp back */
}
