/*
 * target_symbols.c - where a function of another process is: its module
 * found in /proc/PID/maps (load bias = where the file's offset 0 is mapped,
 * minus the first segment's address), the symbol read from the module's
 * file (through /proc/PID/root, so that a process in another mount
 * namespace is read right).
 */
#include "inject.h"
#include "../ptrace/elf_image.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static int name_matches(const char *path, const char *const *names)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (; *names; names++)
		if (strncmp(base, *names, strlen(*names)) == 0)
			return 1;
	return 0;
}

int target_module(pid_t pid, const char *const *names, char *path, size_t path_len, uint64_t *bias)
{
	char maps[64], line[4608];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return -1;
	int found = -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		unsigned long low, offset;
		char file[4096] = "";
		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095[^\n]", &low, &offset, file) < 3 ||
		    file[0] != '/' || offset != 0 || !name_matches(file, names))
			continue;
		struct elf_image im;
		char via_root[4200];
		snprintf(via_root, sizeof(via_root), "/proc/%d/root%s", (int)pid, file);
		if (elf_image_open(&im, via_root) < 0)
			continue;
		*bias = low - im.first_vaddr;
		elf_image_close(&im);
		snprintf(path, path_len, "%s", file);
		found = 0;
	}
	fclose(f);
	return found;
}

uint64_t target_symbol(pid_t pid, const char *path, uint64_t bias, const char *symbol)
{
	char via_root[4200];
	struct elf_image im;
	uint64_t vaddr = 0;
	snprintf(via_root, sizeof(via_root), "/proc/%d/root%s", (int)pid, path);
	if (elf_image_open(&im, via_root) < 0)
		return 0;
	int rc = elf_image_symbol(&im, symbol, &vaddr);
	elf_image_close(&im);
	return rc == 0 && vaddr ? bias + vaddr : 0;
}

uint64_t target_libc_symbol(pid_t pid, const char *symbol)
{
	static const char *const libc[] = {"libc.so.6", "libc-2.", NULL};
	static const char *const libdl[] = {"libdl.so", "libdl-", NULL};
	char path[4096];
	uint64_t bias, address = 0;
	if (target_module(pid, libc, path, sizeof(path), &bias) == 0)
		address = target_symbol(pid, path, bias, symbol);
	if (!address && target_module(pid, libdl, path, sizeof(path), &bias) == 0)
		address = target_symbol(pid, path, bias, symbol);
	return address;
}

int target_maps_file(pid_t pid, const char *path)
{
	struct stat want;
	if (stat(path, &want) < 0)
		return 0;
	char maps[64], line[4608];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return 0;
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int major, minor;
		unsigned long inode;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %lu", &major, &minor, &inode) == 3 &&
		    inode == (unsigned long)want.st_ino && makedev(major, minor) == want.st_dev)
			found = 1;
	}
	fclose(f);
	return found;
}
