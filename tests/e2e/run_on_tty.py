#!/usr/bin/env python3
"""run_on_tty.py - runs COMMAND [ARG...] with its stdin, stdout and stderr on
a pseudo-terminal of its own, so that a test of what a command does on a
terminal does not depend on the terminal the tests run from (often none) nor
on the machine's load; once the command has ended and closed the terminal,
prints everything it wrote there and exits with its status (128 + N when
signal N ended it).

    python3 run_on_tty.py COMMAND [ARG...]
"""
import os
import pty
import subprocess
import sys


def read_all(fd):
    """Everything written to the terminal, until its last writer closes it."""
    out = bytearray()
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: no process holds the terminal any more
            break
        if not data:
            break
        out += data
    return bytes(out)


def main():
    if len(sys.argv) < 2:
        print("usage: run_on_tty.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave,
                                start_new_session=True)
    except OSError as e:
        print(f"run_on_tty.py: cannot run {sys.argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    os.close(slave)
    out = read_all(master)
    status = proc.wait()
    sys.stdout.buffer.write(out)
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
