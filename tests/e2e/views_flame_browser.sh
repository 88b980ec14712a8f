#!/usr/bin/env bash
# views_flame_browser.sh - the flame chart in a real browser: Debian's
# chromium, driven by tests/browser/flame_test.js, clicks a frame and sees it
# zoom, hovers and reads the tooltip (sequence number, start, duration,
# file:line), searches and sees the highlights, takes a screenshot.
# FLAME_SCREENSHOT=FILE keeps the screenshot.
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
[ -z "${FLAME_SCREENSHOT:-}" ] || cp "$WORK/flame.png" "$FLAME_SCREENSHOT"
pass
