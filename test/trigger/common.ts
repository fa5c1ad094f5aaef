/**
 * Shared set-up of the trigger's integration tests: one sandbox per test file (trusting the harness receiver's
 * certificate, quick delivery retries), admin helpers, and harness creation with the sandbox's credential.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, never shipped: it posts over https like the service */
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';

import type { Sandbox } from '../../sandbox';
import {
	adminRequest,
	asJson,
	sandboxFetch,
	startTestSandbox,
	type Delivery,
	type LoggedRequest,
} from '../helpers/sandbox';
import {
	pollUntil,
	receiverCa,
	startTriggerHarness,
	type TriggerHarness,
	type TriggerHarnessOptions,
} from '../helpers/trigger';

// eslint-disable-next-line @n8n/community-nodes/no-hardcoded-secrets -- a sandbox token made up for these tests
export const TOKEN = 'trigger-test-token-5d2c';
export const LIMITED = 'trigger-limited-token-8e1f';
export const ADMIN = 'trigger-admin-token-3a9b';
export const ALL_EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];

/** Parsed JSON of the sandbox's answers: shapes are checked by the assertions, not by the compiler. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Ctx {
	sb: Sandbox;
	harnesses: TriggerHarness[];
}

export function useSandbox(extra: Record<string, unknown> = {}): Ctx {
	const ctx = { harnesses: [] } as unknown as Ctx;
	beforeAll(async () => {
		ctx.sb = await startTestSandbox(
			{ token: TOKEN, limited: LIMITED, admin: ADMIN },
			{
				seed: 40,
				seedValue: 3,
				ca: receiverCa(),
				retrySchedule: [50, 100, 200, 400],
				deliveryTimeoutMs: 5000,
				...extra,
			},
		);
	});
	afterEach(async () => {
		await Promise.allSettled(ctx.harnesses.splice(0).map((h) => h.close()));
	});
	afterAll(async () => {
		await ctx.sb?.close();
	});
	return ctx;
}

export async function admin<T = Json>(
	ctx: Ctx,
	method: string,
	path: string,
	body?: unknown,
): Promise<T> {
	return await adminRequest<T>(ctx.sb.url, ADMIN, method, path, body);
}

/** The service's API as a client other than the node (the dashboard, another integration). */
export async function api<T = Json>(
	ctx: Ctx,
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; body: T }> {
	const res = await sandboxFetch<T>(`${ctx.sb.url}/api/v3/${path}`, method, TOKEN, asJson(body));
	return { status: res.status, body: res.body };
}

export interface Subscription {
	webhook_key: string;
	url: string;
	events: string[];
}

export async function subscriptions(ctx: Ctx): Promise<Subscription[]> {
	const b: Json = await admin(ctx, 'GET', '/__sandbox/webhooks/');
	return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
}

export async function apiRequests(ctx: Ctx): Promise<LoggedRequest[]> {
	return (await admin(ctx, 'GET', '/__sandbox/requests/')).requests;
}

export async function reset(ctx: Ctx): Promise<void> {
	await admin(ctx, 'POST', '/__sandbox/reset/', { seed: 40, seedValue: 3 });
	await admin(ctx, 'DELETE', '/__sandbox/requests/');
}

export async function harness(
	ctx: Ctx,
	options: Partial<TriggerHarnessOptions> = {},
): Promise<TriggerHarness> {
	const h = await startTriggerHarness({
		credentials: { baseUrl: ctx.sb.url, accessToken: TOKEN },
		parameters: { events: ALL_EVENTS, otherEvents: '', options: {} },
		...options,
	});
	ctx.harnesses.push(h);
	return h;
}

export const sorted = (list: string[]) => [...list].sort();

/** A real HTTPS POST to the receiver (as the service would send it), trusting the harness certificate. */
export function post(
	url: string,
	body: string | Buffer,
	contentType = 'application/json',
): Promise<{ status: number; body: Json }> {
	return new Promise((resolve, reject) => {
		const req = httpsRequest(
			url,
			{
				method: 'POST',
				ca: receiverCa(),
				headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let parsed: unknown = text;
					try {
						parsed = text ? JSON.parse(text) : undefined;
					} catch {
						// not JSON
					}
					resolve({ status: res.statusCode ?? 0, body: parsed });
				});
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

/** A POST whose client gives up before the answer (abort() closes the connection), as a service's callback time-out does. */
export function abortablePost(url: string, body: string): { abort(): void } {
	const req = httpsRequest(url, {
		method: 'POST',
		ca: receiverCa(),
		headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
	});
	req.on('error', () => undefined); // the closed connection's own error: expected
	req.end(body);
	return { abort: () => req.destroy() };
}

/** A promise the test settles itself, to order what the harness does. */
export function signal<T>(): { promise: Promise<T>; resolve(value: T): void } {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => (resolve = r));
	return { promise, resolve };
}

export type { Delivery };

export async function deliveries(ctx: Ctx): Promise<{ pending: number; deliveries: Delivery[] }> {
	return await admin(ctx, 'GET', '/__sandbox/deliveries/');
}

/** A valid notification with a fresh appointment key; `over` replaces envelope fields, `data` fields of data. */
export const envelope = (
	over: Record<string, unknown> = {},
	data: Record<string, unknown> = {},
) => ({
	event: 'appointment.created',
	timestamp: '2026-11-23T10:15:00-03:00',
	data: {
		appointment_key: randomUUID(),
		search_code: 'QX7-204',
		status: 'CONFIRMED',
		start_date: '2026-11-24T09:00:00-03:00',
		calendar: { calendar_key: randomUUID(), name: 'Dr. Ruiz' },
		person: { full_name: 'Marta Quiroga', email: 'marta.quiroga@example.org' },
		...data,
	},
	...over,
});

/** Waits until the sandbox has nothing pending and at least `atLeast` deliveries to `url` succeeded (none gave up). */
export async function settledDeliveries(
	ctx: Ctx,
	url: string,
	atLeast: number,
): Promise<Delivery[]> {
	return await pollUntil(
		`${atLeast} settled deliveries`,
		async () => {
			const d = await deliveries(ctx);
			const mine = d.deliveries.filter((x) => x.url === url);
			const gaveUp = mine.filter((x) => x.gave_up);
			if (gaveUp.length) throw new Error(`deliveries gave up: ${JSON.stringify(gaveUp)}`);
			return d.pending === 0 && mine.filter((x) => x.ok).length >= atLeast ? mine : undefined;
		},
		{ timeoutMs: 20000 },
	);
}

/** The items of every workflow start, in order. */
export const startsOf = (h: TriggerHarness): Json[] =>
	h.starts.map((s) => s.items.map((i) => i.json as Json)).flat();
