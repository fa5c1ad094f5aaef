/**
 * Part 4: package load and packed size.
 *
 * n8n requires every community node and credential file at start-up. We build the package (`npm run build`),
 * then, in fresh `node` processes (Node 24, no tsx), time `require` + `new` of the files listed in package.json's
 * `n8n.nodes` and `n8n.credentials`, against `require` of an empty module in the same kind of process. Before the
 * timer starts each process loads what n8n itself has loaded by then (n8n-workflow, lodash, luxon, zod, zod/v4),
 * so the figure is what our package adds. Samples alternate between the two and the median is taken.
 * A cold figure (nothing preloaded) is reported in the details for context.
 *
 * Packed size: `npm pack --dry-run --json` (the tarball n8n would download).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, ROOT, round, type PartContext, type Row } from '../lib/common';
import { build, npm } from '../lib/build';
import { runRounds } from '../lib/rounds';

const PRELOAD = ['n8n-workflow', 'lodash', 'luxon', 'zod', 'zod/v4'];
const PROBE = path.join(ROOT, 'bench', 'lib', 'load-probe.cjs');
function probe(preload: string[], files: string[]): { ms: number; classes: number } {
	const r = spawnSync(process.execPath, [PROBE, JSON.stringify({ preload, files })], {
		cwd: ROOT,
		encoding: 'utf8',
		env: { ...process.env, NODE_OPTIONS: '' },
	});
	if (r.status !== 0)
		throw new Error(`load probe failed (exit ${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
	return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

export async function runLoadPart(ctx: PartContext): Promise<Row[]> {
	const samples = ctx.smoke ? 3 : 15;
	const files = build(ctx);
	const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-empty-'));
	const empty = path.join(emptyDir, 'empty.js');
	fs.writeFileSync(empty, 'module.exports = {};\n');
	const preload = PRELOAD.filter((m) => {
		try {
			require.resolve(m, { paths: [ROOT] });
			return true;
		} catch {
			return false;
		}
	});
	let warm: Record<'ours' | 'empty', Array<{ ms: number; classes: number }>>;
	let cold: typeof warm;
	try {
		probe(preload, files); // warm the OS file cache
		// Each probe is a process of its own that times itself: nothing to collect here.
		const probes = (rounds: number, loaded: string[]) =>
			runRounds({
				contestants: ['ours', 'empty'],
				rounds,
				order: 'fixed',
				gc: false,
				run: async (which) => probe(loaded, which === 'ours' ? files : [empty]),
			});
		warm = (await probes(samples, preload)).results;
		cold = (await probes(Math.min(samples, 5), [])).results;
	} finally {
		fs.rmSync(emptyDir, { recursive: true, force: true });
	}
	const classes = warm.ours[warm.ours.length - 1].classes;
	if (classes !== files.length)
		throw new Error(`expected ${files.length} classes in the built files, found ${classes}`);
	const ours = warm.ours.map((p) => p.ms);
	const base = warm.empty.map((p) => p.ms);
	const oursMs = median(ours);
	const baseMs = median(base);
	const extra = oursMs - baseMs;
	ctx.log(
		`part 4: require ${oursMs.toFixed(1)} ms vs empty ${baseMs.toFixed(2)} ms (+${extra.toFixed(1)} ms)`,
	);
	return [
		{
			part: 4,
			name: 'Package load: require + new of the built nodes and credential (n8n-workflow etc. preloaded) / empty module',
			value: round(oursMs, 2),
			baseline: round(baseMs, 2),
			unit: 'ms',
			ratio: `+${extra.toFixed(1)} ms`,
			target: '< +30 ms',
			met: extra < 30,
			details: {
				extraMs: round(extra, 2),
				samples,
				preload,
				files: files.map((f) => path.relative(ROOT, f)),
				oursMs: ours.map((v) => round(v, 2)),
				emptyMs: base.map((v) => round(v, 2)),
				coldOursMs: round(median(cold.ours.map((p) => p.ms)), 1),
				coldEmptyMs: round(median(cold.empty.map((p) => p.ms)), 2),
			},
		},
		packedSizeRow(ctx),
	];
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
