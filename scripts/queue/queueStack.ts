/**
 * n8n's queue mode as its docs describe it, for `npm run dev -- --queue`, `npm run test:queue` and the queue
 * benchmark: Postgres + Redis, one main (editor, API, activation), N webhook processes (`n8n webhook`) behind
 * nginx (https), M workers (`n8n worker`), all with one encryption key; plus the sandbox,
 * our package in every process, an owner, an API key, the credential and the examples imported.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DevCert } from '../cert';
import { importAll } from '../examples';
import { JsonClient } from '../jsonClient';
import { createApiKey, loginRest, prepare, type Owner } from '../n8n';
import { freePort } from '../proc';
import {
	Cleanups,
	secret,
	startStackSandbox,
	type SandboxOptions,
	type StackCore,
} from '../stackCore';
import { startNginx, readAccessLog, type Nginx, type NginxOptions } from './nginx';
import { executionsByWorker, n8nProcess, type N8nProcess } from './processes';
import {
	ensureQueuePackages,
	startPostgres,
	startRedis,
	type Postgres,
	type Redis,
} from './services';

export interface QueueStackOptions {
	/** Everything of this stack lives here (database cluster, user folders, logs). */
	dir: string;
	owner: Owner;
	webhookProcesses?: number;
	workers?: number;
	workerConcurrency?: number;
	/** How nginx spreads /webhook/ requests (default `event`; see NginxOptions). */
	balance?: NginxOptions['balance'];
	sandbox?: Partial<NonNullable<SandboxOptions>>;
	apiToken?: string;
	adminToken?: string;
	reimport?: 'changed' | 'always';
	log?: (m: string) => void;
}

/** The queue-mode stack; `rest` and `api` go through the main and are renewed when it restarts. */
export interface QueueStack extends StackCore {
	/** nginx's https URL: the base of every production webhook URL (N8N_WEBHOOK_URL). */
	url: string;
	main: N8nProcess;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	nginx: Nginx;
	restartMain(): Promise<void>;
	restartWebhooks(): Promise<void>;
	/** Restarts nginx (same port, same URL) with another balancing of /webhook/. */
	setBalance(balance: NginxOptions['balance']): Promise<void>;
	/** Which webhook process answered each /webhook/ request nginx proxied (by process name), and whether nginx tried another first. */
	webhookRequests(): Array<{
		at: number;
		path: string;
		status: number;
		process: string;
		failedOver: boolean;
	}>;
	executionsByWorker(): Map<string, Set<string>>;
}

interface Secrets {
	encryptionKey: string;
	apiToken: string;
	adminToken: string;
}

function loadSecrets(file: string, opts: QueueStackOptions): Secrets {
	if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
	const s = {
		encryptionKey: secret(24),
		apiToken: opts.apiToken ?? secret(),
		adminToken: opts.adminToken ?? secret(),
	};
	fs.writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
	return s;
}

/** The queue-mode environment every n8n process shares (database, Redis, encryption key, webhook URL). */
function sharedEnv(
	pg: Postgres,
	redis: Redis,
	encryptionKey: string,
	webhookUrl: string,
): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		// The default pool (2) starves under a burst of deliveries: the health ping then times out and the
		// webhook processes answer 503 until it recovers.
		DB_POSTGRESDB_POOL_SIZE: '10',
		// On a loaded machine 20 s (the default) to get a connection is not always enough.
		DB_POSTGRESDB_CONNECTION_TIMEOUT: '60000',
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_WEBHOOK_URL: `${webhookUrl}/`,
		N8N_PROXY_HOPS: '1',
	};
}

interface Ports {
	main: number;
	webhooks: number[];
	workers: number[];
}

/** Ports first: nginx must know its upstreams, and every process the balancer's URL. */
async function pickPorts(opts: QueueStackOptions): Promise<Ports> {
	const free = (n: number) => Promise.all(Array.from({ length: n }, () => freePort()));
	return {
		main: await freePort(),
		webhooks: await free(opts.webhookProcesses ?? 2),
		workers: await free(opts.workers ?? 2),
	};
}

/** The n8n processes (not started yet), each webhook process and worker in a user folder of its own. */
async function defineProcesses(
	opts: QueueStackOptions,
	mainFolder: string,
	ports: Ports,
	cert: DevCert,
	shared: Record<string, string>,
) {
	// One installed copy of our package, seen by every process through its user folder.
	const nodesDir = path.join(mainFolder, '.n8n', 'nodes');
	const folderFor = (name: string) => {
		const folder = path.join(opts.dir, name);
		const link = path.join(folder, '.n8n', 'nodes');
		fs.mkdirSync(path.dirname(link), { recursive: true });
		if (!fs.existsSync(link)) fs.symlinkSync(nodesDir, link, 'dir');
		return folder;
	};
	const spec = async (
		name: string,
		role: 'main' | 'webhook' | 'worker',
		port: number,
		userFolder: string,
	) =>
		n8nProcess({
			name,
			role,
			port,
			userFolder,
			cert,
			shared,
			brokerPort: await freePort(),
			workerConcurrency: opts.workerConcurrency,
		});
	const main = await spec('main', 'main', ports.main, mainFolder);
	const webhooks = await Promise.all(
		ports.webhooks.map((p, i) =>
			spec(`webhook-${i + 1}`, 'webhook', p, folderFor(`webhook-${i + 1}`)),
		),
	);
	const workers = await Promise.all(
		ports.workers.map((p, i) => spec(`worker-${i + 1}`, 'worker', p, folderFor(`worker-${i + 1}`))),
	);
	return { main, webhooks, workers };
}

type Processes = Awaited<ReturnType<typeof defineProcesses>>;

/**
 * All at once: the import through n8n's CLI has run the database migrations already (and each process takes n8n's
 * migration lock before it checks them), so no process waits for another; each waits for its own readiness.
 */
async function startProcesses(
	{ main, webhooks, workers }: Processes,
	cleanups: Cleanups,
	log: (m: string) => void,
): Promise<void> {
	cleanups.push(() => Promise.all([main, ...webhooks, ...workers].map((p) => p.stop())));
	log(
		`Starting n8n in queue mode: main, ${webhooks.length} webhook process(es), ${workers.length} worker(s)...`,
	);
	await Promise.all([main, ...webhooks, ...workers].map((p) => p.start()));
}

function nginxOptionsFor(opts: QueueStackOptions, ports: Ports, cert: DevCert): NginxOptions {
	return {
		dir: path.join(opts.dir, 'nginx'),
		certPath: cert.certPath,
		keyPath: cert.keyPath,
		webhookUpstreams: ports.webhooks.map((p) => `127.0.0.1:${p}`),
		main: `127.0.0.1:${ports.main}`,
		balance: opts.balance ?? 'event',
	};
}

/** The /webhook/ requests of nginx's access log, each with the name of the webhook process that answered. */
function webhookRequests(
	nginx: Nginx,
	webhooks: N8nProcess[],
): ReturnType<QueueStack['webhookRequests']> {
	const byUpstream = new Map(webhooks.map((w) => [`127.0.0.1:${w.port}`, w.name]));
	return readAccessLog(nginx.accessLog)
		.filter((l) => l.path.startsWith('/webhook/'))
		.map((l) => {
			const [process, ...tried] = l.upstreams.map((u) => byUpstream.get(u) ?? u).reverse();
			return { at: l.at, path: l.path, status: l.status, process, failedOver: tried.length > 0 };
		});
}

/** n8n's REST API as the owner and its public API with a fresh key, through the main; renewable after a restart. */
async function ownerClients(main: N8nProcess, cert: DevCert, owner: Owner, cleanups: Cleanups) {
	const connect = async () => {
		const http = new JsonClient(main.url, cert.cert);
		const rest = await loginRest({ http } as Parameters<typeof loginRest>[0], owner);
		return { http, rest };
	};
	let { http, rest } = await connect();
	const key = await createApiKey(rest, `queue-${Date.now()}`);
	cleanups.push(() => http.close());
	const clients = {
		rest,
		api: http.withHeaders({ 'X-N8N-API-KEY': key.key }),
		/** Fresh connections: the old ones went with the process. The session cookie stays valid. */
		async renew() {
			await http.close();
			({ http, rest } = await connect());
			clients.rest = rest;
			clients.api = http.withHeaders({ 'X-N8N-API-KEY': key.key });
		},
	};
	return clients;
}

export async function startQueueStack(opts: QueueStackOptions): Promise<QueueStack> {
	const log = opts.log ?? console.log;
	const { pgBin } = ensureQueuePackages(log);
	fs.mkdirSync(opts.dir, { recursive: true });
	const mainFolder = path.join(opts.dir, 'main');
	const { cert } = prepare(mainFolder, log);
	const secrets = loadSecrets(path.join(opts.dir, 'secrets.json'), opts);
	const tokens = {
		apiToken: opts.apiToken ?? secrets.apiToken,
		adminToken: opts.adminToken ?? secrets.adminToken,
	};
	const cleanups = new Cleanups();
	try {
		log('Starting Postgres and Redis...');
		const [pg, redis] = await Promise.all([
			startPostgres(path.join(opts.dir, 'postgres'), pgBin),
			startRedis(path.join(opts.dir, 'redis')),
		]);
		cleanups.push(
			() => pg.stop(),
			() => redis.stop(),
		);
		const side = await startStackSandbox(tokens, cert.cert, opts.sandbox, cleanups);
		const ports = await pickPorts(opts);
		const nginxOptions = nginxOptionsFor(opts, ports, cert);
		let nginx = await startNginx(nginxOptions);
		cleanups.push(() => nginx.stop());
		const shared = sharedEnv(pg, redis, secrets.encryptionKey, nginx.url);
		log('Importing the credential and the example workflows...');
		const target = { userFolder: mainFolder, port: ports.main, cert, extraEnv: shared };
		const examples = await importAll(
			target,
			side.sandboxUrl,
			side.apiToken,
			side.calendarKey,
			opts.reimport ?? 'always',
			side.smtpPort,
		);
		const { main, webhooks, workers } = await defineProcesses(
			opts,
			mainFolder,
			ports,
			cert,
			shared,
		);
		await startProcesses({ main, webhooks, workers }, cleanups, log);
		const clients = await ownerClients(main, cert, opts.owner, cleanups);
		const stack: QueueStack = {
			...side,
			url: nginx.url,
			main,
			webhooks,
			workers,
			nginx,
			rest: clients.rest,
			api: clients.api,
			owner: opts.owner,
			examples,
			async restartMain() {
				await main.restart();
				await clients.renew();
				stack.rest = clients.rest;
				stack.api = clients.api;
			},
			async restartWebhooks() {
				await Promise.all(webhooks.map((w) => w.restart()));
			},
			async setBalance(balance) {
				await nginx.stop();
				nginx = await startNginx({ ...nginxOptions, port: nginx.port, balance });
				stack.nginx = nginx;
			},
			webhookRequests: () => webhookRequests(nginx, webhooks),
			executionsByWorker: () => executionsByWorker(workers),
			stop: cleanups.stopAll,
		};
		return stack;
	} catch (e) {
		await cleanups.stopAll();
		throw e;
	}
}
