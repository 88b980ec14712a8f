#!/usr/bin/env bash
# core_launch_script.sh - `record --program GLOB` names a script by its own
# name or path, as it was started: the kernel runs its interpreter
# (/proc/self/exe and argv[0] are /bin/sh's), and the script's path is
# the one execve was given.  Its children, which the pattern does not
# name, run unrecorded.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd sh

same_trees_build fib "$PROGRAMS/launch/fib.c"
cat >"$WORK/run_fib.sh" <<SCRIPT
#!/bin/sh
"$WORK/fib.plain"
exit 0
SCRIPT
chmod +x "$WORK/run_fib.sh"

# commands NAME: the commands of the process images in $WORK/NAME.trace.
commands() {
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	awk '/^    command:/ { $1 = ""; print substr($0, 2) }' "$WORK/$1.info"
}

# check NAME WHAT: the script's shell is recorded, fib is not.
check() {
	commands "$1" >"$WORK/$1.commands"
	[ -s "$WORK/$1.commands" ] || fail "$2: no process recorded"
	grep -v 'run_fib\.sh$' "$WORK/$1.commands" >"$WORK/$1.others" &&
		fail "$2: other programs recorded: $(head -n 3 "$WORK/$1.others")"
	grep -qx 'fib(10) = 55' "$WORK/$1.out" || fail "$2: fib printed $(cat "$WORK/$1.out")"
	ct report "$WORK/$1.trace" >"$WORK/$1.report"
	if awk 'NR > 2 && $NF == "fib"' "$WORK/$1.report" | grep -q .; then
		fail "$2: fib's calls are recorded"
	fi
}

# By its file name, started by its path.
record by_name --program 'run_fib.sh' "$WORK/run_fib.sh"
check by_name "--program run_fib.sh"
# By a path glob, started by a relative path: the path is from the root.
cd "$WORK"
record by_path --program "$WORK/*.sh" ./run_fib.sh
check by_path "--program $WORK/*.sh, started as ./run_fib.sh"
# Through a shell that is not recorded.
record through_sh --program 'run_*' sh -c './run_fib.sh'
check through_sh "--program run_* under sh -c"
pass
