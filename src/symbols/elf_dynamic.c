/*
 * elf_dynamic.c - what the dynamic linker sees of one ELF file: its GOT
 * slots (the JUMP_SLOT and GLOB_DAT relocations of .rela.plt and .rela.dyn,
 * each naming the function it is bound to, with its symbol version) and
 * the names its dynamic symbol table defines, and the functions it exports
 * by address (a call through a pointer dlsym returned is named by the name
 * a program asks dlsym for: `puts` rather than its alias `_IO_puts`).
 *
 * A library call is recorded as the address of the GOT slot it went
 * through: the slot's relocation names the function, and the first module
 * of the process that defines the name provides it.  Both tables are read
 * once per file and searched in O(log n).
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "symbols_internal.h"

#define R_AARCH64_GLOB_DAT_ 1025
#define R_AARCH64_JUMP_SLOT_ 1026

/* Whether relocation type `type` of machine `machine` fills a GOT slot
 * with a symbol's address. */
static int binds_slot(int machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
	case EM_386:
		return type == R_386_JMP_SLOT || type == R_386_GLOB_DAT;
	case EM_AARCH64:
		return type == R_AARCH64_JUMP_SLOT_ || type == R_AARCH64_GLOB_DAT_;
	}
	return 0;
}

/* The symbol versions an ELF file needs (.gnu.version_r): index -> name. */
struct needed_versions {
	const char **names;
	size_t count;
};

static void read_needed_versions(Elf *elf, struct needed_versions *v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verneed)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Verneed need;
		GElf_Vernaux aux;
		size_t off = 0;
		for (size_t n = 0; data && n < sh.sh_info && gelf_getverneed(data, off, &need);
		     n++) {
			size_t aoff = off + need.vn_aux;
			for (size_t a = 0; a < need.vn_cnt && gelf_getvernaux(data, aoff, &aux);
			     a++) {
				size_t index = aux.vna_other & 0x7fff;
				if (index >= v->count) {
					const char **names =
					    realloc(v->names, (index + 1) * sizeof(*names));
					if (!names)
						return;
					memset(names + v->count, 0,
					       (index + 1 - v->count) * sizeof(*names));
					v->names = names;
					v->count = index + 1;
				}
				v->names[index] = elf_strptr(elf, sh.sh_link, aux.vna_name);
				aoff += aux.vna_next;
			}
			if (!need.vn_next)
				break;
			off += need.vn_next;
		}
	}
}

/* The .gnu.version entries (one per dynamic symbol), or NULL. */
static Elf_Data *symbol_versions(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int add_slot(struct elf_dynamic *d, size_t *cap, const struct got_slot *s)
{
	if (d->nslots == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		struct got_slot *slots = realloc(d->slots, n * sizeof(*slots));
		if (!slots)
			return -1;
		d->slots = slots;
		*cap = n;
	}
	d->slots[d->nslots++] = *s;
	return 0;
}

/* The slot relocations of one SHT_RELA or SHT_REL section. */
static int read_relocations(struct elf_dynamic *d, size_t *cap, Elf *elf, Elf_Scn *scn,
			    const GElf_Shdr *sh, int machine,
			    const struct needed_versions *versions, Elf_Data *versym)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!data || !syms || !gelf_getshdr(symscn, &symsh) || !sh->sh_entsize)
		return 0;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Rela rela;
		GElf_Rel rel;
		if (sh->sh_type == SHT_RELA ? !gelf_getrela(data, (int)i, &rela)
					    : !gelf_getrel(data, (int)i, &rel))
			continue;
		if (sh->sh_type == SHT_REL)
			rela.r_offset = rel.r_offset, rela.r_info = rel.r_info;
		size_t symndx = GELF_R_SYM(rela.r_info);
		GElf_Sym sym;
		GElf_Versym ver;
		if (!symndx || !binds_slot(machine, (uint32_t)GELF_R_TYPE(rela.r_info)) ||
		    !gelf_getsym(syms, (int)symndx, &sym))
			continue;
		struct got_slot s = {.address = rela.r_offset,
				     .name = elf_strptr(elf, symsh.sh_link, sym.st_name)};
		if (!s.name || !*s.name)
			continue;
		if (versym && gelf_getversym(versym, (int)symndx, &ver) &&
		    (size_t)(ver & 0x7fff) < versions->count)
			s.version = versions->names[ver & 0x7fff];
		if (add_slot(d, cap, &s) < 0)
			return -1;
	}
	return 0;
}

static int by_slot_address(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;
	return x->address < y->address ? -1 : x->address > y->address;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static unsigned leading_underscores(const char *name)
{
	return (unsigned)strspn(name, "_");
}

/* Of the functions exported at one address, the one a program names:
 * fewest leading underscores, then the shorter name, then by name. */
static int by_export_address(const void *a, const void *b)
{
	const struct exported_function *x = a, *y = b;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	unsigned ux = leading_underscores(x->name), uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The names the dynamic symbol table `scn` defines, and its functions. */
static int read_defined(struct elf_dynamic *d, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	if (!data || n == 0)
		return 0;
	d->defined = malloc(n * sizeof(*d->defined));
	d->exported = malloc(n * sizeof(*d->exported));
	if (!d->defined || !d->exported)
		return -1;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE)
			continue;
		if ((name = elf_strptr(elf, sh->sh_link, sym.st_name)) == NULL || !*name)
			continue;
		d->defined[d->ndefined++] = name;
		if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_value)
			d->exported[d->nexported++] =
			    (struct exported_function){.address = sym.st_value, .name = name};
	}
	qsort(d->defined, d->ndefined, sizeof(*d->defined), by_name);
	qsort(d->exported, d->nexported, sizeof(*d->exported), by_export_address);
	return 0;
}

int elf_dynamic_read(struct elf_dynamic *d, Elf *elf)
{
	GElf_Ehdr eh;
	struct needed_versions versions = {0};
	size_t cap = 0;
	int rc = 0;
	memset(d, 0, sizeof(*d));
	if (!gelf_getehdr(elf, &eh))
		return 0;
	read_needed_versions(elf, &versions);
	Elf_Data *versym = symbol_versions(elf);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)
			rc = read_relocations(d, &cap, elf, scn, &sh, eh.e_machine, &versions,
					      versym);
		else if (sh.sh_type == SHT_DYNSYM && !d->defined)
			rc = read_defined(d, elf, scn, &sh);
	}
	free(versions.names);
	if (rc < 0) {
		elf_dynamic_free(d);
		return -1;
	}
	qsort(d->slots, d->nslots, sizeof(*d->slots), by_slot_address);
	return 0;
}

void elf_dynamic_free(struct elf_dynamic *d)
{
	free(d->slots);
	free(d->defined);
	free(d->exported);
	memset(d, 0, sizeof(*d));
}

const struct got_slot *elf_dynamic_slot(const struct elf_dynamic *d, uint64_t file_address)
{
	struct got_slot key = {.address = file_address};
	return bsearch(&key, d->slots, d->nslots, sizeof(*d->slots), by_slot_address);
}

int elf_dynamic_defines(const struct elf_dynamic *d, const char *name)
{
	return d->ndefined &&
	       bsearch(&name, d->defined, d->ndefined, sizeof(*d->defined), by_name) != NULL;
}

static int by_address_only(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct exported_function *)elem)->address;
	return a < b ? -1 : a > b;
}

const char *elf_dynamic_exported_at(const struct elf_dynamic *d, uint64_t file_address)
{
	const struct exported_function *f = d->nexported
						? bsearch(&file_address, d->exported, d->nexported,
							  sizeof(*d->exported), by_address_only)
						: NULL;
	/* bsearch finds any of the names at the address: the first is wanted. */
	while (f && f > d->exported && f[-1].address == file_address)
		f--;
	return f ? f->name : NULL;
}
