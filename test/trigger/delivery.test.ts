/**
 * Notifications from the sandbox to the trigger over real HTTPS (the sandbox trusts the harness receiver's
 * certificate): each event reaches the workflow once even when delivered twice and shuffled; invalid bodies get
 * 400 and start nothing; unsubscribed events are acknowledged and ignored (parameters.test.ts: parameters that
 * cannot be read); "Verify with API" emits the service's
 * record and drops unknown appointments (verify.test.ts); the dedupe modes and window behave as documented.
 */
import {
	abortablePost,
	ALL_EVENTS,
	admin,
	api,
	envelope,
	harness,
	post,
	reset,
	settledDeliveries,
	signal,
	startsOf,
	TOKEN,
	useSandbox,
} from './common';
import { pollUntil } from '../helpers/trigger';
import { startTriggerService } from '../helpers/triggerService';

const ctx = useSandbox();

const settled = (url: string, atLeast: number) => settledDeliveries(ctx, url, atLeast);

beforeEach(async () => {
	await reset(ctx);
});

/** n8n slow to store or queue the first run (answering as the test resolves n8nFails); later runs start at once. */
function slowFirstStart() {
	const n8nFails = signal<boolean>();
	const firstAtStart = signal<void>();
	let starts = 0;
	const startFails = () => {
		if (++starts > 1) return false;
		firstAtStart.resolve();
		return n8nFails.promise;
	};
	return { n8nFails, firstAtStart, startFails };
}

describe('delivery from the sandbox', () => {
	it('created, updated and canceled each reach the workflow exactly once with duplicate and shuffled delivery', async () => {
		await admin(ctx, 'POST', '/__sandbox/config/', {
			duplicateDelivery: true,
			shuffleDelivery: true,
		});
		const h = await harness(ctx);
		await h.activate();
		const keys: string[] = [];
		for (let i = 0; i < 4; i++)
			keys.push(
				(await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'PENDING' }))
					.appointment_key,
			);
		for (const key of keys.slice(0, 2))
			expect(
				(await api(ctx, 'PATCH', `appointments/${key}/`, { status: 'ATTENDED' })).status,
			).toBeLessThan(300);
		for (const key of keys.slice(2))
			expect(
				(await api(ctx, 'DELETE', `appointments/${key}/?send_email=false`)).status,
			).toBeLessThan(300);
		// 8 events, each delivered twice.
		const delivered = await settled(h.productionUrl, 16);
		expect(delivered.filter((d) => d.ok)).toHaveLength(16);

		const seen = startsOf(h).map((j) => `${j.event} ${j.data.appointment_key}`);
		const expected = [
			...keys.map((k) => `appointment.created ${k}`),
			...keys.slice(0, 2).map((k) => `appointment.updated ${k}`),
			...keys.slice(2).map((k) => `appointment.canceled ${k}`),
		];
		expect([...seen].sort()).toEqual([...expected].sort());
		expect(h.starts.every((s) => s.items.length === 1 && s.mode === 'production')).toBe(true);
		// The redeliveries were answered 200 (no resend) and logged as duplicates.
		expect(h.responses.filter((r) => r.status === 200)).toHaveLength(16);
		expect(h.logs().filter((l) => l.includes('it is a duplicate'))).toHaveLength(8);
		const updated = startsOf(h).find((j) => j.event === 'appointment.updated')!;
		expect(updated.data.status).toBe('ATTENDED');
		expect(updated.timestamp).toMatch(
			/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/,
		);
	});

	it('a delivery first answered 500 (before reaching the node) is resent and starts the workflow once', async () => {
		const seen = new Set<string>();
		const h = await harness(ctx, {
			onRequest: ({ body }) => {
				const key = (body as { data?: { appointment_key?: string } }).data?.appointment_key ?? '';
				if (seen.has(key)) return undefined;
				seen.add(key);
				return 500;
			},
		});
		await h.activate();
		const keys: string[] = [];
		for (let i = 0; i < 3; i++)
			keys.push((await admin(ctx, 'POST', '/__sandbox/appointments/', {})).appointment_key);
		const delivered = await settled(h.productionUrl, 3);
		expect(delivered.filter((d) => d.status === 500)).toHaveLength(3);
		expect(
			startsOf(h)
				.map((j) => j.data.appointment_key)
				.sort(),
		).toEqual([...keys].sort());
	});

	it('a delivery the node accepted but n8n could not start (500 from n8n, e.g. no database connection) is not remembered: its resend starts the workflow', async () => {
		const failed = new Set<string>();
		const h = await harness(ctx, {
			startFails: ([item]) => {
				const key = String(
					(item.json.data as { appointment_key?: string } | undefined)?.appointment_key,
				);
				if (failed.has(key)) return false;
				failed.add(key);
				return true;
			},
		});
		await h.activate();
		const keys: string[] = [];
		for (let i = 0; i < 3; i++)
			keys.push((await admin(ctx, 'POST', '/__sandbox/appointments/', {})).appointment_key);
		const delivered = await settled(h.productionUrl, 3);
		expect(delivered.filter((d) => d.status === 500)).toHaveLength(3);
		expect([...failed].sort()).toEqual([...keys].sort());
		expect(
			startsOf(h)
				.map((j) => j.data.appointment_key)
				.sort(),
		).toEqual([...keys].sort());
		expect(h.logs().filter((l) => l.includes('it is a duplicate'))).toEqual([]);
	});

	it('a copy arriving while n8n is still answering the first waits for that answer: when n8n fails the first, the copy starts the workflow', async () => {
		const body = JSON.stringify(envelope());
		const slow = slowFirstStart();
		let requests = 0;
		const h = await harness(ctx, {
			// Released as the copy arrives: the first's answer is still pending when the node reads the copy.
			onRequest: () => {
				if (++requests === 2) slow.n8nFails.resolve(true);
				return undefined;
			},
			startFails: slow.startFails,
		});
		await h.activate();
		const first = post(h.productionUrl, body);
		await slow.firstAtStart.promise;
		const copy = await post(h.productionUrl, body);
		expect((await first).status).toBe(500);
		expect(copy.status).toBe(200);
		expect(h.starts).toHaveLength(1);
	});

	it('a delivery whose connection closed before n8n answered (the service gave up waiting) is not remembered: its resend starts the workflow', async () => {
		const body = JSON.stringify(envelope());
		const slow = slowFirstStart();
		const h = await harness(ctx, { startFails: slow.startFails });
		await h.activate();
		const first = abortablePost(h.productionUrl, body);
		await slow.firstAtStart.promise;
		first.abort();
		const resend = await post(h.productionUrl, body);
		expect(resend.status).toBe(200);
		expect(h.starts).toHaveLength(1);
		slow.n8nFails.resolve(true); // n8n's late failure answers a connection that is gone
	});

	it('events the workflow did not subscribe to are acknowledged with 200 and start nothing', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created'],
				otherEvents: 'appointment.updated',
				options: {},
			},
		});
		await h.activate();
		const canceled = envelope({ event: 'appointment.canceled' });
		const other = envelope({ event: 'appointment.reminder' });
		const updated = envelope({ event: 'appointment.updated' });
		expect(await post(h.productionUrl, JSON.stringify(canceled))).toMatchObject({
			status: 200,
			body: { started: false, reason: 'event not subscribed' },
		});
		expect((await post(h.productionUrl, JSON.stringify(other))).status).toBe(200);
		expect(h.starts).toHaveLength(0);
		// A typed event name (Other Events) is subscribed like a picked one.
		expect(await post(h.productionUrl, JSON.stringify(updated))).toEqual({
			status: 200,
			body: undefined,
		}); // started: n8n answers 200 with no body (responseData noData)
		expect(startsOf(h).map((j) => j.event)).toEqual(['appointment.updated']);
		const reasons = h
			.logs()
			.filter((l) => l.startsWith('[debug]') && l.includes('not one of the subscribed events'));
		expect(reasons).toHaveLength(2);
		expect(reasons[0]).toContain(canceled.data.appointment_key);
	});
	it('parameters given as expressions are resolved for every notification, as typed ones are', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: '={{ ["appointment.created"] }}',
				otherEvents: '={{ "appointment." + "updated" }}',
				options: { dedupeKey: '={{ "off" }}' },
			},
		});
		await h.activate();
		const created = envelope({ event: 'appointment.created' });
		expect(
			await post(h.productionUrl, JSON.stringify(envelope({ event: 'appointment.canceled' }))),
		).toMatchObject({
			status: 200,
			body: { started: false, reason: 'event not subscribed' },
		});
		expect(
			(await post(h.productionUrl, JSON.stringify(envelope({ event: 'appointment.updated' }))))
				.status,
		).toBe(200);
		// Dedupe Key "off" (from its expression): the same notification twice starts twice.
		expect((await post(h.productionUrl, JSON.stringify(created))).status).toBe(200);
		expect((await post(h.productionUrl, JSON.stringify(created))).status).toBe(200);
		expect(startsOf(h).map((j) => j.event)).toEqual([
			'appointment.updated',
			'appointment.created',
			'appointment.created',
		]);
	});
});

describe('a caller that hangs up (the service gave up waiting) at each step: the resend runs the event once', () => {
	/** The first request's caller hangs up as the receiver reads it; the node then reads a delivery whose caller is gone. */
	const hangUpFirst = (delivery: () => { abort(): void }) => {
		let requests = 0;
		return async ({ closed }: { closed: Promise<void> }) => {
			if (++requests === 1) {
				delivery().abort();
				await closed;
			}
			return undefined;
		};
	};
	const answered = (h: { responses: unknown[] }, n: number) =>
		pollUntil(`${n} answered requests`, () => h.responses.length >= n);

	it('before the node reads the delivery: nothing starts, nothing is remembered', async () => {
		const body = JSON.stringify(envelope());
		let first: { abort(): void } | undefined;
		const h = await harness(ctx, { onRequest: hangUpFirst(() => first!) });
		await h.activate();
		first = abortablePost(h.productionUrl, body);
		await answered(h, 1);
		expect(await post(h.productionUrl, body)).toEqual({ status: 200, body: undefined });
		expect(h.responses[0].body).toMatchObject({ started: false, reason: 'caller hung up' });
		expect(await post(h.productionUrl, body)).toMatchObject({ body: { reason: 'duplicate' } });
		expect(h.starts).toHaveLength(1);
	});

	it("during Verify With API's re-read", async () => {
		const service = await startTriggerService();
		const e = envelope();
		const [reread, release] = [signal<void>(), signal<void>()];
		service.read = async () => {
			reread.resolve();
			await release.promise;
			return { status: 200, body: e.data };
		};
		let closed: Promise<void> | undefined;
		const h = await harness(ctx, {
			credentials: { baseUrl: service.url, accessToken: TOKEN },
			parameters: { events: ALL_EVENTS, otherEvents: '', options: { verifyWithApi: true } },
			onRequest: (r) => {
				closed ??= r.closed;
				return undefined;
			},
		});
		try {
			await h.activate();
			const first = abortablePost(h.productionUrl, JSON.stringify(e));
			await reread.promise;
			first.abort();
			await closed;
			release.resolve();
			await answered(h, 1);
			expect(await post(h.productionUrl, JSON.stringify(e))).toEqual({
				status: 200,
				body: undefined,
			});
			expect(startsOf(h).map((j) => j.data)).toEqual([e.data]);
		} finally {
			await service.close();
		}
	});

	it("a copy whose caller hung up while the first copy's run is still answered: when n8n fails the first, a later resend runs", async () => {
		const body = JSON.stringify(envelope());
		const slow = slowFirstStart();
		let copy: { abort(): void } | undefined;
		let requests = 0;
		const hangUpCopy = hangUpFirst(() => copy!);
		const h = await harness(ctx, {
			startFails: slow.startFails,
			onRequest: (r) => (++requests === 2 ? hangUpCopy(r) : undefined),
		});
		await h.activate();
		const first = post(h.productionUrl, body);
		first.catch(() => undefined); // asserted below; a failed test must not leave it unhandled
		await slow.firstAtStart.promise;
		copy = abortablePost(h.productionUrl, body);
		await answered(h, 1);
		slow.n8nFails.resolve(true);
		expect((await first).status).toBe(500);
		expect(h.starts).toHaveLength(0);
		expect(await post(h.productionUrl, body)).toEqual({ status: 200, body: undefined });
		expect(h.starts).toHaveLength(1);
	});
});

describe('invalid notifications', () => {
	// Every row has all three values: jest.each hands a shorter row's missing argument over as `done`.
	const bad: Array<[string, string, string]> = [
		['an array', JSON.stringify([envelope()]), 'application/json'],
		[
			'no data',
			JSON.stringify({ event: 'appointment.created', timestamp: '2026-11-23T10:15:00-03:00' }),
			'application/json',
		],
		[
			'a timestamp without offset',
			JSON.stringify(envelope({ timestamp: '2026-11-23T10:15:00' })),
			'application/json',
		],
		['an epoch timestamp', JSON.stringify(envelope({ timestamp: 1763903700 })), 'application/json'],
		[
			'a numeric appointment key',
			JSON.stringify(envelope({}, { appointment_key: 42 })),
			'application/json',
		],
		[
			'a person that is a string',
			JSON.stringify(envelope({}, { person: 'Marta Quiroga <marta.quiroga@example.org>' })),
			'application/json',
		],
		[
			'an event that is an object',
			JSON.stringify(envelope({ event: { name: 'appointment.created' } })),
			'application/json',
		],
		['a JSON string', JSON.stringify('appointment.created'), 'application/json'],
		['an empty JSON object', '{}', 'application/json'],
		['a form body', 'event=appointment.created', 'application/x-www-form-urlencoded'],
	];

	it.each(bad)(
		'%s: 400 with a short reason, nothing started, logged without personal data',
		async (_name, body, type) => {
			const h = await harness(ctx);
			await h.activate();
			const answer = await post(h.productionUrl, body, type);
			expect(answer.status).toBe(400);
			expect(answer.body).toMatchObject({ error: 'invalid notification' });
			expect(String(answer.body.reason)).toMatch(/^(the body|event|timestamp|data)/);
			expect(h.starts).toHaveLength(0);
			const lines = h.logs().filter((l) => l.includes('rejected an invalid notification'));
			expect(lines).toHaveLength(1);
			expect(lines[0]).toMatch(/^\[debug\]/);
			expect(lines[0]).toContain(answer.body.reason);
			expect(lines[0]).not.toMatch(/Marta|Quiroga|example\.org|QX7-204|Dr\. Ruiz/);
		},
	);

	it('unparseable JSON is refused by the body parser (422) before the node runs, as in n8n', async () => {
		const h = await harness(ctx);
		await h.activate();
		expect((await post(h.productionUrl, '{"event": "appointment.created",')).status).toBe(422);
		expect(h.starts).toHaveLength(0);
	});

	it('extra fields are kept, not rejected', async () => {
		const h = await harness(ctx);
		await h.activate();
		const body = {
			...envelope(
				{},
				{ notes: 'bring X-rays', calendar: { calendar_key: 'c', name: 'n', color: 'teal' } },
			),
			delivery_id: 'd-1',
		};
		expect((await post(h.productionUrl, JSON.stringify(body))).status).toBe(200);
		expect(startsOf(h)).toEqual([body]);
	});
});

describe('Simplify', () => {
	it('outputs the key fields of the appointment with event and timestamp', async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { simplify: true } },
		});
		await h.activate();
		const body = envelope({}, { notes: 'x' });
		await post(h.productionUrl, JSON.stringify(body));
		expect(startsOf(h)).toEqual([
			{
				event: body.event,
				timestamp: body.timestamp,
				appointment_key: body.data.appointment_key,
				search_code: body.data.search_code,
				status: body.data.status,
				start_date: body.data.start_date,
				calendar: { calendar_key: body.data.calendar.calendar_key, name: 'Dr. Ruiz' },
				person: { full_name: 'Marta Quiroga', email: 'marta.quiroga@example.org' },
			},
		]);
	});
});

describe('dedupe', () => {
	const run = async (options: Record<string, unknown>) => {
		const h = await harness(ctx, { parameters: { events: ALL_EVENTS, options } });
		await h.activate();
		return h;
	};
	const created = envelope({
		event: 'appointment.created',
		timestamp: '2026-11-23T10:00:00-03:00',
	});
	const key = created.data.appointment_key;
	const canceled = envelope(
		{ event: 'appointment.canceled', timestamp: '2026-11-23T12:00:00-03:00' },
		{ appointment_key: key, status: 'CANCELED' },
	);
	const sequence = [
		created,
		created,
		canceled,
		canceled,
		{ ...created, timestamp: '2026-11-23T10:00:01-03:00' },
	];

	it('default (event + appointment key + timestamp): redeliveries dropped, later events of the appointment kept', async () => {
		const h = await run({});
		for (const b of sequence) expect((await h.callWebhook(b)).status).toBe(200);
		expect(startsOf(h).map((j) => `${j.event} ${j.timestamp}`)).toEqual([
			'appointment.created 2026-11-23T10:00:00-03:00',
			'appointment.canceled 2026-11-23T12:00:00-03:00',
			'appointment.created 2026-11-23T10:00:01-03:00',
		]);
	});

	it("appointment key (the spec's literal rule): only the first event of an appointment runs", async () => {
		const h = await run({ dedupeKey: 'appointmentKey' });
		for (const b of sequence) await h.callWebhook(b);
		expect(startsOf(h).map((j) => j.event)).toEqual(['appointment.created']);
	});

	it('off: every delivery runs', async () => {
		const h = await run({ dedupeKey: 'off' });
		for (const b of sequence) await h.callWebhook(b);
		expect(startsOf(h)).toHaveLength(sequence.length);
	});

	it('the window bounds the memory: an event older than the last N is no longer recognised', async () => {
		const h = await run({ dedupeWindow: 3 });
		const events = [0, 1, 2, 3].map(() => envelope());
		for (const b of events) await h.callWebhook(b);
		expect((await h.callWebhook(events[3])).body).toMatchObject({ reason: 'duplicate' });
		expect((await h.callWebhook(events[1])).body).toMatchObject({ reason: 'duplicate' });
		expect((await h.callWebhook(events[0])).items).toHaveLength(1);
		expect(startsOf(h)).toHaveLength(5);
	});

	it('an event n8n could not start stays forgotten when the Dedupe Window changes: its resend runs', async () => {
		let fails = true;
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { dedupeWindow: 100 } },
			startFails: () => fails,
		});
		await h.activate();
		const body = envelope();
		expect((await h.callWebhook(body)).status).toBe(500);
		fails = false;
		h.setParameters({ events: ALL_EVENTS, options: { dedupeWindow: 50 } });
		expect((await h.callWebhook(body)).items).toHaveLength(1);
		expect(h.starts).toHaveLength(1);
	});

	it('holds across requests when each request builds its own Workflow, as n8n live webhooks do', async () => {
		const h = await harness(ctx);
		await h.activate();
		const body = JSON.stringify(envelope());
		const answers = await Promise.all([
			post(h.productionUrl, body),
			post(h.productionUrl, body),
			post(h.productionUrl, body),
		]);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(h.starts).toHaveLength(1);
		expect(answers.filter((a) => a.body?.reason === 'duplicate')).toHaveLength(2);
	});

	it('production and test deliveries are remembered apart, and workflows do not share memory', async () => {
		const h = await run({});
		await h.startTest();
		const other = await run({});
		const body = envelope();
		expect((await h.callWebhook(body)).items).toHaveLength(1);
		expect((await h.callWebhook(body, { mode: 'test' })).items).toHaveLength(1);
		expect((await other.callWebhook(body)).items).toHaveLength(1);
		expect((await h.callWebhook(body)).body).toMatchObject({ reason: 'duplicate' });
		expect(h.starts.map((s) => s.mode)).toEqual(['production', 'test']);
	});
});
