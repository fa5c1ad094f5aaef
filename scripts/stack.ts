/**
 * The whole local stack used by `npm run dev` and the e2e suite: a sandbox on loopback that trusts n8n's
 * certificate for its callbacks and runs its local mail sink, and a real n8n (https) with our package, an owner, an
 * API key, the "Appointments API" credential pointing at the sandbox, the "Local mail sink" SMTP credential
 * pointing at the sink, and the example workflows imported.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSandbox } from '../sandbox';
import { JsonClient } from './jsonClient';
import {
	createApiKey,
	deleteApiKey,
	loginRest,
	prepare,
	publicApi,
	startN8n,
	type N8n,
	type Owner,
} from './n8n';
import { n8nCliOk, type CliTarget } from './n8nCli';
import { ROOT } from './paths';
import { freePort } from './proc';

export const CREDENTIAL_ID = 'apptsApiCred01';
export const CREDENTIAL_NAME = 'Appointments API';
export const CREDENTIAL_TYPE = 'appointmentsApi';
export const EXAMPLES_DIR = path.join(ROOT, 'examples');
export const CALENDAR_PLACEHOLDER = 'REPLACE_WITH_YOUR_CALENDAR_KEY';
/** n8n's SMTP credential for the sandbox's mail sink, used by the examples' Send Email nodes. */
export const SMTP_CREDENTIAL_ID = 'mailSinkSmtp001';
export const SMTP_CREDENTIAL_NAME = 'Local mail sink';
export const SMTP_CREDENTIAL_TYPE = 'smtp';

/** The SMTP credential's data (n8n's `smtp` type): the sink on loopback, no TLS, no user. */
export function smtpCredentialData(smtpPort: number) {
	return { user: '', password: '', host: '127.0.0.1', port: smtpPort, secure: false, disableStartTls: true, hostName: '' };
}

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export type SandboxOptions = Parameters<typeof startSandbox>[0];

export interface Stack {
	n8n: N8n;
	sandbox: Sandbox;
	sandboxUrl: string;
	/** The sandbox's mail sink (SMTP on 127.0.0.1); its messages at /__sandbox/mailbox/ and /dashboard/mailbox/. */
	smtpPort: number;
	apiToken: string;
	adminToken: string;
	/** Admin client for the sandbox's /__sandbox/ endpoints. */
	admin: JsonClient;
	/** The sandbox's own API with the full-access token. */
	sandboxApi: JsonClient;
	/** n8n's REST API as the owner (cookie session). */
	rest: JsonClient;
	/** n8n's public API (/api/v1) with an API key. */
	api: JsonClient;
	owner: Owner;
	examples: ExampleWorkflow[];
	/** The calendar the daily report example was imported with. */
	calendarKey?: string;
	stop(): Promise<void>;
}

export interface ExampleWorkflow {
	file: string;
	id: string;
	name: string;
	json: any;
	isTrigger: boolean;
}

export function readExamples(): ExampleWorkflow[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => {
			const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, f), 'utf8'));
			return {
				file: f,
				id: json.id,
				name: json.name,
				json,
				isTrigger: json.nodes.some((n: any) => n.type === 'n8n-nodes-appointments.appointmentsTrigger'),
			};
		});
}

function secret(bytes = 18): string {
	return crypto.randomBytes(bytes).toString('base64url');
}

export interface StackOptions {
	userFolder: string;
	owner: Owner;
	sandbox?: Partial<NonNullable<SandboxOptions>>;
	/** The sandbox's token and admin token (default: fresh random values). */
	apiToken?: string;
	adminToken?: string;
	n8nPort?: number;
	log?: (m: string) => void;
	/** Replace examples whose file changed since the last import (dev) or always (e2e). */
	reimport?: 'changed' | 'always';
}

/**
 * Imports the credentials (the Appointments API pointing at the sandbox, and with `smtpPort` the Local mail sink)
 * and the examples through n8n's CLI, before the server starts.
 */
export async function importAll(
	target: CliTarget,
	sandboxUrl: string,
	apiToken: string,
	calendarKey: string | undefined,
	reimport: 'changed' | 'always',
	smtpPort?: number,
): Promise<ExampleWorkflow[]> {
	const work = path.join(target.userFolder, 'import');
	fs.mkdirSync(work, { recursive: true });
	const credFile = path.join(work, 'credential.json');
	fs.writeFileSync(
		credFile,
		JSON.stringify([
			{
				id: CREDENTIAL_ID,
				name: CREDENTIAL_NAME,
				type: CREDENTIAL_TYPE,
				data: { baseUrl: sandboxUrl, accessToken: apiToken },
			},
			...(smtpPort === undefined ? [] : [{ id: SMTP_CREDENTIAL_ID, name: SMTP_CREDENTIAL_NAME, type: SMTP_CREDENTIAL_TYPE, data: smtpCredentialData(smtpPort) }]),
		]),
		{ mode: 0o600 },
	);
	try {
		await n8nCliOk(target, ['import:credentials', `--input=${credFile}`]);
	} finally {
		fs.rmSync(credFile, { force: true });
	}
	const examples = readExamples();
	const stampFile = path.join(work, 'examples.sha256.json');
	const stamps: Record<string, string> =
		reimport === 'changed' && fs.existsSync(stampFile) ? JSON.parse(fs.readFileSync(stampFile, 'utf8')) : {};
	const todo: any[] = [];
	for (const ex of examples) {
		let text = JSON.stringify(ex.json);
		if (calendarKey) text = text.split(CALENDAR_PLACEHOLDER).join(calendarKey);
		const hash = crypto.createHash('sha256').update(text).digest('hex');
		if (stamps[ex.id] === hash) continue;
		todo.push(JSON.parse(text));
		stamps[ex.id] = hash;
	}
	if (todo.length) {
		const wfFile = path.join(work, 'workflows.json');
		fs.writeFileSync(wfFile, JSON.stringify(todo));
		await n8nCliOk(target, ['import:workflow', `--input=${wfFile}`]);
		fs.rmSync(wfFile, { force: true });
	}
	fs.writeFileSync(stampFile, JSON.stringify(stamps, null, 2));
	return examples;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
	const log = opts.log ?? console.log;
	const { cert } = prepare(opts.userFolder, log);
	const apiToken = opts.apiToken ?? secret();
	const adminToken = opts.adminToken ?? secret();
	const cleanups: Array<() => Promise<unknown>> = [];
	const stopAllStarted = async () => {
		for (const c of cleanups.reverse()) await c().catch(() => undefined);
	};
	try {
		const sandbox = await startSandbox({
			port: 0,
			host: '127.0.0.1',
			tokens: [apiToken],
			adminToken,
			seed: 300,
			seedValue: 1,
			smtpPort: 0,
			...opts.sandbox,
			ca: cert.cert,
		});
		const smtpPort = sandbox.smtpPort!;
		cleanups.push(() => sandbox.close());
		const admin = new JsonClient(sandbox.url, undefined, { authorization: `Bearer ${adminToken}` });
		const sandboxApi = new JsonClient(sandbox.url, undefined, { authorization: `Bearer ${apiToken}` });
		cleanups.push(() => admin.close(), () => sandboxApi.close());

		// One calendar of the seed data for the daily report example.
		const first = await sandboxApi.ok('GET', '/api/v3/appointments/?page_size=1');
		const calendarKey: string | undefined = (first.results ?? first)[0]?.calendar?.calendar_key;

		const port = opts.n8nPort ?? (await freePort());
		log('Importing the credential and the example workflows...');
		const examples = await importAll(
			{ userFolder: opts.userFolder, port, cert },
			sandbox.url,
			apiToken,
			calendarKey,
			opts.reimport ?? 'always',
			smtpPort,
		);
		log('Starting n8n...');
		const n8n = await startN8n({ userFolder: opts.userFolder, port, cert });
		cleanups.push(() => n8n.stop());
		const rest = await loginRest(n8n, opts.owner);
		const key = await createApiKey(rest, `local-${Date.now()}`);
		cleanups.push(() => deleteApiKey(rest, key.id));
		const api = publicApi(n8n, key.key);
		return {
			n8n,
			sandbox,
			sandboxUrl: sandbox.url,
			smtpPort,
			apiToken,
			adminToken,
			admin,
			sandboxApi,
			rest,
			api,
			owner: opts.owner,
			examples,
			calendarKey,
			stop: stopAllStarted,
		};
	} catch (e) {
		await stopAllStarted();
		throw e;
	}
}

/** Activates (publishes) a workflow through the public API. */
export async function activate(api: JsonClient, workflowId: string): Promise<void> {
	await api.ok('POST', `/api/v1/workflows/${workflowId}/activate`);
}

export async function deactivate(api: JsonClient, workflowId: string): Promise<void> {
	await api.ok('POST', `/api/v1/workflows/${workflowId}/deactivate`);
}
