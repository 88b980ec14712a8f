#!/usr/bin/env python3
"""check_perfetto.py - reads a Perfetto trace as protoc decodes it
(`protoc --decode=perfetto.protos.Trace perfetto_subset.proto`, text on
stdin) and checks it the way Perfetto's trace processor reads it:

- no field unknown to Perfetto's protos (protoc prints those by number);
- every track event's sequence began with a packet that cleared the
  incremental state and named the sequence's default track, a thread track
  (pid, tid) under the track of its process (same pid);
- every name_iid and source_location_iid was interned on its sequence
  before or in the packet that uses it, with the same function name;
- per track, timestamps never go back, each slice end closes the slice
  begun last, and none stays open.

Prints, sorted: "PID TID;outer;...;inner COUNT" for each distinct stack of
slices (the count of slices that ended in it, as `calltrace flame --folded
--per-thread` counts calls), "mark TEXT" for each instant event and
"unfinished FUNCTION" for each slice whose end says it had no recorded end,
"args FUNCTION TEXT" and "return FUNCTION TEXT" for its recorded values,
"category FUNCTION CATEGORY" for each category of a slice (the kind of a
call other than the program's own: library, syscall, sched).
Exits 1 with a one-line reason on the first problem.
"""
import re
import sys


def fail(msg):
    sys.stderr.write(msg + '\n')
    sys.exit(1)


def unquote(text):
    """A protoc text-format string (C escapes, octal bytes) as UTF-8."""
    out = bytearray()
    i = 0
    body = text[1:-1]
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in '01234567':
            m = re.match(r'[0-7]{1,3}', body[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
        else:
            out += {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', "'": b"'",
                    '\\': b'\\'}.get(nxt, nxt.encode())
            i += 2
    return out.decode('utf-8')


def parse(lines):
    """The packets, each a dict of field -> list of values (dicts for
    messages)."""
    root = {}
    stack = [root]
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if re.match(r'^\d', line):
            fail(f'line {n}: a field Perfetto does not define: {line!r}')
        if line == '}':
            stack.pop()
            continue
        m = re.match(r'^(\w+) \{$', line)
        if m:
            msg = {}
            stack[-1].setdefault(m.group(1), []).append(msg)
            stack.append(msg)
            continue
        m = re.match(r'^(\w+): (.*)$', line)
        if not m:
            fail(f'line {n}: not protoc text format: {line!r}')
        value = m.group(2)
        value = unquote(value) if value.startswith('"') else value
        stack[-1].setdefault(m.group(1), []).append(value)
    return root.get('packet', [])


def one(msg, field, default=None):
    values = msg.get(field)
    return values[0] if values else default


def check(packets):
    tracks = {}     # uuid -> (kind, pid, tid, parent)
    sequences = {}  # sequence id -> state
    open_slices = {}  # track uuid -> [names]
    last_ts = {}
    stacks, marks, unfinished, values = {}, [], [], []
    for i, p in enumerate(packets):
        seq = int(one(p, 'trusted_packet_sequence_id', 0))
        flags = int(one(p, 'sequence_flags', 0))
        if flags & 1:
            sequences[seq] = {'names': {}, 'locations': {}, 'annotations': {}, 'track': None}
        state = sequences.get(seq)
        for d in p.get('trace_packet_defaults', []):
            ted = one(d, 'track_event_defaults', {})
            if state is None:
                fail(f'packet {i}: defaults on sequence {seq} before its state was cleared')
            state['track'] = int(one(ted, 'track_uuid', 0))
        for interned in p.get('interned_data', []):
            if state is None:
                fail(f'packet {i}: interned data on sequence {seq} before its state was cleared')
            for key, table in (('event_names', 'names'), ('debug_annotation_names', 'annotations')):
                for e in interned.get(key, []):
                    state[table][int(one(e, 'iid'))] = one(e, 'name')
            for e in interned.get('source_locations', []):
                state['locations'][int(one(e, 'iid'))] = one(e, 'function_name')
        for t in p.get('track_descriptor', []):
            uuid = int(one(t, 'uuid'))
            if 'process' in t:
                tracks[uuid] = ('process', int(one(t['process'][0], 'pid')), None, None)
            elif 'thread' in t:
                th = t['thread'][0]
                tracks[uuid] = ('thread', int(one(th, 'pid')), int(one(th, 'tid')),
                                int(one(t, 'parent_uuid', 0)))
        for ev in p.get('track_event', []):
            if state is None or not flags & 2:
                fail(f'packet {i}: track event on sequence {seq} without incremental state')
            track = int(one(ev, 'track_uuid', state['track'] or 0))
            kind = tracks.get(track)
            if not kind or kind[0] != 'thread':
                fail(f'packet {i}: event on track {track}, not a described thread track')
            parent = tracks.get(kind[3])
            if not parent or parent[0] != 'process' or parent[1] != kind[1]:
                fail(f'packet {i}: thread track {track} not under its process track')
            ts = int(one(p, 'timestamp'))
            if ts < last_ts.get(track, 0):
                fail(f'packet {i}: timestamp {ts} goes back on track {track}')
            last_ts[track] = ts
            opened = open_slices.setdefault(track, [])
            typ = one(ev, 'type')
            annotations = {state['annotations'].get(int(one(a, 'name_iid', 0))): a
                           for a in ev.get('debug_annotations', [])}
            if typ == 'TYPE_SLICE_BEGIN':
                iid = int(one(ev, 'name_iid', 0))
                name = state['names'].get(iid)
                if name is None:
                    fail(f'packet {i}: name_iid {iid} not interned on sequence {seq}')
                loc = one(ev, 'source_location_iid')
                if loc is not None and state['locations'].get(int(loc)) != name:
                    fail(f'packet {i}: source location {loc} is not that of {name}')
                opened.append(name)
                for category in ev.get('categories', []):
                    values.append(f'category {name} {category}')
                if 'args' in annotations:
                    values.append(f'args {name} {one(annotations["args"], "string_value")}')
            elif typ == 'TYPE_SLICE_END':
                if not opened:
                    fail(f'packet {i}: slice end with no slice open on track {track}')
                key = f'{kind[1]} {kind[2]};' + ';'.join(opened)
                stacks[key] = stacks.get(key, 0) + 1
                if 'unfinished' in annotations:
                    unfinished.append(opened[-1])
                if 'return' in annotations:
                    values.append(f'return {opened[-1]} {one(annotations["return"], "string_value")}')
                opened.pop()
            elif typ == 'TYPE_INSTANT':
                marks.append(one(ev, 'name'))
            else:
                fail(f'packet {i}: event type {typ}')
    for track, opened in open_slices.items():
        if opened:
            fail(f'track {track}: {len(opened)} slices never ended ({opened[-1]})')
    return stacks, marks, unfinished, values


def main():
    packets = parse(sys.stdin)
    if not packets:
        fail('no packets')
    stacks, marks, unfinished, values = check(packets)
    out = [f'{k} {v}' for k, v in stacks.items()] + [f'mark {m}' for m in marks] + \
        [f'unfinished {u}' for u in unfinished] + values
    for line in sorted(out):
        print(line)


if __name__ == '__main__':
    main()
