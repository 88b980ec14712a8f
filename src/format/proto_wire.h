/*
 * proto_wire.h - Protocol Buffers wire encoding into a growable buffer:
 * varint fields, length-delimited fields (strings, nested messages).  A
 * nested message is written in place and its tag and length put before it
 * when it ends, so that a whole packet is built in one buffer.
 */
#ifndef CALLTRACE_PROTO_WIRE_H
#define CALLTRACE_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct proto_buf {
	uint8_t *data;
	size_t len, cap;
	int failed; /* memory ran out: the content is incomplete */
};

/* Empty again, keeping the memory. */
void proto_buf_reset(struct proto_buf *b);
void proto_buf_free(struct proto_buf *b);

/* Field `field` as a varint (wire type 0): uint32/64, int32/64 >= 0, bool, enum. */
void proto_put_varint_field(struct proto_buf *b, uint32_t field, uint64_t value);
/* Field `field` as bytes (wire type 2). */
void proto_put_bytes_field(struct proto_buf *b, uint32_t field, const void *data, size_t len);
void proto_put_string_field(struct proto_buf *b, uint32_t field, const char *s);

/* A nested message: its fields follow proto_message_begin(), which returns
 * where they start; proto_message_end() makes them field `field`. */
size_t proto_message_begin(const struct proto_buf *b);
void proto_message_end(struct proto_buf *b, uint32_t field, size_t start);

#endif
