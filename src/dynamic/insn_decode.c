/*
 * insn_decode.c - x86-64 instruction length decoder (see insn_decode.h).
 *
 * Legacy prefixes, REX, the one-byte, 0F, 0F38 and 0F3A opcode maps, VEX
 * and EVEX, ModRM/SIB/displacement and immediates.  It does not check that
 * an instruction is valid beyond what its length needs; opcodes that do not
 * exist in 64-bit mode are refused.
 */
#include "insn_decode.h"

#include <string.h>

enum operand_flags {
	F_MODRM = 1 << 0,
	F_IB = 1 << 1,	   /* imm8 */
	F_IW = 1 << 2,	   /* imm16 */
	F_IZ = 1 << 3,	   /* imm16 or imm32 (operand size) */
	F_IV = 1 << 4,	   /* imm16, imm32 or imm64 (operand size) */
	F_MOFFS = 1 << 5,  /* address-sized offset */
	F_REL8 = 1 << 6,   /* rel8 branch */
	F_REL32 = 1 << 7,  /* rel32 branch */
	F_BAD = 1 << 8,	   /* not valid in 64-bit mode */
	F_GROUP3 = 1 << 9, /* F6/F7: immediate only for /0 and /1 */
};

static int in_range(unsigned op, unsigned lo, unsigned hi)
{
	return op >= lo && op <= hi;
}

/* The one-byte map, 0x00-0x3f: the eight ALU groups. */
static unsigned alu_block(unsigned op)
{
	unsigned low = op & 7;
	if (low <= 3)
		return F_MODRM;
	if (low == 4)
		return F_IB;
	if (low == 5)
		return F_IZ;
	return F_BAD; /* push/pop seg, daa, das, aaa, aas; prefixes are taken earlier */
}

static unsigned one_byte_flags(unsigned op)
{
	if (op < 0x40)
		return alu_block(op);
	if (op < 0x60)
		return 0; /* push/pop reg (REX is taken earlier) */
	if (in_range(op, 0x70, 0x7f) || in_range(op, 0xe0, 0xe3) || op == 0xeb)
		return F_REL8;
	if (op == 0xe8 || op == 0xe9)
		return F_REL32;
	if (in_range(op, 0xb0, 0xb7))
		return F_IB;
	if (in_range(op, 0xb8, 0xbf))
		return F_IV;
	if (in_range(op, 0xa0, 0xa3))
		return F_MOFFS;
	if (in_range(op, 0x84, 0x8f) || op == 0x63 || in_range(op, 0xd0, 0xd3) ||
	    in_range(op, 0xd8, 0xdf) || op == 0xfe || op == 0xff)
		return F_MODRM;
	switch (op) {
	case 0x68:
	case 0xa9:
		return F_IZ;
	case 0x69:
	case 0x81:
	case 0xc7:
		return F_MODRM | F_IZ;
	case 0x6a:
	case 0xa8:
	case 0xcd:
	case 0xe4:
	case 0xe5:
	case 0xe6:
	case 0xe7:
		return F_IB;
	case 0x6b:
	case 0x80:
	case 0x83:
	case 0xc0:
	case 0xc1:
	case 0xc6:
		return F_MODRM | F_IB;
	case 0xc2:
	case 0xca:
		return F_IW;
	case 0xc8:
		return F_IW | F_IB;
	case 0xf6:
	case 0xf7:
		return F_MODRM | F_GROUP3;
	case 0x60:
	case 0x61:
	case 0x82:
	case 0x9a:
	case 0xce:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xea:
		return F_BAD;
	default:
		return 0; /* 6c-6f, 90-9f, a4-a7, aa-af, c3, c9, cb-cc, cf, d7, ec-ef, f1, f4, f5,
			     f8-fd */
	}
}

static unsigned map_0f_flags(unsigned op)
{
	if (in_range(op, 0x80, 0x8f))
		return F_REL32;
	if (in_range(op, 0x70, 0x73) || op == 0xa4 || op == 0xac || op == 0xba ||
	    in_range(op, 0xc2, 0xc6))
		return op == 0xc3 ? F_MODRM : F_MODRM | F_IB;
	if (op == 0x0f)
		return F_MODRM | F_IB; /* 3DNow!: the opcode is the trailing byte */
	switch (op) {
	case 0x04:
	case 0x0a:
	case 0x0c:
	case 0x24:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x39:
	case 0x3b:
	case 0x3c:
	case 0x3d:
	case 0x3e:
	case 0x3f:
	case 0x7a:
	case 0x7b:
	case 0xa6:
	case 0xa7:
		return F_BAD;
	case 0x05:
	case 0x06:
	case 0x07:
	case 0x08:
	case 0x09:
	case 0x0b:
	case 0x0e:
	case 0x77:
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa8:
	case 0xa9:
	case 0xaa:
		return 0;
	default:
		if (in_range(op, 0x30, 0x37) || in_range(op, 0xc8, 0xcf))
			return 0;
		return F_MODRM;
	}
}

/* Flags of an opcode in map 1 (0F) when VEX/EVEX encoded. */
static unsigned vex_flags(unsigned map, unsigned op)
{
	if (map == MAP_0F3A)
		return F_MODRM | F_IB;
	if (map == MAP_0F && (in_range(op, 0x70, 0x73) || op == 0xc2 || in_range(op, 0xc4, 0xc6)))
		return F_MODRM | F_IB;
	if (map == MAP_0F && op == 0x77)
		return 0; /* vzeroupper, vzeroall */
	return F_MODRM;
}

/* Decodes ModRM, SIB and displacement; returns bytes used or 0. */
static int decode_modrm(const uint8_t *p, size_t avail, size_t at, struct x86_insn *in)
{
	if (at >= avail)
		return 0;
	uint8_t m = p[at];
	unsigned mod = m >> 6, rm = m & 7;
	size_t n = 1;
	in->modrm = m;
	in->has_modrm = 1;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (at + 1 >= avail)
			return 0;
		uint8_t sib = p[at + 1];
		n++;
		if (mod == 0 && (sib & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		in->rip_disp_off = (uint8_t)(at + 1);
		n += 4;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return at + n <= avail ? (int)n : 0;
}

static int64_t read_signed(const uint8_t *p, unsigned size)
{
	if (size == 1)
		return (int8_t)p[0];
	if (size == 2)
		return (int16_t)(p[0] | p[1] << 8);
	if (size == 4) {
		int32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

static unsigned immediate_size(unsigned flags, const struct x86_insn *in, int addr32)
{
	int wide = in->rex & 8;
	unsigned size = 0;
	if (flags & F_IB)
		size += 1;
	if (flags & F_IW)
		size += 2;
	if (flags & F_IZ)
		size += in->opsize16 ? 2 : 4;
	if (flags & F_IV)
		size += wide ? 8 : in->opsize16 ? 2 : 4;
	if (flags & F_MOFFS)
		size += addr32 ? 4 : 8;
	if (flags & F_REL8)
		size += 1;
	if (flags & F_REL32)
		size += 4;
	if ((flags & F_GROUP3) && ((in->modrm >> 3) & 7) <= 1)
		size += in->opcode == 0xf6 ? 1 : in->opsize16 ? 2 : 4;
	return size;
}

/* VEX (c4, c5) or EVEX (62) prefix at p[i]; returns the opcode map, or -1. */
static int decode_vex(const uint8_t *p, size_t avail, size_t *i, struct x86_insn *in)
{
	uint8_t first = p[*i];
	size_t need = first == 0xc5 ? 2 : first == 0xc4 ? 3 : 4;
	if (*i + need >= avail)
		return -1;
	int map;
	if (first == 0xc5)
		map = MAP_0F;
	else if (first == 0xc4)
		map = p[*i + 1] & 0x1f;
	else
		map = p[*i + 1] & 0x07;
	if (first == 0xc4 && (p[*i + 2] & 0x80))
		in->rex |= 8;
	in->vex = 1;
	*i += need;
	if (map == 5 || map == 6) /* EVEX FP16 maps: modrm, no immediate */
		return MAP_OTHER;
	return map >= MAP_0F && map <= MAP_0F3A ? map : -1;
}

static int is_legacy_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
	       b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

static unsigned opcode_flags(const uint8_t *p, size_t avail, size_t *i, struct x86_insn *in)
{
	if (p[*i] == 0xc4 || p[*i] == 0xc5 || p[*i] == 0x62) {
		int map = decode_vex(p, avail, i, in);
		if (map < 0)
			return F_BAD;
		in->map = (uint8_t)map;
		in->opcode = p[(*i)++];
		return map == MAP_OTHER ? F_MODRM : vex_flags((unsigned)map, in->opcode);
	}
	if (p[*i] != 0x0f) {
		in->map = MAP_ONE;
		in->opcode = p[(*i)++];
		return one_byte_flags(in->opcode);
	}
	if (*i + 1 >= avail)
		return F_BAD;
	uint8_t second = p[*i + 1];
	if (second == 0x38 || second == 0x3a) {
		if (*i + 2 >= avail)
			return F_BAD;
		in->map = second == 0x38 ? MAP_0F38 : MAP_0F3A;
		in->opcode = p[*i + 2];
		*i += 3;
		return second == 0x38 ? F_MODRM : F_MODRM | F_IB;
	}
	in->map = MAP_0F;
	in->opcode = second;
	*i += 2;
	return map_0f_flags(second);
}

int x86_decode(const uint8_t *p, size_t avail, struct x86_insn *in)
{
	size_t i = 0;
	int addr32 = 0;
	memset(in, 0, sizeof(*in));
	while (i < avail && i < 14 && is_legacy_prefix(p[i])) {
		in->opsize16 |= p[i] == 0x66;
		in->rep |= p[i] == 0xf3;
		in->repne |= p[i] == 0xf2;
		addr32 |= p[i] == 0x67;
		i++;
	}
	if (i < avail && (p[i] & 0xf0) == 0x40)
		in->rex = p[i++];
	if (i >= avail)
		return 0;
	unsigned flags = opcode_flags(p, avail, &i, in);
	if (flags & F_BAD)
		return 0;
	if (flags & F_MODRM) {
		int n = decode_modrm(p, avail, i, in);
		if (n == 0)
			return 0;
		i += (size_t)n;
	}
	unsigned imm = immediate_size(flags, in, addr32);
	if (i + imm > avail || i + imm > 15)
		return 0;
	if (flags & (F_REL8 | F_REL32))
		in->rel_size = (uint8_t)imm;
	if (imm == 1 || imm == 2 || imm == 4 || imm == 8)
		in->imm = read_signed(p + i, imm);
	in->len = (uint8_t)(i + imm);
	return in->len;
}
