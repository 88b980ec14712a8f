#!/usr/bin/env bash
# core_kinds.sh - calls of every kind in one call tree, from traces whose
# events the test writes (gen_trace): library calls named by the
# relocation of the GOT slot they went through and shown in the library
# that provides them (the first loaded that defines the name: libkinds.so's
# atoi comes before the C library's), a call through a dlsym pointer
# named by its address; --kind selecting kinds, -F/-N on their names.
source "$(dirname "$0")/lib.sh"
setup

src=$PROGRAMS/kinds
gcc -g -O0 -fPIC -shared "$src/libkinds.c" -o "$WORK/libkinds.so" &&
	gcc -g -O0 -fno-pie -no-pie "$src/main.c" -o "$WORK/kinds" -L"$WORK" -lkinds \
		-Wl,-rpath,"$WORK" || fail "cannot build the kinds program"
libc=$(ldd "$WORK/kinds" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || skip "no libc.so.6 found for the kinds program"

gen_trace lib "$WORK/kinds" <<SCRIPT
0 thread 100 main
0 load $WORK/libkinds.so
0 load $libc
10 enter main
20 libcall malloc 16
30 exit 0x1234
40 enter load_config
50 libcall open "/etc/passwd" 0x80000
60 exit 3
70 libcall read 3 0x7ffc0000 63
80 exit 5
90 libcall close 3
100 exit 0
110 libcall atoi "42"
120 exit 43
130 libcall kinds_lookup "k"
140 exit 107
150 dlcall kinds_lookup "d"
160 exit 100
162 dlcall puts "hi"
164 exit 3
170 exit
180 libcall puts "ok"
190 exit 3
200 exit
300 end 0
SCRIPT

# kinds_view NAME [OPTION...]: the json of $TRACE.trace (lib.trace), and the functions
# `replay` shows (its lines' names, without values) in $WORK/NAME.names.
kinds_view() {
	local name=$1
	shift
	ct json "$@" -o "$WORK/$name.json" "$WORK/${TRACE:-lib}.trace"
	check_tree schema "$WORK/$name.json"
	ct replay "$@" "$WORK/${TRACE:-lib}.trace" >"$WORK/$name.replay"
	sed -n 's/^.*| \( *\)\(\[syscall\] \)\{0,1\}\([A-Za-z_][A-Za-z_0-9]*\)\(@[^(]*\)\{0,1\}(.*/\1\3/p' "$WORK/$name.replay" >"$WORK/$name.names"
}

kinds_view all
expect_trees all <<'TREES'
== process 1 main
main
  malloc
  load_config
    open
    read
    close
    atoi
    kinds_lookup [x2]
    puts
  puts
TREES

# replay shows the same calls.
cat >"$WORK/all.names.expected" <<'NAMES'
main
  malloc
  load_config
    open
    read
    close
    atoi
    kinds_lookup
    kinds_lookup
    puts
  puts
NAMES
expect_text "replay's calls" "$WORK/all.names.expected" "$WORK/all.names"

# Who calls whom, as the sequence diagram's lifelines (modules) show it:
# each library call in the library that provides the function.
ct seq -f diagrams --by module -o "$WORK/lib.seq" "$WORK/lib.trace"
awk '/^participant / { name[$4] = $2 }
     /^P[0-9]+->P[0-9]+: / { split($1, ends, "->"); sub(/:$/, "", ends[2]); f = $2; sub(/\(.*/, "", f)
	print name[ends[1]] " -> " name[substr(ends[2], 1)] ": " f }' "$WORK/lib.seq" >"$WORK/lib.calls"
cat >"$WORK/lib.calls.expected" <<'CALLS'
start -> kinds: main
kinds -> libc.so.6: malloc
kinds -> kinds: load_config
kinds -> libc.so.6: open
kinds -> libc.so.6: read
kinds -> libc.so.6: close
kinds -> libkinds.so: atoi
kinds -> libkinds.so: kinds_lookup
kinds -> libkinds.so: kinds_lookup
kinds -> libc.so.6: puts
kinds -> libc.so.6: puts
CALLS
expect_text "modules of the calls" "$WORK/lib.calls.expected" "$WORK/lib.calls"

# The call through the GOT slot and the one through a pointer are one
# function: one row, two calls (a pointer to puts is named puts, not by
# its alias _IO_puts).
ct report "$WORK/lib.trace" >"$WORK/lib.report"
for f in kinds_lookup@libkinds.so puts@libc.so.6; do
	[ "$(check_tree report-calls "$WORK/lib.report" $f)" = 2 ] ||
		fail "report: $f is not one row of 2 calls"
done

# A library recorded only after a call into it (the record of a module can
# come once its code first ran): the call is still its, one symbol with the
# calls made after the record.
gen_trace late "$WORK/kinds" <<SCRIPT
0 thread 100 main
0 load $libc
10 enter main
20 libcall kinds_lookup "k"
30 exit 107
40 load $WORK/libkinds.so
50 libcall kinds_lookup "l"
60 exit 108
70 exit
80 end 0
SCRIPT
ct report "$WORK/late.trace" >"$WORK/late.report"
[ "$(check_tree report-calls "$WORK/late.report" kinds_lookup@libkinds.so)" = 2 ] ||
	fail "report: kinds_lookup, recorded late, is not one row of 2 calls in libkinds.so"

# --kind: only the library calls (their callers hidden as -N hides them),
# only the program's functions, and a kind taken out.
kinds_view only_library --kind library
expect_trees only_library <<'TREES'
== process 1 main
malloc
open
read
close
atoi
kinds_lookup [x2]
puts [x2]
TREES
kinds_view only_functions --kind function
expect_trees only_functions <<'TREES'
== process 1 main
main
  load_config
TREES
kinds_view no_library --kind=-library,-syscall
expect_trees no_library <"$WORK/only_functions.expected"

# -F and -N name library calls as any function.
kinds_view lib_filter -F '^(atoi|puts)$'
expect_trees lib_filter <<'TREES'
== process 1 main
atoi
puts [x2]
TREES
kinds_view lib_hide -N '^(open|read|close|kinds_lookup)$'
expect_trees lib_hide <<'TREES'
== process 1 main
main
  malloc
  load_config
    atoi
    puts
  puts
TREES

# ---- system calls and off-CPU intervals ---------------------------------------
# The kernel's events (CHUNK_KERNEL) merged by time into the thread's calls:
# a library call's system calls are its children, an interval off the CPU
# a child of what was running.  System calls are named by number (0 read,
# 1 write, 257 openat; one the table does not know: syscall_NR).
gen_trace sys "$WORK/kinds" <<SCRIPT
0 thread 100 main
0 load $WORK/libkinds.so
0 load $libc
10 enter main
20 enter load_config
30 libcall open "/etc/passwd" 0x80000
40 syscall 257 -100 0x7ffc0000 0x80000
50 exit 3
60 exit 3
70 libcall read 3 0x7ffc1000 63
80 syscall 0 3 0x7ffc1000 63
90 offcpu blocked
1000 exit
1010 exit 5
1020 exit 5
1030 offcpu preempted
2000 exit
2005 exit
2010 libcall puts "ok"
2020 syscall 1 1 0x7ffc2000 3
2030 exit 3
2040 exit 3
2060 syscall 999
2070 exit -38
2080 exit
2100 end 0
SCRIPT

# kind_tree NAME: the calls of $WORK/NAME.json with their JSON kind ("-": a
# function of the program's own).
kind_tree() {
	python3 - "$WORK/$1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def visit(calls, depth):
    for c in calls:
        print("  " * depth + c["function"] + " " + c.get("kind", "-"))
        visit(c.get("children", []), depth + 1)
for tree in doc["call_trees"].values():
    visit(tree["calls"], 0)
PY
}
# expect_kinds NAME [OPTION...]: the kind tree of sys.trace seen with the
# options equals stdin.
expect_kinds() {
	local name=$1
	shift
	TRACE=sys kinds_view "$name" "$@"
	cat >"$WORK/$name.kinds.expected"
	kind_tree "$name" >"$WORK/$name.kinds"
	expect_text "kinds of $name" "$WORK/$name.kinds.expected" "$WORK/$name.kinds"
}

expect_kinds sys_all <<'KINDS'
main -
  load_config -
    open library
      openat syscall
    read library
      read syscall
        off-cpu:blocked sched
    off-cpu:preempted sched
  puts library
    write syscall
  syscall_999 syscall
KINDS

# --kind: each kind alone, and all but one.  The callees of a hidden call
# stay (a library call's system calls, a system call's interval off the CPU).
expect_kinds sys_syscall --kind syscall <<'KINDS'
openat syscall
read syscall
write syscall
syscall_999 syscall
KINDS
expect_kinds sys_offcpu --kind offcpu <<'KINDS'
off-cpu:blocked sched
off-cpu:preempted sched
KINDS
expect_kinds sys_library --kind library <<'KINDS'
open library
read library
puts library
KINDS
expect_kinds sys_kernel_side --kind syscall,offcpu <<'KINDS'
openat syscall
read syscall
  off-cpu:blocked sched
off-cpu:preempted sched
write syscall
syscall_999 syscall
KINDS
expect_kinds sys_no_offcpu --kind=-offcpu <<'KINDS'
main -
  load_config -
    open library
      openat syscall
    read library
      read syscall
  puts library
    write syscall
  syscall_999 syscall
KINDS
expect_kinds sys_no_library --kind=function,syscall,offcpu,-function <<'KINDS'
openat syscall
read syscall
  off-cpu:blocked sched
off-cpu:preempted sched
write syscall
syscall_999 syscall
KINDS

# -F, -N and -t on the names of system calls and off-CPU intervals: "read"
# is both the library call and its system call.
expect_kinds sys_only_read -F '^read$' <<'KINDS'
read library
  read syscall
    off-cpu:blocked sched
KINDS
expect_kinds sys_only_openat -F '^openat$' <<'KINDS'
openat syscall
KINDS
expect_kinds sys_hide -N '^(read|openat|off-cpu:.*)$' <<'KINDS'
main -
  load_config -
    open library
  puts library
    write syscall
  syscall_999 syscall
KINDS
expect_kinds sys_syscall_long --kind syscall -t 500ns <<'KINDS'
read syscall
KINDS
expect_kinds sys_long_offcpu -F '^off-cpu:preempted$' -t 900ns <<'KINDS'
off-cpu:preempted sched
KINDS

# A thread the kernel alone saw doing something (no call of its own was
# recorded): its system calls and intervals off the CPU are its call tree.
gen_trace kernel_only "$WORK/kinds" <<'SCRIPT'
0 thread 100 main
10 enter main
20 exit
30 thread 101 waiter
40 syscall 202 0x601040 0 1
50 offcpu blocked
900 exit
910 exit 0
1000 end 0
SCRIPT
TRACE=kernel_only kinds_view kernel_only
kind_tree kernel_only >"$WORK/kernel_only.kinds"
printf '%s\n' "main -" "futex syscall" "  off-cpu:blocked sched" >"$WORK/kernel_only.kinds.expected"
expect_text "kinds of a thread the kernel alone saw" "$WORK/kernel_only.kinds.expected" \
	"$WORK/kernel_only.kinds"

# Bad --kind values: one line, exit 2 (or 1), nothing written.
for bad in bogus library, '' -function,-library,-syscall,-offcpu,-kernel; do
	rc=0
	"$CALLTRACE" replay --kind="$bad" "$WORK/lib.trace" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] && [ ! -s "$WORK/bad.out" ] ||
		fail "--kind='$bad': exit $rc, $(cat "$WORK/bad.err")"
done
rc=0
"$CALLTRACE" report --kind=library,bogus "$WORK/lib.trace" >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" != 0 ] && grep -q "bad kind 'bogus'" "$WORK/bad.err" ||
	fail "--kind=library,bogus: exit $rc, $(cat "$WORK/bad.err")"
pass
