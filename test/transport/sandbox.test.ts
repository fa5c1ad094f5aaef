/**
 * The transport inside n8n-core's WorkflowExecute against the sandbox over real HTTP on loopback:
 * retries (429 in both Retry-After forms, 503, resets, time-outs), budgets, the create that must not double a
 * subscription, every pagination shape, origin checks, mutations, deletes, and the token never leaking.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { runNode, testCredential, type RunNodeResult } from '../helpers/n8n';
import { adminRequest, startTestSandbox, type Sandbox } from '../helpers/sandbox';
import { TransportTestNode } from './transportTestNode';

const TOKEN = 'sbx-secret-token-9f3a7c';
const LIMITED = 'sbx-limited-token-2b8e1d';
const ADMIN = 'sbx-admin-token-77aa';

let sb: Sandbox;
const leaks: string[] = [];

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
	return await adminRequest<T>(sb.url, ADMIN, method, path, body);
}

const fault = (spec: Record<string, unknown>) => admin('POST', '/__sandbox/faults/', spec);
const config = (spec: Record<string, unknown>) => admin('POST', '/__sandbox/config/', spec);
const requests = async () => (await admin<{ requests: Array<{ method: string; path: string; query: any; status: number }> }>('GET', '/__sandbox/requests/')).requests;

async function run(parameters: Record<string, unknown>, extra: { baseUrl?: string; token?: string; input?: any[] } = {}): Promise<RunNodeResult> {
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { ...parameters, policy: JSON.stringify(parameters.policy ?? { baseDelayMs: 50 }) } as never,
		credentials: { baseUrl: extra.baseUrl ?? sb.url, accessToken: extra.token ?? TOKEN },
		input: extra.input,
	});
	leaks.push(JSON.stringify(result.run), ...result.logs);
	if (result.error) {
		leaks.push(result.error.message, String((result.error as any).description ?? ''), JSON.stringify(result.error), String(result.error.stack));
	}
	return result;
}

const records = (r: RunNodeResult) => (r.items[0] ?? []).map((i) => i.json as Record<string, any>);

beforeAll(async () => {
	sb = await startTestSandbox({ token: TOKEN, limited: LIMITED, admin: ADMIN }, { seed: 120, seedValue: 7 });
});

afterAll(async () => {
	await sb?.close();
	// The token must never appear in any run data, error, description or log line captured in this file.
	expect(leaks.length).toBeGreaterThan(10);
	for (const text of leaks) expect(text).not.toContain(TOKEN);
});

beforeEach(async () => {
	await admin('POST', '/__sandbox/reset/', { seed: 120, seedValue: 7 });
	await admin('DELETE', '/__sandbox/requests/');
});

describe('credential test', () => {
	it('passes with the right token for every base URL form, with no double slash', async () => {
		for (const baseUrl of [sb.url, `${sb.url}/`, `${sb.url}/api/v3`, `${sb.url}/api/v3/`]) {
			const result = await testCredential({ baseUrl, accessToken: TOKEN });
			expect(result).toMatchObject({ status: 'OK' });
			expect(result.url).toBe(`${sb.url}/api/v3/webhooks/`);
		}
		expect((await requests()).map((r) => r.path)).toEqual(Array(4).fill('/api/v3/webhooks/'));
	});
	it('tells an invalid token (401) from a token without webhook permission (403)', async () => {
		expect(await testCredential({ baseUrl: sb.url, accessToken: 'wrong-token-xyz' })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/access token is invalid/),
		});
		expect(await testCredential({ baseUrl: sb.url, accessToken: LIMITED })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/lacks permission for webhooks/),
		});
	});
	it('fails on its own for an unreachable host', async () => {
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((r) => closed.close(() => r()));
		const result = await testCredential({ baseUrl: `http://127.0.0.1:${port}`, accessToken: TOKEN });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/ECONNREFUSED|connect/i);
	});
});

describe('errors', () => {
	it('401, 403 and 404 get human messages; 400 joins the field messages', async () => {
		let r = await run({ call: 'listWebhooks' }, { token: 'not-a-token' });
		expect(r.error?.message).toBe('Authorization failed - check the access token');
		r = await run({ call: 'listWebhooks' }, { token: LIMITED });
		expect(r.error?.message).toBe('The access token lacks permission for webhooks');
		r = await run({ call: 'getAppointment', key: 'no-such-key' });
		expect(r.error?.message).toBe('Appointment no-such-key not found');
		r = await run({ call: 'apiRequest', method: 'POST', path: 'webhooks/', body: JSON.stringify({ url: 'https://x.test/h' }) });
		expect(r.error?.message).toMatch(/^The service rejected the request: events: /);
		expect(String((r.error as any).description)).toContain('events');
	});
});

describe('retries', () => {
	it('429 with Retry-After in seconds', async () => {
		await fault({ status: 429, retryAfter: '1', match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const started = Date.now();
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	});
	it('429 with Retry-After as an HTTP-date', async () => {
		const at = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000).toUTCString();
		await fault({ status: 429, retryAfter: at, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const started = Date.now();
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at) - 50);
		expect(Date.now() - started).toBeLessThan(5000);
	});
	it('503 without Retry-After, even for a POST', async () => {
		await fault({ count: 2, status: 503, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/a', events: ['appointment.created'] }) });
		expect(r.error).toBeUndefined();
		const all = await admin<any>('GET', '/__sandbox/webhooks/');
		const list = Array.isArray(all) ? all : all.webhooks ?? all.results;
		expect(list.filter((w: any) => w.url === 'https://hooks.test/a')).toHaveLength(1);
	});
	it('a spent budget gives a clear error saying what was tried', async () => {
		await fault({ count: 50, status: 502, match: { method: 'GET' } });
		const r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { maxAttempts: 4, baseDelayMs: 20, maxWaitMs: 5000 } });
		expect(r.error?.message).toMatch(/^The service failed \(502 Bad Gateway\) after 4 attempts \(waited [\d.]+ s in total; no attempts left\)/);
		expect((await requests()).filter((q) => q.path === '/api/v3/webhooks/')).toHaveLength(4);
	});
	it('a Retry-After beyond the remaining budget fails at once', async () => {
		await fault({ count: 5, status: 429, retryAfter: '120', match: { method: 'GET' } });
		const started = Date.now();
		const r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { maxWaitMs: 10000 } });
		expect(r.error?.message).toMatch(/retry after 120 s, more than the 10 s left of the retry budget/);
		expect(Date.now() - started).toBeLessThan(3000);
		expect(await requests()).toHaveLength(1);
	});
	it('a connection reset is retried', async () => {
		await fault({ reset: true, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
	});
	it('a response slower than the time-out is retried, and the final error says it timed out', async () => {
		await fault({ delayMs: 1500, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		let r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { timeoutMs: 400, baseDelayMs: 20 } });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		await fault({ count: 3, delayMs: 1500, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { timeoutMs: 300, baseDelayMs: 20, maxAttempts: 2 } });
		expect(r.error?.message).toMatch(/^Could not reach the service: the request timed out after 2 attempts/);
	});
});

describe('webhook create is never doubled', () => {
	const listFor = async (url: string) => {
		const all = await admin<any>('GET', '/__sandbox/webhooks/');
		const list = Array.isArray(all) ? all : all.webhooks ?? all.results;
		return list.filter((w: any) => w.url === url);
	};
	it('adopts the subscription a timed-out create stored', async () => {
		await fault({ phase: 'after', delayMs: 1500, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({
			call: 'createWebhook',
			body: JSON.stringify({ url: 'https://hooks.test/t', events: ['appointment.created', 'appointment.canceled'] }),
			policy: { timeoutMs: 500, baseDelayMs: 20 },
		});
		expect(r.error).toBeUndefined();
		const stored = await listFor('https://hooks.test/t');
		expect(stored).toHaveLength(1);
		expect(records(r)[0].webhook_key).toBe(stored[0].webhook_key);
		expect((await requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
	});
	it('adopts after a 500 or a reset that came after the service stored it', async () => {
		await fault({ phase: 'after', status: 500, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		let r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/u', events: ['appointment.updated'] }) });
		expect(r.error).toBeUndefined();
		expect(await listFor('https://hooks.test/u')).toHaveLength(1);
		await fault({ phase: 'after', reset: true, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/v', events: ['appointment.updated'] }) });
		expect(r.error).toBeUndefined();
		expect(await listFor('https://hooks.test/v')).toHaveLength(1);
	});
	it('sends the create again when the failed attempt stored nothing', async () => {
		await fault({ phase: 'before', status: 500, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/w', events: ['appointment.updated'] }) });
		expect(r.error).toBeUndefined();
		expect(await listFor('https://hooks.test/w')).toHaveLength(1);
		expect((await requests()).filter((q) => q.method === 'POST')).toHaveLength(2);
	});
	it('refuses an http URL and empty events before any request', async () => {
		let r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'http://hooks.test/x', events: ['appointment.created'] }) }, { input: [{}, {}] });
		expect(r.error?.message).toBe('The field "URL" (item 0) must use https: the service only accepts HTTPS callback URLs (got "http://hooks.test/x")');
		r = await run({ call: 'updateWebhook', key: 'k', body: JSON.stringify({ url: 'https://hooks.test/x', events: [] }) });
		expect(r.error?.message).toBe('The field "Events" (item 0) must list at least one event');
		expect(await requests()).toHaveLength(0);
	});
});

describe('webhook delete', () => {
	it('treats 404 as success only when asked, or when a failed first attempt did the delete', async () => {
		const created = records(await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/d', events: ['appointment.created'] }) }))[0];
		let r = await run({ call: 'deleteWebhook', key: 'gone-key' });
		expect(r.error?.message).toBe('Webhook gone-key not found');
		r = await run({ call: 'deleteWebhook', key: 'gone-key', notFoundIsSuccess: true });
		expect(records(r)[0]).toEqual({ deleted: true, webhook_key: 'gone-key', alreadyGone: true });
		await fault({ phase: 'after', status: 500, match: { method: 'DELETE' } });
		r = await run({ call: 'deleteWebhook', key: created.webhook_key });
		expect(records(r)[0]).toEqual({ deleted: true, webhook_key: created.webhook_key, alreadyGone: true });
	});
});

describe('pagination', () => {
	async function all(extra: Record<string, unknown> = {}) {
		const r = await run({ call: 'paginate', path: 'appointments/', ...extra });
		expect(r.error).toBeUndefined();
		return records(r);
	}
	it('returns the same complete, duplicate-free set for page, cursor and none, absolute and relative links', async () => {
		await config({ pagination: 'none' });
		const reference = (await all()).map((a) => a.appointment_key).sort();
		expect(reference).toHaveLength(120);
		for (const pagination of ['page', 'cursor']) {
			for (const nextLinks of ['absolute', 'relative']) {
				await config({ pagination, nextLinks });
				const keys = (await all({ qs: JSON.stringify({ page_size: 25 }) })).map((a) => a.appointment_key);
				expect(new Set(keys).size).toBe(keys.length);
				expect([...keys].sort()).toEqual(reference);
			}
		}
	});
	it('stops at the limit without fetching pages it does not need', async () => {
		await config({ pagination: 'page' });
		let r = await all({ limit: 7 });
		expect(r).toHaveLength(7);
		expect(await requests()).toHaveLength(1);
		await admin('DELETE', '/__sandbox/requests/');
		r = await all({ limit: 60 });
		expect(r).toHaveLength(60);
		expect(await requests()).toHaveLength(2); // default page size 50
	});
	it('a failing page 7 of 20 is retried: no page missing or doubled', async () => {
		await config({ pagination: 'page' });
		await fault({ status: 500, match: { method: 'GET', path: '/api/v3/appointments/', query: { page: '7' } } });
		const keys = (await all({ qs: JSON.stringify({ page_size: 6 }) })).map((a) => a.appointment_key);
		expect(keys).toHaveLength(120);
		expect(new Set(keys).size).toBe(120);
		const pages = (await requests()).map((q) => String(q.query?.page ?? '1'));
		expect(pages.filter((p) => p === '7')).toHaveLength(2);
		for (let p = 1; p <= 20; p++) if (p !== 7) expect(pages.filter((x) => x === String(p))).toHaveLength(1);
	});
	it('caps the page count with an error when more remain', async () => {
		await config({ pagination: 'page' });
		const r = await run({ call: 'paginate', path: 'appointments/', maxPages: 3, qs: JSON.stringify({ page_size: 10 }) });
		expect(r.error?.message).toMatch(/Stopped after 3 pages/);
		expect(await requests()).toHaveLength(3);
	});
	it('refuses a next link to another origin and sends nothing there', async () => {
		let hits = 0;
		const other: Server = createServer((req, res) => {
			hits++;
			res.end('{}');
		});
		await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
		try {
			const origin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
			await config({ pagination: 'page', nextLinks: 'absolute', nextOrigin: origin });
			const r = await run({ call: 'paginate', path: 'appointments/', qs: JSON.stringify({ page_size: 10 }) });
			expect(r.error?.message).toBe(
				`Refusing to follow a pagination link to another origin (${origin}); only ${sb.url} is allowed`,
			);
			expect(hits).toBe(0);
			expect(await requests()).toHaveLength(1);
		} finally {
			await new Promise<void>((r) => other.close(() => r()));
		}
	});
	it('reads a bare-array webhook list and a paginated one alike', async () => {
		for (const url of ['https://hooks.test/1', 'https://hooks.test/2', 'https://hooks.test/3']) {
			await run({ call: 'createWebhook', body: JSON.stringify({ url, events: ['appointment.created'] }) });
		}
		for (const webhookList of ['array', 'paginated']) {
			await config({ webhookList });
			const r = await run({ call: 'listWebhooks' });
			expect(records(r).map((w) => w.url).sort()).toEqual(['https://hooks.test/1', 'https://hooks.test/2', 'https://hooks.test/3']);
		}
	});
});

describe('mutations', () => {
	it('returns the record from the body, or reads it back after a 204', async () => {
		const key = records(await run({ call: 'paginate', path: 'appointments/', limit: 1 }))[0].appointment_key;
		for (const mutationResponse of ['body', 'empty']) {
			await config({ mutationResponse });
			await admin('DELETE', '/__sandbox/requests/');
			const r = await run({
				call: 'mutateAppointment',
				method: 'PATCH',
				path: `appointments/${key}/`,
				key,
				body: JSON.stringify({ status: 'ATTENDED' }),
			});
			expect(r.error).toBeUndefined();
			expect(records(r)[0]).toMatchObject({ appointment_key: key, status: 'ATTENDED' });
			const methods = (await requests()).map((q) => q.method);
			expect(methods).toEqual(mutationResponse === 'body' ? ['PATCH'] : ['PATCH', 'GET']);
		}
	});
	it('repeats an idempotent PATCH after a 502', async () => {
		const key = records(await run({ call: 'paginate', path: 'appointments/', limit: 1 }))[0].appointment_key;
		await fault({ status: 502, phase: 'after', match: { method: 'PATCH' } });
		const r = await run({ call: 'mutateAppointment', method: 'PATCH', path: `appointments/${key}/`, key, body: JSON.stringify({ status: 'NO_SHOW' }) });
		expect(records(r)[0]).toMatchObject({ appointment_key: key, status: 'NO_SHOW' });
	});
});
