#!/usr/bin/env python3
"""mutate_traces.py N CALLTRACE SEEDS_DIR WORK_DIR - the mutation campaign.

Makes N damaged copies of the real traces in SEEDS_DIR (bit flips,
truncations, zeroed ranges, chunk lengths, counts and sequence numbers
overwritten, chunks duplicated, header fields changed) and runs every
reading command of CALLTRACE (built with ASan and UBSan) on each, with a
time limit; one command an input (a different one each time) also checks
for leaks, all of them with MUTATE_LEAKS=all.  Each run is a success
(exit 0), a clean error (non-zero exit, every stderr line "calltrace:
..."), a messy error (non-zero exit without that), a crash (a signal, a
sanitizer report) or a hang (the time limit).
Prints the figures; keeps each crashing or hanging input in
WORK_DIR/failed/ with the command; exits 1 if there was any crash or hang.
Random but repeatable: SEED (environment) picks the sequence.  With
MUTATE_SECONDS set, no new input is started after that many seconds (the
figures say how many were done).
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HEADER = 4096
MAGIC = 0x4B435443
CHUNK = struct.Struct("<IHHIIIIIIQQQ")
# (offset, format) of the header fields worth lying in.
HEADER_FIELDS = [(12, "<I"), (16, "<I"), (24, "<Q"), (56, "<I"), (60, "<I"),
                 (128, "<Q"), (136, "<I"), (140, "<I")]
# Offsets in a chunk header: kind, header_size, length, used, image, pid,
# tid, seq, base_tick, clock_tick, clock_ns.
CHUNK_FIELDS = [(4, "<H"), (6, "<H"), (8, "<I"), (12, "<I"), (16, "<I"),
                (20, "<I"), (24, "<I"), (28, "<I"), (32, "<Q"), (40, "<Q"),
                (48, "<Q")]
EXTREMES = [0, 1, 7, 8, 63, 64, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x10000,
            0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFF8, 1 << 20, 64 << 20, (64 << 20) + 8,
            1 << 32, 1 << 48, (1 << 63) - 1, (1 << 63), (1 << 64) - 1]
COMMANDS = [["info"], ["replay"], ["report"], ["json"], ["flame", "-o", "-"],
            ["flame", "--folded"], ["seq"], ["graph"], ["chrome"],
            ["chrome", "--format", "proto", "-o", "-"],
            ["speedscope"], ["crash"], ["diff", "TRACE"]]  # TRACE: the input again
TIMEOUT = float(os.environ.get("MUTATE_TIMEOUT", "20"))
LEAKS_ALWAYS = os.environ.get("MUTATE_LEAKS") == "all"


def chunk_offsets(data):
    off, found = HEADER, []
    while off + CHUNK.size <= len(data):
        magic, _, _, length = struct.unpack_from("<IHHI", data, off)
        if magic != MAGIC or length < CHUNK.size or length % 8:
            off += 8
            continue
        found.append((off, length))
        off += length
    return found


def put(data, off, fmt, value):
    size = struct.calcsize(fmt)
    if off + size <= len(data):
        struct.pack_into(fmt, data, off, value & ((1 << (8 * size)) - 1))


def some_value(rng):
    return rng.choice(EXTREMES) if rng.random() < 0.7 else rng.getrandbits(64)


def mutate_once(data, rng):
    """One damage of a random kind; returns its name."""
    chunks = chunk_offsets(data)
    kind = rng.choice(["flip", "truncate", "zero", "bytes", "chunk_field",
                       "header_field", "duplicate", "events"])
    if kind in ("chunk_field", "duplicate", "events") and not chunks:
        kind = "flip"
    if kind == "flip":
        for _ in range(rng.randint(1, 16)):
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data)):]
    elif kind == "zero":
        at = rng.randrange(len(data))
        end = min(len(data), at + rng.choice([8, 64, 4096, 65536]))
        data[at:end] = bytes(end - at)
    elif kind == "bytes":
        at = rng.randrange(len(data))
        end = min(len(data), at + rng.randint(1, 64))
        data[at:end] = bytes([rng.choice([0, 0xFF, rng.getrandbits(8)])]) * (end - at)
    elif kind == "chunk_field":
        off, _ = rng.choice(chunks)
        field, fmt = rng.choice(CHUNK_FIELDS)
        put(data, off + field, fmt, some_value(rng))
    elif kind == "header_field":
        field, fmt = rng.choice(HEADER_FIELDS)
        put(data, field, fmt, some_value(rng))
    elif kind == "duplicate":
        off, length = rng.choice(chunks)
        copy = bytes(data[off:off + length])
        where = rng.choice(chunks)[0] if rng.random() < 0.5 else len(data)
        data[where:where] = copy
    else:  # events: garbage inside an event window's payload
        events = [c for c in chunks if data[c[0] + 4] == 1] or chunks
        off, length = rng.choice(events)
        at = off + CHUNK.size + rng.randrange(max(1, length - CHUNK.size))
        for i in range(rng.randint(1, 12)):
            if at + i < len(data):
                data[at + i] = rng.choice([0x00, 0x02, 0x03, 0x7F, 0x80, 0xFF,
                                           0x10, 0x14, 0x04, rng.getrandbits(8)])
    return kind


def classify(proc):
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0 or proc.returncode >= 128 or proc.returncode == 99 or \
            "Sanitizer" in err or "runtime error:" in err:
        return "crash"
    if proc.returncode == 0:
        return "ok"
    lines = [l for l in err.splitlines() if l]
    if lines and all(l.startswith("calltrace: ") for l in lines):
        return "clean_error"
    return "messy_error"


def run_command(calltrace, command, trace, leaks):
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=%d:abort_on_error=0:exitcode=99" % leaks,
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=99")
    try:
        args = [trace if a == "TRACE" else a for a in command]
        proc = subprocess.run([calltrace] + args + [trace], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=env, timeout=TIMEOUT,
                              cwd=os.path.dirname(trace))
    except subprocess.TimeoutExpired:
        return "hang", ""
    return classify(proc), proc.stderr.decode("utf-8", "replace")


def check_input(calltrace, path, failed_dir, index):
    results = []
    for i, command in enumerate(COMMANDS):
        # The leak check doubles a run's cost: one command an input has it,
        # a different one each time.
        leaks = LEAKS_ALWAYS or i == index % len(COMMANDS)
        verdict, err = run_command(calltrace, command, path, int(leaks))
        results.append(verdict)
        if verdict in ("crash", "hang"):
            keep = os.path.join(failed_dir, "input-%d.trace" % index)
            shutil.copy(path, keep)
            with open(keep + ".why", "a") as f:
                f.write("%s: calltrace %s %s\n%s\n" % (verdict, " ".join(command), keep,
                                                       err[-3000:]))
    os.unlink(path)
    return results


def main():
    n, calltrace, seeds_dir, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    rng = random.Random(int(os.environ.get("SEED", "1")))
    # Traces of a few MB take a second a command under ASan: left out.
    seeds = sorted(os.path.join(seeds_dir, f) for f in os.listdir(seeds_dir)
                   if f.endswith(".trace") and
                   os.path.getsize(os.path.join(seeds_dir, f)) <= (1 << 20))
    originals = {s: open(s, "rb").read() for s in seeds}
    failed_dir = os.path.join(work, "failed")
    os.makedirs(failed_dir, exist_ok=True)
    kinds = {}
    jobs = []
    deadline = time.monotonic() + float(os.environ.get("MUTATE_SECONDS", "inf"))
    done = 0
    with ThreadPoolExecutor(max_workers=int(os.environ.get("JOBS", "2"))) as pool:
        for i in range(n):
            # Only as many waiting as there are workers: the deadline holds.
            while len([j for j in jobs if not j.done()]) >= 4:
                time.sleep(0.01)
            if time.monotonic() > deadline:
                break
            done += 1
            data = bytearray(originals[rng.choice(seeds)])
            for _ in range(rng.choice([1, 1, 1, 2, 3, 5])):
                if not data:
                    break
                k = mutate_once(data, rng)
                kinds[k] = kinds.get(k, 0) + 1
            path = os.path.join(work, "m%d.trace" % i)
            with open(path, "wb") as f:
                f.write(data)
            jobs.append(pool.submit(check_input, calltrace, path, failed_dir, i))
        counts = {}
        for job in jobs:
            for verdict in job.result():
                counts[verdict] = counts.get(verdict, 0) + 1
    runs = sum(counts.values())
    print("mutate_traces: %d inputs from %d traces (%s), %d commands run: %d ok, "
          "%d clean errors, %d messy errors, %d crashes, %d hangs" %
          (done, len(seeds), ", ".join("%s %d" % kv for kv in sorted(kinds.items())), runs,
           counts.get("ok", 0), counts.get("clean_error", 0), counts.get("messy_error", 0),
           counts.get("crash", 0), counts.get("hang", 0)))
    if counts.get("crash", 0) or counts.get("hang", 0):
        print("mutate_traces: failing inputs and commands in %s" % failed_dir)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
