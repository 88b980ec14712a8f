#!/usr/bin/env bash
# Installs what calltrace needs on Debian: by default everything to build,
# test and benchmark it; with --demo only what building it and `make demo`
# need (no browser, no test or benchmark tools).
# Runs apt-get as root, through sudo otherwise; does nothing when all is there.
set -euo pipefail

demo_only=0
case "${1:-}" in
"") ;;
--demo) demo_only=1 ;;
*)
	echo "install-deps: unknown argument '$1' (use --demo, or nothing)" >&2
	exit 2
	;;
esac

# clang, bpftool and libbpf-dev: the BPF program that copies system call
# arguments (record --syscalls); a build without them shows them as pointers.
packages=(gcc g++ make libc6-dev binutils libdw-dev libelf-dev libcapstone-dev
	  clang bpftool libbpf-dev)
if [ $demo_only = 0 ]; then
	packages+=(python3 procps uftrace ltrace graphviz python3-seqdiag plantuml
		   default-jre-headless chromium clang libclang-rt-14-dev e2fsprogs
		   cmake pkg-config groff-base man-db protobuf-compiler
		   dpkg-dev tcl strace) # dpkg-dev: apt-get source (bench/debian_src.sh: Lua, SQLite, ninja); tcl:
		   # SQLite's amalgamation (bench/world_sqlite.sh); strace: the tests that count system calls
	# Node.js may come from elsewhere (with its own npm): only ask for it if missing.
	command -v node >/dev/null 2>&1 || packages+=(nodejs)
	command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# The aarch64 build and its tests (make ARCH=aarch64, tests/e2e/arm64_*.sh)
# on another machine: Debian's cross compiler, the libraries the build
# links from Debian's arm64 packages (multiarch), and qemu-user run through
# binfmt_misc, so that an aarch64 program runs as any program does.
cross_arm64=0
if [ $demo_only = 0 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
	cross_arm64=1
	packages+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static binfmt-support
		   libc6-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 libcapstone-dev:arm64
		   libstdc++-12-dev:arm64)
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if [ $cross_arm64 = 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$sudo dpkg --add-architecture arm64
	fi
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# binfmt_misc may not be mounted in a container; the qemu entry may be off.
if [ $cross_arm64 = 1 ] && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		$sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
	$sudo update-binfmts --enable qemu-aarch64 2>/dev/null ||
		echo "install-deps: cannot enable qemu-aarch64 in binfmt_misc: the aarch64 tests will skip" >&2
fi

# The browser test drives Debian's chromium with playwright-core from npm.
if [ $demo_only = 0 ] && [ -f tests/browser/package.json ] && [ ! -d tests/browser/node_modules/playwright-core ]; then
	echo "install-deps: npm install in tests/browser"
	(cd tests/browser && npm install --no-audit --no-fund --silent)
fi
