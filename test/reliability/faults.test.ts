/* eslint-disable @typescript-eslint/no-explicit-any -- records from the sandbox and run data are arbitrary JSON */
/**
 * Every operation of the real Appointments action node (run in n8n-core's WorkflowExecute) against the sandbox
 * while the sandbox injects faults over real HTTP: 429 with Retry-After in seconds and as an HTTP-date, 500, 502,
 * 503, connection resets and answers slower than the node's time-out (Advanced > Timeout). Each operation must end
 * with the right result after its retries, or, once the budget is spent, with an error saying what was tried.
 *
 * test/transport already proves these rules for the transport functions one by one (TransportTestNode): 429 in
 * both forms, 503 on POST, resets, time-outs, budgets, the undoubled create, page 7 of 20, foreign next links.
 * This file proves that the node wires them up for every operation: its Options reach the policy, its errors keep
 * the transport's message, continue-on-fail carries it, and the create of the node never doubles a subscription.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, type RunNodeResult } from '../helpers/n8n';
import { TestSandbox, TOKEN, httpDateIn, visibleTexts, waitFor } from './common';

let sb: TestSandbox;
const seen: string[] = [];

beforeAll(async () => {
	sb = await TestSandbox.start({ seed: 60, seedValue: 11 });
});

afterAll(async () => {
	await sb?.close();
	expect(seen.length).toBeGreaterThan(0);
	for (const text of seen) expect(text).not.toContain(TOKEN);
});

async function run(parameters: Record<string, unknown>, continueOnFail = false): Promise<RunNodeResult> {
	const result = await runNode({ parameters: parameters as IDataObject, credentials: { baseUrl: sb.url, accessToken: TOKEN }, continueOnFail });
	seen.push(...visibleTexts(result));
	return result;
}

const out = (r: RunNodeResult) => (r.items[0] ?? []).map((i) => i.json as Record<string, any>);

const CANCELED = ['CANCELED', 'CANCELED_CLIENT', 'CANCELED_GOOGLE'];
const RESCHEDULE_TO = '2031-03-04T15:30:00-03:00';

interface Fixture {
	keys: { get: string; update: string; reschedule: string; cancel: string };
	webhooks: { update: string; del: string; listed: string[] };
	createUrl: string;
}

/** Fresh seed, two webhooks, and one appointment per mutating operation (not cancelled, so every move is allowed). */
async function prepare(tag: string): Promise<Fixture> {
	await sb.reset(60, 11);
	const all = await sb.allAppointments();
	const open = all.filter((a) => !CANCELED.includes(a.status) && !['ATTENDED', 'NO_SHOW'].includes(a.status));
	expect(open.length).toBeGreaterThan(4);
	const w1 = await sb.api('POST', 'webhooks/', { url: `https://hooks.test/${tag}/one`, events: ['appointment.created'] });
	const w2 = await sb.api('POST', 'webhooks/', { url: `https://hooks.test/${tag}/two`, events: ['appointment.updated'] });
	expect([w1.status, w2.status]).toEqual([201, 201]);
	await sb.clearRequests();
	return {
		keys: { get: open[0].appointment_key, update: open[1].appointment_key, reschedule: open[2].appointment_key, cancel: open[3].appointment_key },
		webhooks: { update: w1.body.webhook_key, del: w2.body.webhook_key, listed: [w1.body.webhook_key, w2.body.webhook_key] },
		createUrl: `https://hooks.test/${tag}/created`,
	};
}

interface Operation {
	name: string;
	method: string;
	/** Path of the request the fault is aimed at. */
	path: (f: Fixture) => string;
	parameters: (f: Fixture) => Record<string, unknown>;
	/** What a user sees when it worked: the output items and the state of the service. */
	verify: (f: Fixture, items: Array<Record<string, any>>) => Promise<void>;
}

const OPERATIONS: Operation[] = [
	{
		name: 'appointment getAll',
		method: 'GET',
		path: () => '/api/v3/appointments/',
		parameters: () => ({ resource: 'appointment', operation: 'getAll', returnAll: false, limit: 7, dateRange: 'all', filters: {}, simplify: false }),
		verify: async (_f, items) => {
			const page = await sb.api<{ results: Array<{ appointment_key: string }> }>('GET', 'appointments/?page_size=7');
			expect(items.map((i) => i.appointment_key)).toEqual(page.body.results.map((a) => a.appointment_key));
		},
	},
	{
		name: 'appointment get',
		method: 'GET',
		path: (f) => `/api/v3/appointments/${f.keys.get}/`,
		parameters: (f) => ({ resource: 'appointment', operation: 'get', appointmentKey: f.keys.get }),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.get);
		},
	},
	{
		name: 'appointment updateStatus',
		method: 'PATCH',
		path: (f) => `/api/v3/appointments/${f.keys.update}/`,
		parameters: (f) => ({ resource: 'appointment', operation: 'updateStatus', appointmentKey: f.keys.update, status: 'ATTENDED' }),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0]).toMatchObject({ appointment_key: f.keys.update, status: 'ATTENDED' });
			expect((await sb.appointment(f.keys.update)).status).toBe('ATTENDED');
		},
	},
	{
		name: 'appointment reschedule',
		method: 'PATCH',
		path: (f) => `/api/v3/appointments/${f.keys.reschedule}/reschedule/`,
		parameters: (f) => ({ resource: 'appointment', operation: 'reschedule', appointmentKey: f.keys.reschedule, startDate: RESCHEDULE_TO }),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.reschedule);
			expect(Date.parse(items[0].start_date)).toBe(Date.parse(RESCHEDULE_TO));
			expect(Date.parse((await sb.appointment(f.keys.reschedule)).start_date)).toBe(Date.parse(RESCHEDULE_TO));
		},
	},
	{
		name: 'appointment cancel',
		method: 'DELETE',
		path: (f) => `/api/v3/appointments/${f.keys.cancel}/`,
		parameters: (f) => ({ resource: 'appointment', operation: 'cancel', appointmentKey: f.keys.cancel, sendEmail: true }),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.cancel);
			expect(CANCELED).toContain((await sb.appointment(f.keys.cancel)).status);
			// one cancellation e-mail, not one per attempt
			expect((await sb.emails()).filter((e) => e.appointment_key === f.keys.cancel)).toHaveLength(1);
		},
	},
	{
		name: 'webhook getAll',
		method: 'GET',
		path: () => '/api/v3/webhooks/',
		parameters: () => ({ resource: 'webhook', operation: 'getAll', returnAll: true }),
		verify: async (_f, items) => expect(items.map((w) => w.webhook_key).sort()).toEqual((await sb.webhooks()).map((w) => w.webhook_key).sort()),
	},
	{
		name: 'webhook create',
		method: 'POST',
		path: () => '/api/v3/webhooks/',
		parameters: (f) => ({ resource: 'webhook', operation: 'create', url: f.createUrl, events: ['appointment.created', 'appointment.canceled'], otherEvents: '' }),
		verify: async (f, items) => {
			const stored = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
			expect(stored).toHaveLength(1);
			expect(items).toHaveLength(1);
			expect(items[0].webhook_key).toBe(stored[0].webhook_key);
			expect([...stored[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		},
	},
	{
		name: 'webhook update',
		method: 'PUT',
		path: (f) => `/api/v3/webhooks/${f.webhooks.update}/`,
		parameters: (f) => ({
			resource: 'webhook',
			operation: 'update',
			webhookKey: f.webhooks.update,
			url: `${f.createUrl}-moved`,
			events: ['appointment.updated'],
			otherEvents: '',
		}),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			const stored = (await sb.webhooks()).find((w) => w.webhook_key === f.webhooks.update);
			expect(stored).toMatchObject({ url: `${f.createUrl}-moved`, events: ['appointment.updated'] });
		},
	},
	{
		name: 'webhook delete',
		method: 'DELETE',
		path: (f) => `/api/v3/webhooks/${f.webhooks.del}/`,
		parameters: (f) => ({ resource: 'webhook', operation: 'delete', webhookKey: f.webhooks.del }),
		verify: async (f, items) => {
			expect(items).toEqual([expect.objectContaining({ deleted: true })]);
			expect((await sb.webhooks()).map((w) => w.webhook_key)).not.toContain(f.webhooks.del);
		},
	},
];

/** Faults a retry must get through. `options` is the node's Advanced collection for that run. */
const FAULTS: Array<{ name: string; spec: () => Record<string, unknown>; options?: Record<string, unknown>; minMs?: number }> = [
	{ name: '429 Retry-After: 1 (seconds)', spec: () => ({ status: 429, retryAfter: '1' }), minMs: 950 },
	{ name: '429 Retry-After as an HTTP-date', spec: () => ({ status: 429, retryAfter: httpDateIn(1500) }), minMs: 1000 },
	{ name: '500', spec: () => ({ status: 500, body: { detail: 'boom' } }) },
	{ name: '502', spec: () => ({ status: 502 }) },
	{ name: '503', spec: () => ({ status: 503 }) },
	{ name: 'connection reset', spec: () => ({ reset: true }) },
	{ name: 'answer slower than the time-out', spec: () => ({ delayMs: 1500 }), options: { timeoutSeconds: 0.5 } },
];

/**
 * The mutations and single reads run at the same time (each fault matches only its operation's request); the two
 * lists run after them, since the create reads the webhook list before it retries and a reschedule reorders the
 * appointment list.
 */
const LISTS = ['webhook getAll', 'appointment getAll'];
function waves(): Operation[][] {
	return [OPERATIONS.filter((o) => !LISTS.includes(o.name)), OPERATIONS.filter((o) => LISTS.includes(o.name))];
}

describe.each(FAULTS)('one fault: $name', (fault) => {
	it('every operation ends with the right result, having sent its request again', async () => {
		const f = await prepare(fault.name.replace(/\W+/g, '-'));
		for (const wave of waves()) {
			await sb.clearRequests();
			for (const op of wave) await sb.fault({ count: 1, ...fault.spec(), match: { method: op.method, path: op.path(f) } });
			const started = Date.now();
			const results = await Promise.all(
				wave.map(async (op) => ({ op, r: await run({ ...op.parameters(f), advanced: { maxAttempts: 4, maxRetryWaitSeconds: 20, ...fault.options } }) })),
			);
			const log = await sb.requests();
			for (const { op, r } of results) {
				if (r.error) throw new Error(`${op.name} under "${fault.name}" failed: ${r.error.message}`);
				await op.verify(f, out(r));
				const sent = log.filter((q) => q.method === op.method && q.path === op.path(f));
				// the failed attempt and the one that worked (a create that may have been stored is checked first);
				// a create that timed out is never sent again: the service may still store it, so the node watches
				// the list and adopts it
				const expected = op.method === 'POST' && fault.options?.timeoutSeconds ? 1 : 2;
				expect({ op: op.name, sent: sent.length }).toEqual({ op: op.name, sent: expected });
			}
			if (fault.minMs) expect(Date.now() - started).toBeGreaterThanOrEqual(fault.minMs);
		}
	});
});

describe('a spent retry budget', () => {
	// `rejected`: the service answered without doing anything (a slow answer may still have been processed)
	const SPENT: Array<{ name: string; spec: Record<string, unknown>; options: Record<string, unknown>; message: RegExp; rejected?: boolean }> = [
		{ name: '502 every time', spec: { status: 502 }, options: { maxAttempts: 3 }, message: /The service failed \(502 Bad Gateway\) after 3 attempts \(waited [\d.]+ s in total; no attempts left\)/, rejected: true },
		{ name: '503 every time', spec: { status: 503 }, options: { maxAttempts: 2 }, message: /The service failed \(503 Service Unavailable\) after 2 attempts/, rejected: true },
		{
			name: '429 asking for more than the budget',
			spec: { status: 429, retryAfter: '90' },
			options: { maxRetryWaitSeconds: 5 },
			message: /rate limiting.*after 1 attempt.*retry after 90 s, more than the 5\.0 s left of the retry budget/,
			rejected: true,
		},
		{ name: 'time-out every time', spec: { delayMs: 1500 }, options: { maxAttempts: 2, timeoutSeconds: 0.5 }, message: /Could not reach the service: the request timed out after 2 attempts/ },
	];
	it.each(SPENT)('$name: every operation fails with an error saying what was tried, also as a continue-on-fail item', async (spent) => {
		const f = await prepare(spent.name.replace(/\W+/g, '-'));
		await sb.fault({ count: 1000, ...spent.spec, match: {} });
		const results = await Promise.all(
			OPERATIONS.map(async (op) => ({ op, r: await run({ ...op.parameters(f), advanced: spent.options }) })),
		);
		for (const { op, r } of results) {
			expect({ op: op.name, message: r.error?.message }).toEqual({ op: op.name, message: expect.stringMatching(spent.message) });
		}
		// the same failure as an item when the node continues on fail
		const continued = await Promise.all(
			OPERATIONS.map(async (op) => ({ op, r: await run({ ...op.parameters(f), advanced: spent.options }, true) })),
		);
		for (const { op, r } of continued) {
			expect({ op: op.name, error: r.error?.message }).toEqual({ op: op.name, error: undefined });
			const items = out(r);
			expect(items).toHaveLength(1);
			expect({ op: op.name, item: String(items[0].error ?? items[0].message ?? '') }).toEqual({ op: op.name, item: expect.stringMatching(spent.message) });
		}
		await sb.clearFaults();
		if (!spent.rejected) return;
		// nothing was changed by the failed runs: no subscription was created, the appointments kept their state
		expect((await sb.webhooks()).filter((w) => w.url === f.createUrl)).toHaveLength(0);
		expect((await sb.appointment(f.keys.update)).status).not.toBe('ATTENDED');
		expect(CANCELED).not.toContain((await sb.appointment(f.keys.cancel)).status);
	});
});

describe('a webhook Create whose answer is lost after the service stored it', () => {
	it.each([
		['timed out (answer slower than Options > Timeout)', { delayMs: 1500 }, { timeoutSeconds: 0.5 }],
		['500 after storing', { status: 500 }, {}],
		['connection reset after storing', { reset: true }, {}],
	])('%s: exactly one subscription, and the node returns it', async (_name, spec, advanced) => {
		const f = await prepare('lost-' + String(_name).slice(0, 10).replace(/\W+/g, '-'));
		await sb.fault({ count: 1, phase: 'after', ...spec, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ ...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f), advanced });
		expect(r.error).toBeUndefined();
		const stored = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
		expect(stored).toHaveLength(1);
		expect(out(r)[0].webhook_key).toBe(stored[0].webhook_key);
		// checked against the list instead of being sent again
		expect((await sb.requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
	});

	it('the same under a batch of creates with concurrency: one subscription per URL', async () => {
		const f = await prepare('batch');
		await sb.fault({ count: 3, phase: 'after', status: 502, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const urls = Array.from({ length: 6 }, (_, i) => `${f.createUrl}/${i}`);
		const r = await runNode({
			parameters: { resource: 'webhook', operation: 'create', url: '={{ $json.url }}', events: ['appointment.updated'], otherEvents: '', advanced: { concurrency: 3 } },
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			input: urls.map((url) => ({ url })),
		});
		seen.push(...visibleTexts(r));
		expect(r.error).toBeUndefined();
		expect(out(r).map((w) => w.url)).toEqual(urls);
		const stored = await sb.webhooks();
		for (const url of urls) expect(stored.filter((w) => w.url === url)).toHaveLength(1);
	});
});

describe('a webhook Create the service processes only after the node gave up waiting', () => {
	it('still leaves exactly one subscription once the late create has gone through', async () => {
		const f = await prepare('late');
		// the service is slow: it stores the subscription 1.5 s after receiving it, the node waits 0.5 s
		await sb.fault({ count: 1, phase: 'before', delayMs: 1500, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ ...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f), advanced: { timeoutSeconds: 0.5 } });
		expect(r.error).toBeUndefined();
		// the late create lands 1.5 s after the service received it: watch until then (and a little longer)
		const received = Date.parse((await sb.requests()).find((q) => q.method === 'POST')!.at!);
		const stored = await waitFor('the late create to be processed', async () => {
			const list = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
			return (list.length > 1 || Date.now() > received + 1500 + 700) && list;
		});
		expect(stored.map((w) => w.webhook_key)).toEqual([out(r)[0].webhook_key]);
	});
});

describe('Get Many over 20 pages whose page 7 fails once', () => {
	it.each([
		['500', { status: 500 }],
		['a reset', { reset: true }],
		['429 with Retry-After: 1', { status: 429, retryAfter: '1' }],
	])('%s: Return All yields every appointment once, page 7 asked twice', async (_name, spec) => {
		await sb.reset(1000, 4); // 20 pages of the default 50
		await sb.clearRequests();
		await sb.fault({ count: 1, ...spec, match: { method: 'GET', path: '/api/v3/appointments/', query: { page: '7' } } });
		const r = await run({ resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'all', filters: {}, simplify: true });
		expect(r.error).toBeUndefined();
		const keys = out(r).map((a) => a.appointment_key ?? a.key);
		expect(keys).toHaveLength(1000);
		expect(new Set(keys).size).toBe(1000);
		const pages = (await sb.requests()).map((q) => String(q.query.page ?? '1'));
		expect(pages.filter((p) => p === '7')).toHaveLength(2);
		for (let p = 1; p <= 20; p++) if (p !== 7) expect({ page: p, asked: pages.filter((x) => x === String(p)).length }).toEqual({ page: p, asked: 1 });
	});
});
