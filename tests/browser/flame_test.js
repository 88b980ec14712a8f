// flame_test.js - opens a flame chart SVG written by `calltrace flame` in
// Debian's chromium (headless, through playwright-core) and uses it as a
// person would: clicks a frame and checks that it zoomed, hovers and checks
// the tooltip, searches and checks the highlights and the count of matching
// calls, takes a screenshot.  With HIDDEN_FUNCTION and its number of calls,
// on a chart of a big program: searches it and checks that every call is
// counted, those inside merged frames too; clicks a merged frame and checks
// that the calls inside it are drawn at the new scale.
//
//   node flame_test.js FLAME.SVG SCREENSHOT.PNG CLICK_FUNCTION SEARCH_REGEX \
//       [HIDDEN_FUNCTION CALLS]
//
// Exits 0 when every check passed, 1 with the reason on the last line.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [svgPath, pngPath, clickName, searchRegex, hiddenName, hiddenCalls] = process.argv.slice(2);
if (!svgPath || !pngPath || !clickName || !searchRegex) {
	console.error('usage: node flame_test.js FLAME.SVG SCREENSHOT.PNG CLICK_FUNCTION SEARCH_REGEX');
	process.exit(2);
}

function check(ok, what) {
	if (!ok)
		throw new Error(what);
	console.log('ok - ' + what);
}

// Geometry and text of the frames written in the file, as the page shows
// them now: name (the function of a frame), n (the calls it stands for),
// counts (of a block: [function, calls] of the calls inside it).
function frames(page) {
	return page.evaluate(() => {
		const meta = document.getElementById('fnames');
		const names = meta ? JSON.parse(meta.textContent) : [];
		return Array.from(document.querySelectorAll('#chart g.band > g:not(.det)')).map((g) => {
			const r = g.querySelector('rect');
			const t = g.querySelector('title');
			const f = g.getAttribute('data-f'), c = g.getAttribute('data-c');
			return {
				merged: g.classList.contains('m') || g.classList.contains('a'),
				hit: g.classList.contains('hit'),
				hidden: g.getAttribute('display') === 'none',
				x: parseFloat(r.getAttribute('x')),
				w: parseFloat(r.getAttribute('width')),
				name: f !== null ? names[+f] : c ? '' : t ? t.textContent.split('\n')[0] : null,
				n: +(g.getAttribute('data-n') || 1),
				counts: c ? c.split(',').map((p) => [names[+p.split(':')[0]], +p.split(':')[1]]) : null,
				piece: g.getAttribute('data-p'),
			};
		});
	});
}

// The calls of f matching re.
function callsMatching(f, re) {
	if (f.counts)
		return f.counts.reduce((n, c) => n + (re.test(c[0]) ? c[1] : 0), 0);
	return re.test(f.name) ? f.n : 0;
}

async function search(page, regex) {
	await page.mouse.move(5, 5);
	await page.fill('#search', regex);
	await page.press('#search', 'Enter');
	return page.locator('#matched').textContent();
}

// On a big program: the full count of a function hidden in merged frames,
// and a zoom into a merged frame that draws the calls inside it.
async function checkMerged(page, chartWidth) {
	const re = new RegExp('^' + hiddenName + '$');
	const matched = await search(page, '^' + hiddenName + '$');
	check(matched.startsWith(hiddenCalls + ' matching call'),
		`search counts all ${hiddenCalls} calls of ${hiddenName} (${matched})`);
	const all = await frames(page);
	const alone = all.filter((f) => !f.merged && re.test(f.name)).length;
	check(alone < +hiddenCalls && /of them inside merged frames/.test(matched),
		`the count says how many are inside merged frames (${alone} drawn alone)`);
	check(all.every((f) => f.name !== '' || f.counts.length > 0), 'no frame names no function');

	// A merged frame whose calls travel in the file: click it.
	const pieces = await page.evaluate(() =>
		Array.from(document.querySelectorAll('#chart g.det')).map((g) => g.getAttribute('data-p')));
	const index = all.findIndex((f) => f.merged && f.piece && pieces.includes(f.piece) && f.w > 2 && f.n > 20);
	check(index >= 0, 'a merged frame with its calls in the file is drawn');
	const target = all[index];
	const frame = page.locator('#chart g.band > g:not(.det)').nth(index);
	await frame.locator('rect').click({ position: { x: Math.min(2, target.w / 2), y: 7 } });
	const inside = await page.evaluate((p) => Array.from(
		document.querySelectorAll(`#chart g.det[data-p="${p}"] > g`)).map((g) => ({
		w: parseFloat(g.querySelector('rect').getAttribute('width')),
		merged: g.classList.contains('a') || g.classList.contains('m'),
		hidden: g.getAttribute('display') === 'none',
	})), target.piece);
	const shown = inside.filter((f) => !f.hidden);
	check(shown.length > 1, `zooming into ${target.name || 'a block'} \u00d7${target.n} draws the calls inside it (${shown.length} frames)`);
	const single = shown.filter((f) => !f.merged).length;
	check(single > 0 && shown.some((f) => f.w >= 1),
		`some calls are drawn alone at the new scale (${single}), at least a pixel wide`);
	const own = await frames(page);
	check(own.filter((f) => f.piece === target.piece).every((f) => f.hidden),
		'the merged frames of the piece give way to its calls');
	await page.screenshot({ path: pngPath.replace(/\.png$/, '') + '-zoom.png' });
	await page.locator('#reset').click();
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
		const matched = await search(page, searchRegex);
		const searched = await frames(page);
		const re = new RegExp(searchRegex);
		const expected = searched.filter((f) => callsMatching(f, re) > 0).length;
		const calls = searched.reduce((n, f) => n + callsMatching(f, re), 0);
		const hits = searched.filter((f) => f.hit).length;
		check(expected > 0 && hits === expected, `search /${searchRegex}/ highlights the ${expected} matching frames (${hits})`);
		const fills = await page.evaluate(() => {
			const hit = document.querySelector('#chart g.hit > rect');
			const other = document.querySelector('#chart g.band > g:not(.hit):not(.m):not(.det) > rect');
			return [getComputedStyle(hit).fill, other && getComputedStyle(other).fill];
		});
		check(fills[0] !== fills[1], `highlighted frames have their own colour (${fills[0]})`);
		check(matched.startsWith(calls + ' matching call'), `the count of matching calls shows (${matched})`);
		if (hiddenName)
			await checkMerged(page, chartWidth);

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
