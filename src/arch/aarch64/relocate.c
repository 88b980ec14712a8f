/*
 * relocate.c (aarch64) - the patching core's planning and relocation for
 * 64-bit Arm (patch.h): the entry jump is one B, so it displaces exactly
 * the function's first instruction, and no branch of the function can land
 * inside the bytes it rewrites.  That instruction runs in the trampoline as
 * it is, unless it reads the program counter: ADR and ADRP become a load
 * of the address they computed; B, BL, B.cond, CBZ/CBNZ and TBZ/TBNZ reach
 * their target through an absolute address (BL sets the link register to
 * the original return address, so that the callee returns straight into
 * the function); a load from a literal becomes a load through its address.
 * x16 and x17 (IP0, IP1) are free at a function's entry under AAPCS64: the
 * code here uses them.  Instructions are decoded by their fixed fields;
 * nothing needs capstone.
 */
#include "../../patch/patch.h"

#include <string.h>

#define INSN 4
#define X16 16
#define X17 17
#define NOP 0xd503201fu

int patch_decoder_init(void)
{
	return 0;
}

const char *patch_decoder_error(void)
{
	return "none";
}

int patch_decoder_ready(void)
{
	return 1;
}

static uint32_t insn_at(const uint8_t *code)
{
	uint32_t v;
	memcpy(&v, code, 4);
	return v;
}

static uint8_t *put(uint8_t *out, uint32_t insn)
{
	memcpy(out, &insn, 4);
	return out + 4;
}

static uint8_t *put64(uint8_t *out, uint64_t v)
{
	memcpy(out, &v, 8);
	return out + 8;
}

/* The signed value of bits [lo, lo + width) of `insn`. */
static int64_t field(uint32_t insn, int lo, int width)
{
	uint64_t v = (insn >> lo) & ((1ull << width) - 1);
	return (int64_t)(v << (64 - width)) >> (64 - width);
}

/* ldr xt, <the 8 bytes two instructions on>; b over them; .quad value:
 * xt holds `value` (16 bytes). */
static uint8_t *load_constant(uint8_t *out, unsigned rt, uint64_t value)
{
	out = put(out, 0x58000000u | (2u << 5) | rt); /* ldr xt, .+8 */
	out = put(out, 0x14000003u);		      /* b .+12 */
	return put64(out, value);
}

/* ldr x17, .+8; br x17; .quad to: a jump anywhere (16 bytes). */
static uint8_t *absolute_jump(uint8_t *out, uint64_t to)
{
	out = put(out, 0x58000000u | (2u << 5) | X17);
	out = put(out, 0xd61f0000u | (X17 << 5));
	return put64(out, to);
}

uint8_t *patch_emit_jump(uint8_t *out, uint64_t from, uint64_t to)
{
	uint8_t b[ARCH_JUMP_LEN];
	if (arch_encode_jump(from, to, b) < 0)
		return absolute_jump(out, to);
	memcpy(out, b, sizeof(b));
	return out + sizeof(b);
}

uint8_t *patch_emit_enter(uint8_t *out, uint64_t at, uint64_t record, uint64_t stub)
{
	int64_t d = (int64_t)(record - at); /* adr x16, record (it lies before) */
	out = put(out, 0x10000000u | ((uint32_t)(d & 3) << 29) |
			   ((uint32_t)((d >> 2) & 0x7ffff) << 5) | X16);
	return absolute_jump(out, stub);
}

uint64_t patch_jump_target(const uint8_t *code, uint64_t address)
{
	uint32_t insn = insn_at(code);
	if ((insn & 0xfc000000u) != 0x14000000u)
		return 0;
	return address + (uint64_t)(field(insn, 0, 26) * 4);
}

/* ---- planning ------------------------------------------------------------ */

enum patch_verdict patch_plan(const uint8_t *code, size_t size, size_t pad, uint64_t address,
			      size_t *displaced)
{
	(void)code, (void)pad;
	if (size < INSN || (address & 3))
		return PATCH_TOO_SHORT;
	*displaced = INSN;
	return PATCH_OK;
}

enum patch_verdict patch_plan_trap(const uint8_t *code, size_t size, uint64_t address,
				   size_t *displaced)
{
	return patch_plan(code, size, 0, address, displaced);
}

int patch_call_returns_inside(const uint8_t *code, size_t displaced, uint64_t address)
{
	(void)code, (void)displaced, (void)address;
	return 0; /* a BL among them returns after them: they are one instruction */
}

size_t patch_padding_after(const uint8_t *code, size_t max)
{
	size_t n = 0;
	while (n + INSN <= max && (insn_at(code + n) == NOP || insn_at(code + n) == 0))
		n += INSN;
	return n;
}

/* ---- relocation ------------------------------------------------------------ */

/* A conditional branch (`insn` with its offset field [lo, lo + width) set
 * to two instructions on) to `target`: taken, it reaches it through an
 * absolute address; not taken, it goes on after. */
static uint8_t *move_conditional(uint8_t *out, uint32_t insn, int lo, int width, uint64_t target)
{
	uint32_t mask = (uint32_t)(((1ull << width) - 1) << lo);
	out = put(out, (insn & ~mask) | (2u << lo)); /* taken: .+8 */
	out = put(out, 0x14000005u);		     /* not taken: b .+20, past the jump */
	return absolute_jump(out, target);
}

/* A load from the literal at `target` into register `rt`: its address into
 * x17, then the load through it (`through`: the same load's unsigned
 * offset form, offset 0). */
static uint8_t *move_literal_load(uint8_t *out, uint32_t through, unsigned rt, uint64_t target)
{
	out = load_constant(out, X17, target);
	return put(out, through | (X17 << 5) | rt);
}

/* The forms of LDR (literal), by opc (bits 30-31) and V (bit 26), as the
 * same load from [xn]; 0 for PRFM, which is dropped. */
static uint32_t literal_through(uint32_t insn)
{
	static const uint32_t gp[4] = {0xb9400000u, 0xf9400000u, 0xb9800000u, 0};
	static const uint32_t simd[4] = {0xbd400000u, 0xfd400000u, 0x3dc00000u, 0};
	unsigned opc = insn >> 30;
	return insn & (1u << 26) ? simd[opc] : gp[opc];
}

/* The one instruction at `address`, moved to run anywhere (what it reaches
 * is reached through absolute addresses); NULL when it cannot be (an
 * unallocated LDR literal form). */
static uint8_t *move_one(uint32_t insn, uint64_t address, uint8_t *out)
{
	unsigned rt = insn & 31;
	if ((insn & 0x9f000000u) == 0x10000000u) /* adr */
		return load_constant(
		    out, rt, address + (uint64_t)(field(insn, 5, 19) * 4 + ((insn >> 29) & 3)));
	if ((insn & 0x9f000000u) == 0x90000000u) /* adrp */
		return load_constant(
		    out, rt,
		    (address & ~0xfffull) +
			(uint64_t)((field(insn, 5, 19) * 4 + ((insn >> 29) & 3)) << 12));
	if ((insn & 0x7c000000u) == 0x14000000u) { /* b, bl */
		uint64_t target = address + (uint64_t)(field(insn, 0, 26) * 4);
		if (insn & 0x80000000u) /* bl: x30 the original return address */
			out = load_constant(out, 30, address + INSN);
		return absolute_jump(out, target);
	}
	if ((insn & 0xff000010u) == 0x54000000u) /* b.cond */
		return move_conditional(out, insn, 5, 19,
					address + (uint64_t)(field(insn, 5, 19) * 4));
	if ((insn & 0x7e000000u) == 0x34000000u) /* cbz, cbnz */
		return move_conditional(out, insn, 5, 19,
					address + (uint64_t)(field(insn, 5, 19) * 4));
	if ((insn & 0x7e000000u) == 0x36000000u) /* tbz, tbnz */
		return move_conditional(out, insn, 5, 14,
					address + (uint64_t)(field(insn, 5, 14) * 4));
	if ((insn & 0x3b000000u) == 0x18000000u) { /* ldr (literal), ldrsw, prfm */
		uint32_t through = literal_through(insn);
		if (!through)
			return (insn >> 30) == 3 && !(insn & (1u << 26)) ? put(out, NOP) : NULL;
		return move_literal_load(out, through, rt,
					 address + (uint64_t)(field(insn, 5, 19) * 4));
	}
	return put(out, insn);
}

enum patch_verdict patch_relocate_layout(const uint8_t *code, size_t displaced, uint64_t address,
					 uint8_t *out, uint64_t out_address, size_t *out_len,
					 struct patch_layout *layout)
{
	if (displaced != INSN)
		return PATCH_UNRELOCATABLE;
	uint8_t *p = move_one(insn_at(code), address, out);
	if (!p)
		return PATCH_UNRELOCATABLE;
	size_t moved = (size_t)(p - out);
	p = patch_emit_jump(p, out_address + moved, address + INSN);
	*out_len = (size_t)(p - out);
	if (layout)
		*layout =
		    (struct patch_layout){.n = 2, .from = {0, INSN}, .to = {0, (uint8_t)moved}};
	return PATCH_OK;
}

enum patch_verdict patch_relocate(const uint8_t *code, size_t displaced, uint64_t address,
				  uint8_t *out, uint64_t out_address, size_t *out_len)
{
	return patch_relocate_layout(code, displaced, address, out, out_address, out_len, NULL);
}

/* ---- decoded once ---------------------------------------------------------- */

void patch_decode(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		  uint64_t address, struct patch_decoded *d)
{
	size_t displaced = 0;
	memset(d, 0, sizeof(*d));
	memcpy(d->entry, code, ARCH_MARK_LEN);
	d->padding = (uint8_t)patch_padding_after(after, room < 16 ? room : 16);
	d->verdict = (uint8_t)patch_plan(code, size, d->padding, address, &displaced);
	if (d->verdict == PATCH_OK) {
		d->n = 1;
		d->len[0] = INSN;
		d->move[0] = PATCH_MOVE_COPY; /* move_one decides again: it needs no decoder */
		d->displaced = INSN;
		memcpy(d->code, code, INSN);
	}
}

enum patch_verdict patch_relocate_decoded(const struct patch_decoded *d, const uint8_t *code,
					  uint64_t address, uint8_t *out, uint64_t out_address,
					  size_t *out_len)
{
	return d->n ? patch_relocate(code, d->displaced, address, out, out_address, out_len)
		    : PATCH_UNDECODABLE;
}

int patch_decode_plain(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		       struct patch_decoded *d)
{
	(void)code, (void)size, (void)after, (void)room, (void)d;
	return -1; /* patch_decode needs no library here */
}
