/**
 * The package as n8n runs it: `npm run build` (tsc), once per bench run. Parts measure the built files, not the
 * sources through tsx, whose esbuild keepNames wraps every function made at run time in a `__name` call the
 * published build does not have (bench/README.md, part 3).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, type PartContext } from './common';

const NPM_CLI = path.join(
	path.dirname(process.execPath),
	'..',
	'lib',
	'node_modules',
	'npm',
	'bin',
	'npm-cli.js',
);

export function npm(args: string[]): string {
	// The npm that belongs to the running Node 24 when there is one; else the npm on PATH.
	const [cmd, argv] = fs.existsSync(NPM_CLI)
		? [process.execPath, [NPM_CLI, ...args]]
		: ['npm', args];
	return execFileSync(cmd, argv, {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		maxBuffer: 64 << 20,
	});
}

let built: string[] | undefined;

/** Set by bench/run.ts for the parts it starts once it has built the package. */
export const BUILT_ENV = 'APPOINTMENTS_BENCH_BUILT';

/** `npm run build` (the first call only); the built files n8n loads (package.json's n8n.nodes and n8n.credentials). */
export function build(ctx: PartContext): string[] {
	if (built) return built;
	// Each part runs in a process of its own: the bench run builds once and says so to its parts.
	if (process.env[BUILT_ENV] !== '1') {
		ctx.log('npm run build');
		try {
			npm(['run', 'build', '--silent']);
		} catch (error) {
			const e = error as { stderr?: string; stdout?: string; message: string };
			throw new Error(`npm run build failed: ${(e.stderr || e.stdout || e.message).slice(-3000)}`);
		}
	}
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const files: string[] = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].map(
		(f: string) => path.join(ROOT, f),
	);
	const missing = files.filter((f) => !fs.existsSync(f));
	if (missing.length)
		throw new Error(
			`built files missing after npm run build: ${missing.map((f) => path.relative(ROOT, f)).join(', ')}`,
		);
	built = files;
	return files;
}

/** A module of the build (`relative` as under dist/, say `nodes/Appointments/Appointments.node.js`), built first. */
export function requireBuilt<T>(ctx: PartContext, relative: string): T {
	build(ctx);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(path.join(ROOT, 'dist', relative)) as T;
}
