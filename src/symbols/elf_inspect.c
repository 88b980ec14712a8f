/*
 * elf_inspect.c - quick questions about an ELF file's symbol tables, such as
 * whether a program was built with -finstrument-functions.
 */
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>
#include "symbols.h"

/* 1 if the symbol table section `scn` names `wanted`, else 0. */
static int section_has_symbol(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, const char *wanted)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || shdr->sh_entsize == 0)
		return 0;
	size_t n = shdr->sh_size / shdr->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (name && strcmp(name, wanted) == 0)
			return 1;
	}
	return 0;
}

static int elf_has_symbol(Elf *elf, const char *wanted)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type != SHT_DYNSYM && shdr.sh_type != SHT_SYMTAB)
			continue;
		if (section_has_symbol(elf, scn, &shdr, wanted))
			return 1;
	}
	return 0;
}

/* Opens the ELF file at `path` and answers `question` about it (0 or 1);
 * -1 when it is not a readable ELF file. */
static int ask_elf(const char *path, int (*question)(Elf *elf, const void *arg), const void *arg)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int result = -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		result = question(elf, arg);
	if (elf)
		elf_end(elf);
	close(fd);
	return result;
}

static int names_symbol(Elf *elf, const void *name)
{
	return elf_has_symbol(elf, name);
}

static int has_interpreter(Elf *elf, const void *unused)
{
	(void)unused;
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

static int has_symtab(Elf *elf, const void *unused)
{
	(void)unused;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

int elf_file_references(const char *path, const char *symbol_name)
{
	return ask_elf(path, names_symbol, symbol_name);
}

int elf_file_is_dynamic(const char *path)
{
	return ask_elf(path, has_interpreter, NULL);
}

int elf_file_has_symtab(const char *path)
{
	return ask_elf(path, has_symtab, NULL);
}
