/*
 * module_setup.c - what a module newly mapped in a traced process gets:
 * the executable the trap page; the dynamic linker the watch that notices
 * dlopen and dlclose (rtld_watch.c); every module, once the trap page is
 * there, the watches on the unwinder and longjmp (unwind_watch.c); the
 * executable and the libraries matching --module the breakpoints on their
 * functions (instrument.c).
 *
 * Above modules.c, whose walk says which modules are new, and above the
 * watches and the instrumentation it sets up; called by processes.c (a
 * new image) and special_stops.c (the dynamic linker's list changed).
 */
#include <regex.h>
#include "engine.h"

static int wanted(const struct engine *e, const struct module *m)
{
	if (m->is_exe)
		return 1;
	if (m->is_rtld || !e->opts->module_filter)
		return 0;
	return regexec(e->opts->module_filter, m->path, 0, NULL, 0) == 0;
}

/* Everything a new module needs after its record: the trap page, the
 * watches, breakpoints. */
static int module_added(struct engine *e, struct thread *t, size_t index)
{
	struct process *p = t->proc;
	struct module *m = &p->modules[index];
	if (m->is_exe && !p->trap && scratch_setup_trap_page(e, t, m) < 0) {
		engine_error("cannot map the trap page into process %d", (int)p->pid);
		return -1;
	}
	if (m->is_rtld)
		return rtld_watch(e, t, index);
	if (!p->trap)
		return 0;
	if (unwind_watch(e, t, index) < 0)
		return -1;
	if (wanted(e, &p->modules[index]))
		return instrument_module(e, t, index);
	return 0;
}

int module_setup_rescan(struct engine *e, struct thread *t)
{
	struct process *p = t->proc;
	struct module_scan scan;
	long index;
	int rc = modules_scan_begin(e, p, &scan);
	while (rc == 0 && (index = modules_scan_next(p, &scan)) >= 0)
		rc = module_added(e, t, (size_t)index);
	modules_scan_end(p, &scan);
	return rc;
}
