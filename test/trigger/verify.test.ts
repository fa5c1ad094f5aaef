/**
 * "Verify with API": the trigger re-reads the appointment before starting the workflow. It emits the service's
 * record, drops unknown appointments, and never loses or doubles an event when the re-read is slow or fails:
 * one short attempt (its 4 s time-out: verifyTimeout.test.ts, in `npm run test:slow`), a key counted as handled
 * only once its workflow started, each copy with its own re-read.
 */
import {
	ALL_EVENTS,
	admin,
	api,
	apiRequests,
	deliveries,
	envelope,
	harness,
	post,
	reset,
	settledDeliveries,
	startsOf,
	TOKEN,
	useSandbox,
	type Json,
} from './common';
import { startTriggerService } from '../helpers/triggerService';
import { pollUntil } from '../helpers/trigger';
import { NOT_FOUND_RESEND_MINUTES } from '../../nodes/Appointments/trigger/receive';

const ctx = useSandbox();

const settled = (url: string, atLeast: number) => settledDeliveries(ctx, url, atLeast);

beforeEach(async () => {
	await reset(ctx);
});

const closing: Array<() => Promise<void>> = [];
const afterThis = (close: () => Promise<void>) => closing.push(close);
afterEach(async () => {
	await Promise.allSettled(closing.splice(0).map((close) => close()));
});

describe('Verify with API', () => {
	it("emits the service's current record instead of the notification's data", async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'PENDING' });
		await settled(h.productionUrl, 1);
		const record = (await api(ctx, 'GET', `appointments/${created.appointment_key}/`)).body;
		expect(startsOf(h)).toHaveLength(1);
		expect(startsOf(h)[0]).toMatchObject({ event: 'appointment.created', data: record });
		expect(startsOf(h)[0].data).toEqual(record);

		// A stale notification (status PENDING) for an appointment that is now ATTENDED yields ATTENDED.
		await api(ctx, 'PATCH', `appointments/${created.appointment_key}/`, { status: 'ATTENDED' });
		const stale = envelope(
			{ event: 'appointment.updated', timestamp: '2026-11-23T11:00:00-03:00' },
			{ appointment_key: created.appointment_key, status: 'PENDING' },
		);
		expect((await post(h.productionUrl, JSON.stringify(stale))).status).toBe(200);
		const emitted = startsOf(h).filter((j) => j.timestamp === stale.timestamp);
		expect(emitted).toHaveLength(1);
		expect(emitted[0].data.status).toBe('ATTENDED');
	});

	it('copies arriving while the re-read is in flight start the workflow once', async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		await settled(h.productionUrl, 1);
		await admin(ctx, 'POST', '/__sandbox/config/', { latencyMs: 150 });
		const copy = envelope(
			{ event: 'appointment.updated' },
			{ appointment_key: created.appointment_key },
		);
		const answers = await Promise.all([1, 2, 3, 4].map(() => h.callWebhook(copy)));
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
		expect(startsOf(h).filter((j) => j.event === 'appointment.updated')).toHaveLength(1);
		expect(
			answers.filter((a) => (a.body as { reason?: string } | undefined)?.reason === 'duplicate'),
		).toHaveLength(3);
	});

	it('a canceled event whose appointment the service deleted (sandbox cancelRemoves) runs with the delivered data, its Filters evaluated on it', async () => {
		const all: Json = await admin(ctx, 'GET', '/__sandbox/appointments/');
		const [wanted, other] = [
			...new Set<string>(all.appointments.map((a: Json) => a.calendar.calendar_key)),
		];
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.canceled'],
				filters: {
					calendars: { calendar: [{ calendar: { __rl: true, mode: 'id', value: wanted } }] },
				},
				options: { verifyWithApi: true },
			},
		});
		await h.activate();
		await admin(ctx, 'POST', '/__sandbox/config/', { cancelRemoves: true });
		const mine = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			status: 'PENDING',
			calendar: { calendar_key: wanted },
		});
		const theirs = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: other },
		});
		for (const a of [mine, theirs])
			expect(
				(await api(ctx, 'DELETE', `appointments/${a.appointment_key}/?send_email=false`)).status,
			).toBe(200);
		const delivered = await settled(h.productionUrl, 2);
		expect(delivered.map((d) => [d.attempt, d.status])).toEqual([
			[1, 200],
			[1, 200],
		]);
		// Both re-reads were 404s: the record is gone, and the run carries what the service delivered.
		const reReads = (await apiRequests(ctx)).filter(
			(r) => r.method === 'GET' && r.path.startsWith('/api/v3/appointments/'),
		);
		expect(reReads.map((r) => r.status)).toEqual([404, 404]);
		expect(startsOf(h).map((j) => [j.event, j.data.appointment_key, j.data.status])).toEqual([
			['appointment.canceled', mine.appointment_key, 'CANCELED'],
		]);
		expect(startsOf(h)[0].data.calendar.calendar_key).toBe(wanted);
		expect(h.responses.map((r) => (r.body as { reason?: string } | undefined)?.reason)).toContain(
			'filtered out',
		);
	});

	it("a gone appointment's cancellation is still filtered, on the delivered data; any event named like a cancellation counts", async () => {
		// A service that takes other event names (the sandbox takes only the spec's three); every re-read is a 404.
		const service = await startTriggerService();
		afterThis(() => service.close());
		const h = await harness(ctx, {
			credentials: { baseUrl: service.url, accessToken: TOKEN },
			parameters: {
				events: ['appointment.canceled'],
				otherEvents: 'appointment.cancelled, booking.canceled_by_client',
				filters: { statuses: ['CANCELED'] },
				options: { verifyWithApi: true },
			},
		});
		await h.activate();
		const gone = (event: string, status: string) =>
			envelope({ event, timestamp: new Date().toISOString() }, { status });
		const other = gone('appointment.canceled', 'CANCELED_CLIENT');
		expect((await h.callWebhook(other)).body).toMatchObject({ reason: 'filtered out' });
		for (const event of [
			'appointment.canceled',
			'appointment.cancelled',
			'booking.canceled_by_client',
		])
			expect((await h.callWebhook(gone(event, 'CANCELED'))).items).toHaveLength(1);
		expect(startsOf(h).map((j) => j.event)).toEqual([
			'appointment.canceled',
			'appointment.cancelled',
			'booking.canceled_by_client',
		]);
	});

	it('a created event the service cannot read yet (sandbox readLagMs) is answered 503 until it can: it runs once', async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		// Resends far enough apart that the replica's catching up (below) falls between two of them.
		await admin(ctx, 'POST', '/__sandbox/config/', {
			readLagMs: 3_600_000,
			retrySchedule: [50, 1000, 1000, 1000, 1000, 1000],
		});
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		await pollUntil('a first delivery answered 503', async () =>
			(await deliveries(ctx)).deliveries.some((d) => d.status === 503),
		);
		expect(h.starts).toHaveLength(0);
		await admin(ctx, 'POST', '/__sandbox/config/', { readLagMs: 0 }); // the replica caught up
		const mine = await settled(h.productionUrl, 1);
		expect(mine.at(-1)).toMatchObject({ status: 200, ok: true });
		expect(mine.slice(0, -1).map((d) => d.status)).toEqual(mine.slice(0, -1).map(() => 503));
		expect(h.responses.find((r) => r.status === 503)?.body).toEqual({
			received: true,
			started: false,
			reason: 'appointment not found yet',
		});
		expect(startsOf(h).map((j) => j.data)).toEqual([
			(await api(ctx, 'GET', `appointments/${created.appointment_key}/`)).body,
		]);
	});

	it(`an appointment still unknown ${NOT_FOUND_RESEND_MINUTES} minutes after its event is dropped with a warning; before, the service is asked to resend`, async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
		const recent = envelope({ timestamp: minutesAgo(NOT_FOUND_RESEND_MINUTES - 1) });
		expect((await post(h.productionUrl, JSON.stringify(recent))).status).toBe(503);
		const old = envelope({ timestamp: minutesAgo(NOT_FOUND_RESEND_MINUTES + 1) });
		expect(await post(h.productionUrl, JSON.stringify(old))).toMatchObject({
			status: 200,
			body: { started: false, reason: 'appointment not found' },
		});
		expect(h.starts).toHaveLength(0);
		const warnings = h.logs().filter((l) => l.startsWith('[warn]'));
		expect(warnings).toEqual([expect.stringContaining(old.data.appointment_key)]);
	});

	it('drops a notification for an unknown appointment with a warning', async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		const ghost = envelope();
		expect(await post(h.productionUrl, JSON.stringify(ghost))).toMatchObject({
			status: 200,
			body: { reason: 'appointment not found' },
		});
		expect(h.starts).toHaveLength(0);
		expect(
			h
				.logs()
				.some(
					(l) =>
						l.startsWith('[warn]') &&
						l.includes(ghost.data.appointment_key) &&
						l.includes('does not know'),
				),
		).toBe(true);
	});

	it.each(['../webhooks', '..%2Fwebhooks', '?page=2', 'QX7-204', ' '])(
		'an appointment_key that is not a UUID (%j) is refused 400 before any request: it never reaches an authenticated path',
		async (key) => {
			const h = await harness(ctx, {
				parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
			});
			await h.activate();
			await admin(ctx, 'DELETE', '/__sandbox/requests/');
			const answer = await post(
				h.productionUrl,
				JSON.stringify(envelope({}, { appointment_key: key })),
			);
			expect(answer).toMatchObject({
				status: 400,
				body: {
					error: 'invalid notification',
					reason: expect.stringMatching(/^data\.appointment_key must be a UUID/),
				},
			});
			expect(await apiRequests(ctx)).toEqual([]);
			expect(h.starts).toHaveLength(0);
		},
	);

	it('Dedupe Key "Appointment Key": an event the re-read filters out does not make a later matching event of the appointment a duplicate', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ALL_EVENTS,
				filters: { statuses: ['CONFIRMED'] },
				options: { verifyWithApi: true, dedupeKey: 'appointmentKey' },
			},
		});
		await h.activate();
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'PENDING' });
		await settled(h.productionUrl, 1);
		expect(h.starts).toHaveLength(0); // PENDING: filtered out
		expect(
			(await api(ctx, 'PATCH', `appointments/${created.appointment_key}/`, { status: 'CONFIRMED' }))
				.status,
		).toBeLessThan(300);
		await settled(h.productionUrl, 2);
		expect(startsOf(h).map((j) => `${j.event} ${j.data.status}`)).toEqual([
			'appointment.updated CONFIRMED',
		]);
		// Once an event of the appointment ran, its later events are duplicates (the spec's literal rule).
		const later = envelope(
			{ event: 'appointment.updated', timestamp: '2026-11-23T12:00:00-03:00' },
			{ appointment_key: created.appointment_key },
		);
		expect((await h.callWebhook(later)).body).toMatchObject({ reason: 'duplicate' });
		expect(h.starts).toHaveLength(1);
	});

	it.each([
		['an empty object', () => ({})],
		["a gateway's JSON", () => ({ status: 'ok' })],
		["another appointment's record", (other: Json) => other],
	])(
		'a re-read answered 200 with %s is not taken for the appointment: 500, nothing started or remembered',
		async (_name, answer) => {
			const h = await harness(ctx, {
				parameters: {
					events: ALL_EVENTS,
					filters: { statuses: ['CONFIRMED'] },
					options: { verifyWithApi: true },
				},
			});
			await h.activate();
			const all: Json = await admin(ctx, 'GET', '/__sandbox/appointments/');
			const [mine, other] = all.appointments.filter((a: Json) => a.status === 'CONFIRMED');
			const update = envelope(
				{ event: 'appointment.updated' },
				{ appointment_key: mine.appointment_key },
			);
			await admin(ctx, 'POST', '/__sandbox/faults/', {
				count: 1,
				status: 200,
				body: answer(other),
				match: { method: 'GET', path: '/api/v3/appointments/*' },
			});
			expect((await h.callWebhook(update)).status).toBe(500);
			expect(h.errors.map((e) => e.message)).toEqual([
				expect.stringContaining(
					`read of appointment ${mine.appointment_key} is not that appointment`,
				),
			]);
			expect(h.starts).toHaveLength(0);
			// The resend reads the appointment's own record and runs, once.
			expect(
				(await h.callWebhook(update)).items?.map((i) => (i.json.data as Json).appointment_key),
			).toEqual([mine.appointment_key]);
			expect(startsOf(h)[0].data).toEqual(
				(await api(ctx, 'GET', `appointments/${mine.appointment_key}/`)).body,
			);
		},
	);

	it('a failed re-read answers 500 and remembers nothing, so the redelivery starts it once', async () => {
		const h = await harness(ctx, {
			parameters: { events: ['appointment.created'], options: { verifyWithApi: true } },
		});
		await h.activate();
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 3,
			status: 403,
			match: { method: 'GET', path: '/api/v3/appointments/*' },
		});
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		await settled(h.productionUrl, 1);
		const mine = (await deliveries(ctx)).deliveries.filter(
			(d) => d.appointment_key === created.appointment_key,
		);
		expect(mine.some((d) => d.status === 500)).toBe(true);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([created.appointment_key]);
	});

	it('a re-read slower than the service waits is not lost: copies resent meanwhile are not taken for duplicates', async () => {
		// The service gives up on an answer after 1 s and resends; the first re-read takes 2 s and then fails.
		await admin(ctx, 'POST', '/__sandbox/config/', {
			deliveryTimeoutMs: 1000,
			retrySchedule: [50, 500, 1000, 2000, 4000],
		});
		const h = await harness(ctx, {
			parameters: { events: ['appointment.created'], options: { verifyWithApi: true } },
		});
		await h.activate();
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 1,
			status: 403,
			delayMs: 2000,
			match: { method: 'GET', path: '/api/v3/appointments/*' },
		});
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		const mine = (await settled(h.productionUrl, 1)).filter(
			(d) => d.appointment_key === created.appointment_key,
		);
		expect(mine[0]).toMatchObject({ attempt: 1, status: null, ok: false }); // the service stopped waiting
		// The slow re-read has ended (failed) by now, so nothing is still under way that could start it later.
		await pollUntil('the slow re-read to fail', () => h.errors.length > 0);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([created.appointment_key]);
		expect(startsOf(h)[0].data).toEqual(
			(await api(ctx, 'GET', `appointments/${created.appointment_key}/`)).body,
		);
	});

	it('a resend arriving while a slow re-read is under way makes its own re-read and runs the event at once', async () => {
		// The service gives up after 1 s and resends 50 ms later; the first re-read takes 2 s and then fails. The
		// resend must not share that fate (answering 500 would leave the event for a third delivery).
		await admin(ctx, 'POST', '/__sandbox/config/', {
			deliveryTimeoutMs: 1000,
			retrySchedule: [50, 5000, 5000],
		});
		const h = await harness(ctx, {
			parameters: { events: ['appointment.created'], options: { verifyWithApi: true } },
		});
		await h.activate();
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 1,
			status: 403,
			delayMs: 2000,
			match: { method: 'GET', path: '/api/v3/appointments/*' },
		});
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		const mine = (await settled(h.productionUrl, 1)).filter(
			(d) => d.appointment_key === created.appointment_key,
		);
		expect(mine.map((d) => [d.attempt, d.status])).toEqual([
			[1, null], // the service stopped waiting for the slow one
			[2, 200], // the resend re-read on its own and ran
		]);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([created.appointment_key]);
		// The slow re-read ends (failed) without starting anything a second time.
		await pollUntil('the slow re-read to fail', () => h.errors.length > 0);
		expect(startsOf(h)).toHaveLength(1);
	});
});
