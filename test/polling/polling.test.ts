/**
 * The Appointments Polling Trigger in n8n-core's real PollContext and PollTriggerExecutor against the sandbox:
 * changes made between polls become exactly those events, once each, also across an n8n restart and after
 * failing polls; first activation takes a baseline; "Fetch test event" returns a real appointment.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startPollingHarness, type PollingHarness } from '../helpers/polling';
import {
	eventNames,
	inDaysIn,
	TOKEN,
	usePollingSandbox,
	watchedAppointments,
	type Json,
} from './common';

const ALL_EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];
const ZONE = 'America/Santiago';

const sb = usePollingSandbox(
	{ seed: 60, seedValue: 5, pageSize: 7, timeZone: ZONE },
	{ resetEach: true },
);
const { admin, api } = sb;

const harness = (options: Json = {}, events = ALL_EVENTS): PollingHarness =>
	sb.harness({ events, options });
const events = eventNames;

const inDays = (days: number, hour = 10) => inDaysIn(ZONE, days, hour);

async function create(days: number): Promise<Json> {
	return await admin('POST', '/__sandbox/appointments/', {
		start_date: inDays(days),
		status: 'CONFIRMED',
	});
}

const watched = async () => await watchedAppointments(sb);

describe('Appointments Polling Trigger', () => {
	test('first activation takes a baseline and emits nothing; an unchanged account emits nothing', async () => {
		const h = harness();
		expect((await h.activate()).items).toBeUndefined();
		const saved = h.saved()['node:Appointments Polling Trigger'] as Json;
		expect(saved.state.v).toBe(1);
		expect(saved.state.entries.split(';').length).toBeGreaterThan(10);
		expect(await h.poll()).toEqual({});
		expect(await h.poll()).toEqual({});
	});

	test('create, cancel, reschedule and status change between polls: exactly those events, once each', async () => {
		const h = harness();
		await h.activate();
		// Any three watched appointments, as long as each change really changes something (the seed's statuses and
		// the window depend on the time of day).
		const list = await watched();
		const toCancel = list[0];
		const toMove = list.find(
			(a) => a !== toCancel && Date.parse(a.start_date) !== Date.parse(inDays(5, 15)),
		)!;
		const toMark = list.find(
			(a) => a !== toCancel && a !== toMove && a.status !== 'PENDING_PAYMENT',
		)!;
		const created = await create(3);
		await api('DELETE', `appointments/${toCancel.appointment_key}/?send_email=false`);
		await api('PATCH', `appointments/${toMove.appointment_key}/reschedule/`, {
			start_date: inDays(5, 15),
		});
		await api('PATCH', `appointments/${toMark.appointment_key}/`, { status: 'PENDING_PAYMENT' });

		const { items, error } = await h.poll();
		expect(error).toBeUndefined();
		expect(events(items)).toEqual(
			[
				`appointment.created ${created.appointment_key}`,
				`appointment.canceled ${toCancel.appointment_key}`,
				`appointment.updated ${toMove.appointment_key}`,
				`appointment.updated ${toMark.appointment_key}`,
			].sort(),
		);
		// The webhook trigger's item: the envelope with the service's current record as data (an update also says
		// what the start and status were: `previous`).
		for (const item of items!) {
			const keys =
				item.json.event === 'appointment.updated'
					? ['data', 'event', 'previous', 'timestamp']
					: ['data', 'event', 'timestamp'];
			expect(Object.keys(item.json).sort()).toEqual(keys);
			expect(item.json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
			const key = (item.json.data as Json).appointment_key;
			expect(item.json.data).toEqual(await api('GET', `appointments/${key}/`));
		}
		expect(await h.poll()).toEqual({});
	});

	test('a rescheduling out of the window and back is an update each time, never a creation', async () => {
		const h = harness({ daysAhead: 10 });
		await h.activate();
		const [a] = await watched();
		await api('PATCH', `appointments/${a.appointment_key}/reschedule/`, { start_date: inDays(40) });
		expect(events((await h.poll()).items)).toEqual([`appointment.updated ${a.appointment_key}`]);
		await api('PATCH', `appointments/${a.appointment_key}/reschedule/`, { start_date: inDays(2) });
		const back = (await h.poll()).items!;
		expect(events(back)).toEqual([`appointment.updated ${a.appointment_key}`]);
		expect(Date.parse((back[0].json.data as Json).start_date)).toBe(Date.parse(inDays(2)));
	});

	test("only the selected events start the workflow; Simplify gives the webhook trigger's simplified item", async () => {
		const h = harness({ simplify: true }, ['appointment.created']);
		await h.activate();
		const [a] = await watched();
		await api('PATCH', `appointments/${a.appointment_key}/`, {
			status: a.status === 'NO_SHOW' ? 'ATTENDED' : 'NO_SHOW',
		});
		expect(await h.poll()).toEqual({});
		const created = await create(1);
		const { items } = await h.poll();
		expect(items!.map((i) => i.json)).toEqual([
			{
				appointment_key: created.appointment_key,
				search_code: created.search_code,
				status: 'CONFIRMED',
				start_date: created.start_date,
				calendar: { calendar_key: created.calendar.calendar_key, name: created.calendar.name },
				person: { full_name: created.person.full_name, email: created.person.email },
				event: 'appointment.created',
				timestamp: expect.any(String),
			},
		]);
	});

	test('an appointment created and cancelled between two polls yields created, then canceled', async () => {
		const h = harness();
		await h.activate();
		const a = await create(4);
		await api('DELETE', `appointments/${a.appointment_key}/?send_email=false`);
		const { items } = await h.poll();
		expect(items!.map((i) => `${i.json.event} ${(i.json.data as Json).appointment_key}`)).toEqual([
			`appointment.created ${a.appointment_key}`,
			`appointment.canceled ${a.appointment_key}`,
		]);
	});

	test('a restart of n8n between polls: nothing lost, nothing repeated', async () => {
		const h = harness();
		await h.activate();
		const first = await create(2);
		expect(events((await h.poll()).items)).toEqual([
			`appointment.created ${first.appointment_key}`,
		]);

		// Changes while n8n is down are emitted by the activation poll after the restart, once.
		const [a] = await watched();
		const second = await create(6);
		await api('PATCH', `appointments/${a.appointment_key}/`, {
			status: 'PENDING' === a.status ? 'CONFIRMED' : 'PENDING',
		});
		const afterRestart = await h.restart();
		expect(events(afterRestart.items)).toEqual(
			[
				`appointment.created ${second.appointment_key}`,
				`appointment.updated ${a.appointment_key}`,
			].sort(),
		);
		expect(await h.poll()).toEqual({});
		expect((await h.restart()).items).toBeUndefined();
		expect(await h.poll()).toEqual({});
	});

	test('a change seen by a poll that emitted nothing is not emitted after a restart either', async () => {
		const h = harness({}, ['appointment.created']);
		await h.activate();
		const [a] = await watched();
		await api('PATCH', `appointments/${a.appointment_key}/`, {
			status: a.status === 'ATTENDED' ? 'NO_SHOW' : 'ATTENDED',
		});
		expect(await h.poll()).toEqual({}); // not subscribed: nothing emitted, nothing saved
		expect((await h.restart()).items).toBeUndefined();
		const created = await create(1);
		expect(events((await h.poll()).items)).toEqual([
			`appointment.created ${created.appointment_key}`,
		]);
	});

	test('failing polls (401, 5xx or dropped connections after retries) show as poll errors and change nothing; the next poll catches up once', async () => {
		const h = harness();
		await h.activate();
		const before = h.saved();
		const a = await create(2);

		await admin('POST', '/__sandbox/faults/', {
			count: 1,
			status: 401,
			body: { detail: 'Invalid token.' },
		});
		const unauthorised = await h.poll();
		expect(unauthorised.items).toBeUndefined();
		expect(unauthorised.error?.message).toMatch(/Authorization failed/);

		// All five attempts answered 502; a gateway's Retry-After: 0 spares the backoff (the resets below still pay it).
		await admin('POST', '/__sandbox/faults/', {
			count: 5,
			status: 502,
			retryAfter: 0,
			match: { path: '/api/v3/appointments/' },
		});
		const failing = await h.poll();
		expect(failing.error?.message).toMatch(/502|Bad Gateway|attempts/i);
		expect(h.saved()).toEqual(before);

		await admin('POST', '/__sandbox/faults/', {
			count: 5,
			reset: true,
			match: { path: '/api/v3/appointments/' },
		});
		expect((await h.poll()).error?.message).toMatch(/reset|socket|ECONNRESET|hang up|attempts/i);

		// A failure on a later page, after page 1 was read: still nothing committed.
		const b = await create(3);
		await admin('POST', '/__sandbox/faults/', {
			count: 1,
			status: 401,
			match: { path: '/api/v3/appointments/', query: { page: '2' } },
		});
		expect((await h.poll()).error?.message).toMatch(/Authorization failed/);

		const { items, error } = await h.poll();
		expect(error).toBeUndefined();
		expect(events(items)).toEqual(
			[
				`appointment.created ${a.appointment_key}`,
				`appointment.created ${b.appointment_key}`,
			].sort(),
		);
		expect(await h.poll()).toEqual({});
	}, 120_000);

	test('an unreachable service fails the poll; the activation poll fails activation', async () => {
		const h = startPollingHarness({
			credentials: { baseUrl: 'http://127.0.0.1:1', accessToken: TOKEN },
			parameters: { events: ALL_EVENTS, options: {} },
		});
		await expect(h.activate()).rejects.toThrow(/127\.0\.0\.1|connect|refused/i);
	}, 120_000);

	test('appointments that enter the window as it moves are watched silently, not reported as created', async () => {
		const far = await create(20);
		const h = harness({ daysAhead: 10 });
		await h.activate();
		h.setParameters({ events: ALL_EVENTS, options: { daysAhead: 30 } });
		expect(await h.poll()).toEqual({});
		await api('PATCH', `appointments/${far.appointment_key}/`, { status: 'PENDING' });
		expect(events((await h.poll()).items)).toEqual([`appointment.updated ${far.appointment_key}`]);
	});

	test('paging: records the service returns twice or in a cursor list are counted once', async () => {
		await admin('POST', '/__sandbox/config/', { pagination: 'cursor', pageSize: 3 });
		const h = harness();
		await h.activate();
		const a = await create(2);
		expect(events((await h.poll()).items)).toEqual([`appointment.created ${a.appointment_key}`]);
		await admin('POST', '/__sandbox/config/', { pagination: 'page' });
	});

	test('Max Watched Appointments: a window holding more fails with a message naming the option', async () => {
		await admin('POST', '/__sandbox/reset/', { seed: 300, seedValue: 5 });
		const big = harness({ maxWatched: 100, daysBack: 31, daysAhead: 366 });
		await expect(big.activate()).rejects.toThrow(/more than Max Watched Appointments \(100\)/);
	});

	test('"Fetch test event" returns one real appointment as a sample event and leaves the state alone', async () => {
		const h = harness({}, ['appointment.canceled', 'appointment.created']);
		await h.activate();
		const saved = h.saved();
		const items = (await h.manual())!;
		expect(items).toHaveLength(1);
		expect(items[0].json.event).toBe('appointment.canceled');
		const key = (items[0].json.data as Json).appointment_key;
		expect(items[0].json.data).toEqual(await api('GET', `appointments/${key}/`));
		expect(h.saved()).toEqual(saved);
	});

	test('example 7 (React to events without public https): its saved trigger parameters report a created appointment', async () => {
		const example = JSON.parse(
			readFileSync(join(__dirname, '../../examples/7-react-to-events-polling.json'), 'utf8'),
		);
		const node = example.nodes.find(
			(n: Json) => n.type === 'n8n-nodes-appointments.appointmentsPollingTrigger',
		);
		expect(node.parameters.pollTimes).toEqual({ item: [{ mode: 'everyMinute' }] });
		const h = sb.harness(node.parameters);
		await h.activate();
		const a = await create(1);
		expect(events((await h.poll()).items)).toEqual([`appointment.created ${a.appointment_key}`]);
	});

	test('the static data stays small: under 50 bytes per watched appointment', async () => {
		const h = harness();
		await h.activate();
		const count = (h.saved()['node:Appointments Polling Trigger'] as Json).state.entries.split(
			';',
		).length;
		expect(h.savedBytes() / count).toBeLessThan(50 + 200 / count);
	});
});
