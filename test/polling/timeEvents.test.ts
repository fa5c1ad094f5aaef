/**
 * The polling trigger's time events (appointment.starting_soon, appointment.started) in n8n-core's real
 * PollContext and PollTriggerExecutor against the sandbox, with a clock the test controls: luxon's Settings.now,
 * which the trigger reads through DateTime.now() (the sandbox does not read it). Every rule of docs/reminders.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DateTime, Settings } from 'luxon';

import type { Sandbox } from '../../sandbox';
import { startPollingHarness, type PollingHarness } from '../helpers/polling';
import { adminRequest, asJson, sandboxFetch, startTestSandbox } from '../helpers/sandbox';

// eslint-disable-next-line @n8n/community-nodes/no-hardcoded-secrets -- a sandbox token made up for these tests
const TOKEN = 'time-events-token-5d12';
const ADMIN = 'time-events-admin-9e07';
const ZONE = 'Europe/Berlin';
const SOON = 'appointment.starting_soon';
const STARTED = 'appointment.started';
const MIN = 60_000;
const HOUR = 60 * MIN;
/** Far from the real date, so only this file's appointments are in any window. */
const T0 = Date.parse('2027-02-10T12:00:00Z');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let sb: Sandbox;
let clock = T0;

beforeAll(async () => {
	sb = await startTestSandbox({ token: TOKEN, admin: ADMIN }, { seed: 0, timeZone: ZONE });
	Settings.now = () => clock;
});
afterAll(async () => {
	Settings.now = () => Date.now();
	await sb?.close();
});
beforeEach(async () => {
	clock = T0;
	await admin('POST', '/__sandbox/reset/', { seed: 0 });
	await admin('POST', '/__sandbox/config/', { pageSize: 3 });
});

async function admin(method: string, path: string, body?: unknown): Promise<Json> {
	return await adminRequest(sb.url, ADMIN, method, path, body);
}

async function api(method: string, path: string, body?: unknown): Promise<Json> {
	const res = await sandboxFetch(`${sb.url}/api/v3/${path}`, method, TOKEN, asJson(body));
	if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status} ${res.text}`);
	return res.body;
}

const iso = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE }).toISO()!;

/** An appointment starting at `start` (epoch ms); its key. */
async function create(start: number, status = 'CONFIRMED'): Promise<string> {
	return (await admin('POST', '/__sandbox/appointments/', { start_date: iso(start), status })).appointment_key;
}

const reschedule = (key: string, start: number) => api('PATCH', `appointments/${key}/reschedule/`, { start_date: iso(start) });
const cancel = (key: string) => api('DELETE', `appointments/${key}/?send_email=false`);

function harness(events: string[], leadTime?: number, options: Json = {}, timezone = ZONE): PollingHarness {
	return startPollingHarness({
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		parameters: { events, ...(leadTime === undefined ? {} : { leadTime }), options },
		timezone,
	});
}

function names(items: Json[] | undefined): string[] {
	return (items ?? []).map((i) => `${i.json.event} ${i.json.data?.appointment_key ?? i.json.appointment_key}`).sort();
}

/** Moves the clock and polls once; the events emitted ("<event> <key>", sorted). */
async function pollAt(h: PollingHarness, ms: number): Promise<string[]> {
	clock = ms;
	const { items, error } = await h.poll();
	if (error) throw error;
	return names(items);
}

describe('starting soon', () => {
	test('runs once, at the first poll at or after start - Lead Time, with the webhook trigger\'s item shape', async () => {
		const a = await create(T0 + 2 * HOUR);
		const h = harness([SOON], 60);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR - 1000)).toEqual([]);
		clock = T0 + HOUR;
		const { items } = await h.poll();
		expect(names(items)).toEqual([`${SOON} ${a}`]);
		const item = items![0].json as Json;
		expect(Object.keys(item).sort()).toEqual(['data', 'event', 'timestamp']);
		expect(item.data).toEqual(await api('GET', `appointments/${a}/`));
		expect(Date.parse(item.timestamp)).toBe(T0 + HOUR);
		expect(await pollAt(h, T0 + HOUR + MIN)).toEqual([]);
		expect((await h.restart()).items).toBeUndefined();
		expect(await pollAt(h, T0 + 2 * HOUR - 1000)).toEqual([]);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([]);
	});

	test('first poll after publishing: appointments already inside Lead Time are not reminded; later ones are', async () => {
		const inside = await create(T0 + 30 * MIN);
		const h = harness([SOON], 60);
		expect((await h.activate()).items).toBeUndefined();
		expect(await pollAt(h, T0 + MIN)).toEqual([]);
		const booked = await create(T0 + 45 * MIN); // made after publishing, already inside the window
		const later = await create(T0 + 3 * HOUR);
		expect(await pollAt(h, T0 + 2 * MIN)).toEqual([`${SOON} ${booked}`]);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([`${SOON} ${later}`]);
		expect(await pollAt(h, T0 + 2 * HOUR + MIN)).toEqual([]);
		expect(inside).toBeDefined();
	});

	test('canceled appointments are never reminded', async () => {
		const canceled = await create(T0 + 2 * HOUR, 'CANCELED_CLIENT');
		const toCancel = await create(T0 + 2 * HOUR);
		const h = harness([SOON, STARTED], 60);
		await h.activate();
		await cancel(toCancel);
		expect(await pollAt(h, T0 + HOUR)).toEqual([]);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([]);
		expect(canceled).toBeDefined();
	});

	test("the trigger's Filters apply: an appointment with a status outside them is neither reminded nor started", async () => {
		const pending = await create(T0 + 2 * HOUR, 'PENDING');
		const confirmed = await create(T0 + 2 * HOUR);
		const h = startPollingHarness({
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			parameters: { events: [SOON, STARTED], leadTime: 60, filters: { statuses: ['CONFIRMED'] }, options: {} },
			timezone: ZONE,
		});
		await h.activate();
		expect(await pollAt(h, T0 + HOUR)).toEqual([`${SOON} ${confirmed}`]);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([`${STARTED} ${confirmed}`]);
		expect(pending).toBeDefined();
	});

	test('a reschedule after the reminder re-arms it for the new start; one before the window is reminded once, for the new start', async () => {
		const early = await create(T0 + 2 * HOUR);
		const moved = await create(T0 + 3 * HOUR);
		const h = harness([SOON], 60);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR)).toEqual([`${SOON} ${early}`]);
		await reschedule(early, T0 + 6 * HOUR);
		await reschedule(moved, T0 + 5 * HOUR); // before its window opened
		expect(await pollAt(h, T0 + 2 * HOUR + 30 * MIN)).toEqual([]);
		expect(await pollAt(h, T0 + 4 * HOUR)).toEqual([`${SOON} ${moved}`]);
		expect(await pollAt(h, T0 + 5 * HOUR)).toEqual([`${SOON} ${early}`]);
		// Moved again inside its open window: the new start's window is open, so the next poll reminds.
		await reschedule(early, T0 + 5 * HOUR + 30 * MIN);
		expect(await pollAt(h, T0 + 5 * HOUR + MIN)).toEqual([`${SOON} ${early}`]);
		// The same start again changes nothing.
		await reschedule(early, T0 + 5 * HOUR + 30 * MIN);
		expect(await pollAt(h, T0 + 5 * HOUR + 2 * MIN)).toEqual([]);
	});

	test('a window that opened while n8n was down is caught up at the next poll while the appointment has not started', async () => {
		const open = await create(T0 + 2 * HOUR);
		const over = await create(T0 + 90 * MIN);
		const h = harness([SOON, STARTED], 60);
		await h.activate();
		clock = T0 + 100 * MIN; // n8n down from T0 to here: both windows opened, one appointment started meanwhile
		expect(names((await h.restart()).items)).toEqual([`${SOON} ${open}`, `${STARTED} ${over}`].sort());
		expect(await pollAt(h, T0 + 101 * MIN)).toEqual([]);
	});

	test('Lead Time made longer: those already inside the wider window are not reminded; made shorter: nothing again', async () => {
		const a = await create(T0 + 3 * HOUR);
		const b = await create(T0 + 90 * MIN);
		const h = harness([SOON], 60);
		await h.activate();
		expect(await pollAt(h, T0 + 30 * MIN)).toEqual([`${SOON} ${b}`]);
		h.setParameters({ events: [SOON], leadTime: 240, options: {} });
		clock = T0 + 31 * MIN;
		expect((await h.restart()).items).toBeUndefined();
		const c = await create(T0 + 5 * HOUR);
		expect(await pollAt(h, T0 + 61 * MIN)).toEqual([`${SOON} ${c}`]);
		h.setParameters({ events: [SOON], leadTime: 30, options: {} });
		expect((await h.restart()).items).toBeUndefined();
		expect(await pollAt(h, T0 + 2 * HOUR + 30 * MIN)).toEqual([]);
		expect(a).toBeDefined();
	});
});

describe('started', () => {
	test('runs once at the first poll at or after the start; canceled after its reminder: no started', async () => {
		const a = await create(T0 + 2 * HOUR);
		const b = await create(T0 + 2 * HOUR);
		const h = harness([SOON, STARTED], 60);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR)).toEqual([`${SOON} ${a}`, `${SOON} ${b}`]);
		await cancel(b);
		expect(await pollAt(h, T0 + 2 * HOUR - 1000)).toEqual([]);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([`${STARTED} ${a}`]);
		expect(await pollAt(h, T0 + 2 * HOUR + MIN)).toEqual([]);
		expect((await h.restart()).items).toBeUndefined();
		expect(await pollAt(h, T0 + 3 * HOUR)).toEqual([]);
	});

	test('first poll after publishing: appointments that started before it are not reported', async () => {
		const before = await create(T0 - 10 * MIN);
		const after = await create(T0 + 10 * MIN);
		const h = harness([STARTED]);
		expect((await h.activate()).items).toBeUndefined();
		expect(await pollAt(h, T0 + 10 * MIN)).toEqual([`${STARTED} ${after}`]);
		expect(before).toBeDefined();
	});

	test('after downtime it is caught up for appointments that started up to 24 hours before the poll, not older', async () => {
		const old = await create(T0 + HOUR);
		const recent = await create(T0 + 2 * HOUR);
		const h = harness([STARTED]);
		await h.activate();
		clock = T0 + HOUR + 24 * HOUR + MIN; // down for a day: `old` started 24 h 1 min ago
		expect(names((await h.restart()).items)).toEqual([`${STARTED} ${recent}`]);
		expect(old).toBeDefined();
	});

	test('a reschedule after it started re-arms it for the new start', async () => {
		const a = await create(T0 + HOUR);
		const h = harness([STARTED]);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR)).toEqual([`${STARTED} ${a}`]);
		await reschedule(a, T0 + 3 * HOUR);
		expect(await pollAt(h, T0 + 2 * HOUR)).toEqual([]);
		expect(await pollAt(h, T0 + 3 * HOUR + 5 * MIN)).toEqual([`${STARTED} ${a}`]);
	});
});

describe('whatever the poll interval, restarts and failing polls', () => {
	test.each([1, 7, 45])('polls every %i minutes over 8 hours: each event once, at the first poll past its threshold', async (step) => {
		const lead = 90;
		const starts = [T0 + 20 * MIN, T0 + 95 * MIN, T0 + 2 * HOUR + 13 * MIN, T0 + 4 * HOUR, T0 + 7 * HOUR + 59 * MIN];
		const keys = await Promise.all(starts.map((s) => create(s)));
		const h = harness([SOON, STARTED], lead);
		await h.activate();
		const seen: Array<{ at: number; name: string }> = [];
		for (let at = T0 + step * MIN, i = 0; at <= T0 + 9 * HOUR; at += step * MIN, i++) {
			clock = at;
			// a restart now and then: n8n loses what polls that emitted nothing had seen
			const result = i % 5 === 4 ? await h.restart() : await h.poll();
			if (result.error) throw result.error;
			for (const name of names(result.items)) seen.push({ at, name });
		}
		const firstPollFrom = (t: number) => T0 + Math.max(1, Math.ceil((t - T0) / (step * MIN))) * step * MIN;
		const expected: Array<{ at: number; name: string }> = [];
		starts.forEach((start, i) => {
			// inside the window at publishing (T0): no reminder (baseline)
			if (start - lead * MIN > T0) expected.push({ at: firstPollFrom(start - lead * MIN), name: `${SOON} ${keys[i]}` });
			expected.push({ at: firstPollFrom(start), name: `${STARTED} ${keys[i]}` });
		});
		// a window that opened and closed between two polls gets no reminder (it had started)
		const valid = expected.filter((e) => !(e.name.startsWith(SOON) && e.at >= starts[keys.indexOf(e.name.split(' ')[1])]));
		const order = (list: Array<{ at: number; name: string }>) => list.map((e) => `${e.at - T0} ${e.name}`).sort();
		expect(order(seen)).toEqual(order(valid));
	});

	test('a failing request leaves the state as it was: the next poll emits once (with a change event in the same poll)', async () => {
		const a = await create(T0 + 2 * HOUR);
		for (let i = 0; i < 5; i++) await create(T0 + 3 * HOUR + i * MIN);
		const h = harness(['appointment.created', SOON], 60);
		await h.activate();
		const saved = h.saved();
		clock = T0 + HOUR;
		const b = await create(T0 + 10 * HOUR);
		await admin('POST', '/__sandbox/faults/', { count: 1, status: 401, match: { path: '/api/v3/appointments/', query: { page: '2' } } });
		const failed = await h.poll();
		expect(failed.error?.message).toMatch(/Authorization failed/);
		expect(h.saved()).toEqual(saved);
		expect(await pollAt(h, T0 + HOUR + MIN)).toEqual([`appointment.created ${b}`, `${SOON} ${a}`].sort());
		expect(await pollAt(h, T0 + HOUR + 2 * MIN)).toEqual([]);
	});
});

describe('selection, cost and the builder\'s view', () => {
	test('only change events selected: no time event; only time events: no change event, and one list of their window only', async () => {
		const a = await create(T0 + 2 * HOUR);
		const changes = harness(['appointment.created', 'appointment.updated', 'appointment.canceled']);
		await changes.activate();
		expect(await pollAt(changes, T0 + HOUR)).toEqual([]);
		expect(await pollAt(changes, T0 + 2 * HOUR)).toEqual([]);

		clock = T0;
		const time = harness([SOON, STARTED], 60);
		await time.activate();
		const b = await create(T0 + 3 * HOUR);
		await admin('DELETE', '/__sandbox/requests/');
		expect(await pollAt(time, T0 + HOUR)).toEqual([`${SOON} ${a}`]);
		const { requests } = await admin('GET', '/__sandbox/requests/');
		expect(requests.length).toBeGreaterThan(0);
		// one window: the time events' (now - 24 h .. now + Lead Time, padded 27 h each side for the account's zone)
		const windows = new Set(requests.map((r: Json) => `${r.method} ${r.path} ${r.query.start_date} ${r.query.end_date}`));
		const wall = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
		expect([...windows]).toEqual([`GET /api/v3/appointments/ ${wall(T0 + HOUR - 51 * HOUR)} ${wall(T0 + 2 * HOUR + 27 * HOUR)}`]);
		expect(b).toBeDefined();
		expect(Object.keys(time.saved()['node:Appointments Polling Trigger'] as Json)).toEqual(['time']);
	});

	test('static data: under 50 bytes per remembered appointment, and a pair is forgotten once it can no longer match', async () => {
		for (let i = 0; i < 60; i++) await create(T0 + 30 * MIN + i * 10 * MIN);
		const h = harness([SOON], 1440);
		await h.activate(); // the baseline remembers all 60
		const state = (h.saved()['node:Appointments Polling Trigger'] as Json).time;
		expect(state.done.split(';')).toHaveLength(60);
		expect(h.savedBytes() / 60).toBeLessThan(50);
		const late = await create(T0 + 30 * HOUR);
		expect(await pollAt(h, T0 + 12 * HOUR)).toEqual([`${SOON} ${late}`]);
		expect((h.saved()['node:Appointments Polling Trigger'] as Json).time.done.split(';')).toHaveLength(1);
	});

	test('Simplify gives the simplified item; Fetch test event returns a sample of the selected time event', async () => {
		const past = await create(T0 - 3 * HOUR);
		const recent = await create(T0 - 2 * HOUR);
		await create(T0 + 90 * MIN, 'CANCELED');
		const a = await create(T0 + 2 * HOUR);
		await create(T0 + 3 * HOUR);
		const h = harness([SOON], 60, { simplify: true });
		await h.activate();
		clock = T0 + HOUR;
		const { items } = await h.poll();
		const record = await api('GET', `appointments/${a}/`);
		expect(items!.map((i) => i.json)).toEqual([
			{
				appointment_key: a,
				search_code: record.search_code,
				status: 'CONFIRMED',
				start_date: record.start_date,
				calendar: record.calendar,
				person: record.person,
				event: SOON,
				timestamp: iso(T0 + HOUR),
			},
		]);
		clock = T0;
		// The sample fits the event: the next appointment to start (not a canceled one), the last one started.
		for (const [event, key] of [[SOON, a], [STARTED, recent]]) {
			const sample = harness([event], 60);
			const [item] = (await sample.manual())!;
			expect(item.json.event).toBe(event);
			expect(item.json.data).toEqual(await api('GET', `appointments/${key}/`));
			expect(sample.saved()).toEqual({});
		}
		// None started in the past 24 hours: any appointment of the watched window, as for the change events.
		clock = T0 - 5 * HOUR;
		const [fallback] = (await harness([STARTED]).manual())!;
		expect(fallback.json.event).toBe(STARTED);
		expect([past, recent, a]).toContain((fallback.json.data as Json).appointment_key);
	});

	test('a bad Lead Time fails the poll with a message naming the field', async () => {
		const h = harness([SOON], 0);
		await expect(h.activate()).rejects.toThrow('The field "Lead Time (Minutes)" must be a whole number from 1 to 43200 (got 0)');
		await expect(harness([SOON], 10080).activate()).resolves.toBeDefined();
	});
});

describe('time zones: the window is computed on instants', () => {
	// Europe/Berlin: clocks go forward on 28 Mar 2027 (02:00 -> 03:00) and back on 31 Oct 2027 (03:00 -> 02:00).
	test.each([
		['spring forward', '2027-03-28T09:00:00+02:00', '2027-03-27T08:00:00+01:00'],
		['fall back', '2027-10-31T09:00:00+01:00', '2027-10-30T10:00:00+02:00'],
	])('09:00 local on the day the clocks %s is reminded 24 h before in real time', async (_name, start, remindAt) => {
		const startMs = Date.parse(start);
		expect(Date.parse(remindAt)).toBe(startMs - 24 * HOUR);
		clock = startMs - 30 * HOUR;
		const a = await create(startMs);
		for (const zone of [ZONE, 'America/New_York']) {
			clock = startMs - 30 * HOUR;
			const h = harness([SOON], 1440, {}, zone);
			await h.activate();
			// 09:00 local the day before is an hour off the 24 h (the wall-clock reading), so nothing then
			expect(await pollAt(h, Date.parse(remindAt) - 1000)).toEqual([]);
			expect(await pollAt(h, Date.parse(remindAt))).toEqual([`${SOON} ${a}`]);
		}
	});
});

describe('examples 8 and 9 as saved', () => {
	const triggerOf = (file: string) =>
		JSON.parse(readFileSync(join(__dirname, '../../examples', file), 'utf8')).nodes.find(
			(n: Json) => n.type === 'n8n-nodes-appointments.appointmentsPollingTrigger',
		);

	test('8 remind 24 hours before: one reminder for an appointment when it is 24 hours away, with the client\'s email', async () => {
		const node = triggerOf('8-remind-24-hours-before.json');
		expect(node.parameters).toMatchObject({ events: [SOON], leadTime: 1440 });
		const a = await create(T0 + 30 * HOUR);
		const h = startPollingHarness({ credentials: { baseUrl: sb.url, accessToken: TOKEN }, parameters: node.parameters, timezone: ZONE });
		await h.activate();
		expect(await pollAt(h, T0 + 6 * HOUR - MIN)).toEqual([]);
		clock = T0 + 6 * HOUR;
		const { items } = await h.poll();
		expect(names(items)).toEqual([`${SOON} ${a}`]);
		expect((items![0].json.data as Json).person.email).toMatch(/@/);
		expect(await pollAt(h, T0 + 6 * HOUR + MIN)).toEqual([]);
	});

	test('9 no-show follow-up: one started run at the first poll at or after the start', async () => {
		const node = triggerOf('9-no-show-follow-up.json');
		expect(node.parameters.events).toEqual([STARTED]);
		const a = await create(T0 + 2 * HOUR);
		const h = startPollingHarness({ credentials: { baseUrl: sb.url, accessToken: TOKEN }, parameters: node.parameters, timezone: ZONE });
		await h.activate();
		expect(await pollAt(h, T0 + 2 * HOUR - 1000)).toEqual([]);
		expect(await pollAt(h, T0 + 2 * HOUR + 20 * 1000)).toEqual([`${STARTED} ${a}`]);
		expect(await pollAt(h, T0 + 2 * HOUR + MIN)).toEqual([]);
	});
});
