/**
 * What the regular stack (scripts/stack.ts) and the queue-mode stack (scripts/queue/queueStack.ts) share: the
 * `StackCore` both return (the sandbox, its clients, n8n's clients, the imported examples) and the start of the
 * sandbox with its mail sink, trusting n8n's certificate for its callbacks.
 */
import crypto from 'node:crypto';
import { startSandbox } from '../sandbox';
import type { ExampleWorkflow } from './examples';
import { JsonClient } from './jsonClient';
import type { Owner } from './n8n';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export type SandboxOptions = Parameters<typeof startSandbox>[0];

/** The sandbox side of a stack: the sandbox, its tokens and its clients. */
export interface StackSandbox {
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
	/** One calendar of the seed data, for the daily report example. */
	calendarKey?: string;
}

/** Every stack: the sandbox side, n8n's clients as the owner, the examples imported; `stop` ends all it started. */
export interface StackCore extends StackSandbox {
	/** n8n's REST API as the owner (cookie session). */
	rest: JsonClient;
	/** n8n's public API (/api/v1) with an API key. */
	api: JsonClient;
	owner: Owner;
	examples: ExampleWorkflow[];
	stop(): Promise<void>;
}

export function secret(bytes = 18): string {
	return crypto.randomBytes(bytes).toString('base64url');
}

/** Stops, last started first, what a stack started so far (on failure or on `stop`); each step at most once. */
export class Cleanups {
	private readonly steps: Array<() => Promise<unknown>> = [];
	push(...steps: Array<() => Promise<unknown>>): void {
		this.steps.push(...steps);
	}
	readonly stopAll = async (): Promise<void> => {
		for (const step of this.steps.splice(0).reverse()) await step().catch(() => undefined);
	};
}

/** The sandbox with demo data and its mail sink on loopback, trusting `ca` (n8n's certificate) for callbacks. */
export async function startStackSandbox(
	tokens: { apiToken: string; adminToken: string },
	ca: string,
	options: Partial<NonNullable<SandboxOptions>> | undefined,
	cleanups: Cleanups,
): Promise<StackSandbox> {
	const { apiToken, adminToken } = tokens;
	const sandbox = await startSandbox({
		port: 0,
		host: '127.0.0.1',
		tokens: [apiToken],
		adminToken,
		seed: 300,
		seedValue: 1,
		smtpPort: 0,
		...options,
		ca,
	});
	cleanups.push(() => sandbox.close());
	const admin = new JsonClient(sandbox.url, undefined, { authorization: `Bearer ${adminToken}` });
	const sandboxApi = new JsonClient(sandbox.url, undefined, {
		authorization: `Bearer ${apiToken}`,
	});
	cleanups.push(
		() => admin.close(),
		() => sandboxApi.close(),
	);
	const first = await sandboxApi.ok('GET', '/api/v3/appointments/?page_size=1');
	const calendarKey: string | undefined = (first.results ?? first)[0]?.calendar?.calendar_key;
	return {
		sandbox,
		sandboxUrl: sandbox.url,
		smtpPort: sandbox.smtpPort!,
		apiToken,
		adminToken,
		admin,
		sandboxApi,
		calendarKey,
	};
}
