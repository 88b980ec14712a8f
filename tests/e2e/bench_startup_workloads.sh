#!/usr/bin/env bash
# bench_startup_workloads.sh - the start-up workloads of bench/startup_bench.sh
# do what its table says: the version manager's shim (bench/workloads/pyenv)
# execs the python3 of the version the project asks for, after about 70
# processes, and refuses a version that is not installed with one line;
# ninja's generated build (bench/startup_ninja.sh) runs 300 edges, 900
# programs under it, and builds every output.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd strace ar

python=$(PATH=/usr/bin:/bin command -v python3)
bash "$ROOT/bench/workloads/pyenv/setup.sh" "$WORK/pyenv" "$python"
shim() { env "PATH=$WORK/pyenv/root/shims:/usr/bin:/bin" "PYENV_DIR=$WORK/pyenv/project/src/app" "$@"; }
versions=$WORK/pyenv/root/versions

got=$(shim python3 -c 'import sys; print(sys.executable)')
[ "$got" = "$versions/3.11.7/bin/python3" ] || fail "the shim ran $got, not 3.11.7's python3"
got=$(shim PYENV_VERSION=3.12 python3 -c 'import sys; print(sys.executable)')
[ "$got" = "$versions/3.12.1/bin/python3" ] || fail "PYENV_VERSION=3.12 ran $got"
rc=0
got=$(shim PYENV_VERSION=3.9 python3 -c pass 2>&1) || rc=$?
if [ "$rc" != 1 ] || [ "$got" != "pyenv: version '3.9' is not installed" ]; then
	fail "an unknown version: exit $rc, '$got'"
fi

# Processes: forks of the run, the first process added.
strace -f -qq -e trace=clone,clone3,fork,vfork -o "$WORK/shim.st" \
	env "PATH=$WORK/pyenv/root/shims:/usr/bin:/bin" "PYENV_DIR=$WORK/pyenv/project/src/app" python3 -c pass
procs=$(($(grep -cE '= [0-9]+$' "$WORK/shim.st") + 1))
if [ "$procs" -lt 65 ] || [ "$procs" -gt 80 ]; then
	fail "the shim ran $procs processes, not 65 to 80"
fi
strace -f -qq -e trace=execve -o "$WORK/shim.exec" \
	env "PATH=$WORK/pyenv/root/shims:/usr/bin:/bin" "PYENV_DIR=$WORK/pyenv/project/src/app" python3 -c pass
last=$(grep -v ENOENT "$WORK/shim.exec" | grep -o 'execve("[^"]*"' | tail -n 1)
[ "$last" = "execve(\"$versions/3.11.7/bin/python3\"" ] || fail "the last exec was $last"

# ninja's workload, with the bench's plain build, else the machine's ninja.
ninja=$ROOT/build/bench-src/ninja/ninja-plain
[ -x "$ninja" ] || ninja=$(command -v ninja || true)
[ -n "$ninja" ] || skip "no ninja (the bench builds one; or apt-get install ninja-build)"
SRC=$WORK
# shellcheck source=bench/startup_ninja.sh
. "$ROOT/bench/startup_ninja.sh"
ninja_workload "$WORK/nw"
if [ "$(ninja_edges)" != 300 ] || [ "$(ninja_processes)" != 901 ]; then
	fail "edges $(ninja_edges), processes $(ninja_processes)"
fi
for round in 1 2; do
	strace -f -qq -e trace=execve -o "$WORK/ninja.st" "$ninja" -C "$WORK/nw" -j2 >"$WORK/ninja.out"
	execs=$(grep -v ENOENT "$WORK/ninja.st" | grep -c 'execve("')
	[ "$execs" = 901 ] || fail "round $round: ninja and its children made $execs execs, not 901"
	[ "$(grep -c 'execve("/bin/sh"' "$WORK/ninja.st")" = 300 ] || fail "round $round: not 300 sh -c"
	[ "$(find "$WORK/nw/bin" -type f | wc -l)" = 15 ] || fail "round $round: not 15 programs"
	[ "$(ar t "$WORK/nw/lib/libl7.a" | wc -l)" = 18 ] || fail "round $round: libl7.a has not 18 members"
	ninja_clean "$WORK/nw"
	[ ! -e "$WORK/nw/obj" ] || fail "ninja_clean left obj/"
done
pass
