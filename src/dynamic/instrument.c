/*
 * instrument.c - putting breakpoints on a module's functions.
 *
 * The functions come from the ELF file (elf_functions.c), filtered by the
 * record-time -F/-N regexes; their code is read once from the tracee (the
 * whole executable segment); each gets an entry plan, an out-of-line slot
 * when its first instruction cannot be emulated, and then its int3.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elf_image.h"
#include "engine.h"

#define PLAN_WINDOW 32 /* bytes of code a plan may look at */

static int name_selected(const struct engine *e, const struct elf_function *f)
{
	char unnamed[40];
	const char *name = f->name;
	if (!name) {
		snprintf(unnamed, sizeof(unnamed), "sub_%lx", (unsigned long)f->vaddr);
		name = unnamed;
	}
	if (e->opts->only && regexec(e->opts->only, name, 0, NULL, 0) != 0)
		return 0;
	if (e->opts->hide && regexec(e->opts->hide, name, 0, NULL, 0) == 0)
		return 0;
	return 1;
}

/* Gives an out-of-line plan its slot; 0 or -1. */
static int place_slot(struct engine *e, struct thread *t, struct entry_plan *plan, uint64_t addr,
		      const uint8_t *code, size_t remaining)
{
	uint8_t slot[OOL_SLOT_SIZE];
	size_t want = remaining * OOL_SLOT_SIZE;
	uint64_t at = scratch_slot(e, t, addr, OOL_SLOT_SIZE, want < 4096 ? 4096 : want);
	if (at == 0 || plan_fill_slot(plan, addr, code, at, slot) < 0)
		return -1;
	return mem_poke_code(t->proc, at, slot, sizeof(slot));
}

/* Plans and arms one function; 1 armed, 0 skipped, -1 error. */
static int arm_function(struct engine *e, struct thread *t, size_t index, uint64_t addr,
			const uint8_t *code, size_t avail, size_t remaining)
{
	struct process *p = t->proc;
	struct entry_plan plan;
	if (code[0] == 0xcc || bp_find(&p->bps, addr))
		return 0;
	enum plan_result res = plan_build(&plan, addr, code, avail);
	if (res == PLAN_UNPATCHABLE)
		return 0;
	if (res == PLAN_NEEDS_SLOT && place_slot(e, t, &plan, addr, code, remaining) < 0)
		return 0;
	struct breakpoint *bp = bp_add(&p->bps, addr);
	if (!bp)
		return -1;
	bp->orig = code[0];
	bp->kind = BP_FUNCTION;
	bp->module = (uint16_t)index;
	bp->plan = plan;
	if (bp_insert(p, bp) < 0)
		return -1;
	if (res == PLAN_NEEDS_SLOT)
		e->out_of_line++;
	else
		e->emulated++;
	return 1;
}

static int arm_all(struct engine *e, struct thread *t, size_t index,
		   const struct elf_function_list *fl, const uint8_t *text)
{
	const struct module *m = &t->proc->modules[index];
	size_t armed = 0, skipped = 0;
	for (size_t i = 0; i < fl->n; i++) {
		const struct elf_function *f = &fl->v[i];
		uint64_t addr = f->vaddr + m->bias;
		if (addr < m->exec_low || addr >= m->exec_high || !name_selected(e, f))
			continue;
		size_t avail = (size_t)(m->exec_high - addr);
		if (avail > f->size)
			avail = (size_t)f->size;
		if (avail > PLAN_WINDOW)
			avail = PLAN_WINDOW;
		int rc = arm_function(e, t, index, addr, text + (addr - m->exec_low), avail,
				      fl->n - i);
		if (rc < 0)
			return -1;
		armed += rc == 1;
		skipped += rc == 0;
	}
	e->functions += armed;
	e->skipped += skipped;
	engine_note(e, "%s: %zu functions instrumented, %zu skipped", m->path, armed, skipped);
	return 0;
}

int instrument_module(struct engine *e, struct thread *t, size_t index)
{
	struct process *p = t->proc;
	struct module *m = &p->modules[index];
	struct elf_image im;
	struct elf_function_list fl;
	if (elf_image_open(&im, m->path) < 0) {
		engine_note(e, "cannot read %s: not instrumented", m->path);
		return 0;
	}
	int rc = elf_functions_collect(&im, &fl);
	size_t len = (size_t)(m->exec_high - m->exec_low);
	uint8_t *text = rc == 0 ? malloc(len) : NULL;
	if (text && mem_read_code(p, m->exec_low, text, len) == 0)
		rc = arm_all(e, t, index, &fl, text);
	else
		engine_note(e, "cannot read the code of %s: not instrumented", m->path);
	p->modules[index].instrumented = 1;
	free(text);
	elf_function_list_free(&fl);
	elf_image_close(&im);
	return rc;
}
