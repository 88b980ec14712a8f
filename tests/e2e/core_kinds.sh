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

# kinds_view NAME [OPTION...]: the json of lib.trace, and the functions
# `replay` shows (its lines' names, without values) in $WORK/NAME.names.
kinds_view() {
	local name=$1
	shift
	ct json "$@" -o "$WORK/$name.json" "$WORK/lib.trace"
	check_tree schema "$WORK/$name.json"
	ct replay "$@" "$WORK/lib.trace" >"$WORK/$name.replay"
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
ct seq -f diagrams -o "$WORK/lib.seq" "$WORK/lib.trace"
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
