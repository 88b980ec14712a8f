/*
 * elf_functions.c - the functions an ELF file defines, read inside the
 * traced process without malloc: the file is mapped, its symbol table
 * (.symtab, else .dynsym) walked, and every function with a size reported
 * once, in address order, with the padding that follows it (the bytes up
 * to the next function or the end of its section, which no code reaches).
 * A file without .symtab (stripped) adds, when asked, the function entries of its
 * .eh_frame (eh_frame_functions.c), nameless but for those .dynsym names.
 */
#include "elf_functions.h"
#include "eh_frame_functions.h"
#include "special_functions.h"

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
		if (s->st_name >= names_len ||
		    memchr(names + s->st_name, '\0', names_len - s->st_name) == NULL ||
		    patch_is_fragment(names + s->st_name))
			continue; /* no name in the table, or a .cold part */
		out[count++] = (struct found){s->st_value, s->st_size, sec->sh_addr + sec->sh_size,
					      s->st_name};
	}
	return count;
}

/* ---- a stripped file: the entries .eh_frame gives -------------------------- */

#define NO_NAME UINT32_MAX

struct stripped_job {
	const uint8_t *file;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct found *found; /* sorted .dynsym functions first */
	size_t named, count;
};

static int has_function_at(const struct found *f, size_t n, uint64_t address)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].value == address)
			return 1;
		if (f[mid].value < address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The executable section that holds `address`, but the PLT's. */
static const Elf64_Shdr *code_section(const struct stripped_job *j, uint64_t address)
{
	const Elf64_Shdr *names =
	    j->eh->e_shstrndx < j->eh->e_shnum ? &j->sh[j->eh->e_shstrndx] : NULL;
	for (unsigned i = 0; i < j->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &j->sh[i];
		if (!(s->sh_flags & SHF_EXECINSTR) || address < s->sh_addr ||
		    address >= s->sh_addr + s->sh_size)
			continue;
		const char *name = names && s->sh_name < names->sh_size
				       ? (const char *)j->file + names->sh_offset + s->sh_name
				       : "";
		return strncmp(name, ".plt", 4) == 0 ? NULL : s;
	}
	return NULL;
}

static void add_fde_function(uint64_t address, uint64_t size, void *ctx)
{
	struct stripped_job *j = ctx;
	const Elf64_Shdr *sec = code_section(j, address);
	if (!sec || has_function_at(j->found, j->named, address))
		return;
	j->found[j->count++] = (struct found){address, size, sec->sh_addr + sec->sh_size, NO_NAME};
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
		    .name = f[i].name < names_len && f[i].name != NO_NAME ? names + f[i].name : "",
		};
		each(&fn, ctx);
	}
}

int elf_functions_each(const char *path, elf_function_fn each, void *ctx,
		       struct elf_file_facts *facts)
{
	struct elf_file_facts ignored = {0};
	if (!facts)
		facts = &ignored;
	facts->instrumented = 0;
	facts->count = 0;
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
	const Elf64_Shdr *strtab = symtab ? &sh[symtab->sh_link] : NULL;
	if (strtab && strtab->sh_offset + strtab->sh_size > size)
		goto out;
	int stripped = !symtab || symtab->sh_type != SHT_SYMTAB;
	size_t nsyms = symtab ? symtab->sh_size / sizeof(Elf64_Sym) : 0;
	size_t nfde =
	    stripped && facts->with_eh_frame ? eh_frame_functions(file, size, eh, NULL, NULL) : 0;
	size_t bytes = (nsyms + nfde) * sizeof(struct found) + 1;
	struct found *found =
	    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (found == MAP_FAILED) {
		rc = -1;
		goto out;
	}
	const char *names = strtab ? (const char *)file + strtab->sh_offset : "";
	size_t names_len = strtab ? strtab->sh_size : 0;
	size_t n =
	    symtab ? collect(file, eh, sh, symtab, names, names_len, found, &facts->instrumented)
		   : 0;
	if (each && nfde) {
		sort_by_address(found, n);
		struct stripped_job job = {file, eh, sh, found, n, n};
		eh_frame_functions(file, size, eh, add_fde_function, &job);
		n = job.count;
	}
	if (each) {
		facts->count = n;
		sort_by_address(found, n);
		report(found, n, names, names_len, each, ctx);
	}
	munmap(found, bytes);
out:
	munmap(map, size);
	return rc;
}
