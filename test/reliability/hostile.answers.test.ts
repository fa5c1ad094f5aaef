/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets, @typescript-eslint/no-explicit-any -- test code, never shipped: timers drive a fake service, the tokens are made up */
/**
 * Issue 10: the nodes against an unfriendly service, the answers it gives: each case is a way a user would get a
 * wrong answer or see part of a secret (Base URL, a 2xx that is not a record, a trickled or huge body, the token in
 * an error, impossible UTC offsets). Each runs the real node in n8n's WorkflowExecute over loopback HTTP against a
 * small fake service. The writes it can make go wrong: hostile.writes.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { poll } from '../helpers/poll';
import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { visibleTexts } from './common';
import {
	APPOINTMENT,
	EVENTS,
	fake,
	HOOK_URL,
	KEY,
	OPERATIONS_WITH_ONE_RECORD,
	run,
	useFakeService,
} from './hostile';

useFakeService();

describe('1. Base URL', () => {
	it.each([
		[
			'user:password@',
			(url: string) => url.replace('http://', 'http://user:pw@'),
			/Base URL must not contain a user name or password/,
		],
		['a query', (url: string) => `${url}?tenant=1`, /Base URL must not contain a query/],
		[
			'a query after /api/v3',
			(url: string) => `${url}/api/v3/?tenant=1`,
			/Base URL must not contain a query/,
		],
		['a fragment', (url: string) => `${url}#x`, /Base URL must not contain a fragment/],
	])('with %s fails naming the Base URL; nothing is sent', async (_name, baseUrl, message) => {
		fake.handle = (_req, res) => sendJson(res, 200, APPOINTMENT);
		const r = await run(
			{ resource: 'appointment', operation: 'get', appointmentKey: KEY },
			{ baseUrl: baseUrl(fake.url) },
		);
		expect(r.error?.message).toMatch(message);
		expect(r.error?.message).not.toContain('pw');
		expect(fake.requests).toEqual([]);
	});
});

describe('2. a 2xx that is not a record is not success', () => {
	const answers: Array<[string, string, string]> = [
		[
			'a proxy login page',
			'text/html',
			'<!doctype html><html><body><form action="/login">Sign in</form></body></html>',
		],
		['a JSON string', 'application/json', '"ok"'],
		['a number', 'application/json', '42'],
		['a boolean', 'application/json', 'true'],
		['an array', 'application/json', JSON.stringify([APPOINTMENT])],
	];
	for (const [operation, parameters] of OPERATIONS_WITH_ONE_RECORD) {
		it.each(answers)(
			`${operation}: %s fails as an API error; with Continue On Fail the item is {error}`,
			async (_what, type, text) => {
				fake.handle = (req, res) => {
					// the webhook list (read before a create, after an update without body) is empty and well formed
					if (req.method === 'GET' && req.path === '/api/v3/webhooks/')
						return sendJson(res, 200, { results: [] });
					res.writeHead(200, { 'content-type': type }).end(text);
				};
				const r = await run(parameters);
				expect(r.error?.message).toMatch(
					/^The service answered 200 but the answer was not a JSON object/,
				);
				expect(r.items).toEqual([]);
				const c = await run(parameters, { continueOnFail: true });
				expect(c.items[0]).toHaveLength(1);
				expect(c.items[0][0].json).toEqual({ error: expect.stringMatching(/not a JSON object/) });
			},
		);
	}

	const appointmentOperations = OPERATIONS_WITH_ONE_RECORD.slice(0, 4);
	it.each(appointmentOperations)(
		'%s: a JSON object that is not the appointment (`{}`, another appointment) is an API error, never the output',
		async (_operation, parameters) => {
			const partial = { appointment_key: KEY, status: 'CONFIRMED' }; // a read without start_date; a change may answer so
			const answers: Array<[object, RegExp]> = [
				[{ detail: 'ok' }, /is not that appointment \(no appointment_key\)/],
				[
					{ ...APPOINTMENT, appointment_key: 'another-appointment' },
					/is not that appointment \(the appointment_key of another appointment\)/,
				],
				// Its own record, unusable: the error says what is wrong with it, not "not that appointment".
				...(/Update|Reschedule/.test(_operation)
					? []
					: ([
							[partial, /record of appointment .* cannot be used: its start_date is missing/],
							[
								{ ...APPOINTMENT, status: null },
								/record of appointment .* cannot be used: its status is null/,
							],
						] as Array<[object, RegExp]>)),
			];
			for (const [answer, message] of answers) {
				fake.handle = (_req, res) => sendJson(res, 200, answer);
				const r = await run(parameters);
				expect(r.error?.message).toMatch(message);
				expect(r.items).toEqual([]);
			}
		},
	);

	it('JSON after a byte-order mark and inside white space is read as JSON: Get and a Get Many page', async () => {
		const padded = (value: unknown) => `\uFEFF\r\n ${JSON.stringify(value)} \n\t`;
		fake.handle = (req, res) => {
			const body =
				req.path === '/api/v3/appointments/'
					? { count: 1, next: null, results: [APPOINTMENT] }
					: APPOINTMENT;
			res.writeHead(200, { 'content-type': 'application/json' }).end(padded(body));
		};
		const get = await run({
			resource: 'appointment',
			operation: 'get',
			appointmentKey: KEY,
			output: 'raw',
		});
		const getMany = await run({
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'all',
			output: 'raw',
		});
		expect([get.error, getMany.error]).toEqual([undefined, undefined]);
		expect(get.items[0].map((item) => item.json)).toEqual([APPOINTMENT]);
		expect(getMany.items[0].map((item) => item.json)).toEqual([APPOINTMENT]);
	});

	const op = (name: string) => OPERATIONS_WITH_ONE_RECORD.find(([n]) => n === name)![1];
	const notAWebhook: Array<[string, IDataObject]> = [
		['an empty object', {}],
		['a message', { detail: 'Created.' }],
		['a list', { count: 0, results: [] }],
		['the subscription without its key', { url: HOOK_URL, events: EVENTS }],
	];
	it.each(notAWebhook)(
		'Webhook Create and Update: %s is not taken for the subscription; the list decides',
		async (_what, answer) => {
			const listed: IDataObject[] = [];
			fake.handle = (req, res) => {
				if (req.method === 'GET') return sendJson(res, 200, { results: listed });
				sendJson(res, req.method === 'POST' ? 201 : 200, answer);
			};
			for (const name of ['Webhook Create', 'Webhook Update']) {
				const r = await run(op(name));
				expect({ name, error: r.error?.message }).toEqual({
					name,
					error: expect.stringMatching(/so it cannot be confirmed$/),
				});
			}
			// the list shows it: that is the result
			listed.push({
				webhook_key: 'w1',
				url: HOOK_URL,
				events: EVENTS,
				created_at: '2026-03-10T10:00:00-03:00',
			});
			for (const name of ['Webhook Update']) {
				const r = await run(op(name));
				expect(r.items[0].map((i) => i.json)).toEqual(listed);
			}
			listed.length = 0;
			let posted = false;
			fake.handle = (req, res) => {
				if (req.method === 'GET')
					return sendJson(res, 200, {
						results: posted ? [{ webhook_key: 'new', url: HOOK_URL, events: EVENTS }] : [],
					});
				posted = true;
				sendJson(res, 201, answer);
			};
			const created = await run(op('Webhook Create'));
			expect(created.items[0].map((i) => i.json.webhook_key)).toEqual(['new']);
		},
	);

	it.each(answers.slice(0, 4))(
		'Webhook Delete: %s is not reported as deleted',
		async (_what, type, text) => {
			fake.handle = (req, res) => {
				if (req.method === 'GET')
					return sendJson(res, 200, {
						results: [{ webhook_key: 'w1', url: HOOK_URL, events: EVENTS }],
					});
				res.writeHead(200, { 'content-type': type }).end(text);
			};
			const r = await run({ resource: 'webhook', operation: 'delete', webhookKey: 'w1' });
			expect(r.error?.message).toMatch(
				/^The service answered 200 but the answer was not a JSON object/,
			);
			expect(r.items).toEqual([]);
		},
	);

	it.each([
		[
			'Get Many',
			{
				resource: 'appointment',
				operation: 'getAll',
				returnAll: true,
				dateRange: 'all',
				filters: {},
				simplify: false,
			},
			'appointment_key',
			'an appointment',
		],
		[
			'Webhook Get Many',
			{ resource: 'webhook', operation: 'getAll', returnAll: true },
			'webhook_key',
			'a webhook subscription',
		],
	] as Array<[string, IDataObject, string, string]>)(
		'%s: a listed object without its key is not an item',
		async (_name, parameters, key, noun) => {
			for (const odd of [{}, { detail: 'Throttled.' }, { [key]: null, url: HOOK_URL }]) {
				fake.handle = (_req, res) =>
					sendJson(res, 200, {
						count: 2,
						next: null,
						results: [{ ...APPOINTMENT, webhook_key: 'w1' }, odd],
					});
				const r = await run(parameters);
				expect(r.error?.message).toBe(
					`The service's list answer held a record without ${key} at position 2 of page 1, so it is not ${noun}`,
				);
				expect(r.items).toEqual([]);
			}
		},
	);

	it('a change answered with something that is not the appointment is read back', async () => {
		fake.handle = (req, res) =>
			req.method === 'PATCH'
				? sendJson(res, 200, { detail: 'updated' })
				: sendJson(res, 200, { ...APPOINTMENT, status: 'ATTENDED' });
		const r = await run(OPERATIONS_WITH_ONE_RECORD[1][1]);
		expect(r.items[0][0].json).toEqual({ ...APPOINTMENT, status: 'ATTENDED' });
		expect(fake.requests.map((q) => q.method)).toEqual(['PATCH', 'GET']);
	});

	it('Get Many: a 200 with an empty body is not an empty list (a 204 is)', async () => {
		const parameters = {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'all',
			filters: {},
			simplify: false,
		};
		fake.handle = (_req, res) =>
			void res.writeHead(200, { 'content-type': 'application/json' }).end();
		const r = await run(parameters);
		expect(r.error?.message).toMatch(/^Unexpected list response from the service/);
		expect(r.items).toEqual([]);
		fake.handle = (_req, res) => void res.writeHead(204).end();
		const empty = await run(parameters);
		expect(empty.error).toBeUndefined();
		expect(empty.items[0]).toEqual([]);
	});

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
	// at the same time as the rest of the file (its second of waiting overlaps them), on a fake service of its own
	it.concurrent('a body trickled one byte every 300 ms stops at the time-out', async () => {
		const own = await startFakeService();
		try {
			await trickled(own);
		} finally {
			await own.close();
		}
	});

	async function trickled(own: FakeService): Promise<void> {
		let sent = 0;
		let stoppedBeforeTheEnd = false;
		const total = 200; // 60 s of trickle
		own.handle = (_req, res) => {
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
		const r = await run(
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: KEY,
				advanced: { timeoutSeconds: 1, maxAttempts: 1 },
			},
			{ baseUrl: own.url, nodeTypeVersion: 3 },
		);
		expect(r.error?.message).toMatch(/timed out/);
		await poll(
			'the trickling connection to close',
			() => stoppedBeforeTheEnd,
			(v) => v === true,
			{
				timeoutMs: 10000,
				intervalMs: 50,
				describe: (what) => `waited for ${what}`,
			},
		);
		expect(own.requests).toHaveLength(1);
		// the node gave up while the service still had most of the body to send
		expect(sent).toBeLessThan(total / 2);
	}

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
		const r = await run({
			resource: 'appointment',
			operation: 'get',
			appointmentKey: KEY,
			advanced: { maxAttempts: 1 },
		});
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
		[
			'straddling the cut of the message',
			(pad: string) => `${pad.slice(0, 975)} token ${token} was refused`,
		],
		[
			'straddling the cut of the description',
			(pad: string) => `${pad.slice(0, 1970)} token ${token} was refused`,
		],
		['in part: its first 20 characters', () => `token ${token.slice(0, 20)}... was refused`],
	])(
		'a service echoing the token in an error body, %s: no 8-character piece anywhere',
		async (_where, detail) => {
			for (const status of [400, 500]) {
				fake.handle = (_req, res) => sendJson(res, status, { detail: detail('x'.repeat(3000)) });
				for (const continueOnFail of [false, true]) {
					const r = await run(
						{
							resource: 'appointment',
							operation: 'get',
							appointmentKey: KEY,
							advanced: { maxAttempts: 1 },
						},
						{ token, continueOnFail },
					);
					const texts = visibleTexts(r).join('\n');
					expect(texts).toMatch(/refused|rejected|failed/);
					for (const piece of pieces()) expect(texts).not.toContain(piece);
				}
			}
		},
	);
});

describe('5b. no piece of the token in what the service sends back, whatever the text it hides in', () => {
	// mixed case and characters a URL encodes: the echo may be raw, percent-encoded (any hex case) or lower-cased
	const tokens = ['tok-3c9a71f0e25b48d6a0c4b1e7d2f95a8', 'Qx7+Lm/Zr9=Tb2~Kv*Wn!Pe4(Hs)Jd'];
	const encoded = (t: string) =>
		encodeURIComponent(t).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
	const lowerHex = (t: string) => encoded(t).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
	const hostLabel = (t: string) => t.replace(/[^A-Za-z0-9-]/g, '-');

	/** Every 8-character piece of the token found in the text, as written, decoded or lower-cased. */
	function leaks(text: string, token: string): string[] {
		const forms = [text, text.toLowerCase()];
		try {
			forms.push(decodeURIComponent(text), decodeURIComponent(text).toLowerCase());
		} catch {
			forms.push(
				text.replace(/%([0-9a-f]{2})/gi, (_e, h: string) => String.fromCharCode(parseInt(h, 16))),
			);
		}
		const found: string[] = [];
		for (let i = 0; i + 8 <= token.length; i++) {
			const piece = token.slice(i, i + 8);
			if (forms.some((f) => f.includes(piece) || f.includes(piece.toLowerCase())))
				found.push(piece);
		}
		return found;
	}

	const record = (n: number) => ({
		...APPOINTMENT,
		appointment_key: `${KEY.slice(0, -2)}${String(n).padStart(2, '0')}`,
	});
	/** A first page whose `next` is `next(token)`; later pages answered by `later`. */
	function listWith(
		next: (t: string) => string,
		later: (t: string, page: number, res: any) => void,
	) {
		return (t: string) => (req: { path: string; query: string }, res: any) => {
			const page = Number(new URLSearchParams(req.query).get('page') ?? '1');
			if (req.path === '/api/v3/appointments/' && page === 1 && !req.query.includes('tok')) {
				return sendJson(res, 200, {
					count: 3,
					next: next(t),
					previous: null,
					results: [record(1)],
				});
			}
			later(t, page, res);
		};
	}
	const fails = (_t: string, _p: number, res: any) => sendJson(res, 500, { detail: 'page broke' });
	const shapes: Array<[string, (t: string) => (req: any, res: any) => void]> = [
		[
			'next with the token in the query',
			listWith((t) => `${fake.url}/api/v3/appointments/?page=2&access_token=${t}`, fails),
		],
		[
			'next with the token percent-encoded in the query',
			listWith((t) => `${fake.url}/api/v3/appointments/?access_token=${encoded(t)}&page=2`, fails),
		],
		[
			'next with the token encoded in lower-case hex',
			listWith((t) => `${fake.url}/api/v3/appointments/?page=2&t=${lowerHex(t)}`, fails),
		],
		['relative next with the token', listWith((t) => `?page=2&access_token=${encoded(t)}`, fails)],
		[
			'next with the token in the path',
			listWith((t) => `${fake.url}/api/v3/appointments/${encoded(t)}/?page=2`, fails),
		],
		[
			'next with the token in a path that leaves the list',
			listWith((t) => `${fake.url}/api/v3/${encoded(t)}/?page=2`, fails),
		],
		[
			'next with the token as the host',
			listWith((t) => `http://${hostLabel(t)}.example.test/api/v3/appointments/?page=2`, fails),
		],
		[
			'next with the token as user info',
			listWith(
				(t) =>
					fake.url.replace('http://', `http://n8n:${encoded(t)}@`) + '/api/v3/appointments/?page=2',
				fails,
			),
		],
		[
			'an unparsable next with the token',
			listWith((t) => `http://[${t}]/api/v3/appointments/`, fails),
		],
		[
			'next with the token in the fragment',
			listWith((t) => `${fake.url}/api/v3/appointments/?page=2#${t}`, fails),
		],
		[
			'pages that repeat themselves, their next links carrying the token',
			listWith(
				(t) => `${fake.url}/api/v3/appointments/?page=2&access_token=${encoded(t)}`,
				(t, page, res) =>
					sendJson(res, 200, {
						count: 3,
						next: `${fake.url}/api/v3/appointments/?page=${page + 1}&access_token=${encoded(t)}`,
						results: [record(1)],
					}),
			),
		],
		[
			'a page that is not a list, at a next carrying the token',
			listWith(
				(t) => `${fake.url}/api/v3/appointments/?page=2&k=${encoded(t)}`,
				(_t, _p, res) => sendJson(res, 200, { detail: 'ok' }),
			),
		],
		[
			'a page whose record is the token',
			listWith(
				(t) => `${fake.url}/api/v3/appointments/?page=2`,
				(t, _p, res) => sendJson(res, 200, { count: 3, results: [`Bearer ${t}`] }),
			),
		],
		[
			'a redirect whose Location carries the token',
			(t) => (_req, res) =>
				res
					.writeHead(302, { location: `${fake.url}/login?token=${encoded(t)}` })
					.end(`<a href="/login?token=${encoded(t)}">moved</a>`),
		],
		[
			'a field error keyed and worded with the token',
			(t) => (_req, res) =>
				sendJson(res, 400, {
					[t]: [`"${encoded(t)}" is not valid.`],
					non_field_errors: [t.toLowerCase()],
				}),
		],
		[
			'a detail with the token encoded',
			(t) => (_req, res) => sendJson(res, 503, { detail: `token=${lowerHex(t)} refused` }),
		],
		[
			'an HTML page with the token',
			(t) => (_req, res) =>
				res
					.writeHead(200, { 'content-type': 'text/html' })
					.end(`<p>Hello ${t.toUpperCase()} / ${encoded(t)}</p>`),
		],
	];

	const getMany = {
		resource: 'appointment',
		operation: 'getAll',
		returnAll: true,
		dateRange: 'all',
		filters: {},
		simplify: false,
		advanced: { maxAttempts: 1 },
	};
	const get = {
		resource: 'appointment',
		operation: 'get',
		appointmentKey: KEY,
		advanced: { maxAttempts: 1 },
	};
	it.each(shapes)(
		'%s: the read fails, and no message, description or log line holds a piece of the token',
		async (shape, handler) => {
			// the answers that are not about links fail a Get the same way
			const reads = /next|page/.test(shape) ? [getMany] : [getMany, get];
			for (const token of tokens) {
				for (const parameters of reads) {
					fake.handle = handler(token);
					const r = await run(parameters, { token });
					expect(r.error).toBeDefined();
					const shown = [
						r.error!.message,
						String((r.error as any).description ?? ''),
						...r.logs,
						...visibleTexts(r),
					];
					expect({
						token,
						operation: parameters.operation,
						leaks: leaks(shown.join('\n'), token),
					}).toEqual({ token, operation: parameters.operation, leaks: [] });
				}
			}
		},
	);
});

describe('6. impossible UTC offsets', () => {
	it.each(['+25:00', '+99:99', '-47:59', '+05:60', '+18:01', '-19:00'])(
		'Reschedule refuses %s naming New Start; nothing sent',
		async (offset) => {
			const r = await run({
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: KEY,
				startDate: `2026-03-10T10:00:00${offset}`,
			});
			expect(r.error?.message).toMatch(
				/^The field "New Start" \(item 0\): .* has a UTC offset that does not exist/,
			);
			expect(fake.requests).toEqual([]);
		},
	);
	it('a custom date range refuses them too, naming the field; +18:00 and -03:00 pass', async () => {
		const base = {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'custom',
			filters: {},
			output: 'raw',
		};
		let r = await run({ ...base, startDate: '2026-03-10T00:00:00+99:99', endDate: '' });
		expect(r.error?.message).toMatch(/"Start Date" \(item 0\): .* UTC offset that does not exist/);
		r = await run({
			...base,
			startDate: '2026-03-10T00:00:00-03:00',
			endDate: '2026-03-11T00:00:00-47:59',
		});
		expect(r.error?.message).toMatch(/"End Date" \(item 0\): .* UTC offset that does not exist/);
		expect(fake.requests).toEqual([]);
		fake.handle = (_req, res) => sendJson(res, 200, { results: [] });
		r = await run({
			...base,
			startDate: '2026-03-10T00:00:00+18:00',
			endDate: '2026-03-11T00:00:00-03:00',
		});
		expect(r.error).toBeUndefined();
		expect(fake.requests).toHaveLength(1);
	});
});
