#!/usr/bin/env python3
"""compact_trace.py IN OUT - the same trace without its zero padding.

A recorded trace is mostly zeros: event windows are claimed whole and
written in part.  For fuzzing, a small input is a fast one, so every event
window gets the length of its written bytes (`used` set), CHUNK_SKIP chunks
and unwritten space go, and the header's next_offset is the new end.
What is left reads back as the same events (the reader's own checks
decide what is valid; this only drops bytes it would skip).
"""
import struct
import sys

HEADER = 4096
MAGIC = 0x4B435443
CHUNK = struct.Struct("<IHHIIIIIIQQQ")  # struct trace_chunk, 64 bytes
EVENTS, SKIP = 1, 6
NEXT_OFFSET = 128  # offsetof(struct trace_file_header, next_offset)


def chunks(data):
    """(offset, fields) of each chunk header, skipping zeros between them."""
    off = HEADER
    while off + CHUNK.size <= len(data):
        fields = CHUNK.unpack_from(data, off)
        magic, length = fields[0], fields[3]
        if magic != MAGIC or length < CHUNK.size or length % 8:
            off += 8
            continue
        yield off, fields
        off += length


def compact(data):
    out = bytearray(data[:HEADER])
    for off, fields in chunks(data):
        fields = list(fields)
        kind, length, used = fields[1], fields[3], fields[4]
        if kind == SKIP:
            continue
        payload = data[off + CHUNK.size : off + length]
        if kind == EVENTS and used == 0:
            used = len(payload.rstrip(b"\0"))
        payload = payload[:used]
        fields[3] = CHUNK.size + (used + 7) // 8 * 8
        fields[4] = used
        out += CHUNK.pack(*fields) + payload + b"\0" * (fields[3] - CHUNK.size - used)
    struct.pack_into("<Q", out, NEXT_OFFSET, len(out))
    return bytes(out)


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    with open(sys.argv[2], "wb") as f:
        f.write(compact(data))
