#!/usr/bin/env bash
# setup.sh DIR PYTHON: a version manager in the manner of pyenv under
# DIR/root (these scripts, three installed versions whose python3 is PYTHON,
# the shim `pyenv rehash` would write) and a project, DIR/project, whose
# .python-version asks for "3.11" then "3.12" (`pyenv local 3.11 3.12`).  Run the shim as
#   PATH=DIR/root/shims:/usr/bin:/bin PYENV_DIR=DIR/project/src/app python3 ARGS
# (PYENV_DIR: the directory the version file is looked for from).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=$1 python=$2
root=$dir/root
rm -rf "$root" "$dir/project"
mkdir -p "$root/shims" "$dir/project/src/app"
cp -R "$here/libexec" "$here/hooks" "$here/plugins" "$here/version" "$root/"
for v in 3.10.13 3.11.7 3.12.1; do
	mkdir -p "$root/versions/$v/bin"
	ln -s "$python" "$root/versions/$v/bin/python3"
done
sed "s|@ROOT@|$root|g" "$here/shim.in" >"$root/shims/python3"
chmod +x "$root/shims/python3"
printf '3.11\n3.12\n' >"$dir/project/.python-version"
