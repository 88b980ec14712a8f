#!/usr/bin/env python3
"""check_views.py - reads what the view commands wrote, for the end-to-end tests.

Subcommands (each exits 1 with a one-line reason on stderr when a check fails,
and prints what the calling script compares):

  folded FILE              checks every line is "frame;frame N"; prints the
                           total of N
  folded-count FILE STACK  prints N of the line for STACK (0 if none)
  flame FILE               parses the SVG as XML and checks its frames (a title
                           with call #, start, duration; a rect inside the
                           chart) and merged blocks; prints "CALLS BANDS",
                           CALLS = frames + the calls merged into blocks
                           (a frame of a call, a frame "f ×N" merging N calls,
                           a block that names its functions and counts the
                           calls inside by function)
  flame-functions FILE     prints the functions shown in frames of their own
                           (those drawn over a merged block, data-o, too)
  flame-over FILE          prints "FUNCTION DEPTH X" for each frame drawn over
                           a merged block, after checking no two overlap
  flame-unfinished FILE    prints "FUNCTION CALLS UNFINISHED" for each frame or
                           block (FUNCTION "-") whose title says it holds
                           unfinished calls, after checking it is marked so
  flame-named FILE         prints the functions in frames or named by a block
  flame-detail FILE        prints how many calls travel for zooming in
  flame-bands FILE         prints the band labels, one a line
  xml FILE [TEXT...]       the file parses as XML and holds every TEXT in its
                           text content
  mermaid FILE             prints the messages "FROM -> TO: TEXT" with the
                           participants' names (returns as "FROM --> TO")
  diagrams FILE            the same for js-sequence-diagrams text
  dot FILE                 prints "cluster LABEL: FUNCTION..." lines and
                           "CALLER -> CALLEE: LABEL" edges with function names
  chrome FILE              checks the Chrome trace: X events of a thread nest,
                           in order; metadata names every pid and tid; prints
                           the number of X events, then "pid tid thread_name"
                           lines
  speedscope FILE          checks the speedscope file: schema, shared frames,
                           per profile O/C events balanced and matching, `at`
                           never decreasing, start/end values; prints the
                           number of O events and of profiles
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'


def fail(msg):
    sys.stderr.write(msg + '\n')
    sys.exit(1)


def folded_lines(path):
    out = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'^(\S.*) (\d+)$', line.rstrip('\n'))
            if not m:
                fail(f'{path}:{n}: not "stack count": {line!r}')
            out.append((m.group(1), int(m.group(2))))
    return out


def cmd_folded(path):
    lines = folded_lines(path)
    stacks = [s for s, _ in lines]
    if len(set(stacks)) != len(stacks):
        fail(f'{path}: a stack is written twice: not aggregated')
    print(sum(n for _, n in lines))


def cmd_folded_count(path, stack):
    print(dict(folded_lines(path)).get(stack, 0))


def flame_frames(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f'{path}: not XML: {e}')
    chart = root.find(f'.//{SVG}svg[@id="chart"]')
    if chart is None:
        fail(f'{path}: no chart')
    width = float(chart.get('width'))
    if root.find(f'{SVG}script') is None:
        fail(f'{path}: no inline script')
    for el in root.iter():
        for attr in ('href', '{http://www.w3.org/1999/xlink}href', 'src'):
            if re.match(r'^(https?:)?//', el.get(attr, '')):
                fail(f'{path}: refers to the network: {el.get(attr)}')
    bands = chart.findall(f'{SVG}g[@class="band"]')
    return bands, width


def flame_names(root):
    meta = root.find(f'{SVG}metadata[@id="fnames"]')
    return json.loads(meta.text) if meta is not None and meta.text else []


def flame_frame_calls(path, g, names, width):
    """The calls a frame stands for, after checking it; and the function
    names it shows as a frame of their own."""
    title = g.find(f'{SVG}title')
    rect = g.find(f'{SVG}rect')
    if title is None or rect is None:
        fail(f'{path}: a frame without title or rect')
    x, w = float(rect.get('x')), float(rect.get('width'))
    if x < -0.01 or x + w > width + 0.01:
        fail(f'{path}: frame outside the chart: x {x} width {w}')
    lines = title.text.split('\n')
    kind = g.get('class') or ''
    n = int(g.get('data-n', '1'))
    counts = g.get('data-c')
    if counts is not None:
        total = 0
        for pair in counts.split(','):
            f, c = pair.split(':')
            if int(f) >= len(names):
                fail(f'{path}: data-c names function {f} of {len(names)}')
            total += int(c)
        if total != n:
            fail(f'{path}: block counts {total} calls inside, data-n says {n}')
    named = []
    for line in lines:
        if line.startswith('all the calls inside: '):
            named += re.findall(r'(?:^|, )(\S+) ×\d+', line[len('all the calls inside: '):])
    if kind == 'm':
        m = re.match(r'^(\d+) calls merged: (\S+) ×\d+', lines[0])
        if not m or int(m.group(1)) != n:
            fail(f'{path}: merged block that names no function: {lines[0]!r}')
        named += re.findall(r'(?:: |, )(\S+) ×\d+', lines[0])
        return n, [], named
    if kind == 'a':
        name = names[int(g.get('data-f'))]
        if not lines[0].startswith(name):
            fail(f'{path}: frame of {name} titled {lines[0]!r}')
        if g.get('data-o'):
            # Drawn over a merged block that counts its calls already.
            if not g.get('data-p') or 'counted in the merged block beneath' not in lines[1]:
                fail(f'{path}: frame of {name} drawn over a block without its piece or saying so')
            return 0, [name], named
        return n, [name], named
    if n == 0:
        return 0, [], []  # the merged graph's "all"
    if not re.match(r'^call #\d+ · start \d', lines[1]) or ' · duration ' not in lines[1]:
        fail(f'{path}: frame title {title.text!r}')
    return 1, [lines[0]], []


def flame_walk(path):
    bands, width = flame_frames(path)
    names = flame_names(ET.parse(path).getroot())
    calls, shown, named = 0, set(), set()
    for band in bands:
        for g in band.findall(f'{SVG}g'):
            if g.get('class') == 'det':
                continue
            n, own, also = flame_frame_calls(path, g, names, width)
            calls += n
            shown.update(own)
            named.update(also)
    return bands, calls, shown, named


def cmd_flame(path):
    bands, calls, _, _ = flame_walk(path)
    print(calls, len(bands))


def cmd_flame_functions(path):
    _, _, shown, _ = flame_walk(path)
    for name in sorted(shown):
        print(name)


def cmd_flame_over(path):
    bands, width = flame_frames(path)
    names = flame_names(ET.parse(path).getroot())
    for band in bands:
        rects = []
        for g in band.findall(f'{SVG}g[@data-o]'):
            r = g.find(f'{SVG}rect')
            x, y, w = float(r.get('x')), int(r.get('y')), float(r.get('width'))
            for (x2, y2, w2) in rects:
                if y == y2 and x < x2 + w2 - 0.001 and x2 < x + w - 0.001:
                    fail(f'{path}: frames drawn over blocks overlap at y {y}: {x} and {x2}')
            rects.append((x, y, w))
            print(names[int(g.get('data-f'))], y, f'{x:.3f}')


def cmd_flame_unfinished(path):
    bands, _ = flame_frames(path)
    names = flame_names(ET.parse(path).getroot())
    for band in bands:
        for g in band.findall(f'{SVG}g'):
            title, rect = g.find(f'{SVG}title'), g.find(f'{SVG}rect')
            if title is None or rect is None:
                continue
            marked = 'unf' in (rect.get('class') or '').split()
            m = re.search(r'^(\d+) unfinished \(', title.text, re.M)
            single = title.text.split('\n')[1].endswith('(unfinished)')
            if marked != bool(m or single):
                fail(f'{path}: frame {title.text.splitlines()[0]!r}: unfinished mark and title disagree')
            if not m and not single:
                continue
            name = names[int(g.get('data-f'))] if g.get('data-f') else \
                '-' if g.get('class') == 'm' else title.text.split('\n')[0]
            print(name, g.get('data-n', '1'), m.group(1) if m else 1)


def cmd_flame_named(path):
    _, _, shown, named = flame_walk(path)
    for name in sorted(shown | named):
        print(name)


def cmd_flame_detail(path):
    """The calls whose places travel in the file for zooming in."""
    bands, _ = flame_frames(path)
    n = 0
    for band in bands:
        for g in band.findall(f'{SVG}g[@class="det"]'):
            n += len(g.get('data-d').split(';'))
    print(n)


def cmd_flame_bands(path):
    bands, _ = flame_frames(path)
    for band in bands:
        print(band.find(f'{SVG}text').text)


def cmd_xml(path, *texts):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f'{path}: not XML: {e}')
    content = '\n'.join(t for el in root.iter() for t in (el.text, el.tail) if t)
    for t in texts:
        if t not in content:
            fail(f'{path}: no text {t!r}')


def cmd_mermaid(path):
    lines = [l.strip() for l in open(path, encoding='utf-8')]
    if lines[0] != 'sequenceDiagram':
        fail(f'{path}: does not start with sequenceDiagram')
    if not lines[1].startswith('title lifelines: '):
        fail(f'{path}: no title saying what the lifelines are')
    names = {}
    for line in lines:
        m = re.match(r'^participant (\S+) as (.+)$', line)
        if m:
            names[m.group(1)] = m.group(2)
    depth = 0
    for line in lines:
        m = re.match(r'^(\w+)(->>|-->>)([+-]?)(\w+): ?(.*)$', line)
        if not m:
            continue
        a, arrow, act, b, text = m.groups()
        if a not in names or b not in names:
            fail(f'{path}: undeclared participant in {line!r}')
        depth += 1 if act == '+' else -1
        if depth < 0:
            fail(f'{path}: more deactivations than activations at {line!r}')
        if arrow == '->>':
            print(f'{names[a]} -> {names[b]}: {text}')
        else:
            print(f'{names[a]} --> {names[b]}')
    if depth != 0:
        fail(f'{path}: {depth} activations never ended')
    opened = sum(1 for l in lines if l.startswith('rect '))
    if opened != sum(1 for l in lines if l == 'end'):
        fail(f'{path}: rect blocks not closed')


# What calltrace writes for the characters the grammar of participants uses.
LOOKALIKES = str.maketrans({'\u2010': '-', '\u2236': ':', '\u201a': ',', '\u2039': '<',
                            '\u203a': '>', '\u201d': '"', '\uff03': '#'})


def cmd_diagrams(path):
    lines = [l.rstrip('\n') for l in open(path, encoding='utf-8')]
    names = {}
    for line in lines:
        m = re.match(r'^participant ([^-<>:,"]+) as (\S+)$', line)
        if m:
            names[m.group(2)] = m.group(1).translate(LOOKALIKES)
        elif line.startswith('participant'):
            fail(f'{path}: participant the grammar does not take: {line!r}')
    for line in lines:
        m = re.match(r'^(\w+)(->|-->)(\w+): ?(.*)$', line)
        if not m:
            if line and not line.startswith(('participant ', 'Note over ', 'Title: ')):
                fail(f'{path}: line the grammar does not take: {line!r}')
            continue
        a, arrow, b, text = m.groups()
        if a not in names or b not in names:
            fail(f'{path}: undeclared participant in {line!r}')
        print(f'{names[a]} -> {names[b]}: {text}' if arrow == '->' else f'{names[a]} --> {names[b]}')


def cmd_dot(path):
    text = open(path, encoding='utf-8').read()
    names = {}
    for m in re.finditer(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', text, re.M):
        names[m.group(1)] = m.group(2).split('\\n')[0]
    for m in re.finditer(r'subgraph (cluster_\d+) \{\s*label="([^"]*)";(.*?)\n  \}', text, re.S):
        members = re.findall(r'^\s*(n\d+) \[', m.group(3), re.M)
        print(f'cluster {m.group(2)}: ' + ' '.join(sorted(names[n] for n in members)))
    for m in re.finditer(r'^\s*(n\d+) -> (n\d+) \[label="([^"]*)"\]', text, re.M):
        print(f'{names[m.group(1)]} -> {names[m.group(2)]}: {m.group(3)}')


def cmd_chrome(path):
    try:
        doc = json.load(open(path, encoding='utf-8'))
    except ValueError as e:
        fail(f'{path}: not JSON: {e}')
    events = doc.get('traceEvents')
    if not isinstance(events, list) or doc.get('displayTimeUnit') != 'ns':
        fail(f'{path}: no traceEvents list or displayTimeUnit')
    threads, pids, named_tids, named_pids, marks = {}, set(), {}, set(), []
    for e in events:
        if e.get('ph') == 'M':
            if e['name'] == 'thread_name':
                named_tids[(e['pid'], e['tid'])] = e['args']['name']
            elif e['name'] == 'process_name':
                named_pids.add(e['pid'])
            continue
        if e.get('ph') == 'i' and e.get('cat') == 'mark':
            if not isinstance(e.get('name'), str) or e.get('s') != 't' or \
                    not isinstance(e.get('ts'), (int, float)):
                fail(f'{path}: mark event not in the expected form: {e}')
            marks.append(e['name'])
            continue
        if e.get('ph') != 'X' or e.get('cat') != 'function':
            fail(f'{path}: unexpected event {e}')
        for key, kind in (('name', str), ('ts', (int, float)), ('dur', (int, float)),
                          ('pid', int), ('tid', int), ('args', dict)):
            if not isinstance(e.get(key), kind):
                fail(f'{path}: event without a proper {key}: {e}')
        if not all(k in e['args'] for k in ('file', 'line', 'seq')):
            fail(f'{path}: event args without file, line, seq: {e}')
        threads.setdefault((e['pid'], e['tid']), []).append(e)
        pids.add(e['pid'])
    for key, evs in threads.items():
        if key not in named_tids:
            fail(f'{path}: thread {key} has no thread_name')
        # Parents first: by start, then longest first.  Each call must lie
        # within the innermost call still open at its start.
        # Times are whole nanoseconds written as microseconds: compare them
        # as integers, so that float sums cannot make siblings overlap.
        for e in evs:
            e['ts_ns'] = round(e['ts'] * 1000)
            e['end_ns'] = e['ts_ns'] + round(e['dur'] * 1000)
        evs.sort(key=lambda e: (e['ts_ns'], -e['end_ns'], e['args']['seq']))
        stack = []
        for e in evs:
            while stack:
                end = stack[-1]['end_ns']
                if e['ts_ns'] < end or (e['ts_ns'] == end and e['end_ns'] == e['ts_ns']):
                    break
                stack.pop()
            if stack and (e['ts_ns'] < stack[-1]['ts_ns'] or e['end_ns'] > stack[-1]['end_ns']):
                fail(f'{path}: {e["name"]} (seq {e["args"]["seq"]}) overlaps its caller '
                     f'{stack[-1]["name"]} (seq {stack[-1]["args"]["seq"]}) in thread {key}')
            stack.append(e)
    if pids - named_pids:
        fail(f'{path}: pids without process_name: {pids - named_pids}')
    print(sum(len(v) for v in threads.values()))
    for (pid, tid), name in sorted(named_tids.items()):
        print(pid, tid, name)
    for name in marks:
        print('mark', name)


def cmd_speedscope(path):
    try:
        doc = json.load(open(path, encoding='utf-8'))
    except ValueError as e:
        fail(f'{path}: not JSON: {e}')
    if doc.get('$schema') != 'https://www.speedscope.app/file-format-schema.json':
        fail(f'{path}: no speedscope $schema')
    frames = doc.get('shared', {}).get('frames')
    if not isinstance(frames, list) or not all(isinstance(f.get('name'), str) for f in frames):
        fail(f'{path}: no shared frames with names')
    opens = 0
    for p in doc['profiles']:
        if p.get('type') != 'evented' or p.get('unit') != 'nanoseconds':
            fail(f'{path}: profile {p.get("name")} is not evented in nanoseconds')
        stack, last = [], None
        for ev in p['events']:
            if not 0 <= ev['frame'] < len(frames):
                fail(f'{path}: frame index {ev["frame"]} out of range')
            if last is not None and ev['at'] < last:
                fail(f'{path}: at goes back from {last} to {ev["at"]} in {p["name"]}')
            last = ev['at']
            if ev['type'] == 'O':
                stack.append(ev['frame'])
                opens += 1
            elif ev['type'] == 'C':
                if not stack or stack.pop() != ev['frame']:
                    fail(f'{path}: C event of frame {ev["frame"]} does not close the open frame')
            else:
                fail(f'{path}: event type {ev["type"]}')
        if stack:
            fail(f'{path}: {len(stack)} frames never closed in {p["name"]}')
        if p['events'] and not (p['startValue'] <= p['events'][0]['at'] and
                                p['endValue'] >= p['events'][-1]['at']):
            fail(f'{path}: startValue/endValue do not hold the events of {p["name"]}')
    print(opens, len(doc['profiles']))


COMMANDS = {
    'folded': cmd_folded, 'folded-count': cmd_folded_count, 'flame': cmd_flame,
    'flame-bands': cmd_flame_bands, 'flame-functions': cmd_flame_functions,
    'flame-detail': cmd_flame_detail, 'flame-over': cmd_flame_over,
    'flame-unfinished': cmd_flame_unfinished, 'flame-named': cmd_flame_named, 'xml': cmd_xml, 'mermaid': cmd_mermaid,
    'diagrams': cmd_diagrams, 'dot': cmd_dot, 'chrome': cmd_chrome,
    'speedscope': cmd_speedscope,
}

if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        fail(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
