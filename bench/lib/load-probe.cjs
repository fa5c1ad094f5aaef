/*
 * Run by bench/parts/load.ts in a fresh `node` process (no tsx, no loader hooks), once per sample:
 *   node load-probe.cjs <json>   where json = { preload: string[], from: string, files: string[] }
 * Requires the `preload` modules as resolved from the folder `from` (the copies the measured files will use: n8n's
 * own for n8n's nodes, the project's for ours), what n8n has already loaded when it loads nodes; then times `require`
 * of each of `files` and `new` of each exported class, together, and prints
 * {"ms": <elapsed>, "cpuMs": <CPU time of the process meanwhile>, "classes": <count>, "preloaded": [...]} on stdout.
 */
'use strict';
const { preload, from, files } = JSON.parse(process.argv[2]);
const preloaded = [];
for (const m of preload) {
	let resolved;
	try {
		resolved = require.resolve(m, { paths: [from] });
	} catch {
		continue; // not installed there: nothing to preload
	}
	require(resolved);
	preloaded.push(m);
}
const start = process.hrtime.bigint();
const cpu = process.cpuUsage();
let classes = 0;
for (const f of files) {
	const mod = require(f);
	for (const value of Object.values(mod)) {
		// n8n instantiates every node and credential class it loads (to read its description): so do we.
		if (typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value))) {
			new value();
			classes++;
		}
	}
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const used = process.cpuUsage(cpu);
const cpuMs = (used.user + used.system) / 1000;
process.stdout.write(JSON.stringify({ ms, cpuMs, classes, preloaded }) + '\n');
