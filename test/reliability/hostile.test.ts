/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets, @typescript-eslint/no-explicit-any -- test code, never shipped: timers drive a fake service, the tokens are made up */
/**
 * Issue 10: the nodes against an unfriendly service. Each case is a way a user would lose data, get a wrong
 * answer or see part of a secret; each runs the real node in n8n's WorkflowExecute over loopback HTTP, against
 * the sandbox where it can misbehave that way and against a small fake service where it cannot.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, type RunNodeResult } from '../helpers/n8n';
import { poll } from '../helpers/poll';
import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { TestSandbox, TOKEN, visibleTexts } from './common';

const KEY = '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e';
const APPOINTMENT = { appointment_key: KEY, search_code: 'AB12', status: 'CONFIRMED', start_date: '2026-03-10T10:00:00-03:00' };
const HOOK_URL = 'https://hooks.test/n8n';
const EVENTS = ['appointment.created'];

let fake: FakeService;

beforeAll(async () => {
	fake = await startFakeService();
});
afterAll(async () => {
	await fake?.close();
});
beforeEach(() => {
	fake.requests.length = 0;
	fake.handle = (_req, res) => sendJson(res, 404, { detail: 'Not found.' });
});

async function run(
	parameters: IDataObject,
	opts: { baseUrl?: string; token?: string; continueOnFail?: boolean; input?: IDataObject[]; settings?: { retryOnFail?: boolean; maxTries?: number; waitBetweenTries?: number } } = {},
): Promise<RunNodeResult> {
	return await runNode({
		parameters: { advanced: { maxRetryWaitSeconds: 1 }, ...parameters },
		credentials: { baseUrl: opts.baseUrl ?? fake.url, accessToken: opts.token ?? TOKEN },
		continueOnFail: opts.continueOnFail,
		input: opts.input,
		settings: opts.settings,
	});
}

const OPERATIONS_WITH_ONE_RECORD: Array<[string, IDataObject]> = [
	['Get', { resource: 'appointment', operation: 'get', appointmentKey: KEY }],
	['Update Status', { resource: 'appointment', operation: 'updateStatus', appointmentKey: KEY, status: 'ATTENDED' }],
	['Reschedule', { resource: 'appointment', operation: 'reschedule', appointmentKey: KEY, startDate: '2026-03-10T11:00:00-03:00' }],
	['Cancel', { resource: 'appointment', operation: 'cancel', appointmentKey: KEY, sendEmail: false }],
	['Webhook Create', { resource: 'webhook', operation: 'create', url: HOOK_URL, events: EVENTS, otherEvents: '' }],
	['Webhook Update', { resource: 'webhook', operation: 'update', webhookKey: 'w1', url: HOOK_URL, events: EVENTS, otherEvents: '' }],
];

describe('1. Base URL', () => {
	it.each([
		['user:password@', (url: string) => url.replace('http://', 'http://user:pw@'), /Base URL must not contain a user name or password/],
		['a query', (url: string) => `${url}?tenant=1`, /Base URL must not contain a query/],
		['a query after /api/v3', (url: string) => `${url}/api/v3/?tenant=1`, /Base URL must not contain a query/],
		['a fragment', (url: string) => `${url}#x`, /Base URL must not contain a fragment/],
	])('with %s fails naming the Base URL; nothing is sent', async (_name, baseUrl, message) => {
		fake.handle = (_req, res) => sendJson(res, 200, APPOINTMENT);
		const r = await run({ resource: 'appointment', operation: 'get', appointmentKey: KEY }, { baseUrl: baseUrl(fake.url) });
		expect(r.error?.message).toMatch(message);
		expect(r.error?.message).not.toContain('pw');
		expect(fake.requests).toEqual([]);
	});
});

describe('2. a 2xx that is not a record is not success', () => {
	const answers: Array<[string, string, string]> = [
		['a proxy login page', 'text/html', '<!doctype html><html><body><form action="/login">Sign in</form></body></html>'],
		['a JSON string', 'application/json', '"ok"'],
		['a number', 'application/json', '42'],
		['a boolean', 'application/json', 'true'],
		['an array', 'application/json', JSON.stringify([APPOINTMENT])],
	];
	for (const [operation, parameters] of OPERATIONS_WITH_ONE_RECORD) {
		it.each(answers)(`${operation}: %s fails as an API error; with Continue On Fail the item is {error}`, async (_what, type, text) => {
			fake.handle = (req, res) => {
				// the webhook list (read before a create, after an update without body) is empty and well formed
				if (req.method === 'GET' && req.path === '/api/v3/webhooks/') return sendJson(res, 200, { results: [] });
				res.writeHead(200, { 'content-type': type }).end(text);
			};
			const r = await run(parameters);
			expect(r.error?.message).toMatch(/^The service answered 200 but the answer was not a JSON object/);
			expect(r.items).toEqual([]);
			const c = await run(parameters, { continueOnFail: true });
			expect(c.items[0]).toHaveLength(1);
			expect(c.items[0][0].json).toEqual({ error: expect.stringMatching(/not a JSON object/) });
		});
	}

	it('an empty 204 still reads the appointment back', async () => {
		fake.handle = (req, res) => {
			if (req.method === 'PATCH') return void res.writeHead(204).end();
			sendJson(res, 200, { ...APPOINTMENT, status: 'ATTENDED' });
		};
		const r = await run(OPERATIONS_WITH_ONE_RECORD[1][1]);
		expect(r.error).toBeUndefined();
		expect(r.items[0][0].json).toMatchObject({ appointment_key: KEY, status: 'ATTENDED' });
		expect(fake.requests.map((q) => q.method)).toEqual(['PATCH', 'GET']);
	});
});

describe('4. the time-out and the size cap cover the whole answer', () => {
	it('a body trickled one byte every 300 ms stops at the time-out', async () => {
		let sent = 0;
		let stoppedBeforeTheEnd = false;
		const total = 200; // 60 s of trickle
		fake.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"appointment_key":"');
			const timer = setInterval(() => {
				if (res.destroyed || res.writableEnded) return;
				if (++sent >= total) {
					clearInterval(timer);
					res.end('"}');
					return;
				}
				res.write('a');
			}, 300);
			res.on('close', () => {
				clearInterval(timer);
				if (sent < total) stoppedBeforeTheEnd = true;
			});
		};
		const r = await run({ resource: 'appointment', operation: 'get', appointmentKey: KEY, advanced: { timeoutSeconds: 1, maxAttempts: 1 } });
		expect(r.error?.message).toMatch(/timed out/);
		await poll('the trickling connection to close', () => stoppedBeforeTheEnd, (v) => v === true, {
			timeoutMs: 10000,
			intervalMs: 50,
			describe: (what) => `waited for ${what}`,
		});
		expect(fake.requests).toHaveLength(1);
		// the node gave up while the service still had most of the body to send
		expect(sent).toBeLessThan(total / 2);
	});

	it('a body over the cap is cut off with a message saying it was too large (not "could not reach")', async () => {
		let written = 0;
		const chunk = Buffer.alloc(1024 * 1024, 'a');
		const total = 200; // MB offered
		fake.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"appointment_key":"x","pad":"');
			const pump = (): void => {
				while (written < total) {
					written++;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
				res.end('"}');
			};
			res.on('error', () => undefined);
			pump();
		};
		const r = await run({ resource: 'appointment', operation: 'get', appointmentKey: KEY, advanced: { maxAttempts: 1 } });
		expect(r.error?.message).toMatch(/answer was too large: more than 64 MB/);
		expect(r.error?.message).not.toMatch(/Could not reach/);
		expect(written).toBeLessThan(total);
	});
});

describe('5. no piece of the token', () => {
	const token = 'tok-3c9a71f0e25b48d6a0c4b1e7d2f95a8';
	function pieces(): string[] {
		const out: string[] = [];
		for (let i = 0; i + 8 <= token.length; i++) out.push(token.slice(i, i + 8));
		return out;
	}
	// Messages were cut at 1000 characters and descriptions at 2000 before redaction: a token straddling a cut
	// showed its first half. A service may also echo only a part of it.
	it.each([
		['straddling the cut of the message', (pad: string) => `${pad.slice(0, 975)} token ${token} was refused`],
		['straddling the cut of the description', (pad: string) => `${pad.slice(0, 1970)} token ${token} was refused`],
		['in part: its first 20 characters', () => `token ${token.slice(0, 20)}... was refused`],
	])('a service echoing the token in an error body, %s: no 8-character piece anywhere', async (_where, detail) => {
		for (const status of [400, 500]) {
			fake.handle = (_req, res) => sendJson(res, status, { detail: detail('x'.repeat(3000)) });
			for (const continueOnFail of [false, true]) {
				const r = await run({ resource: 'appointment', operation: 'get', appointmentKey: KEY, advanced: { maxAttempts: 1 } }, { token, continueOnFail });
				const texts = visibleTexts(r).join('\n');
				expect(texts).toMatch(/refused|rejected|failed/);
				for (const piece of pieces()) expect(texts).not.toContain(piece);
			}
		}
	});
});

describe('6. impossible UTC offsets', () => {
	it.each(['+25:00', '+99:99', '-47:59', '+05:60', '+18:01', '-19:00'])('Reschedule refuses %s naming New Start; nothing sent', async (offset) => {
		const r = await run({ resource: 'appointment', operation: 'reschedule', appointmentKey: KEY, startDate: `2026-03-10T10:00:00${offset}` });
		expect(r.error?.message).toMatch(/^The field "New Start" \(item 0\): .* has a UTC offset that does not exist/);
		expect(fake.requests).toEqual([]);
	});
	it('a custom date range refuses them too, naming the field; +18:00 and -03:00 pass', async () => {
		const base = { resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'custom', filters: {}, simplify: false };
		let r = await run({ ...base, startDate: '2026-03-10T00:00:00+99:99', endDate: '' });
		expect(r.error?.message).toMatch(/"Start Date" \(item 0\): .* UTC offset that does not exist/);
		r = await run({ ...base, startDate: '2026-03-10T00:00:00-03:00', endDate: '2026-03-11T00:00:00-47:59' });
		expect(r.error?.message).toMatch(/"End Date" \(item 0\): .* UTC offset that does not exist/);
		expect(fake.requests).toEqual([]);
		fake.handle = (_req, res) => sendJson(res, 200, { results: [] });
		r = await run({ ...base, startDate: '2026-03-10T00:00:00+18:00', endDate: '2026-03-11T00:00:00-03:00' });
		expect(r.error).toBeUndefined();
		expect(fake.requests).toHaveLength(1);
	});
});

describe('7. Webhook Create adopts only its own subscription', () => {
	it('after a reset, an identical subscription that existed before the POST is not returned as the new one', async () => {
		const list: IDataObject[] = [{ webhook_key: 'someone-elses', url: HOOK_URL, events: EVENTS }];
		let posts = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'GET') return sendJson(res, 200, { results: list });
			if (++posts === 1) return void raw.socket.destroy(); // lost: nothing stored
			const record = { webhook_key: 'ours', ...(JSON.parse(req.body) as IDataObject) };
			list.push(record);
			sendJson(res, 201, record);
		};
		const r = await run({ ...OPERATIONS_WITH_ONE_RECORD[4][1], advanced: { maxRetryWaitSeconds: 2 } });
		expect(r.error).toBeUndefined();
		expect(r.items[0].map((i) => i.json.webhook_key)).toEqual(['ours']);
		expect(posts).toBe(2);
	});
	it('a subscription stored by the POST whose answer was lost is adopted, the older identical one is not', async () => {
		const list: IDataObject[] = [{ webhook_key: 'someone-elses', url: HOOK_URL, events: EVENTS }];
		let posts = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'GET') return sendJson(res, 200, { results: list });
			posts++;
			list.push({ webhook_key: 'ours', ...(JSON.parse(req.body) as IDataObject) });
			raw.socket.destroy(); // stored, answer lost
		};
		const r = await run({ ...OPERATIONS_WITH_ONE_RECORD[4][1], advanced: { maxRetryWaitSeconds: 2 } });
		expect(r.error).toBeUndefined();
		expect(r.items[0].map((i) => i.json.webhook_key)).toEqual(['ours']);
		expect(posts).toBe(1);
	});
});

describe('9. Cancel never e-mails twice (sandbox)', () => {
	let sb: TestSandbox;
	let key: string;
	beforeAll(async () => {
		sb = await TestSandbox.start({ seed: 20, seedValue: 9 });
	});
	afterAll(async () => {
		await sb?.close();
	});
	beforeEach(async () => {
		await sb.reset(20, 9);
		await sb.admin('DELETE', '/__sandbox/emails/');
		const list = await sb.api('GET', 'appointments/?is_cancelled=false');
		key = (list.body.results as Array<{ appointment_key: string }>)[0].appointment_key;
	});
	const cancel = async () =>
		await runNode({
			parameters: { resource: 'appointment', operation: 'cancel', appointmentKey: key, sendEmail: true, advanced: { maxRetryWaitSeconds: 5 } },
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
		});

	it.each([
		['email-again', { reset: true }],
		['email-again', { status: 502 }],
		['not-found', { reset: true }],
		['not-found', { status: 500 }],
	])('repeatCancel %s, the DELETE cancels and then fails (%j): one DELETE, one e-mail, the appointment cancelled', async (repeatCancel, failure) => {
		await sb.config({ repeatCancel });
		await sb.fault({ ...failure, phase: 'after', match: { method: 'DELETE' } });
		await sb.clearRequests();
		const r = await cancel();
		expect(r.error).toBeUndefined();
		expect(r.items[0][0].json).toMatchObject({ appointment_key: key });
		expect((await sb.emails()).filter((e) => e.appointment_key === key)).toHaveLength(1);
		expect((await sb.requests()).filter((q) => q.method === 'DELETE')).toHaveLength(1);
		expect((await sb.api('GET', `appointments/${key}/`)).body.status).toMatch(/^CANCEL/);
	});

	it('a DELETE that failed before it was processed is sent again once the appointment reads as still active', async () => {
		await sb.config({ repeatCancel: 'email-again' });
		await sb.fault({ status: 502, phase: 'before', match: { method: 'DELETE' } });
		await sb.clearRequests();
		const r = await cancel();
		expect(r.error).toBeUndefined();
		expect((await sb.emails()).filter((e) => e.appointment_key === key)).toHaveLength(1);
		expect((await sb.requests()).map((q) => q.method)).toEqual(['DELETE', 'GET', 'DELETE']);
	});
});

describe('9. Cancel: a 404 on the read after an ambiguous DELETE counts as done', () => {
	it('one DELETE, the output says cancelled', async () => {
		let deletes = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'DELETE') {
				deletes++;
				return void raw.socket.destroy(); // processed (the service removes it), answer lost
			}
			sendJson(res, 404, { detail: 'Not found.' });
		};
		const r = await run({ resource: 'appointment', operation: 'cancel', appointmentKey: KEY, sendEmail: true });
		expect(r.error).toBeUndefined();
		expect(r.items[0][0].json).toEqual({ appointment_key: KEY, canceled: true });
		expect(deletes).toBe(1);
		expect(fake.requests.map((q) => q.method)).toEqual(['DELETE', 'GET']);
	});
});

describe('12. one webhook key, one type', () => {
	const record = { webhook_key: 100, url: HOOK_URL, events: EVENTS, created_at: '2026-01-01T00:00:00Z' };
	it('a service with integer keys: Get Many, Create, Update after 204 and Delete all output 100', async () => {
		const list: IDataObject[] = [];
		fake.handle = (req, res) => {
			if (req.method === 'GET') return sendJson(res, 200, list);
			if (req.method === 'POST') {
				list.push({ ...record });
				return sendJson(res, 201, record);
			}
			res.writeHead(204).end();
		};
		const created = await run(OPERATIONS_WITH_ONE_RECORD[4][1]);
		const listed = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
		const updated = await run({ ...OPERATIONS_WITH_ONE_RECORD[5][1], webhookKey: '100' });
		const deleted = await run({ resource: 'webhook', operation: 'delete', webhookKey: '100' });
		for (const r of [created, listed, updated, deleted]) {
			expect(r.error).toBeUndefined();
			expect(r.items[0][0].json.webhook_key).toBe(100);
		}
		expect(updated.items[0][0].json).toEqual(record); // created_at kept: read from the list
	});
	it('Update after a 204 of a subscription the list does not show says why', async () => {
		fake.handle = (req, res) => (req.method === 'GET' ? sendJson(res, 200, []) : void res.writeHead(204).end());
		const r = await run({ ...OPERATIONS_WITH_ONE_RECORD[5][1], webhookKey: '100' });
		expect(r.error?.message).toMatch(/answered 204 without the webhook, and webhook 100 is not in the list, so it cannot be confirmed/);
	});
});

describe('13. field names in 400 messages', () => {
	it('{"errors":[{"field":"events","message":...}]} names the field', async () => {
		fake.handle = (req, res) =>
			req.method === 'GET'
				? sendJson(res, 200, [])
				: sendJson(res, 400, { errors: [{ field: 'events', message: 'Unknown or empty events.' }] });
		const r = await run(OPERATIONS_WITH_ONE_RECORD[4][1]);
		expect(r.error?.message).toBe('The service rejected the request: events: Unknown or empty events.');
	});
});

describe('retries: the node\'s own and n8n\'s Retry On Fail', () => {
	it('Retry On Fail re-runs the node after its own attempts, and the node no longer asks to turn it off', async () => {
		fake.handle = (_req, res) => sendJson(res, 503, { detail: 'busy' });
		const parameters = { resource: 'appointment', operation: 'get', appointmentKey: KEY, advanced: { maxAttempts: 2, maxRetryWaitSeconds: 0.1 } };
		const alone = await run(parameters);
		expect(alone.error?.message).toMatch(/after 2 attempts/);
		expect(fake.requests).toHaveLength(2);
		fake.requests.length = 0;
		const both = await run(parameters, { settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } });
		expect(both.error).toBeDefined();
		expect(fake.requests).toHaveLength(4);
		fake.handle = (_req, res) => sendJson(res, 200, APPOINTMENT);
		const ok = await run(parameters, { settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } });
		const hints = (ok.run.data.resultData.runData.Node[0] as { hints?: Array<{ message: string }> }).hints ?? [];
		expect(ok.error).toBeUndefined();
		expect(hints.map((h) => h.message).join()).not.toMatch(/Retry On Fail/);
	});
});
