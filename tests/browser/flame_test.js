// flame_test.js - opens a flame chart SVG written by `calltrace flame` in
// Debian's chromium (headless, through playwright-core) and uses it as a
// person would: clicks a frame and checks that it zoomed, hovers and checks
// the tooltip, searches and checks the highlights, takes a screenshot.
//
//   node flame_test.js FLAME.SVG SCREENSHOT.PNG CLICK_FUNCTION SEARCH_REGEX
//
// Exits 0 when every check passed, 1 with the reason on the last line.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [svgPath, pngPath, clickName, searchRegex] = process.argv.slice(2);
if (!svgPath || !pngPath || !clickName || !searchRegex) {
	console.error('usage: node flame_test.js FLAME.SVG SCREENSHOT.PNG CLICK_FUNCTION SEARCH_REGEX');
	process.exit(2);
}

function check(ok, what) {
	if (!ok)
		throw new Error(what);
	console.log('ok - ' + what);
}

// Geometry and text of the frames, as the page shows them now.
function frames(page) {
	return page.evaluate(() => Array.from(document.querySelectorAll('#chart g.band > g')).map((g) => {
		const r = g.querySelector('rect');
		const t = g.querySelector('title');
		return {
			merged: g.classList.contains('m'),
			hit: g.classList.contains('hit'),
			hidden: g.getAttribute('display') === 'none',
			x: parseFloat(r.getAttribute('x')),
			w: parseFloat(r.getAttribute('width')),
			name: t ? t.textContent.split('\n')[0] : null,
		};
	}));
}

async function main() {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'calltrace-chromium-'));
	// A fresh profile directory: playwright passes it as --user-data-dir.
	const browser = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
		viewport: { width: 1240, height: 900 },
	});
	try {
		const page = await browser.newPage();
		page.setDefaultTimeout(10000);
		const errors = [];
		page.on('pageerror', (e) => errors.push(e.message));
		page.on('request', (r) => {
			if (!r.url().startsWith('file:') && !r.url().startsWith('data:'))
				errors.push('network request to ' + r.url());
		});
		await page.goto('file://' + path.resolve(svgPath));
		const chartWidth = await page.evaluate(() =>
			parseFloat(document.getElementById('chart').getAttribute('width')));
		const before = await frames(page);
		check(before.length > 0, `the chart has frames (${before.length})`);
		check(errors.length === 0, 'the script runs without errors: ' + errors.join('; '));

		// Zoom: click the first frame of CLICK_FUNCTION.
		const index = before.findIndex((f) => f.name === clickName);
		check(index >= 0, `a frame of ${clickName} is drawn`);
		const target = before[index];
		check(target.w < chartWidth * 0.9, `${clickName} is narrower than the chart before zooming (${target.w.toFixed(1)} px)`);
		const frame = page.locator('#chart g.band > g').nth(index);
		await frame.locator('rect').click({ position: { x: Math.min(3, target.w / 2), y: 7 } });
		const after = await frames(page);
		check(Math.abs(after[index].x) < 0.5 && Math.abs(after[index].w - chartWidth) < 1,
			`after the click ${clickName} spans the chart (x ${after[index].x.toFixed(2)}, width ${after[index].w.toFixed(1)} of ${chartWidth})`);
		const moved = after.filter((f, i) => i !== index && !f.hidden && (f.x !== before[i].x || f.w !== before[i].w)).length;
		const hidden = after.filter((f, i) => f.hidden && !before[i].hidden).length;
		check(moved + hidden > 0, `other frames moved (${moved}) or left the view (${hidden})`);
		check(await page.locator('#reset').getAttribute('visibility') === 'visible', 'the reset control shows');

		// Tooltip: hover the zoomed frame.
		await frame.locator('rect').hover({ position: { x: chartWidth / 2, y: 7 } });
		const tip = await page.evaluate(() => ({
			visible: document.getElementById('tip').getAttribute('visibility'),
			text: Array.from(document.querySelectorAll('#tip tspan')).map((t) => t.textContent),
		}));
		const tipText = tip.text.join('\n');
		check(tip.visible === 'visible', 'the tooltip shows on hover');
		check(tip.text[0] === clickName, `the tooltip names the function (${tip.text[0]})`);
		check(/call #\d+/.test(tipText), 'the tooltip shows the call sequence number');
		check(/start \d+(\.\d+)? (ns|us|ms|s)/.test(tipText), 'the tooltip shows the start timestamp');
		check(/duration \d+(\.\d+)? (ns|us|ms|s)/.test(tipText), 'the tooltip shows the duration');
		check(/[\w.-]+\.c:\d+/.test(tipText), 'the tooltip shows file:line');

		// Reset, then search.
		await page.locator('#reset').click();
		const reset = await frames(page);
		check(Math.abs(reset[index].w - before[index].w) < 0.01, 'reset zoom restores the widths');
		await page.mouse.move(5, 5);
		await page.fill('#search', searchRegex);
		await page.press('#search', 'Enter');
		const searched = await frames(page);
		const re = new RegExp(searchRegex);
		const expected = searched.filter((f) => !f.merged && re.test(f.name)).length;
		const hits = searched.filter((f) => f.hit).length;
		check(expected > 0 && hits === expected, `search /${searchRegex}/ highlights the ${expected} matching frames (${hits})`);
		const fills = await page.evaluate(() => {
			const hit = document.querySelector('#chart g.hit > rect');
			const other = document.querySelector('#chart g.band > g:not(.hit):not(.m) > rect');
			return [getComputedStyle(hit).fill, other && getComputedStyle(other).fill];
		});
		check(fills[0] !== fills[1], `highlighted frames have their own colour (${fills[0]})`);
		const matched = await page.locator('#matched').textContent();
		check(matched.startsWith(String(expected)), `the match count shows (${matched})`);

		// A picture of the searched chart with a tooltip showing.
		// fullPage does not work on an SVG document: size the window to it.
		const size = await page.evaluate(() => [document.documentElement.width.baseVal.value,
			document.documentElement.height.baseVal.value]);
		await page.setViewportSize({ width: Math.ceil(size[0]), height: Math.min(4000, Math.ceil(size[1])) });
		await frame.locator('rect').hover({ position: { x: Math.min(2, target.w / 2), y: 7 }, force: true });
		await page.screenshot({ path: pngPath });
		check(fs.statSync(pngPath).size > 10000, 'the screenshot was taken');
		check(errors.length === 0, 'no script errors and no network: ' + errors.join('; '));
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

main().then(() => process.exit(0), (e) => {
	console.log('not ok - ' + e.message);
	process.exit(1);
});
