/*
 * elf_functions.c - which functions of an ELF file get a breakpoint.
 *
 * FUNC symbols with a size, in executable sections other than .init, .fini
 * and the PLT, minus the start-up code the compiler adds to every program
 * and the ".cold" fragments that are jumped into, never called.  A file
 * without .symtab (stripped) also contributes every FDE of .eh_frame (found
 * through .eh_frame_hdr's table); .dynsym names what it can.  Last, the
 * call frame information at each candidate must say "function entry"
 * (CFA = %rsp + 8): then [rsp] is a return address the engine may swap.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include "elf_image.h"
#include "../utils/array.h"
#include "../patch/special_functions.h"

#define REG_RSP_DWARF 7

struct code_section {
	uint64_t addr, end;
	int ok;
};

struct sections {
	struct code_section *v;
	size_t n;
};

static const char *const startup_names[] = {
    "_start",
    "_init",
    "_fini",
    "__libc_csu_init",
    "__libc_csu_fini",
    "frame_dummy",
    "register_tm_clones",
    "deregister_tm_clones",
    "__do_global_dtors_aux",
    "_dl_relocate_static_pie",
};

static int in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return 1;
	return 0;
}

static int name_skipped(const char *name)
{
	if (in_list(name, startup_names, sizeof(startup_names) / sizeof(*startup_names)) ||
	    patch_keeps_return_address(name))
		return 1;
	return strncmp(name, "__x86.get_pc_thunk", 18) == 0 || patch_is_fragment(name);
}

static int section_name_ok(const char *name)
{
	return name && strcmp(name, ".init") != 0 && strcmp(name, ".fini") != 0 &&
	       strncmp(name, ".plt", 4) != 0;
}

static int read_sections(struct elf_image *im, struct sections *s)
{
	size_t n, shstrndx;
	if (elf_getshdrnum(im->elf, &n) != 0 || elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		return -1;
	s->v = calloc(n ? n : 1, sizeof(*s->v));
	if (!s->v)
		return -1;
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(im->elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		s->v[i].addr = sh.sh_addr;
		s->v[i].end = sh.sh_addr + sh.sh_size;
		s->v[i].ok = (sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS &&
			     section_name_ok(elf_strptr(im->elf, shstrndx, sh.sh_name));
	}
	return 0;
}

static int address_in_code(const struct sections *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (addr >= s->v[i].addr && addr < s->v[i].end)
			return s->v[i].ok;
	return 0;
}

static int list_push(struct elf_function_list *l, uint64_t vaddr, uint64_t size, const char *name)
{
	if (!ARRAY_RESERVE(l->v, l->n, l->cap, 256))
		return -1;
	l->v[l->n++] = (struct elf_function){vaddr, size, name};
	return 0;
}

/* FUNC symbols of one symbol table; returns how many sections of that type exist. */
static int collect_symbols(struct elf_image *im, unsigned type, const struct sections *secs,
			   struct elf_function_list *out)
{
	Elf_Scn *scn = NULL;
	int found = 0;
	while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0 ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		found = 1;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= secs->n ||
			    !secs->v[sym.st_shndx].ok)
				continue;
			const char *name = elf_strptr(im->elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			/* A skipped name stays in the list: its address must not come
			 * back unnamed from .eh_frame. */
			if (list_push(out, sym.st_value, sym.st_size, name) < 0)
				return -1;
		}
	}
	return found;
}

/* Reads one encoded pointer of .eh_frame_hdr; 0 or -1. */
static int read_encoded(const uint8_t *base, size_t len, size_t *off, uint8_t enc,
			uint64_t hdr_vaddr, uint64_t *out)
{
	int64_t v;
	size_t size = (enc & 0x0f) == DW_EH_PE_udata4 || (enc & 0x0f) == DW_EH_PE_sdata4   ? 4
		      : (enc & 0x0f) == DW_EH_PE_udata8 || (enc & 0x0f) == DW_EH_PE_sdata8 ? 8
		      : (enc & 0x0f) == DW_EH_PE_absptr					   ? 8
											   : 0;
	if (size == 0 || *off + size > len)
		return -1;
	if (size == 4) {
		int32_t s;
		uint32_t u;
		memcpy(&s, base + *off, 4);
		memcpy(&u, base + *off, 4);
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? s : (int64_t)u;
	} else {
		memcpy(&v, base + *off, 8);
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += (int64_t)(hdr_vaddr + *off);
	else if ((enc & 0x70) == DW_EH_PE_datarel)
		v += (int64_t)hdr_vaddr;
	else if ((enc & 0x70) != 0)
		return -1;
	*off += size;
	*out = (uint64_t)v;
	return 0;
}

static const uint8_t *eh_frame_hdr(struct elf_image *im, size_t *len, uint64_t *vaddr)
{
	size_t n;
	if (elf_getphdrnum(im->elf, &n) != 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(im->elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		Elf_Data *d =
		    elf_getdata_rawchunk(im->elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d)
			return NULL;
		*len = d->d_size;
		*vaddr = ph.p_vaddr;
		return d->d_buf;
	}
	return NULL;
}

/* The FDE range of `start`, or 0 when it has none. */
static uint64_t fde_size(Dwarf_CFI *cfi, uint64_t start)
{
	Dwarf_Frame *frame;
	Dwarf_Addr lo, hi;
	bool signalp;
	if (!cfi || dwarf_cfi_addrframe(cfi, start, &frame) != 0)
		return 0;
	int rc = dwarf_frame_info(frame, &lo, &hi, &signalp);
	free(frame);
	return rc >= 0 && lo == start && hi > lo ? hi - lo : 0;
}

static int collect_fdes(struct elf_image *im, Dwarf_CFI *cfi, const struct sections *secs,
			struct elf_function_list *out)
{
	size_t len, off = 4;
	uint64_t hdr, eh_frame, count;
	const uint8_t *p = eh_frame_hdr(im, &len, &hdr);
	if (!p || len < 4 || p[0] != 1 || read_encoded(p, len, &off, p[1], hdr, &eh_frame) < 0 ||
	    read_encoded(p, len, &off, p[2], hdr, &count) < 0)
		return 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t start, fde;
		if (read_encoded(p, len, &off, p[3], hdr, &start) < 0 ||
		    read_encoded(p, len, &off, p[3], hdr, &fde) < 0)
			return -1;
		uint64_t size = fde_size(cfi, start);
		if (size == 0 || start == im->ehdr.e_entry)
			continue;
		if (secs->n ? !address_in_code(secs, start)
			    : (start < im->exec_vaddr || start >= im->exec_end))
			continue;
		if (list_push(out, start, size, NULL) < 0)
			return -1;
	}
	return 0;
}

static int by_address(const void *a, const void *b)
{
	const struct elf_function *x = a, *y = b;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return (x->name == NULL) - (y->name == NULL); /* named first */
}

/* CFA = %rsp + 8 at `addr`: [rsp] holds the return address.  Unknown: yes. */
static int looks_like_entry(Dwarf_CFI *cfi, uint64_t addr)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
		return 1;
	int ok = dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
		 ops[0].atom == DW_OP_bregx && ops[0].number == REG_RSP_DWARF &&
		 ops[0].number2 == 8;
	free(frame);
	return ok;
}

/* Sorts, keeps one entry per address, drops skipped names and non-entries. */
static void tidy(struct elf_function_list *l, Dwarf_CFI *cfi)
{
	if (l->n) /* none: no list at all (qsort wants one) */
		qsort(l->v, l->n, sizeof(*l->v), by_address);
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct elf_function *f = &l->v[i];
		int skipped = 0;
		for (size_t j = i; j < l->n && l->v[j].vaddr == f->vaddr; j++)
			skipped |= l->v[j].name && name_skipped(l->v[j].name);
		while (i + 1 < l->n && l->v[i + 1].vaddr == f->vaddr)
			i++;
		if (skipped || !looks_like_entry(cfi, f->vaddr))
			continue;
		l->v[kept++] = *f;
	}
	l->n = kept;
}

int elf_functions_collect(struct elf_image *im, struct elf_function_list *out)
{
	struct sections secs = {0};
	memset(out, 0, sizeof(*out));
	if (read_sections(im, &secs) < 0)
		return -1;
	Dwarf_CFI *cfi = dwarf_getcfi_elf(im->elf);
	int rc = 0;
	int has_symtab = collect_symbols(im, SHT_SYMTAB, &secs, out);
	if (has_symtab < 0 || collect_symbols(im, SHT_DYNSYM, &secs, out) < 0)
		rc = -1;
	else if (!has_symtab && collect_fdes(im, cfi, &secs, out) < 0)
		rc = -1;
	if (rc == 0)
		tidy(out, cfi);
	if (cfi)
		dwarf_cfi_end(cfi);
	free(secs.v);
	return rc;
}

void elf_function_list_free(struct elf_function_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
