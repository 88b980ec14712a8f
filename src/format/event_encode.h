/*
 * event_encode.h - encode events into a window (see trace_format.h).
 *
 * Inline so that the runtime's hot path compiles down to a few stores.
 * Callers guarantee EV_MAX_BYTES of room before each call.
 */
#ifndef CALLTRACE_EVENT_ENCODE_H
#define CALLTRACE_EVENT_ENCODE_H

#include <stdint.h>
#include "trace_format.h"

static inline uint8_t *encode_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *encode_enter(uint8_t *p, uint32_t fid, uint64_t delta)
{
	if (__builtin_expect(fid < EV_SHORT_FID_MAX, 1)) {
		*p++ = (uint8_t)(fid << 2 | 1);
	} else {
		*p++ = (uint8_t)((fid & (EV_SHORT_FID_MAX - 1)) << 2 | 3);
		p = encode_varint(p, fid >> 6);
	}
	return encode_varint(p, delta);
}

/* The exit of the innermost open call. */
static inline uint8_t *encode_exit(uint8_t *p, uint64_t delta)
{
	if (__builtin_expect(delta < EV_SHORT_DELTA_MAX, 1)) {
		*p++ = (uint8_t)(delta << 2 | 2);
		return p;
	}
	*p++ = (uint8_t)(EV_SHORT_DELTA_MAX << 2 | 2);
	return encode_varint(p, delta - EV_SHORT_DELTA_MAX);
}

/* The exit of function `fid`, which is not known to be the innermost. */
static inline uint8_t *encode_exit_at(uint8_t *p, uint32_t fid, uint64_t delta)
{
	*p++ = (uint8_t)(EV_EXIT_AT << 2);
	p = encode_varint(p, fid);
	return encode_varint(p, delta);
}

/* A longjmp: only the outermost `stay` open calls go on. */
static inline uint8_t *encode_unwind(uint8_t *p, uint64_t delta, uint32_t stay)
{
	*p++ = (uint8_t)(EV_UNWIND << 2);
	p = encode_varint(p, delta);
	return encode_varint(p, stay);
}

static inline uint8_t *encode_define(uint8_t *p, uint64_t address)
{
	*p++ = (uint8_t)(EV_DEFINE << 2);
	return encode_varint(p, address);
}

static inline uint8_t *encode_pause(uint8_t *p, uint64_t delta)
{
	*p++ = (uint8_t)(EV_PAUSE << 2);
	return encode_varint(p, delta);
}

static inline uint8_t *encode_mark(uint8_t *p, uint64_t delta, const char *text, uint32_t len)
{
	*p++ = (uint8_t)(EV_MARK << 2);
	p = encode_varint(p, delta);
	p = encode_varint(p, len);
	for (uint32_t i = 0; i < len; i++)
		*p++ = (uint8_t)text[i];
	return p;
}

/* EV_OPEN_CALLS: the next `n` enters are the calls open at the window's
 * start. */
static inline uint8_t *encode_open_calls(uint8_t *p, uint32_t n)
{
	*p++ = (uint8_t)(EV_OPEN_CALLS << 2);
	return encode_varint(p, n);
}

/* EV_ARGS or EV_RETVAL: `len` bytes of tagged values. */
static inline uint8_t *encode_values(uint8_t *p, unsigned kind, const uint8_t *values, uint32_t len)
{
	*p++ = (uint8_t)(kind << 2);
	p = encode_varint(p, len);
	for (uint32_t i = 0; i < len; i++)
		*p++ = values[i];
	return p;
}

#endif
