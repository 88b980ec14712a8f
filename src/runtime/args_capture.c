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
#include "runtime.h"

#include <sys/mman.h>

/* The registers as the patch stubs save them (patch_stubs.S). */
struct entry_registers {
	uint64_t rdi, rsi, rdx, rcx, r8, r9, rax, r10;
	uint8_t xmm[16][16];
};

struct return_registers {
	uint64_t rax, rdx, rcx, rsi, rdi, r8, r9, r10, r11, pad;
	uint8_t xmm[16][16];
};

/* The values a plan reads: the ABI's registers and the stack pointer at
 * the function's first instruction (or at its return). */
struct value_registers {
	uint64_t gp[VREG_RAX + 1]; /* enum value_reg order */
	const uint8_t *xmm;	   /* xmm0..7, 16 bytes each */
	uint64_t sp;
};

static void copy_bytes(void *to, const void *from, size_t n)
{
	uint8_t *d = to;
	const uint8_t *s = from;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static void zero_bytes(void *to, size_t n)
{
	uint8_t *d = to;
	for (size_t i = 0; i < n; i++)
		d[i] = 0;
}

static const uint8_t *register_bytes(const struct value_registers *r, unsigned reg)
{
	if (reg <= VREG_RAX)
		return (const uint8_t *)&r->gp[reg];
	return r->xmm + 16 * (reg - VREG_XMM0);
}

/* The 8 bytes a string step's pointer is in. */
static uint64_t step_pointer(const struct value_registers *r, const struct plan_step *s)
{
	uint64_t p = 0;
	if (s->op == PLAN_STRING_REG)
		copy_bytes(&p, register_bytes(r, s->reg), 8);
	else if (runtime_read_memory(r->sp + (uint64_t)(int64_t)s->offset, &p, 8) != 8)
		p = 0;
	return p;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_string(uint8_t *p, const struct value_registers *r, const struct plan_step *s)
{
	uint64_t address = step_pointer(r, s);
	uint8_t text[TRACE_STRING_MAX + 1];
	if (!address) {
		*p++ = VALUE_NULL;
		return p;
	}
	size_t got = runtime_read_memory(address, text, sizeof(text));
	if (got == 0) {
		*p++ = VALUE_UNREADABLE;
		p = put_varint(p, 8);
		copy_bytes(p, &address, 8);
		return p + 8;
	}
	size_t len = 0;
	while (len < got && text[len])
		len++;
	int whole = len < got;
	if (!whole && len > TRACE_STRING_MAX)
		len = TRACE_STRING_MAX;
	*p++ = whole ? VALUE_STRING : VALUE_STRING_CUT;
	p = put_varint(p, len);
	copy_bytes(p, text, len);
	return p + len;
}

/* Copies one step's bytes into value; 0 when memory could not be read. */
static int copy_step(uint8_t *value, const struct value_registers *r, const struct plan_step *s)
{
	uint8_t *to = value + s->value_offset;
	switch (s->op) {
	case PLAN_REG:
		copy_bytes(to, register_bytes(r, s->reg), s->size <= 16 ? s->size : 16);
		return 1;
	case PLAN_STACK:
		return runtime_read_memory(r->sp + (uint64_t)(int64_t)s->offset, to, s->size) ==
		       s->size;
	case PLAN_MEMORY: {
		uint64_t base;
		copy_bytes(&base, register_bytes(r, s->reg), 8);
		return runtime_read_memory(base + (uint64_t)(int64_t)s->offset, to, s->size) ==
		       s->size;
	}
	}
	return 0;
}

/* One value at p (room for FUNC_PLAN_MAX_COPY + 16 bytes); returns the end. */
static uint8_t *put_value(uint8_t *p, const struct func_plan *plan, const struct plan_value *v,
			  const struct value_registers *r)
{
	const struct plan_step *s = &plan->steps[v->first];
	if (v->count == 0 || s->op == PLAN_UNAVAILABLE || v->size > FUNC_PLAN_MAX_COPY) {
		*p++ = VALUE_UNAVAILABLE;
		return p;
	}
	if (s->op == PLAN_STRING_REG || s->op == PLAN_STRING_STACK)
		return put_string(p, r, s);
	uint8_t value[FUNC_PLAN_MAX_COPY];
	zero_bytes(value, v->size);
	for (unsigned i = 0; i < v->count; i++)
		if (s[i].value_offset + s[i].size > v->size || !copy_step(value, r, &s[i])) {
			*p++ = VALUE_UNAVAILABLE;
			return p;
		}
	*p++ = VALUE_BYTES;
	p = put_varint(p, v->size);
	copy_bytes(p, value, v->size);
	return p + v->size;
}

/* ---- the entry ----------------------------------------------------------- */

static struct args_pending *pending_buffer(struct thread_state *t)
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
	const struct entry_registers *e = stub_registers;
	struct args_pending *a = pending_buffer(t);
	if (!a)
		return -1;
	struct value_registers r = {
	    .gp = {e->rdi, e->rsi, e->rdx, e->rcx, e->r8, e->r9, e->rax},
	    .xmm = e->xmm[0],
	    .sp = (uint64_t)slot,
	};
	uint8_t *p = a->bytes, *end = a->bytes + sizeof(a->bytes);
	for (unsigned i = 0; i < plan->nargs; i++) {
		if (end - p < FUNC_PLAN_MAX_COPY + 16)
			return -1; /* cannot happen with TRACE_VALUES_MAX */
		p = put_value(p, plan, &plan->args[i], &r);
	}
	a->function = function;
	a->slot = (uint64_t)slot;
	a->len = (uint32_t)(p - a->bytes);
	return 0;
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

void runtime_args_write_return(struct thread_state *t, const struct func_plan *plan,
			       uint64_t function, uint64_t slot, const void *stub_registers)
{
	const struct return_registers *rr = stub_registers;
	uint32_t seen = t->gen;
	if (!plan->has_return || seen == RUNTIME_GEN_BUSY || seen == RUNTIME_GEN_INTERNAL ||
	    seen == RUNTIME_GEN_ARGS || RUNTIME_LOAD(runtime_state) != seen)
		return;
	t->gen = RUNTIME_GEN_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (just_closed(&t->stream, function, slot)) {
		struct value_registers r = {
		    .gp = {rr->rdi, rr->rsi, rr->rdx, rr->rcx, rr->r8, rr->r9, rr->rax},
		    .xmm = rr->xmm[0],
		    .sp = slot + 8,
		};
		uint8_t value[FUNC_PLAN_MAX_COPY + 16];
		uint8_t *end = put_value(value, plan, &plan->ret, &r);
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
