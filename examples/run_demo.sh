#!/usr/bin/env bash
# run_demo.sh - builds the bundled example (an order-processing app made of an
# executable, a static library, a shared library, a dlopen'd plugin, a forked
# child and two threads) with -finstrument-functions, records it with
# calltrace, prints the replay and the report, and writes the JSON and every
# view this calltrace has into build/demo/.
#
# Run from anywhere after `make`; CALLTRACE overrides the calltrace binary.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$ROOT/examples
OUT=$ROOT/build/demo
CALLTRACE=${CALLTRACE:-$ROOT/build/bin/calltrace}
TRACE=$OUT/example.trace
CFLAGS=(-std=gnu11 -g -O0 -finstrument-functions -Wall -Wextra)
written=()
failed=0

if [ ! -x "$CALLTRACE" ]; then
	echo "run_demo: no calltrace at $CALLTRACE: run make first" >&2
	exit 1
fi

build_example() {
	mkdir -p "$OUT"
	gcc "${CFLAGS[@]}" -c "$SRC/inventory.c" -o "$OUT/inventory.o"
	ar rcs "$OUT/libinventory.a" "$OUT/inventory.o"
	gcc "${CFLAGS[@]}" -fPIC -shared "$SRC/pricing.c" -o "$OUT/libpricing.so"
	gcc "${CFLAGS[@]}" -fPIC -shared "$SRC/shipping_plugin.c" -o "$OUT/libshipping.so"
	gcc "${CFLAGS[@]}" "$SRC/order_app.c" -o "$OUT/order_app" -L"$OUT" -linventory \
		-lpricing -Wl,-rpath,'$ORIGIN' -ldl -pthread
}

# has_view CMD [WORD]: calltrace has the command, and its usage mentions WORD.
has_view() {
	local help
	help=$("$CALLTRACE" "$1" --help 2>/dev/null) || return 1
	[ $# -lt 2 ] || grep -qw -- "$2" <<<"$help"
}

# view FILE CMD [OPTION...]: writes $OUT/FILE with `calltrace CMD OPTION... -o`.
view() {
	local file=$1 cmd=$2
	shift 2
	if "$CALLTRACE" "$cmd" "$@" -o "$OUT/$file" "$TRACE"; then
		written+=("$OUT/$file")
	else
		echo "run_demo: calltrace $cmd $* failed" >&2
		failed=1
	fi
}

# format_view FILE CMD FORMAT: the view in that format, if calltrace has it.
format_view() {
	if has_view "$2" "$3"; then
		view "$1" "$2" --format "$3"
	fi
}

build_example
rm -f "$TRACE"
"$CALLTRACE" record -o "$TRACE" "$OUT/order_app" "$OUT/libshipping.so"
written+=("$TRACE")

echo
echo "== calltrace replay"
"$CALLTRACE" replay "$TRACE"
echo
echo "== calltrace report"
"$CALLTRACE" report "$TRACE"

view example.json json
if has_view flame; then
	view example.svg flame
fi
if has_view flame folded; then
	view example.folded flame --folded
fi
format_view example.mmd seq mermaid
format_view example.diag seq seqdiag
format_view example.puml seq plantuml
format_view example.diagrams.txt seq diagrams
format_view example.seq.svg seq svg
format_view example.dot graph dot
format_view example.graph.svg graph svg
if has_view chrome; then
	view example.chrome.json chrome
fi
if has_view speedscope; then
	view example.speedscope.json speedscope
fi

echo
echo "== files written"
printf '%s\n' "${written[@]}"
exit "$failed"
