/**
 * The polling trigger's Appointment Rescheduled and Appointment Status Changed, and the `previous` values they and
 * Appointment Updated carry, in n8n-core's real PollContext and PollTriggerExecutor against the sandbox: each
 * change once per poll, cancellations stay Appointment Canceled, across a restart, simplified, sampled. Filters on
 * old and new values: filters.test.ts (statuses) and other-services.test.ts (calendars); with the reminders:
 * timeEvents.test.ts; in random sequences: model.test.ts.
 */
import type { PollingHarness } from '../helpers/polling';
import { eventNames, inDaysIn, usePollingSandbox, watchedAppointments, type Json } from './common';

const ZONE = 'America/Santiago';
const ALL_EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];

const sb = usePollingSandbox(
	{ seed: 60, seedValue: 5, pageSize: 7, timeZone: ZONE },
	{ resetEach: true },
);
const { api } = sb;

const harness = (options: Json = {}, events = ALL_EVENTS): PollingHarness =>
	sb.harness({ events, options });
const events = eventNames;
const inDays = (days: number, hour = 10) => inDaysIn(ZONE, days, hour);
const watched = async () => await watchedAppointments(sb);
describe('Appointment Rescheduled and Appointment Status Changed: what changed, with the values before', () => {
	const CHANGES = [...ALL_EVENTS, 'appointment.rescheduled', 'appointment.status_changed'];
	const otherStatus = (status: string) => (status === 'PENDING' ? 'CONFIRMED' : 'PENDING');

	/** A watched appointment that is not cancelled and does not start at `inDays(5, 15)`, and a harness past its baseline. */
	async function watchedOne(events = CHANGES, options: Json = {}) {
		const h = harness(options, events);
		await h.activate();
		const a = (await watched()).find(
			(x) => Date.parse(x.start_date) !== Date.parse(inDays(5, 15)),
		)!;
		return {
			h,
			a,
			key: a.appointment_key as string,
			previous: { start_date: a.start_date, status: a.status },
		};
	}
	const move = async (key: string) =>
		await api('PATCH', `appointments/${key}/reschedule/`, { start_date: inDays(5, 15) });
	const mark = async (key: string, status: string) =>
		await api('PATCH', `appointments/${key}/`, { status });
	/** The item's previous start as an instant and its status: the values a builder reads. */
	const previousOf = (json: Json) => ({
		start: Date.parse(json.previous.start_date),
		status: json.previous.status,
	});

	test('reschedule only: rescheduled and updated, each with previous { start_date, status }', async () => {
		const { h, key, previous } = await watchedOne();
		await move(key);
		const { items } = await h.poll();
		expect(events(items)).toEqual([`appointment.rescheduled ${key}`, `appointment.updated ${key}`]);
		for (const { json } of items!) {
			expect(Object.keys(json).sort()).toEqual(['data', 'event', 'previous', 'timestamp']);
			expect(json.data).toEqual(await api('GET', `appointments/${key}/`));
			expect(previousOf(json)).toEqual({
				start: Date.parse(previous.start_date),
				status: previous.status,
			});
			expect(json.previous).toEqual({
				start_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
				status: previous.status,
			});
		}
		expect(await h.poll()).toEqual({});
	});

	test('status change only: status_changed and updated; the start in previous is the unchanged one', async () => {
		const { h, a, key, previous } = await watchedOne();
		await mark(key, otherStatus(a.status));
		const { items } = await h.poll();
		expect(events(items)).toEqual([
			`appointment.status_changed ${key}`,
			`appointment.updated ${key}`,
		]);
		for (const { json } of items!) {
			expect(previousOf(json)).toEqual({
				start: Date.parse(previous.start_date),
				status: previous.status,
			});
			expect((json.data as Json).status).toBe(otherStatus(a.status));
		}
	});

	test('both at once: each selected event once, all with the same previous; only the selected ones', async () => {
		const { h, a, key, previous } = await watchedOne();
		await move(key);
		await mark(key, otherStatus(a.status));
		const { items } = await h.poll();
		expect(events(items)).toEqual([
			`appointment.rescheduled ${key}`,
			`appointment.status_changed ${key}`,
			`appointment.updated ${key}`,
		]);
		for (const { json } of items!)
			expect(previousOf(json)).toEqual({
				start: Date.parse(previous.start_date),
				status: previous.status,
			});

		const only = await watchedOne(['appointment.rescheduled']);
		await move(only.key);
		await mark(only.key, otherStatus(only.a.status));
		expect(events((await only.h.poll()).items)).toEqual([`appointment.rescheduled ${only.key}`]);
	});

	test('a cancellation is Appointment Canceled only, also after a reschedule before the next poll', async () => {
		const { h, key } = await watchedOne();
		await move(key);
		await api('DELETE', `appointments/${key}/?send_email=false`);
		const { items } = await h.poll();
		expect(events(items)).toEqual([`appointment.canceled ${key}`]);
		expect(Object.keys(items![0].json).sort()).toEqual(['data', 'event', 'timestamp']);
		// a status set to a cancelled one is a cancellation too, never a status change
		const next = await watchedOne(['appointment.status_changed', 'appointment.updated']);
		await mark(next.key, 'CANCELED_CLIENT');
		expect(await next.h.poll()).toEqual({});
	});

	test('a restart between the change and the poll: the events once, after the restart', async () => {
		const { h, a, key, previous } = await watchedOne();
		await move(key);
		await mark(key, otherStatus(a.status));
		const afterRestart = await h.restart();
		expect(events(afterRestart.items)).toEqual([
			`appointment.rescheduled ${key}`,
			`appointment.status_changed ${key}`,
			`appointment.updated ${key}`,
		]);
		expect(previousOf(afterRestart.items![0].json)).toEqual({
			start: Date.parse(previous.start_date),
			status: previous.status,
		});
		expect(await h.poll()).toEqual({});
		expect((await h.restart()).items).toBeUndefined();
	});

	test('Fetch test event: a sample of the shape, previous holding the current values (a sample has no earlier ones)', async () => {
		const h = harness({}, ['appointment.status_changed', 'appointment.created']);
		await h.activate();
		const [{ json }] = (await h.manual())!;
		expect(json.event).toBe('appointment.status_changed');
		const data = json.data as Json;
		expect(json.previous).toEqual({ start_date: data.start_date, status: data.status });
	});

	test('Simplify: the simplified appointment with previous beside it', async () => {
		const { h, a, key, previous } = await watchedOne(['appointment.rescheduled'], {
			simplify: true,
		});
		await move(key);
		const { items } = await h.poll();
		expect(items!.map((i) => i.json)).toEqual([
			{
				appointment_key: key,
				search_code: a.search_code,
				status: a.status,
				start_date: (await api('GET', `appointments/${key}/`)).start_date,
				calendar: a.calendar,
				person: a.person,
				event: 'appointment.rescheduled',
				timestamp: expect.any(String),
				previous: { start_date: expect.any(String), status: previous.status },
			},
		]);
		expect(Date.parse((items![0].json as Json).previous.start_date)).toBe(
			Date.parse(previous.start_date),
		);
	});
});
