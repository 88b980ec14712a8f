/*
 * signature_abi.c - where a signature's arguments and return value are
 * (the target's calling convention places them: src/arch/<cpu>/
 * arg_placement.c, through src/arch/arg_placement.h), and the capture plan
 * that reads them.
 */
#include "func_signature_internal.h"
#include "../arch/arg_placement.h"

#include <string.h>

/* --- placing the values --- */

void placement_unsupported(struct value_location *loc, const char *why)
{
	memset(loc, 0, sizeof(*loc));
	loc->where = WHERE_UNSUPPORTED;
	loc->why = why;
}

void placement_add(struct value_location *loc, uint8_t kind, uint8_t reg, uint32_t size,
		   uint32_t value_offset, int32_t offset)
{
	struct value_piece *p = &loc->pieces[loc->npieces++];
	*p = (struct value_piece){.kind = kind,
				  .reg = reg,
				  .value_offset = value_offset,
				  .offset = offset,
				  .size = size > 0xffff ? 0xffff : (uint16_t)size};
}

void sig_place_all(struct func_signature *sig, struct func_param *params)
{
	struct arg_placement s;
	arch_place_return(&s, sig->return_type, &sig->ret, &sig->hidden_return_pointer);
	for (uint32_t i = 0; i < sig->nparams; i++) {
		if (sig->abi_known)
			arch_place_argument(&s, params[i].type, &params[i].loc);
		else
			placement_unsupported(&params[i].loc,
					      "compiler clone with its own convention");
	}
	if (!sig->abi_known && sig->ret.where == WHERE_PIECES)
		placement_unsupported(&sig->ret, "compiler clone with its own convention");
}

/* --- the capture plan --- */

/* A reference's object, read after its pointer when it fits in the value
 * whole. */
static void plan_referent(struct plan_value *v, const struct ctype *t,
			  const struct value_location *loc, struct plan_step *s)
{
	const struct ctype *object = t->is_reference ? t->element : NULL;
	if (!object || object->size == 0 || object->size > FUNC_PLAN_MAX_COPY - 8 ||
	    loc->npieces != 1 || loc->pieces[0].kind == PIECE_INDIRECT || v->size != 8)
		return;
	*s =
	    (struct plan_step){.op = PLAN_DEREF, .size = (uint16_t)object->size, .value_offset = 8};
	v->count++;
	v->size = (uint16_t)(8 + object->size);
}

static void plan_value(struct func_plan *plan, struct plan_value *v, const struct ctype *t,
		       const struct value_location *loc)
{
	v->first = plan->nsteps;
	v->count = 0;
	v->size = 0;
	struct plan_step *s = &plan->steps[plan->nsteps];
	if (loc->where != WHERE_PIECES) {
		*s = (struct plan_step){.op = PLAN_UNAVAILABLE};
		v->count = 1;
	} else if (t->kind == CTYPE_STRING && loc->npieces == 1 &&
		   loc->pieces[0].kind != PIECE_INDIRECT) {
		const struct value_piece *p = &loc->pieces[0];
		*s = (struct plan_step){.op = p->kind == PIECE_REG ? PLAN_STRING_REG
								   : PLAN_STRING_STACK,
					.reg = p->reg,
					.size = p->size,
					.offset = p->offset};
		v->count = 1;
	} else {
		for (unsigned i = 0; i < loc->npieces; i++) {
			const struct value_piece *p = &loc->pieces[i];
			if (p->value_offset >= FUNC_PLAN_MAX_COPY)
				break;
			uint32_t size = p->size;
			if (p->value_offset + size > FUNC_PLAN_MAX_COPY)
				size = FUNC_PLAN_MAX_COPY - p->value_offset;
			uint8_t op = p->kind == PIECE_REG     ? PLAN_REG
				     : p->kind == PIECE_STACK ? PLAN_STACK
							      : PLAN_MEMORY;
			s[v->count++] =
			    (struct plan_step){.op = op,
					       .reg = p->reg,
					       .size = (uint16_t)size,
					       .value_offset = (uint16_t)p->value_offset,
					       .offset = p->offset};
			if (p->value_offset + size > v->size)
				v->size = (uint16_t)(p->value_offset + size);
		}
		plan_referent(v, t, loc, &s[v->count]);
	}
	plan->nsteps += v->count;
}

void sig_build_plan(struct func_signature *sig)
{
	struct func_plan *plan = &sig->plan;
	memset(plan, 0, sizeof(*plan));
	plan->nargs =
	    sig->nparams < FUNC_PLAN_MAX_ARGS ? (uint8_t)sig->nparams : FUNC_PLAN_MAX_ARGS;
	for (unsigned i = 0; i < plan->nargs; i++)
		plan_value(plan, &plan->args[i], sig->params[i].type, &sig->params[i].loc);
	plan->has_return = sig->return_type->kind != CTYPE_VOID;
	if (plan->has_return)
		plan_value(plan, &plan->ret, sig->return_type, &sig->ret);
}
