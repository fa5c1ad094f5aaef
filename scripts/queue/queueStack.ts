/**
 * n8n's queue mode as its docs describe it, for `npm run dev -- --queue`, `npm run test:queue` and the queue
 * benchmark: Postgres + Redis, one main (editor, API, activation), N webhook processes (`n8n webhook`) behind
 * nginx (https), M workers (`n8n worker`), all with one encryption key; plus the sandbox,
 * our package in every process, an owner, an API key, the credential and the examples imported.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSandbox } from '../../sandbox';
import { JsonClient } from '../jsonClient';
import { createApiKey, loginRest, prepare, type Owner } from '../n8n';
import { freePort } from '../proc';
import { importAll, type ExampleWorkflow, type SandboxOptions } from '../stack';
import { executionsByWorker, n8nProcess, type N8nProcess } from './processes';
import { ensureQueuePackages, readAccessLog, startNginx, startPostgres, startRedis, type Nginx, type NginxOptions } from './services';

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

export interface QueueStack {
	/** nginx's https URL: the base of every production webhook URL (N8N_WEBHOOK_URL). */
	url: string;
	main: N8nProcess;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	nginx: Nginx;
	sandbox: Awaited<ReturnType<typeof startSandbox>>;
	sandboxUrl: string;
	apiToken: string;
	adminToken: string;
	admin: JsonClient;
	sandboxApi: JsonClient;
	/** n8n's REST API as the owner and its public API with a key (both through the main; renewed on restart). */
	rest: JsonClient;
	api: JsonClient;
	examples: ExampleWorkflow[];
	calendarKey?: string;
	restartMain(): Promise<void>;
	restartWebhooks(): Promise<void>;
	/** Restarts nginx (same port, same URL) with another balancing of /webhook/. */
	setBalance(balance: NginxOptions['balance']): Promise<void>;
	/** Which webhook process answered each /webhook/ request nginx proxied (by process name), and whether nginx tried another first. */
	webhookRequests(): Array<{ at: number; path: string; status: number; process: string; failedOver: boolean }>;
	executionsByWorker(): Map<string, Set<string>>;
	stop(): Promise<void>;
}

const secret = (bytes = 18) => crypto.randomBytes(bytes).toString('base64url');

function loadSecrets(file: string, opts: QueueStackOptions) {
	if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
	const s = { encryptionKey: secret(24), apiToken: opts.apiToken ?? secret(), adminToken: opts.adminToken ?? secret() };
	fs.writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
	return s;
}

export async function startQueueStack(opts: QueueStackOptions): Promise<QueueStack> {
	const log = opts.log ?? console.log;
	const { pgBin } = ensureQueuePackages(log);
	fs.mkdirSync(opts.dir, { recursive: true });
	const mainFolder = path.join(opts.dir, 'main');
	const { cert } = prepare(mainFolder, log);
	const secrets = loadSecrets(path.join(opts.dir, 'secrets.json'), opts);
	const apiToken: string = opts.apiToken ?? secrets.apiToken;
	const adminToken: string = opts.adminToken ?? secrets.adminToken;
	const cleanups: Array<() => Promise<unknown>> = [];
	const stopAllStarted = async () => {
		for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
	};
	try {
		log('Starting Postgres and Redis...');
		const [pg, redis] = await Promise.all([startPostgres(path.join(opts.dir, 'postgres'), pgBin), startRedis(path.join(opts.dir, 'redis'))]);
		cleanups.push(() => pg.stop(), () => redis.stop());

		const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', tokens: [apiToken], adminToken, seed: 300, seedValue: 1, smtpPort: 0, ...opts.sandbox, ca: cert.cert });
		cleanups.push(() => sandbox.close());
		const admin = new JsonClient(sandbox.url, undefined, { authorization: `Bearer ${adminToken}` });
		const sandboxApi = new JsonClient(sandbox.url, undefined, { authorization: `Bearer ${apiToken}` });
		cleanups.push(() => admin.close(), () => sandboxApi.close());
		const first = await sandboxApi.ok('GET', '/api/v3/appointments/?page_size=1');
		const calendarKey: string | undefined = (first.results ?? first)[0]?.calendar?.calendar_key;

		// Ports first: nginx must know its upstreams, and every process the balancer's URL.
		const nWebhooks = opts.webhookProcesses ?? 2;
		const nWorkers = opts.workers ?? 2;
		const mainPort = await freePort();
		const webhookPorts = await Promise.all(Array.from({ length: nWebhooks }, () => freePort()));
		const workerPorts = await Promise.all(Array.from({ length: nWorkers }, () => freePort()));
		const nginxOptions: NginxOptions = {
			dir: path.join(opts.dir, 'nginx'),
			certPath: cert.certPath,
			keyPath: cert.keyPath,
			webhookUpstreams: webhookPorts.map((p) => `127.0.0.1:${p}`),
			main: `127.0.0.1:${mainPort}`,
			balance: opts.balance ?? 'event',
		};
		let nginx = await startNginx(nginxOptions);
		cleanups.push(() => nginx.stop());

		const shared: Record<string, string> = {
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
			N8N_ENCRYPTION_KEY: secrets.encryptionKey,
			N8N_WEBHOOK_URL: `${nginx.url}/`,
			N8N_PROXY_HOPS: '1',
		};
		log('Importing the credential and the example workflows...');
		const examples = await importAll({ userFolder: mainFolder, port: mainPort, cert, extraEnv: shared }, sandbox.url, apiToken, calendarKey, opts.reimport ?? 'always', sandbox.smtpPort);

		// One installed copy of our package, seen by every process through its user folder.
		const nodesDir = path.join(mainFolder, '.n8n', 'nodes');
		const folderFor = (name: string) => {
			const folder = path.join(opts.dir, name);
			const link = path.join(folder, '.n8n', 'nodes');
			fs.mkdirSync(path.dirname(link), { recursive: true });
			if (!fs.existsSync(link)) fs.symlinkSync(nodesDir, link, 'dir');
			return folder;
		};
		const spec = async (name: string, role: 'main' | 'webhook' | 'worker', port: number, userFolder: string) =>
			n8nProcess({ name, role, port, userFolder, cert, shared, brokerPort: await freePort(), workerConcurrency: opts.workerConcurrency });
		const main = await spec('main', 'main', mainPort, mainFolder);
		const webhooks = await Promise.all(webhookPorts.map((p, i) => spec(`webhook-${i + 1}`, 'webhook', p, folderFor(`webhook-${i + 1}`))));
		const workers = await Promise.all(workerPorts.map((p, i) => spec(`worker-${i + 1}`, 'worker', p, folderFor(`worker-${i + 1}`))));
		const all = [main, ...webhooks, ...workers];
		cleanups.push(() => Promise.all(all.map((p) => p.stop())));

		log(`Starting n8n in queue mode: main, ${nWebhooks} webhook process(es), ${nWorkers} worker(s)...`);
		// The main first: it runs the database migrations the others expect.
		await main.start();
		await Promise.all([...webhooks, ...workers].map((p) => p.start()));

		const clients = (apiKey: string) => {
			const http = new JsonClient(main.url, cert.cert);
			return { http, api: http.withHeaders({ 'X-N8N-API-KEY': apiKey }) };
		};
		let { http } = clients('');
		let rest = await loginRest({ http } as Parameters<typeof loginRest>[0], opts.owner);
		const key = await createApiKey(rest, `queue-${Date.now()}`);
		let api = http.withHeaders({ 'X-N8N-API-KEY': key.key });
		cleanups.push(() => http.close());
		const byUpstream = new Map(webhooks.map((w) => [`127.0.0.1:${w.port}`, w.name]));

		const stack: QueueStack = {
			url: nginx.url,
			main,
			webhooks,
			workers,
			nginx,
			sandbox,
			sandboxUrl: sandbox.url,
			apiToken,
			adminToken,
			admin,
			sandboxApi,
			rest,
			api,
			examples,
			calendarKey,
			async restartMain() {
				await main.restart();
				// Fresh connections: the old ones went with the process. The session cookie stays valid.
				await http.close();
				({ http, api } = clients(key.key));
				rest = await loginRest({ http } as Parameters<typeof loginRest>[0], opts.owner);
				stack.rest = rest;
				stack.api = api;
			},
			async restartWebhooks() {
				for (const w of webhooks) await w.restart();
			},
			async setBalance(balance) {
				await nginx.stop();
				nginx = await startNginx({ ...nginxOptions, port: nginx.port, balance });
				stack.nginx = nginx;
			},
			webhookRequests() {
				return readAccessLog(nginx.accessLog)
					.filter((l) => l.path.startsWith('/webhook/'))
					.map((l) => {
						const [process, ...tried] = l.upstreams.map((u) => byUpstream.get(u) ?? u).reverse();
						return { at: l.at, path: l.path, status: l.status, process, failedOver: tried.length > 0 };
					});
			},
			executionsByWorker: () => executionsByWorker(workers),
			stop: stopAllStarted,
		};
		return stack;
	} catch (e) {
		await stopAllStarted();
		throw e;
	}
}
