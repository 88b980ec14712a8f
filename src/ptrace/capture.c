/*
 * capture.c - `record --args` under the ptrace engine: at an entry stop the
 * registers are the calling convention's, at the return trap the return
 * value is in rax/rdx/xmm0; the values are read as the function's DWARF
 * capture plan says (symbols/func_signature.h), from the tracee's registers
 * and memory, and encoded by the one encoder every engine uses
 * (format/value_encode.h).
 */
#include <regex.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include "engine.h"
#include "../format/trace_writer.h"
#include "../format/value_encode.h"

const struct func_plan *capture_plan(struct engine *e, const char *path, const char *function,
				     uint64_t file_address)
{
	const struct dynamic_options *o = e->opts;
	if (!o->capture_args ||
	    (o->args_only && (!function || regexec(o->args_only, function, 0, NULL, 0) != 0)))
		return NULL;
	if (!e->signatures && !(e->signatures = signature_table_new()))
		return NULL;
	const struct func_signature *s = signature_table_lookup(e->signatures, path, file_address);
	if (!s || !s->abi_known || (s->plan.nargs == 0 && !s->plan.has_return))
		return NULL;
	return &s->plan;
}

static size_t read_tracee(void *ctx, uint64_t address, void *out, size_t len)
{
	return mem_read_some(ctx, address, out, len);
}

/* Whether any value of the plan is read from an xmm or x87 register. */
static int uses_fp_registers(const struct func_plan *plan)
{
	for (unsigned i = 0; i < plan->nsteps; i++)
		if (plan->steps[i].reg >= VREG_XMM0 &&
		    (plan->steps[i].op == PLAN_REG || plan->steps[i].op == PLAN_MEMORY))
			return 1;
	return 0;
}

static void fill_registers(struct thread *t, const struct func_plan *plan,
			   const struct user_regs_struct *r, struct value_registers *v,
			   struct user_fpregs_struct *fp)
{
	*v = (struct value_registers){
	    .gp = {r->rdi, r->rsi, r->rdx, r->rcx, r->r8, r->r9, r->rax},
	    .sp = r->rsp,
	    .read = read_tracee,
	    .read_ctx = t->proc,
	};
	memset(fp, 0, sizeof(*fp));
	if (uses_fp_registers(plan))
		ptrace(PTRACE_GETFPREGS, t->tid, 0, fp);
	v->vec = (const uint8_t *)fp->xmm_space;
	/* FXSAVE's layout: st(0) first, 16 bytes a register (10 used) */
	v->st = (const uint8_t *)fp->st_space;
}

void capture_arguments(struct thread *t, const struct func_plan *plan,
		       const struct user_regs_struct *r)
{
	uint8_t bytes[TRACE_VALUES_MAX], *p = bytes;
	struct value_registers v;
	struct user_fpregs_struct fp;
	if (!t->has_stream || plan->nargs == 0)
		return;
	fill_registers(t, plan, r, &v, &fp);
	for (unsigned i = 0; i < plan->nargs && bytes + sizeof(bytes) - p >= VALUE_ENCODED_MAX; i++)
		p = value_encode(p, plan, &plan->args[i], &v);
	trace_stream_values(&t->stream, EV_ARGS, bytes, (uint32_t)(p - bytes));
}

void capture_return(struct thread *t, const struct func_plan *plan,
		    const struct user_regs_struct *r)
{
	uint8_t bytes[VALUE_ENCODED_MAX];
	struct value_registers v;
	struct user_fpregs_struct fp;
	if (!t->has_stream || !plan->has_return)
		return;
	fill_registers(t, plan, r, &v, &fp);
	uint8_t *end = value_encode(bytes, plan, &plan->ret, &v);
	trace_stream_values(&t->stream, EV_RETVAL, bytes, (uint32_t)(end - bytes));
}
