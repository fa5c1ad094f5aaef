/**
 * A real n8n for `npm run dev` and the e2e suite: install (once), our package as a community package,
 * https with a self-signed certificate, owner + API key (its CLI: n8nCli.ts). Everything lives under `.dev/`.
 * Idempotent: each function can be called again on the same folders.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureCert, type DevCert } from './cert';
import { JsonClient } from './jsonClient';
import { ensureN8nInstalled, node24Env, SetupError } from './install';
import { DEV_DIR, N8N_INSTALL_DIR, N8N_VERSION, n8nPaths, NODE24, ROOT } from './paths';
import { freePort, pollUntil, spawnGroup, type Managed } from './proc';

export { ensureN8nInstalled, SetupError, N8N_VERSION };

export const PACKAGE_NAME = 'n8n-nodes-appointments';

function runSync(
	cmd: string,
	args: string[],
	cwd: string,
	what: string,
	env = node24Env(),
): string {
	const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (r.error) throw new SetupError(`${what} failed to start: ${r.error.message}`);
	if (r.status !== 0) {
		throw new SetupError(
			`${what} failed (exit code ${r.status}):\n${(r.stderr || r.stdout).slice(-4000)}`,
		);
	}
	return r.stdout;
}

/**
 * The environment variable that names a tarball already built and packed for this test run (set by
 * test/helpers/buildOnce.ts and scripts/compat.ts): every suite of the run then installs that one.
 */
export const PACKED_TARBALL_ENV = 'APPOINTMENTS_PACKED_TARBALL';

/** `npm run build` then `npm pack` into .dev/pack/; returns the tarball path (the run's own if already packed). */
export function buildAndPack(log: (m: string) => void = console.log): string {
	const packed = process.env[PACKED_TARBALL_ENV];
	if (packed && fs.existsSync(packed)) return packed;
	const packDir = path.join(DEV_DIR, 'pack');
	const stampFile = path.join(packDir, 'sources.sha256.json');
	const sources = sourcesHash();
	const last = fs.existsSync(stampFile) ? JSON.parse(fs.readFileSync(stampFile, 'utf8')) : {};
	if (last.sources === sources && fs.existsSync(last.tarball)) {
		log('The package is unchanged since its last build: installing that one.');
		return last.tarball;
	}
	log('Building the package (npm run build)...');
	runSync('npm', ['run', 'build', '--silent'], ROOT, 'npm run build');
	fs.mkdirSync(packDir, { recursive: true });
	const out = runSync(
		'npm',
		['pack', '--json', '--ignore-scripts', '--pack-destination', packDir],
		ROOT,
		'npm pack',
	);
	const info = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string }>;
	const tarball = path.join(packDir, info[0].filename);
	if (!fs.existsSync(tarball)) throw new SetupError(`npm pack did not produce ${tarball}`);
	fs.writeFileSync(stampFile, JSON.stringify({ sources, tarball }));
	return tarball;
}

/**
 * A hash of everything the tarball is made from (the package's sources, its build set-up, the files npm adds):
 * the same hash, the same tarball, so a later `npm run dev` skips the build and npm pack (10-15 CPU-seconds).
 */
function sourcesHash(): string {
	const hash = crypto.createHash('sha256');
	const files = [
		'package.json',
		'package-lock.json',
		'tsconfig.json',
		'gulpfile.js',
		'README.md',
		'LICENSE',
	];
	for (const dir of ['nodes', 'credentials'])
		files.push(
			...fs.readdirSync(path.join(ROOT, dir), { recursive: true }).map((f) => `${dir}/${f}`),
		);
	for (const file of files.sort()) {
		const full = path.join(ROOT, file);
		if (fs.statSync(full).isFile()) hash.update(`${file}\0`).update(fs.readFileSync(full));
	}
	return hash.digest('hex');
}

/**
 * Installs the tarball where n8n loads community packages: $N8N_USER_FOLDER/.n8n/nodes/node_modules/.
 * Skipped when the same tarball (by hash) is already installed there.
 */
export function installPackage(userFolder: string, tarball: string): void {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pkgJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pkgJson)) {
		fs.writeFileSync(
			pkgJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	const hash = crypto.createHash('sha256').update(fs.readFileSync(tarball)).digest('hex');
	const marker = path.join(nodesDir, `.${PACKAGE_NAME}.sha256`);
	const installedDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	if (
		fs.existsSync(installedDir) &&
		fs.existsSync(marker) &&
		fs.readFileSync(marker, 'utf8') === hash
	)
		return;
	// Like n8n's own installer: no scripts, no peers (n8n-workflow comes from n8n), no lock file.
	runSync(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--legacy-peer-deps',
			'--omit=dev',
			'--no-audit',
			'--no-fund',
			'--package-lock=false',
			'--loglevel=error',
			tarball,
		],
		nodesDir,
		`npm install ${path.basename(tarball)} into ${nodesDir}`,
	);
	if (!fs.existsSync(path.join(installedDir, 'package.json'))) {
		throw new SetupError(`${PACKAGE_NAME} is not in ${installedDir} after npm install`);
	}
	fs.writeFileSync(marker, hash);
}

export interface StartOptions {
	userFolder: string;
	/** The installed n8n version to start (default N8N_VERSION: N8N_DEV_VERSION or 2.41.1). */
	version?: string;
	port?: number;
	cert?: DevCert;
	/** Where n8n's stdout/stderr go (default <userFolder>/n8n.log). */
	logFile?: string;
	env?: Record<string, string>;
	readinessTimeoutMs?: number;
}

export interface N8n {
	url: string; // https://localhost:PORT (no trailing slash)
	port: number;
	userFolder: string;
	cert: DevCert;
	logFile: string;
	env: NodeJS.ProcessEnv;
	proc: Managed;
	/** Client without authentication (trusts the certificate). */
	http: JsonClient;
	stop(): Promise<void>;
}

/** The environment n8n (server and CLI) runs with. */
export function n8nEnv(
	userFolder: string,
	port: number,
	cert: DevCert,
	brokerPort: number,
	extra: Record<string, string> = {},
) {
	return node24Env({
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_HOST: 'localhost',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PROTOCOL: 'https',
		N8N_SSL_KEY: cert.keyPath,
		N8N_SSL_CERT: cert.certPath,
		// N8N_WEBHOOK_URL replaces the deprecated WEBHOOK_URL in 2.41 (same meaning: the base of webhook URLs).
		N8N_WEBHOOK_URL: `https://localhost:${port}/`,
		N8N_EDITOR_BASE_URL: `https://localhost:${port}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_LEVEL: 'info',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_PUBLIC_API_DISABLED: 'false',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		N8N_SECURE_COOKIE: 'true',
		// The sandbox's account time zone, so "today"/"yesterday" mean the same day on both sides.
		GENERIC_TIMEZONE: 'America/Santiago',
		DB_TYPE: 'sqlite',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		NODE_OPTIONS: '',
		// jest sets NODE_ENV=test, and n8n then exits at start without a word (and the CLI writes no database).
		NODE_ENV: 'production',
		...extra,
	});
}

export function tail(file: string, bytes = 6000): string {
	try {
		const buf = fs.readFileSync(file);
		return buf.subarray(Math.max(0, buf.length - bytes)).toString('utf8');
	} catch {
		return '(no log)';
	}
}

/**
 * Whether this start of n8n has logged the end of its start-up: n8n prints this line once it has published the
 * published workflows (their triggers registered), which on n8n 2.x comes after /healthz/readiness says ready
 * (docs/ci.md, "When n8n is ready").
 */
function startFinished(logFile: string, from: number): boolean {
	const fd = fs.openSync(logFile, 'r');
	try {
		const size = fs.fstatSync(fd).size;
		const buf = Buffer.alloc(Math.max(0, size - from));
		fs.readSync(fd, buf, 0, buf.length, from);
		return buf.includes('Editor is now accessible via');
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * Starts n8n (already installed) on Node 24 serving https on localhost; resolves once it has logged the end of its
 * start-up and readiness and REST answer 200.
 */
export async function startN8n(opts: StartOptions): Promise<N8n> {
	const cert = opts.cert ?? ensureCert();
	const port = opts.port ?? (await freePort());
	const brokerPort = await freePort();
	fs.mkdirSync(opts.userFolder, { recursive: true });
	const logFile = opts.logFile ?? path.join(opts.userFolder, 'n8n.log');
	const env = n8nEnv(opts.userFolder, port, cert, brokerPort, opts.env);
	const logStart = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
	const out = fs.openSync(logFile, 'a');
	const proc = spawnGroup('n8n', NODE24, [n8nPaths(opts.version).bin, 'start'], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	const url = `https://localhost:${port}`;
	const http = new JsonClient(url, cert.cert);
	let exitCode: number | null | undefined;
	void proc.exited.then((c) => (exitCode = c));
	try {
		await pollUntil(
			`n8n readiness on ${url}/healthz/readiness`,
			async () => {
				if (!startFinished(logFile, logStart)) return undefined;
				const r = await http.call('GET', '/healthz/readiness', { timeoutMs: 3000 });
				if (r.status !== 200) return undefined;
				// n8n 1.x answers readiness before its REST routes exist (a POST /rest/login is then a 404).
				const settings = await http.call('GET', '/rest/settings', { timeoutMs: 3000 });
				return settings.status === 200 ? true : undefined;
			},
			{
				timeoutMs: opts.readinessTimeoutMs ?? 120000,
				intervalMs: 300,
				abort: () =>
					exitCode === undefined
						? undefined
						: new SetupError(
								`n8n exited with code ${exitCode} while starting. Log ${logFile}:\n${tail(logFile)}`,
							),
			},
		);
	} catch (e) {
		await proc.stop();
		await http.close();
		if (e instanceof SetupError) throw e;
		throw new SetupError(`${(e as Error).message}\nLog ${logFile}:\n${tail(logFile)}`);
	}
	return {
		url,
		port,
		userFolder: opts.userFolder,
		cert,
		logFile,
		env,
		proc,
		http,
		async stop() {
			await proc.stop();
			await http.close();
		},
	};
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** A REST client logged in as the owner (cookie + browser-id, as n8n's UI does). */
export async function loginRest(n8n: N8n, owner: Owner): Promise<JsonClient> {
	const browserId = crypto.randomUUID();
	const setup = await n8n.http.call('GET', '/rest/settings');
	const needsSetup = setup.body?.data?.userManagement?.showSetupOnFirstLoad === true;
	const headers = { 'browser-id': browserId };
	const r = needsSetup
		? await n8n.http.call('POST', '/rest/owner/setup', { headers, body: owner })
		: await n8n.http.call('POST', '/rest/login', {
				headers,
				body: { emailOrLdapLoginId: owner.email, password: owner.password },
			});
	if (r.status !== 200) {
		throw new SetupError(
			`${needsSetup ? 'owner setup' : 'login'} answered ${r.status}: ${r.text.slice(0, 300)}`,
		);
	}
	const setCookie = ([] as string[]).concat(r.headers['set-cookie'] ?? []);
	const auth = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	if (!auth) throw new SetupError('n8n did not set the n8n-auth cookie');
	return n8n.http.withHeaders({ cookie: auth, 'browser-id': browserId });
}

/** Creates an API key with every scope the owner may have; returns the raw key (never print it). */
export async function createApiKey(
	rest: JsonClient,
	label: string,
): Promise<{ id: string; key: string }> {
	const scopes = (await rest.ok('GET', '/rest/api-keys/scopes')).data as string[];
	const created = (
		await rest.ok('POST', '/rest/api-keys', { body: { label, scopes, expiresAt: null } })
	).data;
	return { id: created.id, key: created.rawApiKey };
}

export async function deleteApiKey(rest: JsonClient, id: string): Promise<void> {
	await rest.call('DELETE', `/rest/api-keys/${id}`);
}

export function publicApi(n8n: N8n, apiKey: string): JsonClient {
	return n8n.http.withHeaders({ 'X-N8N-API-KEY': apiKey });
}

/** Everything before n8n starts: install (once), certificate, build + pack + install our package. */
export function prepare(
	userFolder: string,
	log: (m: string) => void = console.log,
): { cert: DevCert; tarball: string } {
	ensureN8nInstalled(log);
	const cert = ensureCert();
	const tarball = buildAndPack(log);
	installPackage(userFolder, tarball);
	return { cert, tarball };
}

export const paths = { DEV_DIR, N8N_INSTALL_DIR };
