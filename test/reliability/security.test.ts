/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers, reads the environment and handles arbitrary JSON from the sandbox and run data */
/**
 * Security properties a user relies on without seeing them:
 * - the access token never shows up in run data, output items, error messages, error descriptions, stacks or logs,
 *   for any operation of the action node, succeeding or failing (bad input, 4xx, 5xx, resets, time-outs);
 * - a `next` link to another origin is refused at node level, and that origin receives nothing (a second server);
 * - non-https webhook URLs are refused by the node (no request) and by the sandbox (400 naming `url`);
 * - the sandbox refuses every API endpoint and method without a valid token, and every admin endpoint without the
 *   admin token, and such a refused request changes nothing;
 * - the package ships no runtime dependency (so there is nothing for `npm audit --omit=dev` to find).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { capturedLogs, runNode, type RunNodeResult } from '../helpers/n8n';
import { pollUntil, receiverCa, startTriggerHarness } from '../helpers/trigger';
import { ADMIN, LIMITED, TestSandbox, TOKEN, visibleTexts } from './common';

let sb: TestSandbox;
const secrets = new Set<string>([TOKEN]);
const seen: string[] = [];

beforeAll(async () => {
	sb = await TestSandbox.start({ seed: 40, seedValue: 5, ca: receiverCa() });
});

afterAll(async () => {
	await sb?.close();
});

async function run(parameters: Record<string, unknown>, opts: { token?: string; continueOnFail?: boolean; input?: any[] } = {}): Promise<RunNodeResult> {
	const token = opts.token ?? TOKEN;
	secrets.add(token);
	const result = await runNode({
		parameters: parameters as IDataObject,
		credentials: { baseUrl: sb.url, accessToken: token },
		continueOnFail: opts.continueOnFail,
		input: opts.input,
	});
	seen.push(...visibleTexts(result));
	return result;
}

describe('the access token never leaks', () => {
	it('across every operation, succeeding and failing, with and without continue-on-fail', async () => {
		await sb.reset(40, 5);
		const [a, b, c] = (await sb.allAppointments()).filter((x) => !String(x.status).startsWith('CANCELED'));
		const hook = (await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/leak', events: ['appointment.created'] })).body;
		const ops: Array<Record<string, unknown>> = [
			{ resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'all', filters: { status: 'CONFIRMED' }, simplify: true },
			{ resource: 'appointment', operation: 'getAll', returnAll: false, limit: 3, dateRange: 'custom', startDate: '2026-01-01T00:00:00', endDate: '2027-01-01T00:00:00', filters: {}, simplify: false },
			{ resource: 'appointment', operation: 'get', appointmentKey: a.appointment_key },
			{ resource: 'appointment', operation: 'get', appointmentKey: '00000000-0000-4000-8000-000000000000' }, // 404
			{ resource: 'appointment', operation: 'get', appointmentKey: '={{ "" }}' }, // bad input
			{ resource: 'appointment', operation: 'updateStatus', appointmentKey: a.appointment_key, status: 'ATTENDED' },
			{ resource: 'appointment', operation: 'updateStatus', appointmentKey: a.appointment_key, status: 'NOT_A_STATUS' },
			{ resource: 'appointment', operation: 'reschedule', appointmentKey: b.appointment_key, startDate: '2030-05-06T07:08:09+02:00' },
			{ resource: 'appointment', operation: 'reschedule', appointmentKey: b.appointment_key, startDate: 'yesterday-ish' },
			{ resource: 'appointment', operation: 'cancel', appointmentKey: c.appointment_key, sendEmail: false },
			{ resource: 'webhook', operation: 'getAll', returnAll: true },
			{ resource: 'webhook', operation: 'create', url: 'https://hooks.test/leak2', events: ['appointment.updated'], otherEvents: 'appointment.moved' }, // 400 from the service (unknown event)
			{ resource: 'webhook', operation: 'create', url: 'http://hooks.test/leak3', events: ['appointment.updated'], otherEvents: '' },
			{ resource: 'webhook', operation: 'update', webhookKey: hook.webhook_key, url: 'https://hooks.test/leak4', events: ['appointment.canceled'], otherEvents: '' },
			{ resource: 'webhook', operation: 'update', webhookKey: 'no-such-webhook', url: 'https://hooks.test/leak5', events: ['appointment.canceled'], otherEvents: '' },
			{ resource: 'webhook', operation: 'delete', webhookKey: hook.webhook_key },
			{ resource: 'webhook', operation: 'delete', webhookKey: hook.webhook_key }, // 404 now
		];
		const faults: Array<Record<string, unknown> | undefined> = [
			undefined,
			{ count: 100, status: 502, body: { detail: 'upstream broke' } },
			{ count: 100, status: 429, retryAfter: '600' },
			{ count: 100, reset: true },
			{ count: 100, status: 400, body: { detail: 'bad', token: 'echo' } },
		];
		let failures = 0;
		for (const fault of faults) {
			await sb.clearFaults();
			if (fault) await sb.fault({ ...fault, match: {} });
			for (const parameters of ops) {
				for (const continueOnFail of [false, true]) {
					const r = await run({ ...parameters, advanced: { maxAttempts: 2, maxRetryWaitSeconds: 2 } }, { continueOnFail });
					if (r.error || JSON.stringify(r.items).includes('"error"')) failures++;
				}
			}
		}
		await sb.clearFaults();
		// with a token the service does not know, and with the restricted one (403 on webhooks)
		for (const token of ['wrong-token-0a9b8c7d6e', LIMITED]) {
			for (const parameters of ops) await run({ ...parameters, advanced: { maxAttempts: 1 } }, { token, continueOnFail: true });
		}
		// a slow answer that times out
		await sb.fault({ count: 2, delayMs: 2500, match: {} });
		await run({ ...ops[2], advanced: { maxAttempts: 2, timeoutSeconds: 1 } });
		expect(failures).toBeGreaterThan(40); // the sweep did look at failures, not only successes
		const everything = [...seen, ...capturedLogs()];
		expect(everything.length).toBeGreaterThan(300);
		for (const secret of secrets) {
			const hits = everything.filter((t) => t.includes(secret) || t.includes(encodeURIComponent(secret)));
			expect({ secret: secret.slice(0, 4) + '…', hits: hits.map((h) => h.slice(0, 300)) }).toEqual({ secret: secret.slice(0, 4) + '…', hits: [] });
		}
	});
});

describe('the access token never leaks from the trigger', () => {
	it('through activation (also failing), deliveries, a failing re-read, deactivation (also failing)', async () => {
		await sb.reset(40, 5);
		const texts: string[] = [];
		const keep = (e: unknown) => texts.push(...visibleTexts({ error: e as Error }));
		const WRONG = 'wrong-trigger-token-6c1d';
		secrets.add(WRONG);
		// a token the service refuses: activation fails with a message, never the token
		const refused = await startTriggerHarness({ credentials: { baseUrl: sb.url, accessToken: WRONG }, parameters: { events: ['appointment.created'], otherEvents: '', options: {} } });
		await expect(refused.activate()).rejects.toThrow(/access token/);
		await refused.activate().catch(keep);
		texts.push(...refused.logs());
		await refused.close();

		const h = await startTriggerHarness({
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			parameters: { events: ['appointment.created', 'appointment.canceled'], otherEvents: '', options: { verifyWithApi: true } },
		});
		try {
			await sb.fault({ count: 2, status: 503, match: { method: 'POST', path: '/api/v3/webhooks/' } });
			await h.activate();
			// a delivered event is re-read with the token; one re-read fails for good (the service redelivers)
			await sb.fault({ count: 6, status: 502, body: { detail: 'upstream broke' }, match: { method: 'GET', path: '/api/v3/appointments/*' } });
			await sb.admin('POST', '/__sandbox/appointments/', {});
			await sb.admin('POST', '/__sandbox/appointments/', {});
			await pollUntil('two workflow starts', () => h.starts.length >= 2, { timeoutMs: 20000 });
			await sb.fault({ count: 10, status: 500, match: { method: 'DELETE', path: '/api/v3/webhooks/*' } });
			await h.deactivate().catch(keep);
			await sb.clearFaults();
			await h.deactivate();
			expect(h.errors.length).toBeGreaterThan(0); // the failed re-read was raised (answered 500)
			for (const e of h.errors) keep(e);
			texts.push(...h.logs(), JSON.stringify(h.starts), JSON.stringify(h.responses), JSON.stringify(h.staticData()));
		} finally {
			await h.close();
		}
		expect(texts.length).toBeGreaterThan(20);
		for (const secret of [TOKEN, WRONG]) {
			const hits = texts.filter((t) => t.includes(secret));
			expect({ secret: secret.slice(0, 4) + '…', hits: hits.map((x) => x.slice(0, 300)) }).toEqual({ secret: secret.slice(0, 4) + '…', hits: [] });
		}
	});
});

describe('pagination links to another origin', () => {
	let other: Server;
	let otherOrigin: string;
	let hits: string[] = [];
	beforeAll(async () => {
		other = createServer((req, res) => {
			hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"count":0,"next":null,"results":[]}');
		});
		await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
		otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise<void>((r) => other.close(() => r()));
	});
	beforeEach(async () => {
		hits = [];
		await sb.reset(130, 5); // more than one page (50)
	});

	it.each([['page'], ['cursor']])('%s pagination: Get Many refuses the link with an error; the other server gets no request', async (pagination) => {
		await sb.config({ pagination, nextLinks: 'absolute', nextOrigin: otherOrigin });
		await sb.clearRequests();
		const r = await run({ resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'all', filters: {}, simplify: true });
		expect(r.error?.message).toMatch(new RegExp(`another origin.*${otherOrigin.replace(/[.:/]/g, '\\$&')}`));
		expect(hits).toEqual([]);
		expect(await sb.requests()).toHaveLength(1); // the first page only
	});

	it('the same with a limit that needs a second page, and for the webhook list', async () => {
		await sb.config({ pagination: 'page', nextLinks: 'absolute', nextOrigin: otherOrigin, webhookList: 'paginated' });
		let r = await run({ resource: 'appointment', operation: 'getAll', returnAll: false, limit: 60, dateRange: 'all', filters: {}, simplify: true });
		expect(r.error?.message).toMatch(/another origin/);
		for (let i = 0; i < 60; i++) await sb.api('POST', 'webhooks/', { url: `https://hooks.test/many/${i}`, events: ['appointment.created'] });
		r = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
		const listed = (r.items[0] ?? []).length;
		// either the list fits one page (nothing to follow) or the link is refused
		if (!r.error) expect(listed).toBe(60);
		else expect(r.error.message).toMatch(/another origin/);
		expect(hits).toEqual([]);
	});
});

describe('redirects to another origin', () => {
	it.each([301, 302, 307, 308])('a %i from the service is not followed: the other origin never sees the token', async (status) => {
		const seenElsewhere: string[] = [];
		const other = createServer((req, res) => {
			seenElsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? '(no authorization)'}`);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[],"next":null}');
		});
		await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
		const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
		const api = createServer((req, res) => {
			res.writeHead(status, { location: `${otherOrigin}${req.url}`, 'content-type': 'application/json' }).end('{}');
		});
		await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
		const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
		try {
			for (const parameters of [
				{ resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'all', filters: {}, simplify: true },
				{ resource: 'appointment', operation: 'updateStatus', appointmentKey: '={{ $json.key }}', status: 'ATTENDED' },
				{ resource: 'webhook', operation: 'create', url: 'https://hooks.test/r', events: ['appointment.created'], otherEvents: '' },
			]) {
				const result = await runNode({ parameters: { ...parameters, advanced: { maxAttempts: 1 } } as IDataObject, credentials: { baseUrl: apiUrl, accessToken: TOKEN }, input: [{ key: randomUUID() }] });
				expect(visibleTexts(result).filter((t) => t.includes(TOKEN))).toEqual([]);
				// a redirect is not a result: the node says what the service answered
				expect(result.error?.message).toMatch(new RegExp(`${status}`));
			}
			expect(seenElsewhere.filter((line) => line.includes(TOKEN))).toEqual([]);
			expect(seenElsewhere).toEqual([]);
		} finally {
			await new Promise<void>((r) => api.close(() => r()));
			await new Promise<void>((r) => other.close(() => r()));
		}
	});
});

describe('webhook URLs other than https', () => {
	const BAD_URLS = ['http://hooks.test/h', 'HTTP://hooks.test/h', 'ftp://hooks.test/h', 'ws://hooks.test/h', 'javascript:alert(1)', 'hooks.test/h', '//hooks.test/h', '', '   ', 'https//hooks.test'];

	it.each(BAD_URLS)('the node refuses %j on create and update before any request, naming the field', async (url) => {
		await sb.reset(40, 5);
		const hook = (await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/keep', events: ['appointment.created'] })).body;
		await sb.clearRequests();
		for (const parameters of [
			// the URL comes from the item, as from an earlier node (a literal empty field would not even run)
			{ resource: 'webhook', operation: 'create', url: '={{ $json.url }}', events: ['appointment.created'], otherEvents: '' },
			{ resource: 'webhook', operation: 'update', webhookKey: hook.webhook_key, url: '={{ $json.url }}', events: ['appointment.created'], otherEvents: '' },
		]) {
			const r = await run(parameters, { input: [{ url }] });
			expect(r.error?.message).toMatch(/^The field "URL" \(item 0\) must /);
		}
		expect(await sb.requests()).toEqual([]);
		expect((await sb.webhooks()).map((w) => w.url)).toEqual(['https://hooks.test/keep']);
	});

	it.each(BAD_URLS)('the sandbox answers 400 naming url to %j on POST and PUT', async (url) => {
		await sb.reset(40, 5);
		const hook = (await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/keep', events: ['appointment.created'] })).body;
		for (const [method, path] of [
			['POST', 'webhooks/'],
			['PUT', `webhooks/${hook.webhook_key}/`],
		]) {
			const res = await sb.api(method, path, { url, events: ['appointment.created'] });
			expect({ method, status: res.status }).toEqual({ method, status: 400 });
			expect(Object.keys(res.body)).toContain('url');
		}
		expect((await sb.webhooks()).map((w) => w.url)).toEqual(['https://hooks.test/keep']);
	});
});

describe('the sandbox API refuses requests without a valid token', () => {
	const KEY = '{key}';
	const WH = '{wh}';
	// every documented endpoint and method, with a body that would be valid
	// (every row has three cells: jest passes a missing one as the test's `done` callback)
	const ENDPOINTS: Array<[string, string, unknown]> = [
		['GET', 'appointments/', undefined],
		['GET', `appointments/${KEY}/`, undefined],
		['PATCH', `appointments/${KEY}/`, { status: 'ATTENDED' }],
		['PATCH', `appointments/${KEY}/reschedule/`, { start_date: '2031-01-02T10:00:00-03:00' }],
		['DELETE', `appointments/${KEY}/?send_email=true`, undefined],
		['GET', 'webhooks/', undefined],
		['POST', 'webhooks/', { url: 'https://hooks.test/intruder', events: ['appointment.created'] }],
		['PUT', `webhooks/${WH}/`, { url: 'https://hooks.test/intruder', events: ['appointment.created'] }],
		['DELETE', `webhooks/${WH}/`, undefined],
	];
	// methods the API does not offer on a path must be refused too (401, or 405 at most), never served
	const OTHER_METHODS: Array<[string, string]> = [
		['POST', 'appointments/'],
		['PUT', `appointments/${KEY}/`],
		['POST', `appointments/${KEY}/reschedule/`],
		['PATCH', 'webhooks/'],
		['DELETE', 'webhooks/'],
		['GET', `webhooks/${WH}/`],
		['PATCH', `webhooks/${WH}/`],
	];
	const CREDENTIALS: Array<[string, Record<string, string>, string?]> = [
		['no Authorization header', {}],
		['a wrong token', { authorization: 'Bearer wrong-token-123' }],
		['the token with a suffix', { authorization: `Bearer ${TOKEN}x` }],
		['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
		['an empty bearer', { authorization: 'Bearer ' }],
		['the scheme alone', { authorization: 'Bearer' }],
		['the token without a scheme', { authorization: TOKEN }],
		['the token as Basic credentials', { authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}` }],
		['the admin token', { authorization: `Bearer ${ADMIN}` }],
		['the token in the query string', {}, `access_token=${TOKEN}&token=${TOKEN}`],
	];
	let key: string;
	let wh: string;
	let before: string;

	beforeAll(async () => {
		await sb.reset(40, 5);
		key = (await sb.allAppointments()).find((a) => a.status === 'CONFIRMED' || a.status === 'PENDING')!.appointment_key;
		wh = (await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/mine', events: ['appointment.created'] })).body.webhook_key;
		before = JSON.stringify({ a: await sb.appointment(key), w: await sb.webhooks(), e: await sb.emails() });
	});

	const fill = (path: string) => path.replace(KEY, key).replace(WH, wh);

	async function call(method: string, path: string, headers: Record<string, string>, query?: string, body?: unknown) {
		const url = `${sb.url}/api/v3/${fill(path)}${query ? (path.includes('?') ? '&' : '?') + query : ''}`;
		const res = await fetch(url, {
			method,
			headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: res.status, text: await res.text(), wwwAuth: res.headers.get('www-authenticate') };
	}

	describe.each(CREDENTIALS)('with %s', (_label, headers, query) => {
		it.each(ENDPOINTS)('%s %s: 401 with a JSON error and no data', async (method, path, body) => {
			const res = await call(method, path, headers, query, body);
			expect({ status: res.status }).toEqual({ status: 401 });
			expect(res.wwwAuth ?? '').toMatch(/^Bearer/i);
			const parsed = JSON.parse(res.text);
			expect(Object.keys(parsed)).toEqual(['detail']);
			expect(res.text).not.toContain(key);
			expect(res.text).not.toContain(wh);
		});
		it.each(OTHER_METHODS)('%s %s: refused, never served', async (method, path) => {
			const res = await call(method, path, headers, query, method === 'GET' ? undefined : {});
			expect([401, 405]).toContain(res.status);
		});
	});

	it('the restricted token reads appointments but gets 403 on every webhook endpoint', async () => {
		expect((await call('GET', 'appointments/', { authorization: `Bearer ${LIMITED}` })).status).toBe(200);
		for (const [method, path, body] of ENDPOINTS.filter(([, p]) => p.startsWith('webhooks/'))) {
			const res = await call(method, path, { authorization: `Bearer ${LIMITED}` }, undefined, body);
			expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
		}
	});

	it('none of the refused requests changed anything', async () => {
		expect(JSON.stringify({ a: await sb.appointment(key), w: await sb.webhooks(), e: await sb.emails() })).toBe(before);
		// and every refused request was logged as not authorized
		const log = await sb.requests();
		expect(log.filter((q) => q.status === 401).length).toBeGreaterThanOrEqual(CREDENTIALS.length * ENDPOINTS.length);
		expect(log.filter((q) => q.status === 401).every((q) => q.authorized !== true)).toBe(true);
	});
});

describe('the sandbox admin API refuses requests without the admin token', () => {
	const ADMIN_ENDPOINTS: Array<[string, string, unknown?]> = [
		['POST', '/__sandbox/appointments/', { status: 'CONFIRMED' }],
		['GET', '/__sandbox/appointments/{key}/'],
		['POST', '/__sandbox/reset/', {}],
		['GET', '/__sandbox/deliveries/'],
		['GET', '/__sandbox/requests/'],
		['DELETE', '/__sandbox/requests/'],
		['GET', '/__sandbox/emails/'],
		['GET', '/__sandbox/webhooks/'],
		['POST', '/__sandbox/faults/', { count: 5, status: 500 }],
		['DELETE', '/__sandbox/faults/'],
		['GET', '/__sandbox/config/'],
		['POST', '/__sandbox/config/', { pagination: 'none' }],
	];
	const NOT_ADMIN: Array<[string, Record<string, string>]> = [
		['no Authorization header', {}],
		['the API token', { authorization: `Bearer ${TOKEN}` }],
		['a wrong token', { authorization: 'Bearer nope' }],
		['the admin token with a suffix', { authorization: `Bearer ${ADMIN}x` }],
		['the admin token without a scheme', { authorization: ADMIN }],
	];
	let key: string;
	beforeAll(async () => {
		await sb.reset(40, 5);
		key = (await sb.allAppointments())[0].appointment_key;
		await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/admin', events: ['appointment.created'] });
	});

	it.each(NOT_ADMIN)('with %s every admin endpoint answers 401/403 and nothing changes', async (_label, headers) => {
		const count = (await sb.allAppointments()).length;
		const hooks = await sb.webhooks();
		for (const [method, path, body] of ADMIN_ENDPOINTS) {
			const res = await fetch(`${sb.url}${path.replace('{key}', key)}`, {
				method,
				headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const text = await res.text();
			expect({ method, path, status: [401, 403].includes(res.status) }).toEqual({ method, path, status: true });
			expect(text).not.toContain(key);
		}
		// no appointment created, no reset (our webhook is still there), no fault installed, config unchanged
		expect((await sb.allAppointments()).length).toBe(count);
		expect(await sb.webhooks()).toEqual(hooks);
		expect((await sb.api('GET', 'webhooks/')).status).toBe(200);
		const cfg = await sb.admin('GET', '/__sandbox/config/');
		expect(cfg.pagination).not.toBe('none');
	});
});

describe('published package', () => {
	// What npm audit --omit=dev would look at: with no runtime dependency there is nothing to audit.
	it('has no runtime dependencies', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json as data
		const pkg = require('../../package.json') as { dependencies?: Record<string, string> };
		expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
	});
});
