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

packages=(gcc g++ make libc6-dev binutils libdw-dev libelf-dev libcapstone-dev)
if [ $demo_only = 0 ]; then
	packages+=(python3 procps uftrace ltrace graphviz python3-seqdiag plantuml
		   default-jre-headless chromium clang libclang-rt-14-dev e2fsprogs
		   cmake pkg-config groff-base man-db protobuf-compiler
		   dpkg-dev tcl strace) # dpkg-dev: apt-get source (bench/real_bench.sh); tcl:
		   # SQLite's amalgamation (bench/world_sqlite.sh); strace: the tests that count system calls
	# Node.js may come from elsewhere (with its own npm): only ask for it if missing.
	command -v node >/dev/null 2>&1 || packages+=(nodejs)
	command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser test drives Debian's chromium with playwright-core from npm.
if [ $demo_only = 0 ] && [ -f tests/browser/package.json ] && [ ! -d tests/browser/node_modules/playwright-core ]; then
	echo "install-deps: npm install in tests/browser"
	(cd tests/browser && npm install --no-audit --no-fund --silent)
fi
