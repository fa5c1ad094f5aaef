/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets, @typescript-eslint/no-explicit-any -- test code, never shipped: it reads the environment, uses made-up tokens for a local sandbox, and hands on arbitrary JSON from the sandbox */
/**
 * Shared plumbing of the reliability suite: suite sizes (smaller under `npm test`, full under `npm run test:chaos`,
 * which sets CHAOS_FULL=1), a sandbox on loopback with its admin API, bounded polling, and a collector of every
 * text a user could see (run data, errors, descriptions, logs) for the token-leak sweeps.
 */
import type { SandboxOptions } from '../../sandbox';
import { poll } from '../helpers/poll';
import {
	adminRequest,
	asJson,
	sandboxFetch,
	startTestSandbox,
	type Delivery,
	type LoggedRequest,
	type Sandbox,
} from '../helpers/sandbox';

export const FULL = process.env.CHAOS_FULL === '1';
/** `quick` under `npm test`, `full` under `npm run test:chaos`. */
export function size(quick: number, full: number): number {
	return FULL ? full : quick;
}

export const TOKEN = 'rel-secret-token-5d1c0e9a';
export const ADMIN = 'rel-admin-token-a41f77';
export const LIMITED = 'rel-limited-token-93bd02';

export type { Sandbox };

export type { Delivery, LoggedRequest as RequestLogEntry };

export class TestSandbox {
	constructor(readonly sb: Sandbox) {}

	get url(): string {
		return this.sb.url;
	}

	static async start(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
		const sb = await startTestSandbox(
			{ token: TOKEN, limited: LIMITED, admin: ADMIN },
			{
				seed: 80,
				seedValue: 3,
				retrySchedule: [50, 100, 200],
				deliveryTimeoutMs: 5000,
				...options,
			},
		);
		return new TestSandbox(sb);
	}

	async close(): Promise<void> {
		await this.sb.close();
	}

	/** A request to the sandbox's admin API (`/__sandbox/...`); throws on a 4xx/5xx. */
	async admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		return await adminRequest<T>(this.url, ADMIN, method, path, body);
	}

	/** A request to the service API with the full-access token (or another one); returns status and parsed body. */
	async api<T = any>(
		method: string,
		path: string,
		body?: unknown,
		token: string | undefined = TOKEN,
	): Promise<{ status: number; body: T }> {
		const res = await sandboxFetch<T>(`${this.url}/api/v3/${path}`, method, token, asJson(body));
		return { status: res.status, body: res.body };
	}

	reset(seed = 80, seedValue = 3): Promise<unknown> {
		return this.admin('POST', '/__sandbox/reset/', { seed, seedValue });
	}
	fault(spec: Record<string, unknown>): Promise<unknown> {
		return this.admin('POST', '/__sandbox/faults/', spec);
	}
	clearFaults(): Promise<unknown> {
		return this.admin('DELETE', '/__sandbox/faults/');
	}
	config(spec: Record<string, unknown>): Promise<unknown> {
		return this.admin('POST', '/__sandbox/config/', spec);
	}
	async requests(): Promise<LoggedRequest[]> {
		return (await this.admin<{ requests: LoggedRequest[] }>('GET', '/__sandbox/requests/'))
			.requests;
	}
	clearRequests(): Promise<unknown> {
		return this.admin('DELETE', '/__sandbox/requests/');
	}
	async webhooks(): Promise<Array<{ webhook_key: string; url: string; events: string[] }>> {
		const all = await this.admin<any>('GET', '/__sandbox/webhooks/');
		return Array.isArray(all) ? all : (all.webhooks ?? all.results ?? []);
	}
	async deliveries(): Promise<{ pending: number; deliveries: Delivery[] }> {
		return await this.admin('GET', '/__sandbox/deliveries/');
	}
	async emails(): Promise<Array<{ appointment_key: string; to: string; type: string }>> {
		return (
			await this.admin<{ emails: Array<{ appointment_key: string; to: string; type: string }> }>(
				'GET',
				'/__sandbox/emails/',
			)
		).emails;
	}
	async appointment(key: string): Promise<Record<string, any>> {
		return await this.admin('GET', `/__sandbox/appointments/${key}/`);
	}
	/** Every appointment of the seed (through the API, all pages). */
	async allAppointments(): Promise<Array<Record<string, any>>> {
		const out: Array<Record<string, any>> = [];
		let next: string | null = `${this.url}/api/v3/appointments/?page_size=500`;
		while (next) {
			const res: Response = await fetch(next, { headers: { authorization: `Bearer ${TOKEN}` } });
			const body = (await res.json()) as any;
			if (Array.isArray(body)) return body;
			out.push(...body.results);
			next = body.next ? new URL(body.next, this.url).href : null;
		}
		return out;
	}
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs` with `what`. */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined | false> | T | undefined | false,
	timeoutMs = 10000,
	everyMs = 20,
): Promise<T> {
	return await poll<T>(what, check, (value) => value !== undefined && value !== false, {
		timeoutMs,
		intervalMs: everyMs,
		describe: (w, ms, { lastError }) =>
			`timed out after ${ms} ms waiting for ${w}${lastError ? `: ${String(lastError)}` : ''}`,
	});
}

/** Everything a user could read after a run: run data, error message/description/stack, log lines. */
export function visibleTexts(result: {
	run?: unknown;
	error?: Error;
	logs?: string[];
	items?: unknown;
}): string[] {
	const texts: string[] = [];
	const safe = (v: unknown) => {
		try {
			return (
				JSON.stringify(v, (_k, x) =>
					x instanceof Error ? { ...x, message: x.message, stack: x.stack } : x,
				) ?? ''
			);
		} catch {
			return String(v);
		}
	};
	if (result.run !== undefined) texts.push(safe(result.run));
	if (result.items !== undefined) texts.push(safe(result.items));
	if (result.error) {
		const e = result.error as Error & { description?: unknown; cause?: unknown };
		texts.push(
			e.message,
			String(e.description ?? ''),
			String(e.stack ?? ''),
			safe(e),
			safe(e.cause),
		);
	}
	texts.push(...(result.logs ?? []));
	return texts;
}

/** A Retry-After HTTP-date at least `ms` from now (whole seconds, as the header allows). */
export function httpDateIn(ms: number): string {
	return new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toUTCString();
}
