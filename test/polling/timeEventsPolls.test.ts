/**
 * The polling trigger's time events over many polls (timeEvents.test.ts has each event's rules), in n8n-core's
 * real PollContext and PollTriggerExecutor against the sandbox with a clock the test controls
 * (timeEventsSetup.ts): any poll interval, restarts and failing polls; what the selection requests and keeps;
 * the builder's view; daylight saving; examples 8 and 9 as saved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DateTime } from 'luxon';

import { eventNames, type Json } from './common';
import { HOUR, iso, MIN, SOON, STARTED, T0, ZONE, useTimeEvents } from './timeEventsSetup';

const { sb, admin, api, create, harness, pollAt, reschedule, setClock } = useTimeEvents();
const names = eventNames;

describe('whatever the poll interval, restarts and failing polls', () => {
	test.each([1, 7, 45])(
		'polls every %i minutes over 8 hours: each event once, at the first poll past its threshold',
		async (step) => {
			const lead = 90;
			const starts = [
				T0 + 20 * MIN,
				T0 + 95 * MIN,
				T0 + 2 * HOUR + 13 * MIN,
				T0 + 4 * HOUR,
				T0 + 7 * HOUR + 59 * MIN,
			];
			const keys = await Promise.all(starts.map((s) => create(s)));
			// One page per poll (paging and a failing page 2: the next test): hundreds of polls, each a single request.
			await admin('POST', '/__sandbox/config/', { pageSize: 10 });
			const h = harness([SOON, STARTED], lead);
			await h.activate();
			const seen: Array<{ at: number; name: string }> = [];
			for (let at = T0 + step * MIN, i = 0; at <= T0 + 9 * HOUR; at += step * MIN, i++) {
				setClock(at);
				// a restart now and then: n8n loses what polls that emitted nothing had seen
				const result = i % 5 === 4 ? await h.restart() : await h.poll();
				if (result.error) throw result.error;
				for (const name of names(result.items)) seen.push({ at, name });
			}
			const firstPollFrom = (t: number) =>
				T0 + Math.max(1, Math.ceil((t - T0) / (step * MIN))) * step * MIN;
			const expected: Array<{ at: number; name: string }> = [];
			starts.forEach((start, i) => {
				// inside the window at publishing (T0): no reminder (baseline)
				if (start - lead * MIN > T0)
					expected.push({ at: firstPollFrom(start - lead * MIN), name: `${SOON} ${keys[i]}` });
				expected.push({ at: firstPollFrom(start), name: `${STARTED} ${keys[i]}` });
			});
			// a window that opened and closed between two polls gets no reminder (it had started)
			const valid = expected.filter(
				(e) => !(e.name.startsWith(SOON) && e.at >= starts[keys.indexOf(e.name.split(' ')[1])]),
			);
			const order = (list: Array<{ at: number; name: string }>) =>
				list.map((e) => `${e.at - T0} ${e.name}`).sort();
			expect(order(seen)).toEqual(order(valid));
		},
	);

	test('a failing request leaves the state as it was: the next poll emits once (with a change event in the same poll)', async () => {
		const a = await create(T0 + 2 * HOUR);
		for (let i = 0; i < 5; i++) await create(T0 + 3 * HOUR + i * MIN);
		const h = harness(['appointment.created', SOON], 60);
		await h.activate();
		const saved = h.saved();
		setClock(T0 + HOUR);
		const b = await create(T0 + 10 * HOUR);
		await admin('POST', '/__sandbox/faults/', {
			count: 1,
			status: 401,
			match: { path: '/api/v3/appointments/', query: { page: '2' } },
		});
		const failed = await h.poll();
		expect(failed.error?.message).toMatch(/Authorization failed/);
		expect(h.saved()).toEqual(saved);
		expect(await pollAt(h, T0 + HOUR + MIN)).toEqual(
			[`appointment.created ${b}`, `${SOON} ${a}`].sort(),
		);
		expect(await pollAt(h, T0 + HOUR + 2 * MIN)).toEqual([]);
	});
});

describe("selection, cost and the builder's view", () => {
	test('only change events selected: no time event; only time events: no change event, and one list of their window only', async () => {
		const a = await create(T0 + 2 * HOUR);
		const changes = harness(['appointment.created', 'appointment.updated', 'appointment.canceled']);
		await changes.activate();
		expect(await pollAt(changes, T0 + HOUR)).toEqual([]);
		expect(await pollAt(changes, T0 + 2 * HOUR)).toEqual([]);

		setClock(T0);
		const time = harness([SOON, STARTED], 60);
		await time.activate();
		const b = await create(T0 + 3 * HOUR);
		await admin('DELETE', '/__sandbox/requests/');
		expect(await pollAt(time, T0 + HOUR)).toEqual([`${SOON} ${a}`]);
		const { requests } = await admin('GET', '/__sandbox/requests/');
		expect(requests.length).toBeGreaterThan(0);
		// one window: the time events' (now - 24 h .. now + Lead Time), for the account's zone padded 27 h each side
		// and on to a noon (a wall-clock time no zone skips or repeats)
		const windows = new Set(
			requests.map((r: Json) => `${r.method} ${r.path} ${r.query.start_date} ${r.query.end_date}`),
		);
		const noon = (ms: number) =>
			DateTime.fromMillis(ms, { zone: ZONE }).toFormat("yyyy-MM-dd'T'12:00:00");
		expect([...windows]).toEqual([
			`GET /api/v3/appointments/ ${noon(T0 + HOUR - 63 * HOUR)} ${noon(T0 + 2 * HOUR + 39 * HOUR)}`,
		]);
		expect(b).toBeDefined();
		expect(Object.keys(time.saved()['node:Appointments Polling Trigger'] as Json)).toEqual([
			'time',
		]);
	});

	test('change and time events selected: one list of the two windows together, each event once', async () => {
		const watched = await create(T0 + 5 * HOUR);
		// Lead Time (3 days) reaches past Days Ahead (1), Started (24 h back) past Days Back (0): the windows differ.
		const h = harness(['appointment.created', 'appointment.updated', SOON, STARTED], 3 * 24 * 60, {
			daysAhead: 1,
			daysBack: 0,
		});
		await h.activate();
		const fresh = await create(T0 + 10 * HOUR);
		const far = await create(T0 + 48 * HOUR); // inside Lead Time only: starting soon, not created
		const began = await create(T0 + 30 * MIN); // started before the window of the change events: started only
		await reschedule(watched, T0 + 6 * HOUR);
		await admin('DELETE', '/__sandbox/requests/');
		expect(await pollAt(h, T0 + HOUR)).toEqual(
			[
				`appointment.created ${fresh}`,
				`${SOON} ${fresh}`,
				`${SOON} ${far}`,
				`appointment.updated ${watched}`,
				`${SOON} ${watched}`,
				`${STARTED} ${began}`,
			].sort(),
		);
		const { requests } = await admin('GET', '/__sandbox/requests/');
		const windows = new Set(
			requests
				.filter((r: Json) => r.path === '/api/v3/appointments/')
				.map((r: Json) => `${r.query.start_date} ${r.query.end_date}`),
		);
		expect(windows.size).toBe(1);
		expect(await pollAt(h, T0 + HOUR + MIN)).toEqual([]);
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
		expect(
			(h.saved()['node:Appointments Polling Trigger'] as Json).time.done.split(';'),
		).toHaveLength(1);
	});

	test('Simplify gives the simplified item; Fetch test event returns a sample of the selected time event', async () => {
		const past = await create(T0 - 3 * HOUR);
		const recent = await create(T0 - 2 * HOUR);
		await create(T0 + 90 * MIN, 'CANCELED');
		const a = await create(T0 + 2 * HOUR);
		await create(T0 + 3 * HOUR);
		const h = harness([SOON], 60, { simplify: true });
		await h.activate();
		setClock(T0 + HOUR);
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
		setClock(T0);
		// The sample fits the event: the next appointment to start (not a canceled one), the last one started.
		for (const [event, key] of [
			[SOON, a],
			[STARTED, recent],
		]) {
			const sample = harness([event], 60);
			const [item] = (await sample.manual())!;
			expect(item.json.event).toBe(event);
			expect(item.json.data).toEqual(await api('GET', `appointments/${key}/`));
			expect(sample.saved()).toEqual({});
		}
		// None started in the past 24 hours: any appointment of the watched window, as for the change events.
		setClock(T0 - 5 * HOUR);
		const [fallback] = (await harness([STARTED]).manual())!;
		expect(fallback.json.event).toBe(STARTED);
		expect([past, recent, a]).toContain((fallback.json.data as Json).appointment_key);
	});

	test('a bad Lead Time fails the poll with a message naming the field', async () => {
		const h = harness([SOON], 0);
		await expect(h.activate()).rejects.toThrow(
			'The field "Lead Time (Minutes)" must be a whole number from 1 to 43200 (got 0)',
		);
		await expect(harness([SOON], 10080).activate()).resolves.toBeDefined();
	});
});

describe('time zones: the window is computed on instants', () => {
	// Europe/Berlin: clocks go forward on 28 Mar 2027 (02:00 -> 03:00) and back on 31 Oct 2027 (03:00 -> 02:00).
	test.each([
		['spring forward', '2027-03-28T09:00:00+02:00', '2027-03-27T08:00:00+01:00'],
		['fall back', '2027-10-31T09:00:00+01:00', '2027-10-30T10:00:00+02:00'],
	])(
		'09:00 local on the day the clocks %s is reminded 24 h before in real time',
		async (_name, start, remindAt) => {
			const startMs = Date.parse(start);
			expect(Date.parse(remindAt)).toBe(startMs - 24 * HOUR);
			setClock(startMs - 30 * HOUR);
			const a = await create(startMs);
			for (const zone of [ZONE, 'America/New_York']) {
				setClock(startMs - 30 * HOUR);
				const h = harness([SOON], 1440, {}, zone);
				await h.activate();
				// 09:00 local the day before is an hour off the 24 h (the wall-clock reading), so nothing then
				expect(await pollAt(h, Date.parse(remindAt) - 1000)).toEqual([]);
				expect(await pollAt(h, Date.parse(remindAt))).toEqual([`${SOON} ${a}`]);
			}
		},
	);
});

describe('examples 8 and 9 as saved', () => {
	const triggerOf = (file: string) =>
		JSON.parse(readFileSync(join(__dirname, '../../examples', file), 'utf8')).nodes.find(
			(n: Json) => n.type === 'n8n-nodes-appointments.appointmentsPollingTrigger',
		);

	test("8 remind 24 hours before: one reminder for an appointment when it is 24 hours away, with the client's email", async () => {
		const node = triggerOf('8-remind-24-hours-before.json');
		expect(node.parameters).toMatchObject({ events: [SOON], leadTime: 1440 });
		const a = await create(T0 + 30 * HOUR);
		const h = sb.harness(node.parameters);
		await h.activate();
		expect(await pollAt(h, T0 + 6 * HOUR - MIN)).toEqual([]);
		setClock(T0 + 6 * HOUR);
		const { items } = await h.poll();
		expect(names(items)).toEqual([`${SOON} ${a}`]);
		expect((items![0].json.data as Json).person.email).toMatch(/@/);
		expect(await pollAt(h, T0 + 6 * HOUR + MIN)).toEqual([]);
	});

	test('9 no-show follow-up: one started run at the first poll at or after the start', async () => {
		const node = triggerOf('9-no-show-follow-up.json');
		expect(node.parameters.events).toEqual([STARTED]);
		const a = await create(T0 + 2 * HOUR);
		const h = sb.harness(node.parameters);
		await h.activate();
		expect(await pollAt(h, T0 + 2 * HOUR - 1000)).toEqual([]);
		expect(await pollAt(h, T0 + 2 * HOUR + 20 * 1000)).toEqual([`${STARTED} ${a}`]);
		expect(await pollAt(h, T0 + 2 * HOUR + MIN)).toEqual([]);
	});
});
