#!/usr/bin/env python3
"""gen_prototypes.py - writes the built-in prototype tables of calltrace.

From src/symbols/prototypes.list (library functions) it writes
src/symbols/prototypes_table.c: one array sorted by name for the lookup's
binary search.  From src/symbols/syscalls.list (system call prototypes) and
the kernel's system call numbers (asm/unistd_64.h for x86-64,
asm-generic/unistd.h for aarch64) it writes src/symbols/prototypes_syscalls.c:
per machine, the name and prototype of every number.  The generated files
are checked in, so a build depends neither on Python nor on the installed
kernel headers; run this script again after changing a list:

    python3 scripts/gen_prototypes.py [--x86-64 UNISTD_64_H] [--generic UNISTD_H]

With --check it writes nothing and exits 1 when prototypes_table.c is not
what prototypes.list gives (the system call table, which also depends on
the installed headers, is not checked).
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYMBOLS = os.path.join(ROOT, "src", "symbols")

TYPES = {
    "void": "PT_VOID", "int": "PT_INT", "uint": "PT_UINT", "long": "PT_LONG",
    "ulong": "PT_ULONG", "hex": "PT_HEX", "ptr": "PT_PTR", "str": "PT_STRING",
    "fd": "PT_FD", "double": "PT_DOUBLE", "char": "PT_CHAR",
    "sockaddr": "PT_SOCKADDR", "oflags": "PT_OPEN_FLAGS", "mode": "PT_MODE",
    "prot": "PT_PROT", "mapflags": "PT_MAP_FLAGS", "signal": "PT_SIGNAL",
    "family": "PT_ADDRESS_FAMILY", "socktype": "PT_SOCKET_TYPE",
    "whence": "PT_WHENCE", "amode": "PT_ACCESS_MODE", "clockid": "PT_CLOCK_ID",
    "fcntlcmd": "PT_FCNTL_CMD", "errno": "PT_ERRNO", "fflags": "PT_FILE_FLAGS",
    "dirfd": "PT_DIRFD", "buf": "PT_BUF_IN", "obuf": "PT_BUF_OUT",
    "osockaddr": "PT_SOCKADDR_OUT", "timespec": "PT_TIMESPEC", "ostat": "PT_STAT_OUT",
    "pipefds": "PT_PIPE_FDS", "argv": "PT_ARGV", "atflags": "PT_AT_FLAGS",
    "socklenp": "PT_SOCKLEN_IO", "envp": "PT_ENVP", "iov": "PT_IOV_IN", "oiov": "PT_IOV_OUT",
    "msgflags": "PT_MSG_FLAGS", "msghdr": "PT_MSGHDR_IN", "omsghdr": "PT_MSGHDR_OUT",
}
FAILURES = {None: "PF_NONE", "-1": "PF_MINUS_ONE", "NULL": "PF_NULL",
            "errnum": "PF_ERRNUM", "-errno": "PF_NEG_ERRNO"}
MAX_ARGS = 6
LENGTH_TYPES = ("PT_SOCKADDR", "PT_BUF_IN", "PT_SOCKADDR_OUT", "PT_IOV_IN", "PT_IOV_OUT")

LINE = re.compile(r'^(\w+)\s+("[^"]+"|\w+)\s*\((.*)\)\s*(?:fails\s+(\S+))?\s*$')


def fail(path, number, message):
    sys.exit("%s:%d: %s" % (path, number, message))


def parse_arg(text, path, number):
    """'sockaddr[addrlen] addr' -> (type, name, length argument name)"""
    m = re.match(r'^(\w+)(?:\[(\w+)\])?\s+(\w+)$', text)
    if not m or m.group(1) not in TYPES or m.group(1) == "void":
        fail(path, number, "bad argument %r" % text)
    return TYPES[m.group(1)], m.group(3), m.group(2)


def parse_list(path, default_failure=None):
    prototypes = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = LINE.match(line)
            if not m or m.group(1) not in TYPES or m.group(4) not in FAILURES:
                fail(path, number, "not a prototype: %r" % line)
            name = m.group(2).strip('"')
            params = [p.strip() for p in m.group(3).split(",") if p.strip()]
            variadic = bool(params) and params[-1] == "..."
            if variadic:
                params.pop()
            if len(params) > MAX_ARGS:
                fail(path, number, "more than %d arguments" % MAX_ARGS)
            args = [parse_arg(p, path, number) for p in params]
            names = [a[1] for a in args]
            for type_, _, length in args:
                if length is not None and (type_ not in LENGTH_TYPES or length not in names):
                    fail(path, number, "bad length argument %r" % length)
            if name in prototypes:
                fail(path, number, "%s listed twice" % name)
            failure = m.group(4) if m.group(4) else default_failure
            prototypes[name] = (TYPES[m.group(1)], FAILURES[failure], variadic,
                                [(t, n, names.index(l) if l else None) for t, n, l in args])
    return prototypes


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The names are kept in the table (char arrays, not pointers): a table of
# pointers needs a relocation for each, which every process that loads the
# runtime library would pay at its start.  prototypes.h's sizes.
NAME_MAX = 58
ARG_NAME_MAX = 17


def c_prototype(name, proto, indent="\t"):
    ret, failure, variadic, args = proto
    if len(name) >= NAME_MAX or any(len(a[1]) >= ARG_NAME_MAX for a in args):
        sys.exit("gen_prototypes.py: %s: a name longer than prototypes.h keeps" % name)
    parts = []
    for type_, arg_name, length in args:
        parts.append('{"%s", %s, %s}' % (arg_name, type_,
                                          "PROTO_NO_LEN" if length is None else length))
    if not parts:
        parts.append('{"", PT_VOID, PROTO_NO_LEN}')
    return '%s{%s, %s, %s, %d, %d, {%s}},\n' % (indent, c_string(name), ret, failure,
                                               len(args), int(variadic), ", ".join(parts))


def write_if_changed(path, text):
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old != text:
        with open(path, "w") as f:
            f.write(text)
        print("wrote %s" % os.path.relpath(path, ROOT))


def function_table(prototypes):
    names = sorted(prototypes, key=lambda s: s.encode())
    out = ["/*\n * prototypes_table.c - the built-in prototypes of library functions, sorted\n"
           " * by name (strcmp order) for prototype_of_function's binary search.\n"
           " * Generated by scripts/gen_prototypes.py from prototypes.list: edit\n"
           " * the list, not this file.\n */\n",
           '#include "prototypes_internal.h"\n\n',
           "/* clang-format off */\n",
           "const struct prototype proto_functions[] = {\n"]
    for name in names:
        out.append(c_prototype(name, prototypes[name]))
    out.append("};\n/* clang-format on */\n\n"
               "const unsigned proto_function_count = %d;\n" % len(names))
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--x86-64", default="/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
    parser.add_argument("--generic", default="/usr/include/asm-generic/unistd.h")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if prototypes_table.c is out of date")
    options = parser.parse_args()
    functions = parse_list(os.path.join(SYMBOLS, "prototypes.list"))
    if options.check:
        with open(os.path.join(SYMBOLS, "prototypes_table.c")) as f:
            if f.read() != function_table(functions):
                sys.exit("src/symbols/prototypes_table.c is out of date: "
                         "run python3 scripts/gen_prototypes.py")
        print("prototypes_table.c is up to date (%d functions)" % len(functions))
        return
    write_if_changed(os.path.join(SYMBOLS, "prototypes_table.c"), function_table(functions))
    syscalls_list = os.path.join(SYMBOLS, "syscalls.list")
    if os.path.exists(syscalls_list):
        import gen_syscalls  # noqa: E402 (scripts/gen_syscalls.py)
        syscalls = parse_list(syscalls_list, "-errno")
        write_if_changed(os.path.join(SYMBOLS, "prototypes_syscalls.c"),
                         gen_syscalls.syscall_tables(syscalls, options, c_prototype))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
