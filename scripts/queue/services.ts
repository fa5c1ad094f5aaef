/**
 * The services n8n's queue mode needs, from Debian packages, each on a free port of its own and with all its
 * state under .dev/: PostgreSQL (a cluster of our own, run as an unprivileged user: Postgres refuses root),
 * Redis (no persistence) and nginx (https in front of the webhook processes; scripts/queue/nginx.ts). Never the
 * system services.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SetupError } from '../install';
import { freePort, pollUntil, spawnGroup, type Managed } from '../proc';

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function pgBinDir(): string | undefined {
	const base = '/usr/lib/postgresql';
	if (!fs.existsSync(base)) return undefined;
	const versions = fs
		.readdirSync(base)
		.filter((v) => fs.existsSync(path.join(base, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(base, versions[0], 'bin') : undefined;
}

const REDIS = '/usr/bin/redis-server';
export const NGINX = '/usr/sbin/nginx';

/** Installs Debian's postgresql, redis-server and nginx when missing (root only), else says what to install. */
export function ensureQueuePackages(log: (m: string) => void = console.log): { pgBin: string } {
	const missing = [
		pgBinDir() ? undefined : 'postgresql',
		fs.existsSync(REDIS) ? undefined : 'redis-server',
		fs.existsSync(NGINX) ? undefined : 'nginx',
	].filter((p): p is string => !!p);
	if (missing.length) {
		if (!isRoot()) {
			throw new SetupError(
				`Queue mode needs Debian's ${missing.join(', ')}. Install as root: ` +
					`"apt-get update && apt-get install -y ${missing.join(' ')}" (the stack never uses their system services).`,
			);
		}
		log(`Installing ${missing.join(', ')} (apt-get install -y; first run only)...`);
		for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
			const r = spawnSync('apt-get', args, {
				stdio: ['ignore', 'ignore', 'inherit'],
				env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			});
			if (r.status !== 0)
				throw new SetupError(
					`apt-get ${args.join(' ')} failed (exit ${r.status}); install ${missing.join(' ')} by hand`,
				);
		}
	}
	const pgBin = pgBinDir();
	if (!pgBin || !fs.existsSync(REDIS) || !fs.existsSync(NGINX)) {
		throw new SetupError(
			'postgresql, redis-server or nginx is still missing after apt-get install',
		);
	}
	return { pgBin };
}

/** As root, Postgres runs as Debian's `postgres` user (the package creates it); otherwise as ourselves. */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
	return isRoot()
		? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]]
		: [cmd, args];
}

function runOk(cmd: string, args: string[], what: string, env: NodeJS.ProcessEnv = process.env) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', env });
	if (r.status !== 0)
		throw new SetupError(
			`${what} failed (exit ${r.status}): ${(r.stderr || r.stdout || r.error?.message || '').slice(-2000)}`,
		);
}

export async function waitForPort(what: string, port: number, proc: Managed, logFile: string) {
	let code: number | null | undefined;
	void proc.exited.then((c) => (code = c));
	await pollUntil(
		`${what} on 127.0.0.1:${port}`,
		() =>
			new Promise<true | undefined>((resolve) => {
				const s = net.connect(port, '127.0.0.1');
				s.once('connect', () => (s.destroy(), resolve(true)));
				s.once('error', () => resolve(undefined));
			}),
		{
			timeoutMs: 60000,
			intervalMs: 100,
			abort: () =>
				code === undefined
					? undefined
					: new SetupError(`${what} exited with code ${code}; see ${logFile}:\n${tail(logFile)}`),
		},
	);
}

function tail(file: string): string {
	try {
		return fs.readFileSync(file, 'utf8').slice(-3000);
	} catch {
		return '(no log)';
	}
}

export interface Postgres {
	host: string;
	port: number;
	database: string;
	user: string;
	password: string;
	proc: Managed;
	stop(): Promise<void>;
}

/**
 * A cluster of our own in `dir` (initdb on first use), listening on 127.0.0.1:<free port> with its unix socket
 * in `dir` too. Throwaway settings (no fsync): it holds test and dev data only.
 */
export async function startPostgres(dir: string, pgBin: string): Promise<Postgres> {
	const data = path.join(dir, 'data');
	const secretFile = path.join(dir, 'password');
	const user = 'n8n';
	const database = 'n8n';
	fs.mkdirSync(dir, { recursive: true });
	if (!fs.existsSync(path.join(data, 'PG_VERSION'))) {
		fs.rmSync(data, { recursive: true, force: true });
		fs.writeFileSync(secretFile, crypto.randomBytes(18).toString('base64url'), { mode: 0o600 });
		const pwFile = path.join(dir, 'pwfile');
		fs.writeFileSync(pwFile, fs.readFileSync(secretFile), { mode: 0o600 });
		if (isRoot()) {
			fs.mkdirSync(data, { mode: 0o700 });
			runOk('chown', ['-R', 'postgres:postgres', dir], `chown ${dir} to postgres`);
		}
		const [cmd, args] = asPostgres(path.join(pgBin, 'initdb'), [
			'-D',
			data,
			'-U',
			user,
			`--pwfile=${pwFile}`,
			'--auth=scram-sha-256',
			'--encoding=UTF8',
			'--locale=C',
			'--no-sync',
		]);
		runOk(cmd, args, 'initdb');
		fs.rmSync(pwFile, { force: true });
	}
	const password = fs.readFileSync(secretFile, 'utf8').trim();
	const port = await freePort();
	const logFile = path.join(dir, 'postgres.log');
	const out = fs.openSync(logFile, 'a');
	if (isRoot())
		fs.chownSync(
			logFile,
			Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()),
			0,
		);
	const [cmd, args] = asPostgres(path.join(pgBin, 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const proc = spawnGroup('postgres', cmd, args, { stdio: ['ignore', out, out] });
	fs.closeSync(out);
	await waitForPort('postgres', port, proc, logFile);
	const env = { ...process.env, PGPASSWORD: password };
	// The database n8n uses (the first start only); readiness of the port may precede accepting logins by a moment.
	await pollUntil('postgres to accept logins', async () => {
		const r = spawnSync(
			path.join(pgBin, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(port),
				'-U',
				user,
				'-d',
				'postgres',
				'-tAc',
				`SELECT 1 FROM pg_database WHERE datname='${database}'`,
			],
			{ encoding: 'utf8', env },
		);
		if (r.status !== 0) throw new Error(r.stderr);
		if (r.stdout.trim() !== '1')
			runOk(
				path.join(pgBin, 'createdb'),
				['-h', '127.0.0.1', '-p', String(port), '-U', user, database],
				'createdb',
				env,
			);
		return true;
	});
	return {
		host: '127.0.0.1',
		port,
		database,
		user,
		password,
		proc,
		async stop() {
			// SIGINT is Postgres's fast shutdown (SIGTERM would wait for every client to leave).
			try {
				process.kill(-proc.child.pid!, 'SIGINT');
			} catch {
				/* gone */
			}
			await proc.stop();
		},
	};
}

export interface Redis {
	port: number;
	proc: Managed;
	stop(): Promise<void>;
}

export async function startRedis(dir: string): Promise<Redis> {
	fs.mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const logFile = path.join(dir, 'redis.log');
	const out = fs.openSync(logFile, 'a');
	const proc = spawnGroup(
		'redis',
		REDIS,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--dir',
			dir,
		],
		{ stdio: ['ignore', out, out] },
	);
	fs.closeSync(out);
	await waitForPort('redis', port, proc, logFile);
	return { port, proc, stop: () => proc.stop() };
}
