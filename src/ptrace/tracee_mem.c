/*
 * tracee_mem.c - reading and writing the traced process's memory.
 *
 * Data (the stack) goes through process_vm_readv/writev: one system call,
 * no page-table games.  Code goes through /proc/PID/mem, which may write
 * read-only pages the way a debugger must (the kernel makes a private copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>
#include "engine.h"

int mem_open(struct process *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pid);
	p->mem_fd = open(path, O_RDWR | O_CLOEXEC);
	return p->mem_fd < 0 ? -1 : 0;
}

void mem_close(struct process *p)
{
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	p->mem_fd = -1;
}

int mem_read(struct process *p, uint64_t address, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)address, len};
	ssize_t n = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return mem_read_code(p, address, buf, len);
}

size_t mem_read_some(struct process *p, uint64_t address, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {(void *)(uintptr_t)address, len};
	ssize_t n = process_vm_readv(p->pid, &local, 1, &remote, 1, 0);
	if (n > 0)
		return (size_t)n;
	n = p->mem_fd >= 0 ? pread(p->mem_fd, buf, len, (off_t)address) : -1;
	return n > 0 ? (size_t)n : 0;
}

int mem_write(struct process *p, uint64_t address, const void *buf, size_t len)
{
	struct iovec local = {(void *)buf, len};
	struct iovec remote = {(void *)(uintptr_t)address, len};
	ssize_t n = process_vm_writev(p->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return mem_poke_code(p, address, buf, len);
}

int mem_poke_code(struct process *p, uint64_t address, const void *buf, size_t len)
{
	if (p->mem_fd < 0) {
		errno = EBADF;
		return -1;
	}
	ssize_t n = pwrite(p->mem_fd, buf, len, (off_t)address);
	return n == (ssize_t)len ? 0 : -1;
}

int mem_read_code(struct process *p, uint64_t address, void *buf, size_t len)
{
	if (p->mem_fd < 0) {
		errno = EBADF;
		return -1;
	}
	ssize_t n = pread(p->mem_fd, buf, len, (off_t)address);
	return n == (ssize_t)len ? 0 : -1;
}
