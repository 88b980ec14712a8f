/*
 * proto_wire.c - Protocol Buffers wire encoding (see proto_wire.h).
 */
#include "proto_wire.h"

#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_BYTES = 2 };

void proto_buf_reset(struct proto_buf *b)
{
	b->len = 0;
}

void proto_buf_free(struct proto_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int room(struct proto_buf *b, size_t more)
{
	if (b->failed)
		return 0;
	if (b->len + more <= b->cap)
		return 1;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	uint8_t *data = realloc(b->data, cap);
	if (!data) {
		b->failed = 1;
		return 0;
	}
	b->data = data;
	b->cap = cap;
	return 1;
}

/* The varint of v into out (at least 10 bytes); its length. */
static size_t varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static void put_varint(struct proto_buf *b, uint64_t v)
{
	if (room(b, 10))
		b->len += varint(b->data + b->len, v);
}

void proto_put_varint_field(struct proto_buf *b, uint32_t field, uint64_t value)
{
	put_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	put_varint(b, value);
}

void proto_put_bytes_field(struct proto_buf *b, uint32_t field, const void *data, size_t len)
{
	put_varint(b, (uint64_t)field << 3 | WIRE_BYTES);
	put_varint(b, len);
	if (len && room(b, len)) {
		memcpy(b->data + b->len, data, len);
		b->len += len;
	}
}

void proto_put_string_field(struct proto_buf *b, uint32_t field, const char *s)
{
	proto_put_bytes_field(b, field, s, strlen(s));
}

size_t proto_message_begin(const struct proto_buf *b)
{
	return b->len;
}

void proto_message_end(struct proto_buf *b, uint32_t field, size_t start)
{
	uint8_t head[20];
	size_t body = b->len - start;
	size_t n = varint(head, (uint64_t)field << 3 | WIRE_BYTES);
	n += varint(head + n, body);
	if (!room(b, n))
		return;
	memmove(b->data + start + n, b->data + start, body);
	memcpy(b->data + start, head, n);
	b->len += n;
}
