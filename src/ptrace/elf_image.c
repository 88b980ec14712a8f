/*
 * elf_image.c - an ELF file's load segments, build-id, interpreter and
 * symbol lookup, read with libelf.
 */
#include "elf_image.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define PAGE_MASK_4K 0xfffull

static void read_build_id(struct elf_image *im, const GElf_Phdr *ph)
{
	Elf_Data *d =
	    elf_getdata_rawchunk(im->elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	if (!d)
		return;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz <= sizeof(im->build_id)) {
			memcpy(im->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
			im->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static void read_interp(struct elf_image *im, const GElf_Phdr *ph)
{
	size_t len = ph->p_filesz < sizeof(im->interp) - 1 ? ph->p_filesz : sizeof(im->interp) - 1;
	if (pread(im->fd, im->interp, len, (off_t)ph->p_offset) == (ssize_t)len)
		im->interp[len] = '\0';
	else
		im->interp[0] = '\0';
}

static void note_load(struct elf_image *im, const GElf_Phdr *ph, int *first)
{
	if (*first) {
		im->first_vaddr = ph->p_vaddr & ~PAGE_MASK_4K;
		im->first_offset = ph->p_offset & ~PAGE_MASK_4K;
		im->min_vaddr = ph->p_vaddr;
		*first = 0;
	}
	if (ph->p_vaddr < im->min_vaddr)
		im->min_vaddr = ph->p_vaddr;
	if (ph->p_vaddr + ph->p_memsz > im->max_vaddr)
		im->max_vaddr = ph->p_vaddr + ph->p_memsz;
	if ((ph->p_flags & PF_X) && im->exec_end == 0) {
		im->exec_vaddr = ph->p_vaddr;
		im->exec_end = ph->p_vaddr + ph->p_memsz;
	}
}

static int read_segments(struct elf_image *im)
{
	size_t n;
	int first = 1;
	if (elf_getphdrnum(im->elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(im->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD)
			note_load(im, &ph, &first);
		else if (ph.p_type == PT_NOTE && im->build_id_len == 0)
			read_build_id(im, &ph);
		else if (ph.p_type == PT_INTERP)
			read_interp(im, &ph);
	}
	return first ? -1 : 0;
}

int elf_image_open(struct elf_image *im, const char *path)
{
	memset(im, 0, sizeof(*im));
	elf_version(EV_CURRENT);
	im->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im->fd < 0)
		return -1;
	im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &im->ehdr) ||
	    im->ehdr.e_machine != EM_X86_64 || read_segments(im) < 0) {
		elf_image_close(im);
		return -1;
	}
	return 0;
}

void elf_image_close(struct elf_image *im)
{
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	im->elf = NULL;
	im->fd = -1;
}

static int lookup_in(struct elf_image *im, Elf_Scn *scn, const char *name, uint64_t *vaddr)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!gelf_getshdr(scn, &sh) || !d || sh.sh_entsize == 0)
		return -1;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		const char *s = elf_strptr(im->elf, sh.sh_link, sym.st_name);
		if (s && strcmp(s, name) == 0) {
			*vaddr = sym.st_value;
			return 0;
		}
	}
	return -1;
}

int elf_image_symbol(struct elf_image *im, const char *name, uint64_t *vaddr)
{
	static const unsigned types[2] = {SHT_DYNSYM, SHT_SYMTAB};
	for (int t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(im->elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[t] &&
			    lookup_in(im, scn, name, vaddr) == 0)
				return 0;
		}
	}
	return -1;
}
