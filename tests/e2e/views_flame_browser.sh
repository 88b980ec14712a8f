#!/usr/bin/env bash
# views_flame_browser.sh - the flame chart in a real browser: Debian's
# chromium, driven by tests/browser/flame_test.js, clicks a frame and sees it
# zoom, hovers and reads the tooltip (sequence number, start, duration,
# file:line), searches and sees the highlights, takes a screenshot.  Then
# the same on a program too big to draw call by call (requests: half a
# million calls in 3000 requests): a search for a function whose calls are
# all inside merged frames counts every one of them, and zooming into a
# merged frame draws the calls inside it.
# FLAME_SCREENSHOT=FILE keeps the screenshots (FILE, FILE-big, FILE-big-zoom).
source "$(dirname "$0")/lib.sh"
setup
command -v node >/dev/null 2>&1 || skip "node is not installed"
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || skip "chromium is not installed"
browser=$ROOT/tests/browser
if [ ! -d "$browser/node_modules/playwright-core" ]; then
	(cd "$browser" && npm install --no-audit --no-fund --silent) >"$WORK/npm.log" 2>&1 ||
		fail "npm install in tests/browser failed: $(tail -n 1 "$WORK/npm.log")"
fi

build_c workload "$browser/workload.c"
record workload "$WORK/workload"
ct flame -o "$WORK/flame.svg" "$WORK/workload.trace"
CHROMIUM=$chromium node "$browser/flame_test.js" "$WORK/flame.svg" "$WORK/flame.png" \
	process_item '^(validate|compress)$' >"$WORK/browser.out" 2>&1 ||
	fail "$(grep -m1 '^not ok' "$WORK/browser.out" || tail -n 1 "$WORK/browser.out")"

build_c requests "$PROGRAMS"/views/{requests,parse,handle,store}.c
record requests "$WORK/requests"
ct flame -o "$WORK/requests.svg" "$WORK/requests.trace"
ct flame --folded "$WORK/requests.trace" >"$WORK/requests.folded"
hidden=$(awk '$1 ~ /;classify$/ { n += $2 } END { print n }' "$WORK/requests.folded")
[ "$hidden" -gt 10000 ] || fail "requests made $hidden calls of classify"
CHROMIUM=$chromium node "$browser/flame_test.js" "$WORK/requests.svg" "$WORK/requests.png" \
	open_store '^handle_request$' classify "$hidden" >"$WORK/browser.out" 2>&1 ||
	fail "requests: $(grep -m1 '^not ok' "$WORK/browser.out" || tail -n 1 "$WORK/browser.out")"
if [ -n "${FLAME_SCREENSHOT:-}" ]; then
	cp "$WORK/flame.png" "$FLAME_SCREENSHOT"
	cp "$WORK/requests.png" "${FLAME_SCREENSHOT%.png}-big.png"
	cp "$WORK/requests-zoom.png" "${FLAME_SCREENSHOT%.png}-big-zoom.png"
fi
pass
