/*
 * instrument.c - putting breakpoints on a module's functions.
 *
 * The functions come from the ELF file (elf_functions.c), filtered by the
 * record-time -F/-N regexes; their code is read once from the tracee (the
 * whole executable segment).  Each gets a jump entry where it can
 * (jump_patch.h), else an int3 with an entry plan: its first instructions
 * emulated, or run out of line from a slot.  The watches (rtld_watch.c,
 * unwind_watch.c) arm their breakpoints, which are not traced functions,
 * through special_breakpoint().
 *
 * Below module_setup.c and the watches; it calls the breakpoint table,
 * scratch memory, the capture plans and what is under them.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elf_image.h"
#include "../patch/name_match.h"
#include "engine.h"

#define PLAN_WINDOW 32 /* bytes of code a plan may look at */

/* Whether `f` is instrumented: all but -N's (-F's are marked as scopes:
 * the calls made while one is open are recorded, as under the runtime). */
static int name_selected(const struct engine *e, const struct elf_function *f, uint8_t *scope)
{
	char unnamed[40];
	const char *name = f->name;
	if (!name) {
		snprintf(unnamed, sizeof(unnamed), "sub_%lx", (unsigned long)f->vaddr);
		name = unnamed;
	}
	*scope = e->opts->only && name_match(e->opts->only, e->opts->only_text, name);
	return !(e->opts->hide && name_match(e->opts->hide, e->opts->hide_text, name));
}

/* -F's mark for the breakpoints arm_all makes now (0 for the others). */
static uint8_t arming_scope;

/* Gives an out-of-line plan its slot; 0 or -1. */
static int place_slot(struct engine *e, struct thread *t, struct entry_plan *plan, uint64_t addr,
		      const uint8_t *code, size_t want)
{
	uint8_t slot[OOL_SLOT_SIZE];
	uint64_t trap;
	uint64_t at = scratch_slot(e, t, addr, OOL_SLOT_SIZE, want, &trap);
	if (at == 0 || plan_fill_slot(plan, addr, code, at, slot) < 0)
		return -1;
	return mem_poke_code(t->proc, at, slot, sizeof(slot));
}

static struct breakpoint *new_breakpoint(struct process *p, uint64_t stop_at, uint64_t addr,
					 const uint8_t *code, size_t patch_len, size_t index,
					 const struct func_plan *values)
{
	struct breakpoint *bp = bp_add(&p->bps, stop_at);
	if (!bp)
		return NULL;
	bp->function = addr;
	memcpy(bp->orig, code, patch_len);
	bp->patch_len = (uint8_t)patch_len;
	bp->kind = BP_FUNCTION;
	bp->module = (uint16_t)index;
	bp->values = values;
	bp->scope = arming_scope;
	return bp;
}

/* Would the patch cover an instruction boundary where a thread stands? */
static int thread_inside(const struct engine *e, uint64_t addr, const struct jump_plan *jp)
{
	for (size_t i = 0; i < e->nbusy; i++)
		if (e->busy_rips[i] > addr && e->busy_rips[i] < addr + jp->len)
			return 1;
	return 0;
}

/* The cheap entry: a jmp to a slot (jump_patch.h); 1 armed, 0 not possible. */
static int arm_jump(struct engine *e, struct thread *t, size_t index, uint64_t addr,
		    const uint8_t *code, size_t size, size_t want, const struct func_plan *values)
{
	struct jump_plan jp;
	uint8_t slot[JUMP_SLOT_SIZE];
	uint64_t trap;
	if (e->no_jumps || !jump_plan_build(&jp, addr, code, size, &e->targets) ||
	    thread_inside(e, addr, &jp))
		return 0;
	uint64_t at = scratch_slot(e, t, addr, JUMP_SLOT_SIZE, want, &trap);
	if (at == 0 || jump_fill_slot(&jp, addr, code, at, trap, slot) < 0 ||
	    mem_poke_code(t->proc, at, slot, sizeof(slot)) < 0)
		return 0;
	struct breakpoint *bp = new_breakpoint(t->proc, at + JUMP_STOP_OFFSET, addr, code,
					       JUMP_PATCH_LEN, index, values);
	if (!bp)
		return -1;
	bp->slot = at;
	bp->jump = jp;
	bp->plan.kind = PLAN_JUMP;
	if (bp_insert(t->proc, bp) < 0)
		return -1;
	e->jumped++;
	return 1;
}

/* The int3 entry, with the first instructions emulated or run out of line. */
static int arm_int3(struct engine *e, struct thread *t, size_t index, uint64_t addr,
		    const uint8_t *code, size_t size, size_t want, const struct func_plan *values)
{
	struct entry_plan plan;
	enum plan_result res =
	    plan_build(&plan, addr, code, size < PLAN_WINDOW ? size : PLAN_WINDOW);
	if (res == PLAN_UNPATCHABLE)
		return 0;
	if (res == PLAN_NEEDS_SLOT && place_slot(e, t, &plan, addr, code, want) < 0)
		return 0;
	struct breakpoint *bp = new_breakpoint(t->proc, addr, addr, code, 1, index, values);
	if (!bp)
		return -1;
	bp->plan = plan;
	if (bp_insert(t->proc, bp) < 0)
		return -1;
	if (res == PLAN_NEEDS_SLOT)
		e->out_of_line++;
	else
		e->emulated++;
	return 1;
}

/* Plans and arms one function; 1 armed, 0 skipped, -1 error. */
static int arm_function(struct engine *e, struct thread *t, size_t index, uint64_t addr,
			const uint8_t *code, size_t size, size_t remaining,
			const struct func_plan *values)
{
	struct process *p = t->proc;
	size_t want = remaining * JUMP_SLOT_SIZE;
	if (want < 4096)
		want = 4096;
	if (code[0] == 0xcc || bp_find(&p->bps, addr))
		return 0;
	int rc = arm_jump(e, t, index, addr, code, size, want, values);
	return rc != 0 ? rc : arm_int3(e, t, index, addr, code, size, want, values);
}

static int arm_all(struct engine *e, struct thread *t, size_t index,
		   const struct elf_function_list *fl, const uint8_t *text)
{
	const struct module *m = &t->proc->modules[index];
	size_t armed = 0, skipped = 0, scopes = 0, hidden = 0;
	for (size_t i = 0; i < fl->n; i++) {
		const struct elf_function *f = &fl->v[i];
		uint64_t addr = f->vaddr + m->bias;
		uint8_t scope = 0;
		if (addr < m->exec_low || addr >= m->exec_high)
			continue;
		int selected = name_selected(e, f, &scope);
		scopes += scope;
		hidden += !selected;
		if (!selected)
			continue;
		size_t avail = (size_t)(m->exec_high - addr);
		if (avail > f->size)
			avail = (size_t)f->size;
		const struct func_plan *values = capture_plan(e, m->path, f->name, f->vaddr);
		arming_scope = scope;
		int rc = arm_function(e, t, index, addr, text + (addr - m->exec_low), avail,
				      fl->n - i, values);
		arming_scope = 0;
		if (rc < 0)
			return -1;
		armed += rc == 1;
		skipped += rc == 0;
	}
	e->functions += armed;
	e->skipped += skipped;
	engine_note(e, "%s: %zu functions instrumented, %zu skipped", m->path, armed, skipped);
	if (e->opts->only || e->opts->hide)
		engine_note(e, "%s: %zu function%s match -F, %zu match -N", m->path, scopes,
			    scopes == 1 ? "" : "s", hidden);
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
	if (rc == 0 && fl.n == 0) /* nothing would say why no call is recorded */
		engine_error("%s: no function found to record: it has no symbol table "
			     "(stripped) and no .eh_frame_hdr that lists its functions",
			     m->path);
	size_t len = (size_t)(m->exec_high - m->exec_low);
	uint8_t *text = rc == 0 ? malloc(len) : NULL;
	if (text && mem_read_code(p, m->exec_low, text, len) == 0 &&
	    branch_targets_collect(&e->targets, text, len, m->exec_low) == 0)
		rc = arm_all(e, t, index, &fl, text);
	else
		engine_note(e, "cannot read the code of %s: not instrumented", m->path);
	p->modules[index].instrumented = 1;
	branch_targets_free(&e->targets);
	free(text);
	elf_function_list_free(&fl);
	elf_image_close(&im);
	return rc;
}

int special_breakpoint(struct engine *e, struct thread *t, size_t index, uint64_t addr,
		       enum bp_kind kind)
{
	struct process *p = t->proc;
	uint8_t code[32];
	struct entry_plan plan;
	if (bp_find(&p->bps, addr) || mem_read_code(p, addr, code, sizeof(code)) < 0)
		return 0;
	enum plan_result res = plan_build(&plan, addr, code, sizeof(code));
	if (res == PLAN_UNPATCHABLE)
		return 0;
	if (res == PLAN_NEEDS_SLOT) {
		uint8_t slot[OOL_SLOT_SIZE];
		uint64_t trap;
		uint64_t at = scratch_slot(e, t, addr, OOL_SLOT_SIZE, 4096, &trap);
		if (at == 0 || plan_fill_slot(&plan, addr, code, at, slot) < 0 ||
		    mem_poke_code(p, at, slot, sizeof(slot)) < 0)
			return 0;
	}
	struct breakpoint *bp = bp_add(&p->bps, addr);
	if (!bp)
		return -1;
	bp->function = addr;
	bp->orig[0] = code[0];
	bp->patch_len = 1;
	bp->kind = (uint8_t)kind;
	bp->module = (uint16_t)index;
	bp->plan = plan;
	return bp_insert(p, bp);
}
