/*
 * processes.c - traced process images: the per-image copy of the trace
 * session, process records, and setting up a fresh image (its modules
 * through module_setup.c).  Above the modules, below follow.c and the
 * event loop.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"

struct process *process_new(struct engine *e, pid_t pid)
{
	struct process *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->mem_fd = -1;
	p->session = *e->root;
	p->next = e->procs;
	e->procs = p;
	return p;
}

static size_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, len);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

size_t dynamic_read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	return read_file(path, buf, len);
}

static pid_t read_ppid(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	size_t n = read_file(path, buf, sizeof(buf) - 1);
	buf[n] = '\0';
	char *close_paren = strrchr(buf, ')');
	int ppid = 0;
	char state;
	if (close_paren && sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2)
		return ppid;
	return 0;
}

void process_begin_image(struct engine *e, struct process *p, uint32_t event, uint32_t parent_image)
{
	char path[64], exe[PATH_MAX], cmd[2048];
	p->session = *e->root;
	trace_session_new_image(&p->session, (uint32_t)p->pid);
	if (!p->ppid)
		p->ppid = read_ppid(p->pid);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	size_t cmd_len = dynamic_read_cmdline(p->pid, cmd, sizeof(cmd));
	trace_write_process(&p->session, event, parent_image, (uint32_t)p->ppid, 0, exe, cmd,
			    cmd_len);
}

int process_setup_image(struct engine *e, struct process *p, struct thread *t)
{
	if (mem_open(p) < 0) {
		engine_error("cannot open the memory of process %d: %m", (int)p->pid);
		return -1;
	}
	return module_setup_rescan(e, t);
}

/* Forgets everything that belonged to the process's current image. */
static void process_clear_image(struct process *p)
{
	bp_table_free(&p->bps);
	for (size_t i = 0; i < p->nmodules; i++)
		free(p->modules[i].path);
	free(p->modules);
	p->modules = NULL;
	p->nmodules = p->cap_modules = 0;
	free(p->regions);
	p->regions = NULL;
	p->nregions = 0;
	p->trap = p->syscall_insn = p->r_debug = 0;
	mem_close(p);
}

void process_reset_image(struct process *p)
{
	process_clear_image(p);
}

void process_free(struct engine *e, struct process *p)
{
	struct process **pp = &e->procs;
	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	process_clear_image(p);
	free(p);
}

void process_exit(struct engine *e, struct process *p, int status)
{
	(void)e;
	p->exited = 1;
	if (!p->muted)
		trace_write_process(&p->session, PROCESS_EXIT, 0, (uint32_t)p->ppid, status, NULL,
				    NULL, 0);
}
