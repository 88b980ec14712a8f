#!/usr/bin/env bash
# install.sh - installs a built calltrace (make install runs it):
#   PREFIX/bin/calltrace
#   PREFIX/lib/libcalltrace.so, libcalltrace-dwarf.so (loaded for --args), libcalltrace.a
#   PREFIX/include/calltrace.h
#   PREFIX/lib/pkgconfig/calltrace.pc
#   PREFIX/lib/cmake/calltrace/calltraceConfig.cmake, calltraceConfigVersion.cmake
#   PREFIX/share/man/man1/calltrace.1, calltrace-COMMAND.1
#   PREFIX/share/bash-completion/completions/calltrace
# Environment: PREFIX (default /usr/local), DESTDIR (a staging root put in
# front of every path; the files still name PREFIX), BUILD (default build).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
case $PREFIX in
/*) ;;
*)
	echo "install: PREFIX must be an absolute path, not '$PREFIX'" >&2
	exit 2
	;;
esac
PREFIX=${PREFIX%/}
VERSION=$(sed -n 's/^#define CALLTRACE_VERSION "\(.*\)"$/\1/p' "$ROOT/src/cli/main.c")
[ -n "$VERSION" ] || { echo "install: no CALLTRACE_VERSION in src/cli/main.c" >&2; exit 1; }
for f in bin/calltrace lib/libcalltrace.so lib/libcalltrace-dwarf.so lib/libcalltrace.a; do
	[ -f "$BUILD/$f" ] || { echo "install: $BUILD/$f is missing: run make first" >&2; exit 1; }
done

dest=$DESTDIR$PREFIX
put() { # MODE SOURCE TARGET-UNDER-PREFIX
	install -D -m "$1" "$2" "$dest/$3"
}
from_template() { # TEMPLATE TARGET-UNDER-PREFIX
	mkdir -p "$(dirname "$dest/$2")"
	sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" "$1" >"$dest/$2"
	chmod 644 "$dest/$2"
}

put 755 "$BUILD/bin/calltrace" bin/calltrace
put 755 "$BUILD/lib/libcalltrace.so" lib/libcalltrace.so
put 755 "$BUILD/lib/libcalltrace-dwarf.so" lib/libcalltrace-dwarf.so
put 644 "$BUILD/lib/libcalltrace.a" lib/libcalltrace.a
put 644 "$ROOT/include/calltrace.h" include/calltrace.h
from_template "$ROOT/packaging/calltrace.pc.in" lib/pkgconfig/calltrace.pc
put 644 "$ROOT/packaging/calltraceConfig.cmake" lib/cmake/calltrace/calltraceConfig.cmake
from_template "$ROOT/packaging/calltraceConfigVersion.cmake.in" \
	lib/cmake/calltrace/calltraceConfigVersion.cmake
for page in "$ROOT"/docs/man/*.1; do
	put 644 "$page" "share/man/man1/$(basename "$page")"
done
put 644 "$ROOT/packaging/calltrace.bash-completion" share/bash-completion/completions/calltrace
echo "installed calltrace $VERSION into $dest"
