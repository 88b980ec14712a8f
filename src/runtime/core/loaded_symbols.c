/*
 * loaded_symbols.c - what a loaded module asks the others for: its
 * undefined dynamic symbols, read where the dynamic linker mapped them
 * (no file read).  With a GNU hash table the linker puts the symbols it
 * does not hash, the undefined ones, first (below its symoffset); with a
 * SysV one, nchain counts them all.
 */
#include "../runtime.h"

#include <elf.h>
#include <link.h>
#include <string.h>

/* An address of the dynamic section: the dynamic linker made it absolute
 * (where the section is writable); else it is the module's own. */
static uint64_t dynamic_address(uint64_t value, uint64_t bias)
{
	return value < bias ? value + bias : value;
}

/* How many dynamic symbols to look at: those below the GNU hash table's
 * symoffset, or all the SysV one counts; 0 when neither is there. */
static uint32_t symbols_to_read(uint64_t gnu_hash, uint64_t sysv_hash)
{
	if (gnu_hash)
		return ((const uint32_t *)gnu_hash)[1];
	if (sysv_hash)
		return ((const uint32_t *)sysv_hash)[1];
	return 0;
}

int runtime_loaded_needs(uint64_t bias, const void *dynamic, const char *name)
{
	uint64_t symtab = 0, strtab = 0, strsz = 0, gnu_hash = 0, sysv_hash = 0;
	for (const ElfW(Dyn) *d = dynamic; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symtab = dynamic_address(d->d_un.d_ptr, bias);
		else if (d->d_tag == DT_STRTAB)
			strtab = dynamic_address(d->d_un.d_ptr, bias);
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
		else if (d->d_tag == DT_GNU_HASH)
			gnu_hash = dynamic_address(d->d_un.d_ptr, bias);
		else if (d->d_tag == DT_HASH)
			sysv_hash = dynamic_address(d->d_un.d_ptr, bias);
	}
	uint32_t n = symbols_to_read(gnu_hash, sysv_hash);
	if (!symtab || !strtab || !n)
		return -1;
	size_t len = strlen(name);
	const ElfW(Sym) *syms = (const ElfW(Sym) *)symtab;
	const char *names = (const char *)strtab;
	for (uint32_t i = 1; i < n; i++) {
		const ElfW(Sym) *s = &syms[i];
		if (s->st_shndx == SHN_UNDEF && s->st_name + len < strsz &&
		    memcmp(names + s->st_name, name, len + 1) == 0)
			return 1;
	}
	return 0;
}
