/**
 * What every user expects of the node: bad input refused before any request (naming field, item and what was
 * expected), retries on 429/503 inside the Options' budget, Continue On Fail, and concurrency keeping order and
 * pairing.
 */
import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService } from '../helpers/fakeService';
import { runNode } from '../helpers/n8n';
import { apiRequests, pairing, run, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let keys: string[];

useSandbox({ seed: 30, seedValue: 9 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	// Appointments that are not cancelled: the sandbox refuses status changes of cancelled ones.
	keys = (await admin.appointments())
		.filter((a) => a.is_cancelled !== true)
		.map((a) => String(a.appointment_key));
	expect(keys.length).toBeGreaterThanOrEqual(8);
});

const FAST = { maxAttempts: 3, maxRetryWaitSeconds: 2 };

describe('bad input: the item fails with a NodeOperationError before any request', () => {
	const cases: Array<[string, IDataObject, RegExp]> = [
		[
			'malformed appointment key',
			{ resource: 'appointment', operation: 'get', appointmentKey: 'abc/../x' },
			/^The field "Appointment" \(item 0\) must be a UUID such as .* \(got "abc\/\.\.\/x"\)$/,
		],
		[
			'empty appointment key',
			{ resource: 'appointment', operation: 'cancel', appointmentKey: '={{ "" }}' },
			/"Appointment" \(item 0\) must be a UUID/,
		],
		[
			'unknown status from an expression',
			{
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: '={{ $json.key }}',
				status: '={{ "DONE" }}',
			},
			/"Status" \(item 0\) must be one of Attended, Canceled, .*, Pending Payment \(got "DONE"\)/,
		],
		[
			'unparsable reschedule date',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: 'next tuesday',
			},
			/"New Start" \(item 0\): "next tuesday" is not a date: expected a date such as 2026-03-10/,
		],
		[
			'a wall-clock time skipped by the clock change',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: '2026-09-06T00:30:00',
			},
			/"New Start" \(item 0\): "2026-09-06T00:30:00" does not exist in America\/Santiago/,
		],
		[
			'unknown time zone',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: '2026-10-01T10:00:00',
				options: { timeZone: 'Mars/Base' },
			},
			/"Time Zone" \(item 0\) must be an IANA time zone/,
		],
		[
			'bad UUID in Calendar (By Key)',
			{ resource: 'appointment', operation: 'getAll', filters: { calendarKey: { __rl: true, mode: 'id', value: 'calendar-1' } } },
			/"Calendar" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID in Client Key',
			{ resource: 'appointment', operation: 'getAll', filters: { clientKey: '123' } },
			/"Client Key" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID in Person Key',
			{ resource: 'appointment', operation: 'getAll', filters: { personKey: 'x' } },
			/"Person Key" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID among Service Keys',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { serviceKeys: '={{ $json.key }}, nope' },
			},
			/"Service Keys" \(item 0\) must be a list of UUIDs .*"nope" is not a UUID/,
		],
		[
			'bad UUID among Tag Keys (array)',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { tagKeys: '={{ [$json.key, 42] }}' },
			},
			/"Tag Keys" \(item 0\) must be a list of UUIDs .*42 is not a UUID/,
		],
		[
			'bad email',
			{ resource: 'appointment', operation: 'getAll', filters: { email: 'not an email' } },
			/"Email" \(item 0\) must be an email address/,
		],
		[
			'unknown status filter',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { status: '={{ "confirmed-ish" }}' },
			},
			/"Status" \(item 0\) must be one of/,
		],
		[
			'unparsable Created At',
			{ resource: 'appointment', operation: 'getAll', filters: { createdAt: 'last week' } },
			/"Created At" \(item 0\): "last week" is not a date/,
		],
		[
			'unknown date range from an expression',
			{ resource: 'appointment', operation: 'getAll', dateRange: '={{ "lastMonth" }}' },
			/"Date Range" \(item 0\) must be one of All Dates, Custom, Next 7 Days, This Week, Today, Tomorrow, Yesterday \(got "lastMonth"\)/,
		],
		[
			'custom range without dates',
			{ resource: 'appointment', operation: 'getAll', dateRange: 'custom' },
			/"Start Date" \(item 0\) must be a date \(or an End Date\) when Date Range is Custom/,
		],
		[
			'custom range ending before it starts',
			{
				resource: 'appointment',
				operation: 'getAll',
				dateRange: 'custom',
				startDate: '2026-05-02',
				endDate: '2026-05-01',
			},
			/"End Date" \(item 0\) must be on or after the Start Date 2026-05-02T00:00:00/,
		],
		[
			'unparsable custom start',
			{
				resource: 'appointment',
				operation: 'getAll',
				dateRange: 'custom',
				startDate: '31/12/2026',
			},
			/"Start Date" \(item 0\): "31\/12\/2026" is not a date/,
		],
		[
			'is canceled not a boolean',
			{ resource: 'appointment', operation: 'getAll', filters: { isCancelled: '={{ "maybe" }}' } },
			/"Is Canceled" \(item 0\) must be true or false/,
		],
		[
			'limit 0',
			{ resource: 'appointment', operation: 'getAll', limit: 0 },
			/"Limit" \(item 0\) must be a whole number of at least 1/,
		],
		[
			'concurrency out of range',
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: '={{ $json.key }}',
				advanced: { concurrency: 50 },
			},
			/"Concurrency" \(item 0\) must be a whole number from 1 to 20 \(got 50\)/,
		],
		[
			'max attempts below 1',
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: '={{ $json.key }}',
				advanced: { maxAttempts: 0 },
			},
			/"Max Attempts" \(item 0\) must be a whole number from 1 to 20 \(got 0\)/,
		],
		[
			'send email not a boolean',
			{
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: '={{ $json.key }}',
				sendEmail: '={{ "yes please" }}',
			},
			/"Send Email to Client" \(item 0\) must be true or false/,
		],
		[
			'a webhook key that would change the path',
			{ resource: 'webhook', operation: 'delete', webhookKey: '../appointments' },
			/"Webhook" \(item 0\) must be a key without "\/" that is not "\." or "\.\."/,
		],
		[
			'http:// URL and bad events: the URL is named first',
			{
				resource: 'webhook',
				operation: 'create',
				url: 'http://example.com/h',
				events: [],
				otherEvents: 'a..b',
			},
			/"URL" \(item 0\) must use https/,
		],
		[
			'empty webhook key',
			{ resource: 'webhook', operation: 'delete', webhookKey: ' ' },
			/"Webhook" \(item 0\) must be a non-empty text/,
		],
	];

	test.each(cases)('%s', async (_name, parameters, message) => {
		const result = await run(sb, parameters, { input: [{ key: keys[0] }] });
		expect(result.error?.message).toMatch(message);
		expect(result.error?.name).toBe('NodeOperationError');
		// the fix-it description names the field as the editor labels it
		const label = /"([^"]+)"/.exec(result.error!.message)![1];
		expect((result.error as Error & { description?: string }).description).toContain(label);
		expect(
			(result.error as unknown as { context?: { itemIndex?: number } }).context?.itemIndex ?? 0,
		).toBe(0);
		expect(await apiRequests(admin)).toHaveLength(0);
	});

	test('the item index is the failing item; with concurrency > 1 nothing is sent for the valid ones', async () => {
		for (const concurrency of [1, 4]) {
			const result = await run(
				sb,
				{
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: '={{ $json.key }}',
					status: 'ATTENDED',
					advanced: { concurrency },
				},
				{ input: [{ key: keys[0] }, { key: keys[1] }, { key: 'bad-key' }, { key: keys[3] }] },
			);
			expect(result.error?.message).toMatch(
				/^The field "Appointment" \(item 2\) must be a UUID/,
			);
			expect(await apiRequests(admin)).toHaveLength(0);
		}
		const stored = await admin.appointments();
		expect(
			stored.filter((a) => a.status === 'ATTENDED').map((a) => a.appointment_key),
		).not.toContain(keys[0]);
	});
});

test('keys without hyphens or in upper case and statuses in lower case are accepted in canonical form', async () => {
	const bare = keys[1].replace(/-/g, '').toUpperCase();
	const result = await run(sb, {
		resource: 'appointment',
		operation: 'updateStatus',
		appointmentKey: ` ${bare} `,
		status: '={{ " no_show " }}',
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0][0].json.status).toBe('NO_SHOW');
	const [patch] = await apiRequests(admin, 'PATCH');
	expect(patch.path.toLowerCase()).toBe(`/api/v3/appointments/${keys[1]}/`);
});

describe('retries', () => {
	test.each([429, 503])(
		'an injected %s is retried (Retry-After honoured) and the item succeeds',
		async (status) => {
			await admin.fault({ status, count: 2, retryAfter: '0', match: { method: 'GET' } });
			const result = await run(sb, {
				resource: 'appointment',
				operation: 'get',
				appointmentKey: keys[2],
				advanced: FAST,
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0][0].json.appointment_key).toBe(keys[2]);
			expect((await apiRequests(admin)).map((r) => r.status)).toEqual([status, status, 200]);
		},
	);

	test('a PATCH is retried on 503 and applied once', async () => {
		await admin.fault({ status: 503, count: 1, match: { method: 'PATCH' } });
		const result = await run(sb, {
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: keys[2],
			status: 'NO_SHOW',
			advanced: FAST,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0][0].json.status).toBe('NO_SHOW');
		expect((await apiRequests(admin, 'PATCH')).map((r) => r.status)).toEqual([503, 200]);
	});

	test('when the attempts run out the error says what was tried', async () => {
		await admin.fault({ status: 503, count: 10, retryAfter: '0' });
		const result = await run(sb, {
			resource: 'appointment',
			operation: 'getAll',
			advanced: { maxAttempts: 2, maxRetryWaitSeconds: 1 },
		});
		expect(result.error?.message).toMatch(
			/The service failed \(503 Service Unavailable\).* after 2 attempts \(waited .* in total; no attempts left\)/,
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(await apiRequests(admin)).toHaveLength(2);
	});

	test('a Retry-After longer than the budget fails at once, saying so', async () => {
		await admin.fault({ status: 429, count: 1, retryAfter: '120' });
		const result = await run(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: keys[0],
			advanced: { maxRetryWaitSeconds: 1 },
		});
		expect(result.error?.message).toMatch(
			/rate limiting.*retry after 120 s, more than the 1\.0 s left/,
		);
		expect(await apiRequests(admin)).toHaveLength(1);
	});
});

describe('continue on fail', () => {
	test('a failing item becomes { error } paired with it; the others go on', async () => {
		const result = await run(
			sb,
			{ resource: 'appointment', operation: 'get', appointmentKey: '={{ $json.key }}' },
			{
				continueOnFail: true,
				input: [
					{ key: keys[0] },
					{ key: 'not-a-key' },
					{ key: '00000000-0000-4000-8000-000000000000' },
					{ key: keys[3] },
				],
			},
		);
		expect(result.error).toBeUndefined();
		const items = result.items[0];
		expect(items.map((i) => i.json)).toEqual([
			expect.objectContaining({ appointment_key: keys[0] }),
			{ error: expect.stringMatching(/^The field "Appointment" \(item 1\) must be a UUID/) },
			{ error: 'Appointment 00000000-0000-4000-8000-000000000000 not found' },
			expect.objectContaining({ appointment_key: keys[3] }),
		]);
		expect(pairing(items)).toEqual([0, 1, 2, 3]);
		// The malformed item sent nothing.
		expect((await apiRequests(admin)).map((r) => r.path)).toEqual([
			`/api/v3/appointments/${keys[0]}/`,
			'/api/v3/appointments/00000000-0000-4000-8000-000000000000/',
			`/api/v3/appointments/${keys[3]}/`,
		]);
	});

	test('without it, the first failing item stops the node with its error', async () => {
		const result = await run(
			sb,
			{ resource: 'appointment', operation: 'get', appointmentKey: '={{ $json.key }}' },
			{
				input: [
					{ key: keys[0] },
					{ key: '00000000-0000-4000-8000-000000000000' },
					{ key: keys[2] },
				],
			},
		);
		expect(result.error?.message).toBe(
			'Appointment 00000000-0000-4000-8000-000000000000 not found',
		);
		expect(await apiRequests(admin)).toHaveLength(2);
	});
});

describe('concurrency', () => {
	// A fake service that counts the PATCHes in flight and holds every answer until `gate` of them are in flight
	// at once, or until `patienceMs` passed (so a node that sends one at a time is not stuck: it fails, or passes
	// the sequential test, on the counts, never on a duration).
	async function countingService(gate: number, patienceMs: number) {
		const service = await startFakeService();
		const seen = { inFlight: 0, max: 0, paths: [] as string[] };
		let open: () => void = () => undefined;
		const opened = new Promise<void>((resolve) => (open = resolve));
		const safety = setTimeout(open, patienceMs);
		service.handle = async (req, res) => {
			seen.paths.push(req.path);
			seen.inFlight++;
			seen.max = Math.max(seen.max, seen.inFlight);
			if (seen.inFlight >= gate) open();
			await opened;
			seen.inFlight--;
			const key = req.path.split('/')[4];
			sendJson(res, 200, { appointment_key: key, status: (JSON.parse(req.body) as IDataObject).status });
		};
		return { service, seen, close: async () => (clearTimeout(safety), await service.close()) };
	}

	test('items run at the same time (never more than Concurrency), output keeps input order and pairing', async () => {
		const { service, seen, close } = await countingService(4, 5000);
		try {
			const result = await runNode({
				parameters: {
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: '={{ $json.key }}',
					status: 'ATTENDED',
					advanced: { concurrency: 4 },
				},
				credentials: { baseUrl: service.url, accessToken: 'test-token' },
				input: keys.slice(0, 8).map((key) => ({ key })),
			});
			expect(result.error).toBeUndefined();
			const items = result.items[0];
			expect(items.map((i) => i.json.appointment_key)).toEqual(keys.slice(0, 8));
			expect(items.every((i) => i.json.status === 'ATTENDED')).toBe(true);
			expect(pairing(items)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
			expect(seen.paths).toHaveLength(8);
			expect(seen.max).toBe(4);
		} finally {
			await close();
		}
	});

	test('concurrency 1 sends one item after the other', async () => {
		const { service, seen, close } = await countingService(2, 1000);
		try {
			const result = await runNode({
				parameters: { resource: 'appointment', operation: 'updateStatus', appointmentKey: '={{ $json.key }}', status: 'PENDING' },
				credentials: { baseUrl: service.url, accessToken: 'test-token' },
				input: keys.slice(0, 3).map((key) => ({ key })),
			});
			expect(result.error).toBeUndefined();
			expect(seen.paths).toEqual(keys.slice(0, 3).map((k) => `/api/v3/appointments/${k}/`));
			expect(seen.max).toBe(1);
		} finally {
			await close();
		}
	});

	test('with continue on fail, failures keep their place', async () => {
		const input = [keys[0], '00000000-0000-4000-8000-000000000000', keys[2], keys[3], 'bad'].map(
			(key) => ({ key }),
		);
		const result = await run(
			sb,
			{
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: '={{ $json.key }}',
				advanced: { concurrency: 3 },
			},
			{ input, continueOnFail: true },
		);
		const items = result.items[0];
		expect(items.map((i) => i.json.appointment_key ?? i.json.error)).toEqual([
			keys[0],
			'Appointment 00000000-0000-4000-8000-000000000000 not found',
			keys[2],
			keys[3],
			expect.stringMatching(/\(item 4\)/),
		]);
		expect(pairing(items)).toEqual([0, 1, 2, 3, 4]);
	});
});
