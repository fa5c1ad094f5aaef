/**
 * One n8n process of a queue-mode setup (main, webhook or worker) that can be stopped and started again on the
 * same ports, so nginx's upstreams and the subscriptions' URLs stay valid across restarts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DevCert } from '../cert';
import { JsonClient } from '../jsonClient';
import { SetupError } from '../install';
import { n8nEnv } from '../n8n';
import { N8N_BIN, NODE24 } from '../paths';
import { pollUntil, spawnGroup, type Managed } from '../proc';

export type Role = 'main' | 'webhook' | 'worker';

export interface N8nProcess {
	name: string;
	role: Role;
	/** The port n8n serves on (main: https, webhook: http) or the worker's health-check port. */
	port: number;
	/** Where readiness is asked: https://localhost:PORT for the main, http://127.0.0.1:PORT otherwise. */
	url: string;
	userFolder: string;
	logFile: string;
	running(): Managed | undefined;
	start(): Promise<void>;
	stop(): Promise<void>;
	restart(): Promise<void>;
}

export interface ProcessSpec {
	name: string;
	role: Role;
	userFolder: string;
	port: number;
	brokerPort: number;
	cert: DevCert;
	/** Queue-mode environment shared by every process (database, Redis, encryption key, webhook URL). */
	shared: Record<string, string>;
	workerConcurrency?: number;
}

function tail(file: string, bytes = 4000): string {
	try {
		const b = fs.readFileSync(file);
		return b.subarray(Math.max(0, b.length - bytes)).toString('utf8');
	} catch {
		return '(no log)';
	}
}

/** What each role runs with: its own environment on top of the shared one, its n8n command, its readiness URL. */
function roleSetup(spec: ProcessSpec) {
	const { role, port } = spec;
	const own: Record<string, string> =
		role === 'main'
			? // Production webhooks go to the webhook processes only; manual runs are executed by workers too.
				{
					N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
					OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				}
			: role === 'webhook'
				? { N8N_PROTOCOL: 'http' } // nginx terminates https
				: {
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					};
	const env = n8nEnv(spec.userFolder, port, spec.cert, spec.brokerPort, { ...spec.shared, ...own });
	const args =
		role === 'main'
			? ['start']
			: role === 'webhook'
				? ['webhook']
				: ['worker', `--concurrency=${spec.workerConcurrency ?? 10}`];
	const url = role === 'main' ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
	return { env, args, url };
}

function spawnN8n(
	spec: ProcessSpec,
	setup: ReturnType<typeof roleSetup>,
	logFile: string,
): Managed {
	fs.mkdirSync(spec.userFolder, { recursive: true });
	const out = fs.openSync(logFile, 'a');
	const proc = spawnGroup(spec.name, NODE24, [N8N_BIN, ...setup.args], {
		cwd: spec.userFolder,
		env: setup.env,
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	return proc;
}

/** Waits until the process answers /healthz/readiness; stops it and says why when it does not. */
async function waitReady(
	spec: ProcessSpec,
	url: string,
	proc: Managed,
	logFile: string,
): Promise<void> {
	let exitCode: number | null | undefined;
	void proc.exited.then((c) => (exitCode = c));
	const http = new JsonClient(url, spec.cert.cert);
	try {
		await pollUntil(
			`${spec.name} readiness on ${url}/healthz/readiness`,
			async () =>
				(await http.call('GET', '/healthz/readiness', { timeoutMs: 3000 })).status === 200
					? true
					: undefined,
			{
				timeoutMs: 180000,
				intervalMs: 300,
				abort: () =>
					exitCode === undefined
						? undefined
						: new SetupError(
								`${spec.name} exited with code ${exitCode} while starting; ${logFile}:\n${tail(logFile)}`,
							),
			},
		);
	} catch (e) {
		await proc.stop();
		throw e instanceof SetupError
			? e
			: new SetupError(`${(e as Error).message}\n${logFile}:\n${tail(logFile)}`);
	} finally {
		await http.close();
	}
}

export function n8nProcess(spec: ProcessSpec): N8nProcess {
	const setup = roleSetup(spec);
	const logFile = path.join(spec.userFolder, `${spec.name}.log`);
	let current: Managed | undefined;
	const self: N8nProcess = {
		name: spec.name,
		role: spec.role,
		port: spec.port,
		url: setup.url,
		userFolder: spec.userFolder,
		logFile,
		running: () => current,
		async start() {
			// Known before it is ready, so that a stop while it starts stops it.
			const proc = spawnN8n(spec, setup, logFile);
			current = proc;
			try {
				await waitReady(spec, setup.url, proc, logFile);
			} catch (e) {
				current = undefined;
				throw e;
			}
		},
		async stop() {
			const p = current;
			current = undefined;
			await p?.stop(30000);
		},
		async restart() {
			await self.stop();
			await self.start();
		},
	};
	return self;
}

/** Execution ids each worker logged as started ("Worker started execution N (job M)"), by worker name. */
export function executionsByWorker(workers: N8nProcess[]): Map<string, Set<string>> {
	const out = new Map<string, Set<string>>();
	for (const w of workers) {
		const ids = new Set<string>();
		const text = fs.existsSync(w.logFile) ? fs.readFileSync(w.logFile, 'utf8') : '';
		for (const m of text.matchAll(/Worker started execution (\d+)/g)) ids.add(m[1]);
		out.set(w.name, ids);
	}
	return out;
}
