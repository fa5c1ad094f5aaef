/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets, @typescript-eslint/no-explicit-any -- test code, never shipped: timers drive a fake service, the tokens are made up */
/**
 * Issue 10: the nodes against an unfriendly service, the answers it gives: each case is a way a user would get a
 * wrong answer or see part of a secret (Base URL, a 2xx that is not a record, a trickled or huge body, the token in
 * an error, impossible UTC offsets). Each runs the real node in n8n's WorkflowExecute over loopback HTTP against a
 * small fake service. The writes it can make go wrong: hostile.writes.test.ts.
 */
import { poll } from '../helpers/poll';
import { sendJson } from '../helpers/fakeService';
import { visibleTexts } from './common';
import { APPOINTMENT, fake, KEY, OPERATIONS_WITH_ONE_RECORD, run, useFakeService } from './hostile';

useFakeService();

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
		const base = { resource: 'appointment', operation: 'getAll', returnAll: true, dateRange: 'custom', filters: {}, output: 'raw' };
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
