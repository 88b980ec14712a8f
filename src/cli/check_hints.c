/*
 * check_hints.c - what `calltrace check` says beyond the ELF facts: that a
 * file is a libtool wrapper script (and which program it runs), and how many
 * functions of the C++ standard library's headers a program has compiled in
 * (template instances, inline helpers), which -finstrument-functions
 * instruments unless told to leave /usr/include out (which gcc's command
 * line, kept in the debug info, says).
 */
#include "check_locate.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRAPPER_MARK "temporary wrapper script for "

int check_libtool_wrapper(const char *path, char *program, size_t len)
{
	char head[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return -1;
	head[n] = '\0';
	const char *mark = strstr(head, WRAPPER_MARK);
	if (!mark)
		return -1;
	mark += strlen(WRAPPER_MARK);
	size_t word = strcspn(mark, " \t\r\n");
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	snprintf(program, len, "%.*s%.*s", dir_len, path, (int)word, mark);
	return 0;
}

/* Whether a mangled name is of the standard library's headers: std::,
 * std::__cxx11::, __gnu_cxx::, const members too. */
static int is_std_name(const char *name)
{
	static const char *prefixes[] = {"_ZSt",	   "_ZNSt", "_ZNKSt", "_ZN9__gnu_cxx",
					 "_ZNK9__gnu_cxx", "_ZNSs", "_ZNKSs"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static size_t count_in_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = 0, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;
	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		const char *name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		count += name && is_std_name(name);
	}
	return count;
}

/* Whether the compiler's command line recorded in the debug info (gcc's
 * DW_AT_producer) left the headers out already. */
static int headers_excluded(int fd)
{
	static const char flag[] = "-finstrument-functions-exclude-file-list=";
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size == 0)
		return 0;
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 0;
	int found = memmem(map, (size_t)st.st_size, flag, sizeof(flag) - 1) != NULL;
	munmap(map, (size_t)st.st_size);
	return found;
}

size_t check_count_std_functions(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (headers_excluded(fd)) {
		close(fd);
		return 0;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t count = 0;
	for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr shdr;
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			count += count_in_table(elf, scn, &shdr);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return count;
}
