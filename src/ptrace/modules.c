/*
 * modules.c - the ELF modules mapped in a traced process, from
 * /proc/PID/maps, and their MODULE_LOAD / MODULE_UNLOAD records.  It says
 * what is loaded; what a new module then gets (breakpoints, watches) is
 * for the caller, module_setup.c, to do as the walk hands it each one.
 * Below module_setup.c and above the breakpoint table: it calls nothing
 * of the engine but that table and the messages.
 *
 * Unloads are handled before loads: a new module may take an old one's
 * addresses, and must get its own breakpoints and names there.
 *
 * A module is found by the mapping of its file at offset 0; its load bias
 * is that mapping's start minus the first PT_LOAD's page-aligned address.
 * A file merely mmap'ed by the program is told apart by requiring its
 * executable segment to be mapped executable where the bias puts it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf_image.h"
#include "../utils/array.h"
#include "engine.h"

struct map_line {
	uint64_t start, end, offset;
	char perms[5];
	char path[PATH_MAX];
};

static int read_maps(pid_t pid, struct module_scan *m)
{
	char path[64], line[PATH_MAX + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	m->maps = NULL;
	m->nmaps = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct map_line l;
		unsigned long long inode;
		int consumed = 0;
		if (sscanf(line, "%lx-%lx %4s %lx %*s %llu %n", &l.start, &l.end, l.perms,
			   &l.offset, &inode, &consumed) < 5 ||
		    inode == 0)
			continue;
		snprintf(l.path, sizeof(l.path), "%s", line + consumed);
		l.path[strcspn(l.path, "\n")] = '\0';
		if (l.path[0] != '/')
			continue;
		if (!ARRAY_RESERVE(m->maps, m->nmaps, cap, 64))
			break;
		m->maps[m->nmaps++] = l;
	}
	fclose(f);
	return 0;
}

static int exec_mapped(const struct module_scan *m, const char *path, uint64_t addr)
{
	for (size_t i = 0; i < m->nmaps; i++)
		if (m->maps[i].perms[2] == 'x' && addr >= m->maps[i].start &&
		    addr < m->maps[i].end && strcmp(m->maps[i].path, path) == 0)
			return 1;
	return 0;
}

static struct module *known_module(struct process *p, const struct map_line *l)
{
	for (size_t i = 0; i < p->nmodules; i++) {
		struct module *m = &p->modules[i];
		if (!m->gone && l->start >= m->low && l->start < m->high &&
		    strcmp(m->path, l->path) == 0)
			return m;
	}
	return NULL;
}

/* Opens the file behind a mapping, even when it was deleted since. */
static int open_mapped(pid_t pid, const struct map_line *l, struct elf_image *im)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(l->path);
	if (len > sizeof(deleted) - 1 &&
	    strcmp(l->path + len - (sizeof(deleted) - 1), deleted) == 0) {
		char path[96];
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid,
			 (unsigned long)l->start, (unsigned long)l->end);
		return elf_image_open(im, path);
	}
	return elf_image_open(im, l->path);
}

static struct module *add_module(struct process *p)
{
	if (!ARRAY_RESERVE(p->modules, p->nmodules, p->cap_modules, 16))
		return NULL;
	struct module *m = &p->modules[p->nmodules++];
	memset(m, 0, sizeof(*m));
	return m;
}

static void resolve(const char *path, char *out)
{
	if (!realpath(path, out))
		snprintf(out, PATH_MAX, "%s", path);
}

/* A new module from its offset-0 mapping; NULL if it is not a loaded ELF. */
static struct module *load_module(struct process *p, const struct module_scan *maps,
				  const struct map_line *l, const char *exe, char *interp)
{
	struct elf_image im;
	if (open_mapped(p->pid, l, &im) < 0)
		return NULL;
	uint64_t bias = l->start - im.first_vaddr;
	struct module *m = NULL;
	if (im.first_offset == 0 && im.exec_end > 0 &&
	    exec_mapped(maps, l->path, bias + im.exec_vaddr) && (m = add_module(p))) {
		m->path = strdup(l->path);
		m->bias = bias;
		m->low = bias + im.min_vaddr;
		m->high = bias + im.max_vaddr;
		m->exec_low = bias + im.exec_vaddr;
		m->exec_high = bias + im.exec_end;
		memcpy(m->build_id, im.build_id, im.build_id_len);
		m->build_id_len = im.build_id_len;
		m->is_exe = strcmp(l->path, exe) == 0;
		if (m->is_exe && im.interp[0])
			resolve(im.interp, interp);
		m->seen = 1;
	}
	elf_image_close(&im);
	return m;
}

static void announce(struct process *p, const struct module *m, uint32_t event)
{
	if (!p->muted)
		trace_write_module(&p->session, event, m->bias, m->low, m->high, m->build_id,
				   m->build_id_len, m->path);
}

void modules_announce(struct process *p)
{
	for (size_t i = 0; i < p->nmodules; i++)
		if (!p->modules[i].gone)
			announce(p, &p->modules[i], MODULE_LOAD);
}

struct module *modules_exe(struct process *p)
{
	for (size_t i = 0; i < p->nmodules; i++)
		if (p->modules[i].is_exe && !p->modules[i].gone)
			return &p->modules[i];
	return NULL;
}

/* An address of the unloaded module may next belong to another one: each
 * thread's stream defines its functions afresh. */
static void forget_functions(struct engine *e, const struct process *p)
{
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->proc == p && t->has_stream)
			trace_stream_forget_functions(&t->stream);
}

/* Modules no longer mapped: MODULE_UNLOAD, their breakpoints forgotten
 * (their memory is gone), before anything new is loaded at their place. */
static void modules_forget_gone(struct engine *e, struct process *p)
{
	int forgot = 0;
	for (size_t i = 0; i < p->nmodules; i++) {
		struct module *m = &p->modules[i];
		if (m->seen || m->gone)
			continue;
		m->gone = 1;
		announce(p, m, MODULE_UNLOAD);
		bp_forget_module(&p->bps, (uint16_t)i);
		forgot = 1;
		engine_note(e, "module unloaded: %s", m->path);
	}
	if (forgot)
		forget_functions(e, p);
}

/* Marks the known modules that are still mapped. */
static void mark_seen(struct process *p, const struct module_scan *maps)
{
	for (size_t i = 0; i < p->nmodules; i++)
		p->modules[i].seen = 0;
	for (size_t i = 0; i < maps->nmaps; i++) {
		struct module *m = known_module(p, &maps->maps[i]);
		if (m)
			m->seen = 1;
	}
}

int modules_scan_begin(struct engine *e, struct process *p, struct module_scan *s)
{
	char path[64];
	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(path, s->exe, sizeof(s->exe) - 1);
	s->exe[n > 0 ? n : 0] = '\0';
	if (read_maps(p->pid, s) < 0)
		return -1;
	mark_seen(p, s);
	modules_forget_gone(e, p);
	if (modules_exe(p))
		snprintf(s->interp, sizeof(s->interp), "%s", p->interp);
	return 0;
}

/* Pass 0 looks for the executable only, pass 1 for the rest; the dynamic
 * linker's path, read from the executable, is the process's after pass 0. */
static void end_pass(struct process *p, struct module_scan *s)
{
	if (s->interp[0])
		snprintf(p->interp, sizeof(p->interp), "%s", s->interp);
	s->pass++;
	s->next = 0;
}

long modules_scan_next(struct process *p, struct module_scan *s)
{
	while (s->pass < 2) {
		if (s->next == s->nmaps) {
			end_pass(p, s);
			continue;
		}
		const struct map_line *l = &s->maps[s->next++];
		if (known_module(p, l))
			continue;
		if (l->offset != 0 || (s->pass == 0) != (strcmp(l->path, s->exe) == 0))
			continue;
		struct module *m = load_module(p, s, l, s->exe, s->interp);
		if (!m)
			continue;
		char resolved[PATH_MAX];
		resolve(m->path, resolved);
		m->is_rtld = s->interp[0] && strcmp(resolved, s->interp) == 0;
		announce(p, m, MODULE_LOAD);
		return (long)(m - p->modules);
	}
	return -1;
}

void modules_scan_end(struct process *p, struct module_scan *s)
{
	if (s->pass == 0 && s->interp[0])
		snprintf(p->interp, sizeof(p->interp), "%s", s->interp);
	free(s->maps);
	s->maps = NULL;
}
