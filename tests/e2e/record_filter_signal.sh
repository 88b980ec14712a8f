#!/usr/bin/env bash
# record_filter_signal.sh - record-time -F never matches names inside a
# signal handler that interrupted malloc: matching allocates (the regex
# matcher, the C++ demangler), and the thread would wait forever on
# malloc's lock.  The program's own malloc holds its lock while SIGUSR1
# comes; the handler makes the first call into a C++ library loaded with
# dlopen; a malloc in the handler makes the program exit 3 ("malloc entered
# again") where a real malloc would hang.  The handler's call is decided
# without reading the library (not recorded); main's own call of the same
# function, after it, is.  With a plain C++ short name and with a regex,
# under the hooks and the in-process engine.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/sigmatch
build_cxx libworker.so "$src/worker.cpp" -fPIC -shared
build_cxx sigmatch "$src/main.cpp" -ldl
need_cmd g++
g++ -g -O0 -fPIC -shared -o "$WORK/libworker_plain.so" "$src/worker.cpp" &&
	g++ -g -O0 -o "$WORK/sigmatch_plain" "$src/main.cpp" -ldl || fail "cannot build the plain sigmatch"

for pattern in 'Worker::run' 'Worker::run$'; do
	record hooks -F "$pattern" "$WORK/sigmatch" "$WORK/libworker.so"
	[ "$RC" = 0 ] || fail "hooks -F '$pattern': exit $RC: $(head -c 300 "$WORK/hooks.err")"
	grep -qx 'sigmatch 6 8' "$WORK/hooks.out" || fail "hooks -F '$pattern': printed $(cat "$WORK/hooks.out")"
	to_json hooks
	expect_trees hooks <<'TREES'
== process 1 main
sigsafe::Worker::run
  sigsafe::Worker::step
TREES
	record patch --engine patch --module libworker -F "$pattern" "$WORK/sigmatch_plain" "$WORK/libworker_plain.so"
	[ "$RC" = 0 ] || fail "patch -F '$pattern': exit $RC: $(head -c 300 "$WORK/patch.err")"
	grep -qx 'sigmatch 6 8' "$WORK/patch.out" || fail "patch -F '$pattern': printed $(cat "$WORK/patch.out")"
done
pass
