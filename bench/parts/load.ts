/**
 * Part 4: package load and packed size.
 *
 * n8n requires every community node and credential file at start-up. We build the package (`npm run build`),
 * then, in fresh `node` processes (Node 24, no tsx), time `require` + `new` of the files listed in package.json's
 * `n8n.nodes` and `n8n.credentials` (three nodes and a credential) against n8n's own Airtable v2 node
 * (n8n-nodes-base of the installed n8n, `nodes/Airtable/v2/AirtableV2.node.js`) loaded the same way. Before the
 * timer starts each process loads what n8n itself has loaded by then (n8n-workflow, lodash, luxon, zod), resolved
 * from the measured files' own folder (n8n's copies for n8n's node), so each figure is what the files add. The two
 * take turns in each round; the figures are the probe process's CPU time (user + system) during the load, which
 * other processes on a shared machine stretch far less than wall time (kept in the details), and the ratio is the
 * median of the rounds' ratios.
 *
 * Packed size: `npm pack --dry-run --json` (the tarball n8n would download).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_N8N_VERSION, n8nCacheDir, n8nPaths } from '../../scripts/paths';
import { median, ROOT, round, type PartContext, type Row } from '../lib/common';
import { build, npm } from '../lib/build';
import { pairedRatioSpread, runRounds } from '../lib/rounds';

const PRELOAD = ['n8n-workflow', 'lodash', 'luxon', 'zod', 'zod/v4'];
const PROBE = path.join(ROOT, 'bench', 'lib', 'load-probe.cjs');
const AIRTABLE_V2 = path.join('dist', 'nodes', 'Airtable', 'v2', 'AirtableV2.node.js');
const TARGET = 2;

interface Probe {
	ms: number;
	cpuMs: number;
	classes: number;
	preloaded: string[];
}

interface Contestant {
	from: string;
	files: string[];
}

function probe({ from, files }: Contestant): Probe {
	const r = spawnSync(
		process.execPath,
		[PROBE, JSON.stringify({ preload: PRELOAD, from, files })],
		{
			cwd: ROOT,
			encoding: 'utf8',
			env: { ...process.env, NODE_OPTIONS: '' },
		},
	);
	if (r.status !== 0)
		throw new Error(`load probe failed (exit ${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
	return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** n8n-nodes-base of an installed n8n: the project's node_modules, .dev/, or the machine's cache of installs. */
function nodesBase(): { dir: string; version: string } | undefined {
	const candidates = [
		path.join(ROOT, 'node_modules', 'n8n-nodes-base'),
		path.join(n8nPaths(DEFAULT_N8N_VERSION).installDir, 'node_modules', 'n8n-nodes-base'),
		path.join(n8nCacheDir(DEFAULT_N8N_VERSION), 'node_modules', 'n8n-nodes-base'),
	];
	const dir = candidates.find((d) => fs.existsSync(path.join(d, AIRTABLE_V2)));
	if (!dir) return undefined;
	return {
		dir,
		version: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version,
	};
}

export async function runLoadPart(ctx: PartContext): Promise<Row[]> {
	const files = build(ctx);
	const base = nodesBase();
	const contestants: Record<string, Contestant> = {
		ours: { from: ROOT, files },
		...(base ? { airtable: { from: base.dir, files: [path.join(base.dir, AIRTABLE_V2)] } } : {}),
	};
	for (const c of Object.values(contestants)) probe(c); // warm the OS file cache
	const s = await runRounds({
		contestants: Object.keys(contestants),
		rounds: ctx.smoke ? 3 : 11,
		gc: false, // each probe is a process of its own that times itself
		run: async (which) => probe(contestants[which]),
	});
	const classes = s.results.ours[0].classes;
	if (classes !== files.length)
		throw new Error(`expected ${files.length} classes in the built files, found ${classes}`);
	return [airtableRow(ctx, s.results, base), packedSizeRow(ctx)];
}

function airtableRow(
	ctx: PartContext,
	results: Record<string, Probe[]>,
	base: ReturnType<typeof nodesBase>,
): Row {
	const name =
		"Package load, CPU time: require + new of our three nodes and credential / of n8n's Airtable v2 node, each in a fresh process after what n8n has loaded";
	const ours = results.ours.map((p) => p.cpuMs);
	if (!base)
		return {
			part: 4,
			name,
			value: round(median(ours), 1),
			unit: 'ms',
			target: `<= ${TARGET}`,
			note: `no n8n-nodes-base with ${AIRTABLE_V2} installed (npx tsx scripts/install.ts ${DEFAULT_N8N_VERSION})`,
		};
	const airtable = results.airtable.map((p) => p.cpuMs);
	const { ratio, spread } = pairedRatioSpread(ours, airtable);
	ctx.log(
		`part 4: require + new: ours ${median(ours).toFixed(1)} ms, Airtable v2 ${median(airtable).toFixed(1)} ms (n8n-nodes-base ${base.version}), ratio ${ratio.toFixed(2)}`,
	);
	return {
		part: 4,
		name,
		value: round(median(ours), 1),
		baseline: round(median(airtable), 1),
		unit: 'ms',
		ratio: round(ratio, 3),
		spread,
		target: `<= ${TARGET}`,
		met: ratio <= TARGET,
		details: {
			nodesBase: `${base.dir} (${base.version})`,
			preloaded: { ours: results.ours[0].preloaded, airtable: results.airtable[0].preloaded },
			files: results.ours.length,
			oursCpuMs: ours.map((v) => round(v, 2)),
			airtableCpuMs: airtable.map((v) => round(v, 2)),
			oursWallMs: results.ours.map((p) => round(p.ms, 2)),
			airtableWallMs: results.airtable.map((p) => round(p.ms, 2)),
		},
	};
}

function packedSizeRow(ctx: PartContext): Row {
	const out = npm(['pack', '--dry-run', '--json', '--ignore-scripts']);
	const info = JSON.parse(out.slice(out.indexOf('[')))[0] as {
		size: number;
		unpackedSize: number;
		entryCount: number;
		files: Array<{ path: string; size: number }>;
	};
	const biggest = [...info.files]
		.sort((a, b) => b.size - a.size)
		.slice(0, 5)
		.map((f) => `${f.path} ${f.size}`);
	ctx.log(`part 4: packed ${info.size} bytes, ${info.entryCount} files`);
	return {
		part: 4,
		name: 'Packed size (npm pack --dry-run)',
		value: round(info.size / 1000, 1),
		unit: 'kB',
		target: '< 150 kB',
		met: info.size < 150_000,
		details: {
			bytes: info.size,
			unpackedBytes: info.unpackedSize,
			files: info.entryCount,
			biggest,
		},
	};
}
