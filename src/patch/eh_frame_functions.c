/*
 * eh_frame_functions.c - where functions begin in an ELF file without a
 * symbol table (a stripped program or library): every FDE of .eh_frame,
 * found through the sorted table of .eh_frame_hdr (PT_GNU_EH_FRAME), whose
 * call frame information says "function entry" at its first byte: the CFA
 * is %rsp + 8 (a return address at [%rsp]) before any instruction ran.
 * That leaves out fragments jumped into (.cold parts, whose frame is their
 * parent's), the PLT (its CFA is an expression) and _start (no return
 * address).  Read from the file mapped in memory, without malloc.
 */
#include "eh_frame_functions.h"

#include <dwarf.h>
#include <string.h>

#define DWARF_RSP 7
#define DWARF_RA 16

/* A cursor over bytes of the mapped file. */
struct cursor {
	const uint8_t *p, *end;
	uint64_t vaddr; /* where p is in memory (for pc-relative values) */
	int bad;
};

static uint64_t read_bytes(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n); /* little-endian x86-64 */
	c->p += n;
	c->vaddr += n;
	return v;
}

static uint64_t read_uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint64_t b = read_bytes(c, 1);
		v |= (b & 0x7f) << shift;
		if (!(b & 0x80) || c->bad)
			return v;
	}
	c->bad = 1;
	return v;
}

static int64_t read_sleb(struct cursor *c)
{
	uint64_t v = 0, b = 0;
	unsigned shift = 0;
	do {
		b = read_bytes(c, 1);
		v |= (b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && shift < 64 && !c->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A pointer in DW_EH_PE encoding `enc`; `datarel` is the base of
 * DW_EH_PE_datarel (.eh_frame_hdr's address). */
static uint64_t read_encoded(struct cursor *c, uint8_t enc, uint64_t datarel)
{
	uint64_t at = c->vaddr, v;
	if (enc == DW_EH_PE_omit) {
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		v = read_bytes(c, 8);
		break;
	case DW_EH_PE_udata4:
		v = read_bytes(c, 4);
		break;
	case DW_EH_PE_sdata4:
		v = (uint64_t)(int64_t)(int32_t)read_bytes(c, 4);
		break;
	case DW_EH_PE_udata2:
		v = read_bytes(c, 2);
		break;
	case DW_EH_PE_sdata2:
		v = (uint64_t)(int64_t)(int16_t)read_bytes(c, 2);
		break;
	case DW_EH_PE_uleb128:
		v = read_uleb(c);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)read_sleb(c);
		break;
	default:
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += at;
		break;
	case DW_EH_PE_datarel:
		v += datarel;
		break;
	default:
		c->bad = 1;
	}
	return v;
}

/* ---- the ELF file ----------------------------------------------------- */

/* The bytes of the file at virtual address `vaddr`, through its PT_LOAD
 * segments; NULL when no segment holds them. */
static const uint8_t *at_vaddr(const uint8_t *file, size_t size, const Elf64_Ehdr *eh,
			       uint64_t vaddr, const uint8_t **begin, const uint8_t **end)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz &&
		    ph[i].p_offset + ph[i].p_filesz <= size) {
			*begin = file + ph[i].p_offset;
			*end = file + ph[i].p_offset + ph[i].p_filesz;
			return file + ph[i].p_offset + (vaddr - ph[i].p_vaddr);
		}
	return NULL;
}

/* ---- CIE and FDE ------------------------------------------------------ */

struct cie {
	uint8_t fde_enc; /* how an FDE's pc_begin is encoded */
	int has_aug_data;
	int64_t data_align;
	struct cursor insns; /* the initial instructions */
};

static int read_cie(struct cursor c, struct cie *cie)
{
	uint32_t len = (uint32_t)read_bytes(&c, 4);
	if (c.bad || len == 0xffffffffu || len > (size_t)(c.end - c.p))
		return -1;
	c.end = c.p + len;
	if (read_bytes(&c, 4) != 0) /* the CIE id */
		return -1;
	uint8_t version = (uint8_t)read_bytes(&c, 1);
	const char *aug = (const char *)c.p;
	size_t aug_len = strnlen(aug, (size_t)(c.end - c.p));
	read_bytes(&c, aug_len + 1);
	read_uleb(&c); /* code alignment */
	cie->data_align = read_sleb(&c);
	if (version == 1)
		read_bytes(&c, 1);
	else
		read_uleb(&c); /* the return address register */
	cie->fde_enc = DW_EH_PE_absptr;
	cie->has_aug_data = aug[0] == 'z';
	if (cie->has_aug_data) {
		uint64_t n = read_uleb(&c);
		struct cursor data = c;
		data.end = c.p + n <= c.end ? c.p + n : c.end;
		for (size_t i = 1; i < aug_len && !data.bad; i++) {
			if (aug[i] == 'R')
				cie->fde_enc = (uint8_t)read_bytes(&data, 1);
			else if (aug[i] == 'L')
				read_bytes(&data, 1);
			else if (aug[i] == 'P')
				read_encoded(&data, (uint8_t)read_bytes(&data, 1) & 0x7f, 0);
			else if (aug[i] != 'S' && aug[i] != 'B')
				return -1;
		}
		read_bytes(&c, n);
	} else if (aug_len) {
		return -1; /* an augmentation we cannot skip */
	}
	cie->insns = c;
	return c.bad ? -1 : 0;
}

/* Runs the call frame instructions that apply at the first byte (those
 * before the first advance); 0 while the CFA is %rsp + `*offset`, -1 when
 * it is anything else or an instruction is not understood. */
static int cfa_at_start(struct cursor *c, int64_t data_align, uint64_t *reg, uint64_t *offset)
{
	while (c->p < c->end && !c->bad) {
		uint8_t op = (uint8_t)read_bytes(c, 1);
		uint8_t high = op & 0xc0, low = op & 0x3f;
		if (high == DW_CFA_advance_loc)
			return low ? 1 : 0;
		if (high == DW_CFA_offset) {
			read_uleb(c);
			continue;
		}
		if (high == DW_CFA_restore)
			continue;
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_remember_state:
		case DW_CFA_restore_state:
			break;
		case DW_CFA_advance_loc1:
			return read_bytes(c, 1) ? 1 : 0;
		case DW_CFA_advance_loc2:
			return read_bytes(c, 2) ? 1 : 0;
		case DW_CFA_advance_loc4:
			return read_bytes(c, 4) ? 1 : 0;
		case DW_CFA_def_cfa:
			*reg = read_uleb(c);
			*offset = read_uleb(c);
			break;
		case DW_CFA_def_cfa_sf:
			*reg = read_uleb(c);
			*offset = (uint64_t)(read_sleb(c) * data_align);
			break;
		case DW_CFA_def_cfa_register:
			*reg = read_uleb(c);
			break;
		case DW_CFA_def_cfa_offset:
			*offset = read_uleb(c);
			break;
		case DW_CFA_def_cfa_offset_sf:
			*offset = (uint64_t)(read_sleb(c) * data_align);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_register:
			read_uleb(c);
			read_uleb(c);
			break;
		case DW_CFA_offset_extended_sf:
			read_uleb(c);
			read_sleb(c);
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_same_value:
		case DW_CFA_GNU_args_size:
			read_uleb(c);
			break;
		case DW_CFA_undefined:
			if (read_uleb(c) == DWARF_RA)
				return -1; /* no return address: _start */
			break;
		default:
			return -1; /* expressions and the rest: not an entry */
		}
	}
	return c->bad ? -1 : 0;
}

/* The function an FDE describes, when its first byte is a function's
 * entry; 0, or -1.  `segment` is where the bytes the FDE lies in begin. */
static int read_fde(struct cursor c, const uint8_t *segment, uint64_t *start, uint64_t *len)
{
	uint32_t length = (uint32_t)read_bytes(&c, 4);
	if (c.bad || length == 0 || length == 0xffffffffu || length > (size_t)(c.end - c.p))
		return -1;
	c.end = c.p + length;
	const uint8_t *field = c.p; /* the CIE pointer counts back from here */
	uint32_t cie_pointer = (uint32_t)read_bytes(&c, 4);
	if (cie_pointer == 0 || cie_pointer > (size_t)(field - segment))
		return -1;
	struct cie cie;
	struct cursor cie_cursor = {field - cie_pointer, field, 0, 0}; /* before its FDEs */
	if (read_cie(cie_cursor, &cie) < 0)
		return -1;
	*start = read_encoded(&c, cie.fde_enc, 0);
	*len = read_encoded(&c, cie.fde_enc & 0x0f, 0);
	if (cie.has_aug_data)
		read_bytes(&c, read_uleb(&c));
	if (c.bad)
		return -1;
	uint64_t reg = 0, offset = 0;
	if (cfa_at_start(&cie.insns, cie.data_align, &reg, &offset) != 0 ||
	    cfa_at_start(&c, cie.data_align, &reg, &offset) < 0)
		return -1;
	return reg == DWARF_RSP && offset == 8 ? 0 : -1;
}

/* ---- .eh_frame_hdr ------------------------------------------------------ */

size_t eh_frame_functions(const uint8_t *file, size_t size, const Elf64_Ehdr *eh,
			  eh_frame_function_fn each, void *ctx)
{
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
		return 0;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(file + eh->e_phoff);
	const Elf64_Phdr *hdr = NULL;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			hdr = &ph[i];
	if (!hdr || hdr->p_offset + hdr->p_filesz > size || hdr->p_filesz < 4)
		return 0;
	struct cursor c = {file + hdr->p_offset, file + hdr->p_offset + hdr->p_filesz, hdr->p_vaddr,
			   0};
	uint8_t version = (uint8_t)read_bytes(&c, 1);
	uint8_t frame_enc = (uint8_t)read_bytes(&c, 1);
	uint8_t count_enc = (uint8_t)read_bytes(&c, 1);
	uint8_t table_enc = (uint8_t)read_bytes(&c, 1);
	if (version != 1 || table_enc == DW_EH_PE_omit || count_enc == DW_EH_PE_omit)
		return 0;
	read_encoded(&c, frame_enc, hdr->p_vaddr);
	uint64_t count = read_encoded(&c, count_enc, hdr->p_vaddr);
	size_t found = 0;
	for (uint64_t i = 0; i < count && !c.bad; i++) {
		read_encoded(&c, table_enc, hdr->p_vaddr); /* the FDE's first address */
		uint64_t fde = read_encoded(&c, table_enc, hdr->p_vaddr);
		const uint8_t *begin = NULL, *end = NULL;
		const uint8_t *at = at_vaddr(file, size, eh, fde, &begin, &end);
		uint64_t start = 0, len = 0;
		if (c.bad || !at)
			break;
		struct cursor fc = {at, end, fde, 0};
		if (read_fde(fc, begin, &start, &len) == 0 && len > 0) {
			if (each)
				each(start, len, ctx);
			found++;
		}
	}
	return found;
}
