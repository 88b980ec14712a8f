/*
 * elf_inspect.c - quick questions about an ELF file's symbol tables, such as
 * whether a program was built with -finstrument-functions, and the facts
 * `calltrace check` reports (hooks, debug info, PIE, static, needed libraries).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
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

/* The hooks that instrumentation options make a file call. */
static void note_hook_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, struct elf_facts *f)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || shdr->sh_entsize == 0)
		return;
	size_t n = shdr->sh_size / shdr->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || name[0] == '\0')
			continue;
		if (strcmp(name, "__cyg_profile_func_enter") == 0) {
			int level = sym.st_shndx == SHN_UNDEF ? 1 : 2;
			if (level > f->cyg_hooks)
				f->cyg_hooks = level;
		} else if (strcmp(name, "mcount") == 0 || strcmp(name, "_mcount") == 0) {
			f->mcount = 1;
		} else if (strcmp(name, "__fentry__") == 0) {
			f->fentry = 1;
		} else if (strcmp(name, "calltrace_start") == 0 && sym.st_shndx != SHN_UNDEF) {
			f->runtime_linked = 1;
		}
	}
}

static void note_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, struct elf_facts *f)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || shdr->sh_entsize == 0)
		return;
	size_t n = shdr->sh_size / shdr->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		const char *str = NULL;
		if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH)
			str = elf_strptr(elf, shdr->sh_link, dyn.d_un.d_val);
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			f->pie_flag = 1;
		else if (dyn.d_tag == DT_NEEDED && str && f->nneeded < ELF_FACTS_NEEDED_MAX)
			snprintf(f->needed[f->nneeded++], sizeof(f->needed[0]), "%s", str);
		else if (dyn.d_tag == DT_RUNPATH && str) {
			snprintf(f->runpath, sizeof(f->runpath), "%s", str);
			f->runpath_is_rpath = 0;
		} else if (dyn.d_tag == DT_RPATH && str && f->runpath[0] == '\0') {
			snprintf(f->runpath, sizeof(f->runpath), "%s", str);
			f->runpath_is_rpath = 1;
		}
	}
}

static void note_build_id(Elf_Scn *scn, struct elf_facts *f)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t offset = 0, name_at, desc_at;
	GElf_Nhdr nhdr;
	while (data && (offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at)) > 0) {
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_at, "GNU", 4) != 0)
			continue;
		const uint8_t *id = (const uint8_t *)data->d_buf + desc_at;
		size_t len = nhdr.n_descsz < 64 ? nhdr.n_descsz : 64;
		for (size_t i = 0; i < len; i++)
			sprintf(f->build_id + 2 * i, "%02x", id[i]);
		return;
	}
}

static void note_debuglink(Elf_Scn *scn, struct elf_facts *f)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || data->d_size < 8)
		return;
	const char *name = data->d_buf;
	size_t len = strnlen(name, data->d_size);
	size_t crc_at = (len + 4) & ~(size_t)3;
	if (len == 0 || len >= sizeof(f->debuglink) || crc_at + 4 > data->d_size)
		return;
	memcpy(f->debuglink, name, len);
	f->debuglink[len] = '\0';
	memcpy(&f->debuglink_crc, (const char *)data->d_buf + crc_at, 4);
	f->has_debuglink = 1;
}

static void note_section(Elf *elf, Elf_Scn *scn, size_t names, struct elf_facts *f)
{
	GElf_Shdr shdr;
	if (!gelf_getshdr(scn, &shdr))
		return;
	const char *name = elf_strptr(elf, names, shdr.sh_name);
	if (shdr.sh_type == SHT_SYMTAB)
		f->has_symtab = 1;
	if (shdr.sh_type == SHT_SYMTAB || shdr.sh_type == SHT_DYNSYM)
		note_hook_symbols(elf, scn, &shdr, f);
	else if (shdr.sh_type == SHT_DYNAMIC)
		note_dynamic(elf, scn, &shdr, f);
	else if (shdr.sh_type == SHT_NOTE && !f->build_id[0])
		note_build_id(scn, f);
	if (!name)
		return;
	if (strcmp(name, ".debug_info") == 0 && shdr.sh_type != SHT_NOBITS && shdr.sh_size > 0)
		f->has_debug_info = 1;
	else if (strcmp(name, ".gnu_debuglink") == 0)
		note_debuglink(scn, f);
	else if (strcmp(name, "__patchable_function_entries") == 0)
		f->patchable_entries = 1;
}

static int gather_facts(Elf *elf, const void *arg)
{
	struct elf_facts *f = (struct elf_facts *)arg;
	GElf_Ehdr eh;
	size_t names, nphdr;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &names) != 0 ||
	    elf_getphdrnum(elf, &nphdr) != 0)
		return -1;
	f->type = eh.e_type;
	f->machine = eh.e_machine;
	f->elf_class = eh.e_ident[EI_CLASS];
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph)) {
			f->has_interp |= ph.p_type == PT_INTERP;
			f->has_dynamic |= ph.p_type == PT_DYNAMIC;
		}
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		note_section(elf, scn, names, f);
	return 0;
}

int elf_file_facts(const char *path, struct elf_facts *f)
{
	memset(f, 0, sizeof(*f));
	return ask_elf(path, gather_facts, f) == 0 ? 0 : -1;
}
