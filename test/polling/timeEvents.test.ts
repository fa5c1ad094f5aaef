/**
 * The polling trigger's time events (appointment.starting_soon, appointment.started) in n8n-core's real
 * PollContext and PollTriggerExecutor against the sandbox, with a clock the test controls (timeEventsSetup.ts):
 * the rules of docs/reminders.md for each event. How they hold up over poll intervals, restarts, failing polls,
 * the selection, time zones and the examples: timeEventsPolls.test.ts.
 */
import { eventNames, type Json } from './common';
import { HOUR, MIN, SOON, STARTED, T0, useTimeEvents } from './timeEventsSetup';

const { sb, api, create, reschedule, cancel, harness, pollAt, setClock } = useTimeEvents();
const names = eventNames;

describe('starting soon', () => {
	test("runs once, at the first poll at or after start - Lead Time, with the webhook trigger's item shape", async () => {
		const a = await create(T0 + 2 * HOUR);
		const h = harness([SOON], 60);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR - 1000)).toEqual([]);
		setClock(T0 + HOUR);
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
		const h = sb.harness({
			events: [SOON, STARTED],
			leadTime: 60,
			filters: { statuses: ['CONFIRMED'] },
			options: {},
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

	test('with Appointment Rescheduled selected too: the reschedule at the next poll, with the start before, and the reminder again for the new start', async () => {
		const a = await create(T0 + 2 * HOUR);
		const h = harness([SOON, 'appointment.rescheduled'], 60);
		await h.activate();
		expect(await pollAt(h, T0 + HOUR)).toEqual([`${SOON} ${a}`]);
		await reschedule(a, T0 + 6 * HOUR);
		setClock(T0 + HOUR + MIN);
		const { items } = await h.poll();
		expect(names(items)).toEqual([`appointment.rescheduled ${a}`]);
		expect(Date.parse((items![0].json as Json).previous.start_date)).toBe(T0 + 2 * HOUR);
		expect(await pollAt(h, T0 + 5 * HOUR)).toEqual([`${SOON} ${a}`]);
	});

	test('a window that opened while n8n was down is caught up at the next poll while the appointment has not started', async () => {
		const open = await create(T0 + 2 * HOUR);
		const over = await create(T0 + 90 * MIN);
		const h = harness([SOON, STARTED], 60);
		await h.activate();
		setClock(T0 + 100 * MIN); // n8n down from T0 to here: both windows opened, one appointment started meanwhile
		expect(names((await h.restart()).items)).toEqual(
			[`${SOON} ${open}`, `${STARTED} ${over}`].sort(),
		);
		expect(await pollAt(h, T0 + 101 * MIN)).toEqual([]);
	});

	test('Lead Time made longer: those already inside the wider window are not reminded; made shorter: nothing again', async () => {
		const a = await create(T0 + 3 * HOUR);
		const b = await create(T0 + 90 * MIN);
		const h = harness([SOON], 60);
		await h.activate();
		expect(await pollAt(h, T0 + 30 * MIN)).toEqual([`${SOON} ${b}`]);
		h.setParameters({ events: [SOON], leadTime: 240, options: {} });
		setClock(T0 + 31 * MIN);
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
		setClock(T0 + HOUR + 24 * HOUR + MIN); // down for a day: `old` started 24 h 1 min ago
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
