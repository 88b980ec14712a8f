#!/usr/bin/env bash
# reliability_files.sh - how trace files are created.  A symbolic link where
# the trace goes (-o under every engine, the default name, CALLTRACE_OUTPUT
# of the preloaded runtime, attach under both engines, --replace) is
# refused, and the file it points to stays untouched; so is another user's
# file (as root).  The trace's mode is 0666 less the umask.  A file that had
# the name is kept under a numbered name, or replaced with --replace (the
# runtime: CALLTRACE_REPLACE=1).  A FIFO is refused in one line.  `record`
# takes CALLTRACE_OUTPUT as its default trace.  A libtool-like wrapper
# script (a shell that forks a dozen times, then execs the program) is
# recorded without a "cannot write trace" line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel hooks concurrent.c
gcc -std=gnu11 -g -O0 -o "$WORK/plain" "$RELIABILITY/concurrent.c" || fail "cannot compile plain"
touch "$WORK/go"
victim=$WORK/victim
echo "keep me" >"$victim"

# expect_victim_untouched WHAT
expect_victim_untouched() {
	[ "$(cat "$victim")" = "keep me" ] || fail "$1: the file behind the symbolic link was written"
}

# expect_link_refused WHAT ERR: the one-line refusal is in ERR, the link is
# still a link and the file behind it untouched.
expect_link_refused() {
	grep -q "^calltrace: cannot write trace .*: it is a symbolic link" "$2" ||
		fail "$1: no refusal naming the symbolic link: $(head -c 300 "$2")"
	expect_victim_untouched "$1"
}

# ---- planted symbolic links ------------------------------------------------
mkdir -m 1777 "$WORK/shared"
planted=$WORK/shared/app.trace
ln -s "$victim" "$planted"
# As root: planted by another user, as in a shared temporary folder.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown -h nobody "$planted"
fi
for engine in runtime patch ptrace; do
	prog=$WORK/plain
	[ "$engine" = runtime ] && prog=$WORK/hooks
	rc=0
	"$CALLTRACE" record --engine "$engine" -o "$planted" "$prog" 1 10 "$WORK/go" \
		>/dev/null 2>"$WORK/link.$engine.err" || rc=$?
	[ "$rc" = 2 ] || fail "record --engine $engine -o LINK: exit $rc, expected 2"
	expect_link_refused "record --engine $engine" "$WORK/link.$engine.err"
done

# The default name.
ln -s "$victim" "$WORK/shared/calltrace.trace"
rc=0
(cd "$WORK/shared" && "$CALLTRACE" record "$WORK/hooks" 1 10 "$WORK/go") >/dev/null 2>"$WORK/default.err" || rc=$?
[ "$rc" = 2 ] || fail "record with the default name a link: exit $rc, expected 2"
expect_link_refused "record (default name)" "$WORK/default.err"

# The preloaded runtime: the program runs on, unrecorded, and says why.
rc=0
CALLTRACE_OUTPUT=$planted LD_PRELOAD=$RUNTIME "$WORK/hooks" 1 10 "$WORK/go" >"$WORK/preload.out" 2>"$WORK/preload.err" || rc=$?
[ "$rc" = 11 ] || fail "CALLTRACE_OUTPUT=LINK: the program exited $rc, not 11"
grep -q "^program 1: work 11" "$WORK/preload.out" || fail "CALLTRACE_OUTPUT=LINK: the program did not run"
expect_link_refused "CALLTRACE_OUTPUT" "$WORK/preload.err"

# attach, both engines: refused before the target is touched.  The target
# has run sleep and mapped its C library (an attach just after the exec
# finds none: "statically linked?").
sleep 60 &
sleeper=$!
wait_exec "$sleeper" sleep
for ((i = 0; i < 6000; i++)); do
	grep -q 'libc\.so' "/proc/$sleeper/maps" 2>/dev/null && break
	sleep 0.01
done
for engine in patch ptrace; do
	rc=0
	"$CALLTRACE" attach --engine "$engine" -p "$sleeper" -o "$planted" >/dev/null 2>"$WORK/attach.$engine.err" || rc=$?
	[ "$rc" = 2 ] || fail "attach --engine $engine -o LINK: exit $rc, expected 2: $(head -c 300 "$WORK/attach.$engine.err")"
	expect_link_refused "attach --engine $engine" "$WORK/attach.$engine.err"
	kill -0 "$sleeper" || fail "attach --engine $engine -o LINK: the target is gone"
done
kill "$sleeper"
wait "$sleeper" 2>/dev/null || true
[ -L "$planted" ] && [ -L "$WORK/shared/calltrace.trace" ] || fail "a planted link was removed"

# Another user's file is neither written nor moved (root only).
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	other=$WORK/shared/other.trace
	echo "theirs" >"$other"
	chown nobody "$other"
	rc=0
	"$CALLTRACE" record -o "$other" "$WORK/hooks" 1 10 "$WORK/go" >/dev/null 2>"$WORK/other.err" || rc=$?
	[ "$rc" = 2 ] && grep -q "^calltrace: cannot write trace .*: it belongs to another user" "$WORK/other.err" ||
		fail "record over another user's file: exit $rc: $(head -c 300 "$WORK/other.err")"
	[ "$(cat "$other")" = theirs ] && [ ! -e "$WORK/shared/other.2.trace" ] ||
		fail "another user's file was written or moved"
fi

# ---- the mode follows the umask --------------------------------------------
for mask in 077 022 002; do
	rc=0
	(umask "$mask" && "$CALLTRACE" record -q -o "$WORK/mode$mask.trace" "$WORK/hooks" 1 10 "$WORK/go") \
		>/dev/null 2>"$WORK/mode.err" || rc=$?
	[ "$rc" = 11 ] || fail "umask $mask: record exited $rc: $(head -c 300 "$WORK/mode.err")"
	got=$(stat -c %a "$WORK/mode$mask.trace")
	want=$(printf '%o' $((0666 & ~0$mask)))
	[ "$got" = "$want" ] || fail "umask $mask: the trace's mode is $got, expected $want"
	rc=0
	(umask "$mask" && CALLTRACE_OUTPUT=$WORK/pmode$mask.trace LD_PRELOAD=$RUNTIME "$WORK/hooks" 1 10 "$WORK/go") \
		>/dev/null 2>&1 || rc=$?
	got=$(stat -c %a "$WORK/pmode$mask.trace")
	[ "$got" = "$want" ] || fail "umask $mask, preloaded runtime: the trace's mode is $got, expected $want"
done

# ---- a file that had the name is kept --------------------------------------
"$CALLTRACE" record -q -o "$WORK/twice.trace" "$WORK/hooks" 1 10 "$WORK/go" >/dev/null 2>&1 || true
"$CALLTRACE" record -q -o "$WORK/twice.trace" "$WORK/hooks" 2 10 "$WORK/go" >/dev/null 2>"$WORK/twice.err" || true
grep -qx "calltrace: the previous $WORK/twice.trace is now $WORK/twice.2.trace" "$WORK/twice.err" ||
	fail "the second record did not say where the first trace went: $(head -c 300 "$WORK/twice.err")"
info_of "$WORK/twice.trace" "$WORK/twice.info"
info_of "$WORK/twice.2.trace" "$WORK/twice2.info"
[ "$(image_commands "$WORK/twice.info" | cut -d' ' -f3)" = 2 ] &&
	[ "$(image_commands "$WORK/twice2.info" | cut -d' ' -f3)" = 1 ] ||
	fail "the new trace is not under the name given, or the previous one not kept"

# ... or replaced with --replace; a symbolic link is refused all the same.
"$CALLTRACE" record -q --replace -o "$WORK/twice.trace" "$WORK/hooks" 3 10 "$WORK/go" >/dev/null 2>"$WORK/replace.err" || true
info_of "$WORK/twice.trace" "$WORK/replace.info"
[ "$(image_commands "$WORK/replace.info" | cut -d' ' -f3)" = 3 ] && [ ! -e "$WORK/twice.3.trace" ] &&
	[ ! -s "$WORK/replace.err" ] || fail "--replace did not replace the finished trace: $(head -c 300 "$WORK/replace.err")"
rc=0
"$CALLTRACE" record --replace -o "$planted" "$WORK/hooks" 1 10 "$WORK/go" >/dev/null 2>"$WORK/replace_link.err" || rc=$?
[ "$rc" = 2 ] || fail "record --replace -o LINK: exit $rc, expected 2"
expect_link_refused "record --replace" "$WORK/replace_link.err"

# The same for the preloaded runtime, with CALLTRACE_REPLACE=1 for --replace.
for i in 1 2; do
	CALLTRACE_OUTPUT=$WORK/pre.trace LD_PRELOAD=$RUNTIME "$WORK/hooks" "$i" 10 "$WORK/go" >/dev/null 2>"$WORK/pre$i.err" || true
done
grep -qx "calltrace: the previous $WORK/pre.trace is now $WORK/pre.2.trace" "$WORK/pre2.err" ||
	fail "the preloaded runtime did not say where the previous trace went: $(head -c 300 "$WORK/pre2.err")"
CALLTRACE_REPLACE=1 CALLTRACE_OUTPUT=$WORK/pre.trace LD_PRELOAD=$RUNTIME "$WORK/hooks" 3 10 "$WORK/go" >/dev/null 2>&1 || true
info_of "$WORK/pre.trace" "$WORK/pre.info"
info_of "$WORK/pre.2.trace" "$WORK/pre2.info"
[ "$(image_commands "$WORK/pre.info" | cut -d' ' -f3)" = 3 ] &&
	[ "$(image_commands "$WORK/pre2.info" | cut -d' ' -f3)" = 1 ] && [ ! -e "$WORK/pre.3.trace" ] ||
	fail "the preloaded runtime: the previous trace not kept, or not replaced with CALLTRACE_REPLACE=1"

# ---- a FIFO ------------------------------------------------------------------
mkfifo "$WORK/fifo"
rc=0
timeout 20 "$CALLTRACE" record -o "$WORK/fifo" "$WORK/hooks" 1 10 "$WORK/go" >/dev/null 2>"$WORK/fifo.err" || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$WORK/fifo.err")" = 1 ] &&
	grep -qx "calltrace: cannot write trace $WORK/fifo: it is a FIFO: a trace must be a regular file" "$WORK/fifo.err" ||
	fail "record -o FIFO: exit $rc: $(head -c 300 "$WORK/fifo.err")"

# ---- CALLTRACE_OUTPUT is record's default ------------------------------------
mkdir "$WORK/env"
rc=0
(cd "$WORK/env" && CALLTRACE_OUTPUT=from-env.trace "$CALLTRACE" record "$WORK/hooks" 1 10 "$WORK/go") \
	>/dev/null 2>"$WORK/env.err" || rc=$?
[ "$rc" = 11 ] && [ -s "$WORK/env/from-env.trace" ] && [ ! -e "$WORK/env/calltrace.trace" ] ||
	fail "record with CALLTRACE_OUTPUT=from-env.trace: exit $rc, files: $(ls "$WORK/env" | tr '\n' ' ')"
rc=0
(cd "$WORK/env" && CALLTRACE_OUTPUT=x.json "$CALLTRACE" record "$WORK/hooks" 1 10 "$WORK/go") \
	>/dev/null 2>"$WORK/envjson.err" || rc=$?
[ "$rc" = 11 ] && [ -s "$WORK/env/calltrace.trace" ] &&
	grep -q "^calltrace: CALLTRACE_OUTPUT=x.json is not used: record writes a binary trace" "$WORK/envjson.err" ||
	fail "record with CALLTRACE_OUTPUT=x.json: exit $rc: $(head -c 300 "$WORK/envjson.err")"

# ---- a libtool wrapper script ----------------------------------------------
mkdir -p "$WORK/lt/.libs"
cp "$WORK/plain" "$WORK/lt/.libs/lt-prog"
cat >"$WORK/lt/prog" <<'EOF'
#! /bin/sh
# prog - temporary wrapper script for .libs/prog (as libtool writes them)
progdir=`dirname "$0"`
thisdir=`cd "$progdir" && pwd`
for step in 1 2 3 4 5 6 7 8 9 10 11 12; do
	sed_step=`echo "$step" | sed 's/^/step /'`
done
LD_LIBRARY_PATH="$thisdir/.libs:${LD_LIBRARY_PATH:-}"
export LD_LIBRARY_PATH
exec "$progdir/.libs/lt-prog" ${1+"$@"}
EOF
chmod +x "$WORK/lt/prog"
rc=0
(cd "$WORK/lt" && "$CALLTRACE" record -o "$WORK/lt.trace" ./prog 3 10 "$WORK/go") >"$WORK/lt.out" 2>"$WORK/lt.err" || rc=$?
[ "$rc" = 13 ] || fail "the wrapper script: exit $rc: $(head -c 300 "$WORK/lt.err")"
! grep -q "cannot write trace" "$WORK/lt.err" || fail "the wrapper script: $(grep -m1 "cannot write trace" "$WORK/lt.err")"
info_of "$WORK/lt.trace" "$WORK/lt.info"
image_commands "$WORK/lt.info" | grep -q "lt-prog 3 10" || fail "the wrapper script: the program is not in the trace"
pass
