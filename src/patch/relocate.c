/*
 * relocate.c - which instructions a function's entry jump displaces, and
 * how they run elsewhere (see patch.h).
 *
 * capstone decodes (decoder.c).  A displaced instruction is copied as it is,
 * except: a rip-relative operand gets a new displacement; a jmp or jcc is
 * rewritten to reach its target from the trampoline; a call is emulated by
 * pushing the original return address and jumping, so that the callee
 * returns straight into the function.
 */
#include "patch.h"

#include <string.h>
#include "decoder.h"

/* The one instruction buffer: patching happens on one thread at a time (at
 * start, or under the dynamic linker's lock), and capstone's memory is
 * never given back, so it is made once. */
static cs_insn *scratch;

static cs_insn *insn_buffer(void)
{
	if (!scratch)
		scratch = decoder_insn_buffer();
	return scratch;
}

/* ---- reading instructions ---------------------------------------------- */

static int ends_flow(const cs_insn *insn)
{
	return decoder_in_group(insn, CS_GRP_RET) ||
	       (insn->id == X86_INS_JMP && insn->detail->x86.op_count == 1);
}

static int32_t read_rel32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Whether a relative branch could land in (address, address + len): every
 * byte of the function taken as the start of one (jmp, jcc, loop, jrcxz,
 * call, xbegin), without decoding.  Finds every branch the decoder would,
 * and a few that are not there; only those are decoded. */
static int may_branch_into(const uint8_t *code, size_t size, size_t len)
{
	for (size_t p = 0; p + 2 <= size; p++) {
		uint8_t b = code[p];
		int64_t to;
		if (b == 0xeb || (b >= 0x70 && b <= 0x7f) || (b >= 0xe0 && b <= 0xe3))
			to = (int64_t)p + 2 + (int8_t)code[p + 1];
		else if ((b == 0xe8 || b == 0xe9) && p + 5 <= size)
			to = (int64_t)p + 5 + read_rel32(code + p + 1);
		else if (((b == 0x0f && (code[p + 1] & 0xf0) == 0x80) ||
			  (b == 0xc7 && code[p + 1] == 0xf8)) &&
			 p + 6 <= size)
			to = (int64_t)p + 6 + read_rel32(code + p + 2);
		else
			continue;
		if (to > 0 && (uint64_t)to < len)
			return 1;
	}
	return 0;
}

/* Whether a direct branch anywhere in the function lands in (address,
 * address + len). */
static int branches_into(const uint8_t *code, size_t size, uint64_t address, size_t len,
			 cs_insn *insn)
{
	if (!may_branch_into(code, size, len))
		return 0;
	const uint8_t *p = code;
	size_t left = size;
	uint64_t at = address;
	while (left > 0) {
		if (decoder_next(&p, &left, &at, insn) < 0) {
			/* Data or padding: skip a byte and go on. */
			p++;
			left--;
			at++;
			continue;
		}
		uint64_t t = decoder_branch_target(insn);
		if (t > address && t < address + len)
			return 1;
	}
	return 0;
}

enum patch_verdict patch_plan(const uint8_t *code, size_t size, size_t pad, uint64_t address,
			      size_t *displaced)
{
	cs_insn *insn = insn_buffer();
	if (!insn)
		return PATCH_UNDECODABLE;
	const uint8_t *p = code;
	size_t left = size, moved = 0;
	uint64_t at = address;
	enum patch_verdict v = PATCH_OK;
	while (moved < PATCH_JUMP_LEN) {
		if (left == 0) {
			/* The function ended: fine if the jump fits over padding. */
			v = size + pad >= PATCH_JUMP_LEN && moved > 0 ? PATCH_OK : PATCH_TOO_SHORT;
			break;
		}
		if (decoder_next(&p, &left, &at, insn) < 0) {
			v = PATCH_UNDECODABLE;
			break;
		}
		moved += insn->size;
		/* A ret or jmp before the jump's end: fine only at the function's
		 * end (code after it is reached from elsewhere) with padding. */
		if (moved < PATCH_JUMP_LEN && ends_flow(insn) &&
		    (size + pad < PATCH_JUMP_LEN || left > 0)) {
			v = PATCH_TOO_SHORT;
			break;
		}
	}
	if (v == PATCH_OK && moved > PATCH_DISPLACED_MAX)
		v = PATCH_UNRELOCATABLE;
	if (v == PATCH_OK && branches_into(code, size, address, PATCH_JUMP_LEN, insn))
		v = PATCH_BRANCH_INSIDE;
	*displaced = moved;
	return v;
}

enum patch_verdict patch_plan_trap(const uint8_t *code, size_t size, uint64_t address,
				   size_t *displaced)
{
	cs_insn *insn = insn_buffer();
	const uint8_t *p = code;
	size_t left = size;
	uint64_t at = address;
	if (!insn || size == 0 || decoder_next(&p, &left, &at, insn) < 0)
		return PATCH_UNDECODABLE;
	*displaced = insn->size;
	return PATCH_OK;
}

int patch_call_returns_inside(const uint8_t *code, size_t displaced, uint64_t address)
{
	cs_insn *insn = insn_buffer();
	if (!insn)
		return 1;
	const uint8_t *p = code;
	size_t left = displaced;
	uint64_t at = address;
	while (left > 0) {
		if (decoder_next(&p, &left, &at, insn) < 0)
			return 1;
		if (left > 0 && decoder_in_group(insn, CS_GRP_CALL))
			return 1;
	}
	return 0;
}

size_t patch_padding_after(const uint8_t *code, size_t max)
{
	cs_insn *insn = insn_buffer();
	if (!insn)
		return 0;
	const uint8_t *p = code;
	size_t left = max;
	uint64_t at = 0;
	while (left > 0 && decoder_next(&p, &left, &at, insn) == 0 &&
	       (insn->id == X86_INS_NOP || insn->id == X86_INS_INT3))
		;
	size_t n = (size_t)(p - code);
	if (left < max && !(insn->id == X86_INS_NOP || insn->id == X86_INS_INT3))
		n -= insn->size; /* the last one decoded is not padding */
	return n;
}

/* ---- writing them elsewhere -------------------------------------------- */

static int fits_rel32(int64_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

uint8_t *patch_emit_jump(uint8_t *out, uint64_t from, uint64_t to)
{
	int64_t d = (int64_t)(to - (from + 5));
	if (fits_rel32(d)) {
		int32_t rel = (int32_t)d;
		*out++ = 0xe9;
		memcpy(out, &rel, 4);
		return out + 4;
	}
	static const uint8_t jmp_abs[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp *0(%rip) */
	memcpy(out, jmp_abs, 6);
	memcpy(out + 6, &to, 8);
	return out + 14;
}

/* call target, as push of the original return address and a jump. */
static uint8_t *emit_call(uint8_t *out, uint64_t out_address, uint64_t return_to, uint64_t target)
{
	static const uint8_t lea_rsp[5] = {0x48, 0x8d, 0x64, 0x24, 0xf8}; /* lea -8(%rsp),%rsp */
	uint32_t lo = (uint32_t)return_to, hi = (uint32_t)(return_to >> 32);
	uint8_t *start = out;
	memcpy(out, lea_rsp, 5);
	out += 5;
	*out++ = 0xc7; /* movl $lo,(%rsp) */
	*out++ = 0x04;
	*out++ = 0x24;
	memcpy(out, &lo, 4);
	out += 4;
	*out++ = 0xc7; /* movl $hi,4(%rsp) */
	*out++ = 0x44;
	*out++ = 0x24;
	*out++ = 0x04;
	memcpy(out, &hi, 4);
	out += 4;
	return patch_emit_jump(out, out_address + (uint64_t)(out - start), target);
}

/* jcc target: the inverse condition skips an absolute jump. */
static uint8_t *emit_jcc(uint8_t *out, uint64_t out_address, uint8_t cc, uint64_t target)
{
	int64_t d = (int64_t)(target - (out_address + 6));
	if (fits_rel32(d)) {
		int32_t rel = (int32_t)d;
		*out++ = 0x0f;
		*out++ = (uint8_t)(0x80 | cc);
		memcpy(out, &rel, 4);
		return out + 4;
	}
	*out++ = (uint8_t)(0x70 | (cc ^ 1)); /* j!cc over the 14-byte jump */
	*out++ = 14;
	return patch_emit_jump(out, out_address + 2, target);
}

/* The condition code of a jcc (short 0x7X or near 0x0f 0x8X). */
static int jcc_condition(const cs_insn *insn)
{
	const uint8_t *b = insn->bytes;
	size_t i = 0;
	while (i < insn->size && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0xf2))
		i++; /* branch hints, bnd */
	if (i < insn->size && (b[i] & 0xf0) == 0x70)
		return b[i] & 0x0f;
	if (i + 1 < insn->size && b[i] == 0x0f && (b[i + 1] & 0xf0) == 0x80)
		return b[i + 1] & 0x0f;
	return -1;
}

/* How `insn` moves (enum patch_move; 0: it cannot), with its condition or
 * %rip displacement's offset in *aux and its target from `base` in
 * *target. */
static uint8_t describe(const cs_insn *insn, uint64_t base, uint8_t *aux, int64_t *target)
{
	uint64_t t = decoder_branch_target(insn);
	*aux = 0;
	*target = t ? (int64_t)(t - base) : 0;
	if (t) {
		if (insn->id == X86_INS_CALL)
			return PATCH_MOVE_CALL;
		if (insn->id == X86_INS_JMP)
			return PATCH_MOVE_JMP;
		int cc = jcc_condition(insn);
		*aux = (uint8_t)cc;
		return cc < 0 ? 0 : PATCH_MOVE_JCC;
	}
	if (decoder_in_group(insn, CS_GRP_BRANCH_RELATIVE))
		return 0; /* a relative branch of a kind not rewritten */
	*aux = decoder_rip_disp_offset(insn);
	return *aux ? PATCH_MOVE_RIP : PATCH_MOVE_COPY;
}

/* The instruction of `len` bytes at `bytes`, which ran at `from`, moved to
 * `to` as `move` says; NULL when it cannot. */
static uint8_t *emit_move(uint8_t move, uint8_t aux, uint64_t target, const uint8_t *bytes,
			  uint8_t len, uint64_t from, uint8_t *out, uint64_t to)
{
	if (move == PATCH_MOVE_CALL)
		return emit_call(out, to, from + len, target);
	if (move == PATCH_MOVE_JMP)
		return patch_emit_jump(out, to, target);
	if (move == PATCH_MOVE_JCC)
		return emit_jcc(out, to, aux, target);
	if (move != PATCH_MOVE_COPY && move != PATCH_MOVE_RIP)
		return NULL;
	memcpy(out, bytes, len);
	if (move == PATCH_MOVE_RIP) {
		int32_t disp;
		if (aux + 4u > len)
			return NULL;
		memcpy(&disp, bytes + aux, 4);
		int64_t d = (int64_t)(from + len + (uint64_t)(int64_t)disp) - (int64_t)(to + len);
		if (!fits_rel32(d))
			return NULL;
		disp = (int32_t)d;
		memcpy(out + aux, &disp, 4);
	}
	return out + len;
}

/* One instruction, moved from insn->address to `to`; NULL when it cannot. */
static uint8_t *move_one(const cs_insn *insn, uint8_t *out, uint64_t to)
{
	uint8_t aux;
	int64_t target;
	uint8_t move = describe(insn, insn->address, &aux, &target);
	return emit_move(move, aux, insn->address + (uint64_t)target, insn->bytes,
			 (uint8_t)insn->size, insn->address, out, to);
}

/* Notes where the next instruction starts in the original and the output;
 * 0, or -1 when the layout has no room for it. */
static int note_boundary(struct patch_layout *layout, size_t from, size_t to)
{
	if (!layout)
		return 0;
	if (layout->n > PATCH_LAYOUT_MAX)
		return -1;
	layout->from[layout->n] = (uint8_t)from;
	layout->to[layout->n++] = (uint8_t)to;
	return 0;
}

enum patch_verdict patch_relocate_layout(const uint8_t *code, size_t displaced, uint64_t address,
					 uint8_t *out, uint64_t out_address, size_t *out_len,
					 struct patch_layout *layout)
{
	cs_insn *insn = insn_buffer();
	if (!insn)
		return PATCH_UNDECODABLE;
	const uint8_t *p = code;
	size_t left = displaced;
	uint64_t at = address;
	uint8_t *o = out;
	enum patch_verdict v = PATCH_OK;
	if (layout)
		layout->n = 0;
	while (left > 0) {
		if (note_boundary(layout, (size_t)(p - code), (size_t)(o - out)) < 0) {
			v = PATCH_UNRELOCATABLE;
			break;
		}
		if (decoder_next(&p, &left, &at, insn) < 0) {
			v = PATCH_UNDECODABLE;
			break;
		}
		uint8_t *next = move_one(insn, o, out_address + (uint64_t)(o - out));
		if (!next || next - out > PATCH_RELOCATED_MAX - 14) {
			v = PATCH_UNRELOCATABLE;
			break;
		}
		o = next;
	}
	if (v == PATCH_OK && note_boundary(layout, displaced, (size_t)(o - out)) < 0)
		v = PATCH_UNRELOCATABLE;
	if (v == PATCH_OK)
		o = patch_emit_jump(o, out_address + (uint64_t)(o - out), address + displaced);
	*out_len = (size_t)(o - out);
	return v;
}

enum patch_verdict patch_relocate(const uint8_t *code, size_t displaced, uint64_t address,
				  uint8_t *out, uint64_t out_address, size_t *out_len)
{
	return patch_relocate_layout(code, displaced, address, out, out_address, out_len, NULL);
}

/* ---- decoded once, relocated without the decoder ------------------------ */

/* Describes the instructions in the first `displaced` bytes at `code` into
 * *d. */
static void describe_all(const uint8_t *code, size_t displaced, uint64_t address,
			 struct patch_decoded *d, cs_insn *insn)
{
	const uint8_t *p = code;
	size_t left = displaced;
	uint64_t at = address;
	while (left > 0 && d->n < PATCH_DECODED_INSNS && decoder_next(&p, &left, &at, insn) == 0) {
		uint8_t i = d->n++;
		d->len[i] = (uint8_t)insn->size;
		d->move[i] = describe(insn, address, &d->aux[i], &d->target[i]);
	}
	d->displaced = (uint8_t)displaced;
}

void patch_decode(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		  uint64_t address, struct patch_decoded *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->entry, code, ARCH_MARK_LEN);
	cs_insn *insn = insn_buffer();
	if (!insn) {
		d->verdict = PATCH_UNDECODABLE;
		return;
	}
	d->padding = (uint8_t)patch_padding_after(after, room < 16 ? room : 16);
	size_t displaced;
	enum patch_verdict v = patch_plan(code, size, d->padding, address, &displaced);
	d->verdict = (uint8_t)v;
	if (v == PATCH_TOO_SHORT && patch_plan_trap(code, size, address, &displaced) != PATCH_OK)
		return;
	if (v == PATCH_OK || v == PATCH_TOO_SHORT)
		describe_all(code, displaced, address, d, insn);
	if (d->displaced <= sizeof(d->code))
		memcpy(d->code, code, d->displaced);
}

enum patch_verdict patch_relocate_decoded(const struct patch_decoded *d, const uint8_t *code,
					  uint64_t address, uint8_t *out, uint64_t out_address,
					  size_t *out_len)
{
	uint8_t *o = out;
	size_t from = 0;
	*out_len = 0;
	for (uint8_t i = 0; i < d->n && i < PATCH_DECODED_INSNS; i++) {
		uint8_t *next =
		    emit_move(d->move[i], d->aux[i], address + (uint64_t)d->target[i], code + from,
			      d->len[i], address + from, o, out_address + (uint64_t)(o - out));
		if (!next || next - out > PATCH_RELOCATED_MAX - 14)
			return PATCH_UNRELOCATABLE;
		o = next;
		from += d->len[i];
	}
	if (d->n == 0 || from != d->displaced)
		return PATCH_UNDECODABLE;
	o = patch_emit_jump(o, out_address + (uint64_t)(o - out), address + from);
	*out_len = (size_t)(o - out);
	return PATCH_OK;
}

/* The length of the nop or int3 at `p` in the forms compilers pad with
 * (0x90, 0xcc, [0x66...][0x2e] 0f 1f /0), within `max` bytes; 0 when it is
 * none of them. */
static size_t plain_nop(const uint8_t *p, size_t max)
{
	size_t i = 0;
	if (max && (p[0] == 0x90 || p[0] == 0xcc))
		return 1;
	while (i < max && i < 8 && (p[i] == 0x66 || p[i] == 0x2e))
		i++;
	if (i + 3 > max || p[i] != 0x0f || p[i + 1] != 0x1f || (p[i + 2] & 0x38) != 0)
		return 0;
	uint8_t mod = p[i + 2] >> 6, rm = p[i + 2] & 7;
	size_t n = i + 3 + (mod != 3 && rm == 4) + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
	return (mod == 0 && rm == 5) || n > max ? 0 : n;
}

int patch_decode_plain(const uint8_t *code, size_t size, const uint8_t *after, size_t room,
		       struct patch_decoded *d)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t at = size == 5 && memcmp(code, endbr64, 4) == 0 ? 4 : 0;
	if (size != at + 1 || code[at] != 0xc3)
		return -1;
	memset(d, 0, sizeof(*d));
	size_t n, max = room < 16 ? room : 16;
	while (d->padding < max && (n = plain_nop(after + d->padding, max - d->padding)))
		d->padding = (uint8_t)(d->padding + n);
	if (size + d->padding < PATCH_JUMP_LEN)
		return -1; /* a padding of another form, maybe: the decoder says */
	d->verdict = PATCH_OK;
	d->n = (uint8_t)(at ? 2 : 1);
	d->len[0] = (uint8_t)(at ? 4 : 1);
	d->len[1] = 1;
	d->move[0] = d->move[1] = PATCH_MOVE_COPY;
	d->displaced = (uint8_t)size;
	return 0;
}
