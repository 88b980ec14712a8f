/*
 * args_capture.c - argument and return values, read at a function's real
 * entry and its real return (where the registers and the stack are the
 * ABI's), as its capture plan says (symbols/func_signature.h), and written
 * as the tagged values of EV_ARGS and EV_RETVAL (format/trace_format.h).
 *
 * The entry's values wait in the thread's pending buffer until the enter
 * is written: by the hooks' checked path (hooks.c), which writes them right
 * after the enter, in the same window.  For a -finstrument-functions
 * program the enter hook runs a little later, inside the function: the
 * thread's gen is then RUNTIME_GEN_ARGS, so that the hook takes that path.
 *
 * A return value is written only right after its call's exit: the call
 * must be the one the writer just closed (same function, same stack slot),
 * or nothing is written (a value missing, never a value given to the wrong
 * call).  Strings and memory behind pointers are read by readable.c, which
 * never faults.
 *
 * Nothing here calls the C library (copies are loops, which the runtime's
 * build keeps as loops): its functions may be patched themselves, and a
 * call of one from here would be recorded as the program's.
 */
#include "../runtime.h"
#include "../../arch/arch.h"
#include "../../arch/stub_values.h"
#include "../../format/value_encode.h"

#include <sys/mman.h>

static size_t read_own_memory(void *ctx, uint64_t address, void *out, size_t len)
{
	(void)ctx;
	return runtime_read_memory(address, out, len);
}

/* ---- the entry ----------------------------------------------------------- */

struct args_pending *runtime_args_pending_buffer(struct thread_state *t)
{
	if (!t->args) {
		void *m = mmap(NULL, sizeof(struct args_pending), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		t->args = m;
	}
	return t->args;
}

int runtime_args_capture_entry(struct thread_state *t, const struct func_plan *plan,
			       uint64_t function, uint64_t *slot, const void *stub_registers)
{
	struct args_pending *a = runtime_args_pending_buffer(t);
	if (!a)
		return -1;
	struct value_registers r;
	arch_stub_entry_values(stub_registers, (uint64_t)slot, &r);
	r.read = read_own_memory;
	uint8_t *p = a->bytes, *end = a->bytes + sizeof(a->bytes);
	for (unsigned i = 0; i < plan->nargs; i++) {
		if (end - p < VALUE_ENCODED_MAX)
			return -1; /* cannot happen with TRACE_VALUES_MAX */
		p = value_encode(p, plan, &plan->args[i], &r);
	}
	a->function = function;
	a->slot = (uint64_t)slot;
	a->len = (uint32_t)(p - a->bytes);
	return 0;
}

uint64_t runtime_args_result_at(const void *stub_registers)
{
	struct value_registers r;
	arch_stub_entry_values(stub_registers, 0, &r);
	return r.gp[VREG_HIDDEN_RESULT];
}

uint32_t runtime_args_pending_for(const struct thread_state *t, uint64_t function)
{
	return t->args && t->args->function == function ? t->args->len + 8 : 0;
}

void runtime_args_write_pending(struct thread_state *t)
{
	struct args_pending *a = t->args;
	trace_stream_values(&t->stream, EV_ARGS, a->bytes, a->len);
	a->function = 0;
}

void runtime_args_drop_pending(struct thread_state *t)
{
	if (t->args)
		t->args->function = 0;
}

/* ---- the return ------------------------------------------------------------ */

/* Whether the event the stream wrote last is the exit of the call of
 * `function` whose return address was at `slot`: the writer's entry for
 * that depth still holds the call (entries are kept after their exit), and
 * no call has been written at that depth since. */
static int just_closed(const struct trace_stream *st, uint64_t function, uint64_t slot)
{
	uint32_t d = st->depth;
	return d < st->open_cap && st->open_calls[d].address == function &&
	       st->open_calls[d].sp == slot && st->pos;
}

/* Whether a plan's return value is read from st(0) (and st(1)): a long
 * double, or a complex one. */
static int returns_in_x87(const struct func_plan *plan)
{
	return plan->ret.count >= 1 && plan->steps[plan->ret.first].op == PLAN_REG &&
	       plan->steps[plan->ret.first].reg == VREG_X87_0;
}

void runtime_args_write_return(struct thread_state *t, const struct func_plan *plan,
			       uint64_t function, uint64_t slot, const void *stub_registers,
			       uint64_t result_at)
{
	uint8_t st[32];
	if (plan->has_return && returns_in_x87(plan))
		arch_read_x87_returns(st, plan->ret.count);
	uint32_t seen = t->gen;
	if (!plan->has_return || seen == RUNTIME_GEN_BUSY || seen == RUNTIME_GEN_INTERNAL ||
	    seen == RUNTIME_GEN_ARGS || RUNTIME_LOAD(runtime_state) != seen)
		return;
	t->gen = RUNTIME_GEN_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (just_closed(&t->stream, function, slot)) {
		struct value_registers r;
		arch_stub_return_values(stub_registers, slot, result_at, &r);
		r.st = returns_in_x87(plan) ? st : NULL;
		r.read = read_own_memory;
		uint8_t value[VALUE_ENCODED_MAX];
		uint8_t *end = value_encode(value, plan, &plan->ret, &r);
		trace_stream_values(&t->stream, EV_RETVAL, value, (uint32_t)(end - value));
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = seen;
}

void runtime_args_thread_end(struct thread_state *t)
{
	if (t->args)
		munmap(t->args, sizeof(struct args_pending));
	t->args = NULL;
}

/* What the record path (core/) calls of this, once arguments are on. */
const struct runtime_args_pending runtime_args_lent = {
    runtime_args_pending_for, runtime_args_write_pending, runtime_args_drop_pending,
    runtime_args_thread_end};
