/**
 * The whole local stack used by `npm run dev` and the e2e suite: a sandbox on loopback that trusts n8n's
 * certificate for its callbacks and runs its local mail sink, and a real n8n (https) with our package, an owner, an
 * API key, the "Appointments API" credential pointing at the sandbox, the "Local mail sink" SMTP credential
 * pointing at the sink, and the example workflows imported.
 */
import { importAll, importOverApi, type ExampleWorkflow } from './examples';
import type { JsonClient } from './jsonClient';
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
import { freePort } from './proc';
import {
	Cleanups,
	secret,
	startStackSandbox,
	type SandboxOptions,
	type StackCore,
} from './stackCore';

export {
	CALENDAR_PLACEHOLDER,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	EXAMPLES_DIR,
	SMTP_CREDENTIAL_ID,
	SMTP_CREDENTIAL_NAME,
	SMTP_CREDENTIAL_TYPE,
	importAll,
	readExamples,
	smtpCredentialData,
	type ExampleWorkflow,
} from './examples';
export type { SandboxOptions, StackCore } from './stackCore';

/** The regular stack: one n8n process (SQLite) next to the sandbox. */
export interface Stack extends StackCore {
	n8n: N8n;
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
	/**
	 * 'api': the credentials and examples imported into the started n8n through its APIs (n8n 2.x; a fresh user
	 * folder), which saves the CLI's two n8n boots; default 'cli', before the start (every version, `reimport`).
	 */
	importOver?: 'cli' | 'api';
	/** More environment for n8n (on top of scripts/n8n.ts n8nEnv), e.g. the durable scheduler's variables. */
	env?: Record<string, string>;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
	const log = opts.log ?? console.log;
	const { cert } = prepare(opts.userFolder, log);
	const tokens = { apiToken: opts.apiToken ?? secret(), adminToken: opts.adminToken ?? secret() };
	const cleanups = new Cleanups();
	try {
		const side = await startStackSandbox(tokens, cert.cert, opts.sandbox, cleanups);
		const port = opts.n8nPort ?? (await freePort());
		const target = { userFolder: opts.userFolder, port, cert };
		const overApi = opts.importOver === 'api';
		const importing = 'Importing the credentials and the example workflows';
		let examples: ExampleWorkflow[] = [];
		if (!overApi) {
			log(`${importing} (n8n's CLI)...`);
			examples = await importAll(
				target,
				side.sandboxUrl,
				side.apiToken,
				side.calendarKey,
				opts.reimport ?? 'always',
				side.smtpPort,
			);
		}
		log('Starting n8n...');
		const n8n = await startN8n({ ...target, env: opts.env });
		cleanups.push(() => n8n.stop());
		const rest = await loginRest(n8n, opts.owner);
		const key = await createApiKey(rest, `local-${Date.now()}`);
		cleanups.push(() => deleteApiKey(rest, key.id));
		const api = publicApi(n8n, key.key);
		if (overApi) {
			log(`${importing} (n8n's APIs)...`);
			examples = await importOverApi(
				rest,
				api,
				side.sandboxUrl,
				side.apiToken,
				side.calendarKey,
				side.smtpPort,
			);
		}
		return { ...side, n8n, rest, api, owner: opts.owner, examples, stop: cleanups.stopAll };
	} catch (e) {
		await cleanups.stopAll();
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
