/*
 * libcall_values.c - a library call's values, as its built-in prototype
 * (symbols/prototypes.h) says: the arguments read from the registers the
 * enter stub saved (integers and pointers from %rdi.. %r9 or x0..x7,
 * doubles from %xmm0..7 or v0..v7), strings copied (TRACE_STRING_MAX
 * bytes), a sockaddr's bytes (as many as its length argument says,
 * capped), every other value as its 8 register bytes; the return value
 * from %rax or x0 (%xmm0 or v0 for a double) and,
 * when the prototype's failure rule says the call failed, errno after it.
 * Written as EV_ARGS right after the enter (by the hooks' checked path,
 * which makes room for them) and EV_RETVAL right after the exit.
 *
 * Memory behind pointers is read by readable.c, which never faults, and
 * nothing here calls the C library.
 */
#include "../runtime.h"
#include "libcall.h"
#include "../../arch/arch.h"
#include "../../format/event_encode.h"
#include "../../symbols/prototypes.h"

#include <errno.h>

#define SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */

/* The registers as each architecture's libcall_stubs.S saves them at the
 * enter: the integer argument registers (rdi, rsi, rdx, rcx, r8, r9, then
 * rax and, in the pad, the site; x0-x7) ... */
struct enter_registers {
	uint64_t gp[8]; /* ARCH_LIBCALL_GP_ARGS of them arguments */
	uint8_t xmm[8][16];
};

/* ... and at the return (rax, rdx; x0, x1). */
struct return_registers {
	uint64_t rax, rdx;
	uint8_t xmm[2][16];
};

static uint8_t *put_bytes(uint8_t *p, unsigned tag, const void *bytes, uint32_t n)
{
	*p++ = (uint8_t)tag;
	p = encode_varint(p, n);
	const uint8_t *b = bytes;
	for (uint32_t i = 0; i < n; i++)
		*p++ = b[i];
	return p;
}

static uint8_t *put_string(uint8_t *p, uint64_t pointer)
{
	uint8_t text[TRACE_STRING_MAX + 1];
	if (!pointer) {
		*p++ = VALUE_NULL;
		return p;
	}
	size_t got = runtime_read_memory(pointer, text, sizeof(text));
	if (got == 0)
		return put_bytes(p, VALUE_UNREADABLE, &pointer, 8);
	uint32_t n = 0;
	while (n < got && text[n])
		n++;
	if (n < got)
		return put_bytes(p, VALUE_STRING, text, n);
	return put_bytes(p, VALUE_STRING_CUT, text, n > TRACE_STRING_MAX ? TRACE_STRING_MAX : n);
}

static uint8_t *put_sockaddr(uint8_t *p, uint64_t pointer, uint64_t len)
{
	uint8_t bytes[SOCKADDR_MAX];
	if (!pointer) {
		*p++ = VALUE_NULL;
		return p;
	}
	size_t want = len < sizeof(bytes) ? (size_t)len : sizeof(bytes);
	size_t got = runtime_read_memory(pointer, bytes, want);
	if (got == 0 && want)
		return put_bytes(p, VALUE_UNREADABLE, &pointer, 8);
	return put_bytes(p, VALUE_BYTES, bytes, (uint32_t)got);
}

uint32_t runtime_libcall_encode_args(const struct prototype *proto, const void *registers,
				     uint8_t *out)
{
	const struct enter_registers *r = registers;
	uint8_t *p = out;
	unsigned gp = 0, fp = 0;
	uint64_t values[PROTO_MAX_ARGS] = {0};
	for (unsigned i = 0; i < proto->nargs; i++) /* the registers, for lengths */
		values[i] = proto->args[i].type == PT_DOUBLE ? 0
			    : gp < ARCH_LIBCALL_GP_ARGS	     ? r->gp[gp++]
							     : 0;
	gp = 0;
	for (unsigned i = 0; i < proto->nargs; i++) {
		const struct proto_arg *a = &proto->args[i];
		if (a->type == PT_DOUBLE) {
			p = fp < 8 ? put_bytes(p, VALUE_BYTES, r->xmm[fp++], 8)
				   : (*p++ = VALUE_UNAVAILABLE, p);
			continue;
		}
		if (gp == ARCH_LIBCALL_GP_ARGS) { /* on the stack: not read */
			*p++ = VALUE_UNAVAILABLE;
			continue;
		}
		uint64_t v = r->gp[gp++];
		if (a->type == PT_STRING)
			p = put_string(p, v);
		else if (a->type == PT_SOCKADDR)
			p = put_sockaddr(
			    p, v, a->len_arg < proto->nargs ? values[a->len_arg] : SOCKADDR_MAX);
		else
			p = put_bytes(p, VALUE_BYTES, &v, 8);
	}
	return (uint32_t)(p - out);
}

/* Whether the call failed, by the prototype's rule. */
static int failed(const struct prototype *proto, uint64_t rax)
{
	switch (proto->failure) {
	case PF_MINUS_ONE:
		if (proto->ret == PT_INT || proto->ret == PT_FD || proto->ret == PT_UINT)
			return (int32_t)rax == -1;
		return rax == UINT64_MAX;
	case PF_NULL:
		return rax == 0;
	default:
		return 0;
	}
}

uint32_t runtime_libcall_encode_return(const struct prototype *proto, const void *registers,
				       int saved_errno, uint8_t *out)
{
	const struct return_registers *r = registers;
	uint8_t *p = out;
	if (proto->ret == PT_DOUBLE)
		p = put_bytes(p, VALUE_BYTES, r->xmm[0], 8);
	else if (proto->ret == PT_STRING)
		p = put_string(p, r->rax);
	else
		p = put_bytes(p, VALUE_BYTES, &r->rax, 8);
	if (failed(proto, r->rax)) {
		int32_t e = saved_errno;
		p = put_bytes(p, VALUE_BYTES, &e, 4);
	}
	return (uint32_t)(p - out);
}
