/*
 * elf_functions.c - the functions an ELF file defines, read inside the
 * traced process without malloc: the file is mapped, its symbol table
 * (.symtab, else .dynsym) walked, and every function with a size reported
 * once, in address order, with the padding that follows it (the bytes up
 * to the next function or the end of its section, which no code reaches).
 */
#include "elf_functions.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct found {
	uint64_t value, size, section_end;
	uint32_t name;
};

static const Elf64_Shdr *symbol_table(const Elf64_Ehdr *eh, const Elf64_Shdr *sh, size_t file_size)
{
	const Elf64_Shdr *dynsym = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_offset + sh[i].sh_size > file_size || sh[i].sh_link >= eh->e_shnum)
			continue;
		if (sh[i].sh_type == SHT_SYMTAB)
			return &sh[i];
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	}
	return dynsym;
}

static void sift_down(struct found *a, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && a[child + 1].value > a[child].value)
			child++;
		if (a[root].value >= a[child].value)
			return;
		struct found tmp = a[root];
		a[root] = a[child];
		a[child] = tmp;
		root = child;
	}
}

static void sort_by_address(struct found *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		struct found tmp = a[0];
		a[0] = a[end];
		a[end] = tmp;
		sift_down(a, 0, end);
	}
}

/* The functions of symbol table `st` into `out` (room for all its
 * symbols); returns how many. */
static size_t collect(const uint8_t *file, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
		      const Elf64_Shdr *st, const char *names, size_t names_len, struct found *out,
		      int *instrumented)
{
	static const char hook[] = "__cyg_profile_func_enter";
	const Elf64_Sym *syms = (const Elf64_Sym *)(file + st->sh_offset);
	size_t n = st->sh_size / sizeof(Elf64_Sym), count = 0;
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *s = &syms[i];
		if (s->st_shndx == SHN_UNDEF && s->st_name + sizeof(hook) <= names_len &&
		    memcmp(names + s->st_name, hook, sizeof(hook) - 1) == 0 &&
		    (names[s->st_name + sizeof(hook) - 1] == '\0' ||
		     names[s->st_name + sizeof(hook) - 1] == '@')) /* "...@GLIBC_2.2.5" */
			*instrumented = 1;
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_size == 0 ||
		    s->st_shndx == SHN_UNDEF || s->st_shndx >= eh->e_shnum)
			continue;
		const Elf64_Shdr *sec = &sh[s->st_shndx];
		if (!(sec->sh_flags & SHF_EXECINSTR) || s->st_value < sec->sh_addr)
			continue;
		out[count++] = (struct found){s->st_value, s->st_size, sec->sh_addr + sec->sh_size,
					      s->st_name};
	}
	return count;
}

/* Calls `each` for every function but aliases, with its padding. */
static void report(const struct found *f, size_t n, const char *names, size_t names_len,
		   elf_function_fn each, void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && f[i].value == f[i - 1].value)
			continue; /* an alias */
		uint64_t end = f[i].value + f[i].size, next = f[i].section_end;
		for (size_t j = i + 1; j < n; j++)
			if (f[j].value >= end) {
				if (f[j].value < next)
					next = f[j].value;
				break;
			}
		struct elf_function fn = {
		    .address = f[i].value,
		    .size = f[i].size,
		    .padding = next > end ? next - end : 0,
		    .name = f[i].name < names_len ? names + f[i].name : "",
		};
		each(&fn, ctx);
	}
}

int elf_functions_each(const char *path, elf_function_fn each, void *ctx,
		       struct elf_file_facts *facts)
{
	struct elf_file_facts ignored;
	if (!facts)
		facts = &ignored;
	facts->instrumented = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	size_t size = (size_t)st.st_size;
	const uint8_t *file = map;
	const Elf64_Ehdr *eh = map;
	int rc = -1;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		goto out;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
	const Elf64_Shdr *symtab = symbol_table(eh, sh, size);
	facts->entry = eh->e_entry;
	rc = 0;
	if (!symtab)
		goto out;
	const Elf64_Shdr *strtab = &sh[symtab->sh_link];
	if (strtab->sh_offset + strtab->sh_size > size)
		goto out;
	size_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
	size_t bytes = nsyms * sizeof(struct found) + 1;
	struct found *found =
	    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (found == MAP_FAILED) {
		rc = -1;
		goto out;
	}
	const char *names = (const char *)file + strtab->sh_offset;
	size_t n =
	    collect(file, eh, sh, symtab, names, strtab->sh_size, found, &facts->instrumented);
	if (each) {
		sort_by_address(found, n);
		report(found, n, names, strtab->sh_size, each, ctx);
	}
	munmap(found, bytes);
out:
	munmap(map, size);
	return rc;
}
