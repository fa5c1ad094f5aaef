/**
 * `npm run bench` - parts 1-5 and 7 (see bench/README.md), one table of ratios against baselines measured in the same
 * run. `npm run bench -- --smoke`: tiny sizes, checks that everything works (exit 0 when targets are missed, non-0
 * when something crashes). `npm run bench -- --n8n`: adds parts 6 and 8 (a real n8n each); `--queue`: part 9 (n8n's
 * queue mode against its regular mode). `--only=1,3`: a subset.
 *
 * Every part runs in a child process of its own (Node 24 with --expose-gc and tsx), so that one part's heap, JIT
 * state and sockets do not leak into the next, and a crash is reported against its part. Results go to
 * bench/results/<time>-<mode>.json and bench/results/latest-<mode>.json.
 *
 * Exit code: 0 when every part ran (and, outside --smoke, every target was met); 1 when a target was missed
 * (not in --smoke); 2 when a part crashed or timed out.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, BUILT_ENV } from './lib/build';
import { fmt, RESULTS_DIR, ROOT, type PartContext, type Row } from './lib/common';

interface PartSpec {
	id: number;
	key: string;
	title: string;
	/** Stops a hung part; not a speed target (at load average 17 on 2 cores parts 1 and 2 took three times as long). */
	timeoutSec: { full: number; smoke: number };
	/** Runs in the part's child process. */
	run: (ctx: PartContext, args: Args) => Promise<Row[]>;
}

const PARTS: PartSpec[] = [
	{
		id: 1,
		key: 'list',
		title: 'Get Many, Return All (node / n8n helper loop, ideal)',
		timeoutSec: { full: 1200, smoke: 240 },
		run: async (ctx) => (await import('./parts/list')).runListPart(ctx),
	},
	{
		id: 2,
		key: 'bulk',
		title: 'Bulk Update Status (node / n8n helper loop, requests per update)',
		timeoutSec: { full: 600, smoke: 180 },
		run: async (ctx) => (await import('./parts/bulk')).runBulkPart(ctx),
	},
	{
		id: 3,
		key: 'trigger',
		title: 'Trigger webhook() (node / plainest webhook()) and dedupe memory',
		timeoutSec: { full: 450, smoke: 180 },
		run: async (ctx) => (await import('./parts/trigger')).runTriggerPart(ctx),
	},
	{
		id: 4,
		key: 'load',
		title: 'Package load and packed size',
		timeoutSec: { full: 300, smoke: 180 },
		run: async (ctx) => (await import('./parts/load')).runLoadPart(ctx),
	},
	{
		id: 5,
		key: 'sandbox',
		title: 'Sandbox throughput',
		timeoutSec: { full: 300, smoke: 120 },
		run: async (ctx, args) =>
			(await import('./parts/sandbox')).runSandboxPart(ctx, args.nodeMsPerPage),
	},
	{
		id: 6,
		key: 'n8n',
		title: 'Real n8n: our trigger / n8n Webhook node with Header Auth',
		timeoutSec: { full: 1200, smoke: 1200 },
		run: async (ctx) => (await import('./parts/n8n')).runN8nPart(ctx),
	},
	{
		id: 7,
		key: 'polling',
		title: 'Polling trigger over 10,000 watched appointments (requests, static data, time)',
		timeoutSec: { full: 720, smoke: 180 },
		run: async (ctx) => (await import('./parts/polling')).runPollingPart(ctx),
	},
	{
		id: 8,
		key: 'n8n-list',
		title: 'Real n8n: Get Many / HTTP Request pagination + Split Out',
		timeoutSec: { full: 1200, smoke: 1200 },
		run: async (ctx) => (await import('./parts/n8n')).runN8nListPart(ctx),
	},
	{
		id: 9,
		key: 'queue',
		title: "n8n's queue mode / regular mode",
		timeoutSec: { full: 2400, smoke: 1500 },
		run: async (ctx) => (await import('./parts/queue')).runQueuePart(ctx),
	},
	{
		id: 10,
		key: 'free-times',
		title: 'Find Free Times over a busy month / Get Many reading the same pages',
		timeoutSec: { full: 300, smoke: 120 },
		run: async (ctx) => (await import('./parts/free-times')).runFreeTimesPart(ctx),
	},
];

const USAGE = `usage: npm run bench -- [--smoke] [--n8n] [--queue] [--only=1,3]
  (no flag)  parts 1-5, 7 and 10 at full size, judged against their targets
  --smoke    tiny sizes: checks that every part runs; targets are not judged
  --n8n      adds parts 6 and 8 (a real n8n each)
  --queue    adds part 9 (n8n's queue mode against its regular mode)
  --only=    the parts to run, by number (bench/README.md lists them)
`;

/** A mistyped flag must not start a five-minute full run: refuse what is not known. */
function checkFlags(argv: string[]): void {
	const known = /^--(smoke|n8n|queue|only=.+|child=.+|out=.+|node-ms-per-page=.+)$/;
	if (argv.includes('--help') || argv.includes('-h')) {
		process.stdout.write(USAGE);
		process.exit(0);
	}
	const unknown = argv.filter((a) => !known.test(a));
	if (unknown.length) {
		process.stderr.write(`unknown option ${unknown.join(' ')}\n${USAGE}`);
		process.exit(2);
	}
}

function parseArgs(argv: string[]) {
	checkFlags(argv);
	const has = (flag: string) => argv.includes(flag);
	const value = (name: string) =>
		argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
	return {
		smoke: has('--smoke'),
		n8n: has('--n8n'),
		queue: has('--queue'),
		only: value('only')?.split(',').map(Number),
		child: value('child'),
		out: value('out'),
		nodeMsPerPage: value('node-ms-per-page') ? Number(value('node-ms-per-page')) : undefined,
	};
}

type Args = ReturnType<typeof parseArgs>;

async function runChild(args: Args): Promise<void> {
	const ctx: PartContext = {
		smoke: args.smoke,
		log: (m) => process.stderr.write(`  ${m}\n`),
	};
	const part = PARTS.find((p) => p.key === args.child);
	if (!part) throw new Error(`unknown part ${args.child}`);
	fs.writeFileSync(args.out!, JSON.stringify(await part.run(ctx, args)));
}

interface PartOutcome {
	part: PartSpec;
	rows: Row[];
	error?: string;
	seconds: number;
}

async function spawnPart(part: PartSpec, smoke: boolean, extra: string[]): Promise<PartOutcome> {
	const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'rows.json');
	const args = [
		'--expose-gc',
		'--max-old-space-size=4096',
		'--import',
		'tsx',
		path.join(ROOT, 'bench', 'run.ts'),
		`--child=${part.key}`,
		`--out=${out}`,
		...(smoke ? ['--smoke'] : []),
		...extra,
	];
	const started = performance.now();
	const timeoutSec = smoke ? part.timeoutSec.smoke : part.timeoutSec.full;
	const child = spawn(process.execPath, args, {
		cwd: ROOT,
		stdio: ['ignore', 'inherit', 'inherit'],
		detached: true,
	});
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			/* gone */
		}
	}, timeoutSec * 1000);
	const stopOnSignal = () => {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			/* gone */
		}
		process.exit(130);
	};
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
	clearTimeout(timer);
	process.removeListener('SIGINT', stopOnSignal);
	process.removeListener('SIGTERM', stopOnSignal);
	const seconds = (performance.now() - started) / 1000;
	const outcome = readOutcome(out, timedOut ? `timed out after ${timeoutSec} s` : undefined, code);
	fs.rmSync(path.dirname(out), { recursive: true, force: true });
	return { part, seconds, ...outcome };
}

/** The rows a part's child wrote, or why there are none. */
function readOutcome(
	out: string,
	timedOut: string | undefined,
	code: number | null,
): { rows: Row[]; error?: string } {
	let written: unknown;
	try {
		written = JSON.parse(fs.readFileSync(out, 'utf8'));
	} catch {
		written = undefined;
	}
	if (timedOut) return { rows: [], error: timedOut };
	if (
		written &&
		!Array.isArray(written) &&
		typeof (written as { error?: unknown }).error === 'string'
	) {
		return { rows: [], error: (written as { error: string }).error.split('\n')[0].slice(0, 200) };
	}
	if (code !== 0) return { rows: [], error: `crashed (exit code ${code}); see the output above` };
	return Array.isArray(written)
		? { rows: written as Row[] }
		: { rows: [], error: 'wrote no results' };
}

function table(outcomes: PartOutcome[]): string {
	const header = ['#', 'Figure', 'Measured', 'Baseline', 'Ratio', 'Spread', 'Target', 'Result'];
	const lines: string[][] = [];
	for (const o of outcomes) {
		if (o.error) {
			lines.push([String(o.part.id), o.part.title, '', '', '', '', '', `ERROR: ${o.error}`]);
			continue;
		}
		for (const r of o.rows) {
			lines.push([
				String(r.part),
				r.name,
				fmt(r.value, r.unit),
				r.baseline === undefined ? '' : fmt(r.baseline, r.unit),
				r.ratio === undefined ? '' : typeof r.ratio === 'number' ? r.ratio.toFixed(3) : r.ratio,
				r.spread ?? '',
				r.target ?? '(context)',
				r.met === undefined ? (r.note ? 'NOT MEASURED' : '') : r.met ? 'met' : 'MISSED',
			]);
		}
	}
	const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
	const row = (cells: string[]) =>
		'| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
	const notes = outcomes.flatMap((o) =>
		o.rows.filter((r) => r.note).map((r) => `Part ${r.part}, ${r.name}: ${r.note}`),
	);
	return [
		row(header),
		'|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|',
		...lines.map(row),
		...(notes.length ? ['', ...notes] : []),
	].join('\n');
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	if (args.child) {
		try {
			await runChild(args);
		} catch (error) {
			fs.writeFileSync(
				args.out!,
				JSON.stringify({ error: (error as Error).message ?? String(error) }),
			);
			throw error;
		}
		// Harness pieces (n8n-core, agents) may keep handles open: the results are written, so leave now.
		process.exit(0);
	}
	const mode = args.smoke ? 'smoke' : 'full';
	const ids = args.only ?? [
		1,
		2,
		3,
		4,
		5,
		7,
		10,
		...(args.n8n ? [6, 8] : []),
		...(args.queue ? [9] : []),
	];
	const started = Date.now();
	process.stderr.write(
		`bench (${mode}) on ${os.cpus().length} cores, Node ${process.version}, parts ${ids.join(', ')}\n`,
	);
	build({ smoke: args.smoke, log: (m) => process.stderr.write(`  ${m}\n`) });
	process.env[BUILT_ENV] = '1';
	const outcomes: PartOutcome[] = [];
	for (const part of PARTS.filter((p) => ids.includes(p.id))) {
		process.stderr.write(`\n== part ${part.id}: ${part.title}\n`);
		const extra: string[] = [];
		if (part.key === 'sandbox') {
			const list = outcomes
				.find((o) => o.part.key === 'list')
				?.rows.find((r) => r.details?.nodeMsPerPage);
			if (list) extra.push(`--node-ms-per-page=${list.details!.nodeMsPerPage}`);
		}
		const outcome = await spawnPart(part, args.smoke, extra);
		process.stderr.write(
			`   part ${part.id} ${outcome.error ? 'FAILED: ' + outcome.error : 'done'} in ${outcome.seconds.toFixed(1)} s\n`,
		);
		outcomes.push(outcome);
	}
	const totalSec = (Date.now() - started) / 1000;
	const text = table(outcomes);
	process.stdout.write(`\n${text}\n\nTotal ${totalSec.toFixed(0)} s (${mode}).\n`);

	const crashed = outcomes.filter((o) => o.error);
	const missed = outcomes
		.flatMap((o) => o.rows)
		.filter((r) => r.met === false || (r.met === undefined && r.target && r.note));
	fs.mkdirSync(RESULTS_DIR, { recursive: true });
	const result = {
		mode,
		at: new Date(started).toISOString(),
		totalSeconds: Math.round(totalSec),
		machine: {
			cpus: os.cpus().length,
			model: os.cpus()[0]?.model,
			memGB: Math.round(os.totalmem() / 2 ** 30),
			node: process.version,
		},
		parts: outcomes.map((o) => ({
			id: o.part.id,
			title: o.part.title,
			seconds: Math.round(o.seconds),
			error: o.error,
			rows: o.rows,
		})),
		table: text,
	};
	const stamp = result.at.replace(/[:.]/g, '-');
	fs.writeFileSync(
		path.join(RESULTS_DIR, `${stamp}-${mode}.json`),
		JSON.stringify(result, null, 2),
	);
	fs.writeFileSync(path.join(RESULTS_DIR, `latest-${mode}.json`), JSON.stringify(result, null, 2));
	process.stdout.write(
		`Results: ${path.relative(ROOT, path.join(RESULTS_DIR, `latest-${mode}.json`))}\n`,
	);
	if (crashed.length) {
		process.stdout.write(
			`${crashed.length} part(s) failed to run: ${crashed.map((o) => o.part.id).join(', ')}\n`,
		);
		process.exitCode = 2;
	} else if (missed.length) {
		process.stdout.write(
			`${missed.length} target(s) missed${args.smoke ? ' (smoke sizes: not judged)' : ''}\n`,
		);
		if (!args.smoke) process.exitCode = 1;
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? error}\n`);
	process.exitCode = 2;
});
