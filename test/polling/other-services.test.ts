/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, never shipped: made-up keys */
/**
 * The polling trigger against services that choose differently where the spec is silent, in ways the sandbox does
 * not (test/helpers/pollingService.ts): a list that leaves out cancelled appointments and ignores the date filters,
 * appointments the service forgets (404), a cancelled status the spec does not name, answers that are not
 * appointments. The trigger must give the same events, at the documented cost, and never one made from an answer
 * that is not an appointment.
 */
import { startPollingHarness, type PollingHarness } from '../helpers/polling';
import {
	CALENDAR,
	POLLING_SERVICE_TOKEN,
	startPollingService,
	type FaultyAnswer,
	type PollingService,
} from '../helpers/pollingService';
import { logCount, logsSince } from '../helpers/n8nCore';
import { eventNames } from './common';

const DAY = 86_400_000;
const ZONE = 'America/Santiago';
const CHANGE_EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];

let service: PollingService;

beforeAll(async () => {
	service = await startPollingService({ zone: ZONE });
});
afterAll(async () => {
	await service.close();
});
beforeEach(() => {
	service.records.clear();
	service.requests.length = 0;
	service.fault = undefined;
	service.served = 0;
	service.options = { zone: ZONE };
});

const harness = (events = CHANGE_EVENTS, extra: Record<string, unknown> = {}): PollingHarness =>
	startPollingHarness({
		credentials: { baseUrl: service.url, accessToken: POLLING_SERVICE_TOKEN },
		parameters: { events, options: {}, ...extra },
		timezone: ZONE,
	});
const inDays = (days: number) => Date.now() + days * DAY;
const paths = () => service.requests.map((r) => r.split('?')[0]).sort();

test('a list that hides cancelled appointments, ignores the date filters and forgets some: the same events, each once', async () => {
	service.options = { zone: ZONE, hidesCancelled: true, ignoresDates: true };
	for (const [key, days] of [
		['a', 1],
		['b', 2],
		['c', 3],
		['far', 90],
		['old', -40],
	] as const)
		service.add(key, inDays(days));
	const h = harness();
	await h.activate();
	const watched = (h.saved()['node:Appointments Polling Trigger'] as { state: { entries: string } })
		.state.entries;
	expect(
		watched
			.split(';')
			.map((e) => e.split(',')[0])
			.sort(),
	).toEqual(['a', 'b', 'c']); // outside the window: not watched

	service.set('b', { status: 'CANCELED_CLIENT' }); // the list stops showing it: read by key
	service.remove('c'); // the service forgets it: 404
	service.set('far', { status: 'PENDING' }); // outside the window: no event
	const d = service.add('d', inDays(4));
	service.requests.length = 0;
	const { items, error } = await h.poll();
	expect(error).toBeUndefined();
	expect(items!.map((i) => [i.json.event, i.json.data])).toEqual([
		['appointment.created', d],
		['appointment.canceled', service.records.get('b')],
		['appointment.canceled', { appointment_key: 'c', canceled: true }],
	]);
	expect(paths()).toEqual([
		'GET /api/v3/appointments/',
		'GET /api/v3/appointments/b/',
		'GET /api/v3/appointments/c/',
	]);

	// Cancelled and forgotten ones are not read again: one list request per poll.
	service.requests.length = 0;
	expect(await h.poll()).toEqual({});
	expect(paths()).toEqual(['GET /api/v3/appointments/']);
});

describe('one rule for "cancelled": a status starting with CANCEL, or is_cancelled', () => {
	test('CANCELED_ADMIN, a status the spec does not name, is a cancellation, not an update', async () => {
		service.add('a', inDays(2));
		service.add('b', inDays(3));
		const h = harness();
		await h.activate();
		service.set('a', { status: 'CANCELED_ADMIN' });
		service.set('b', { status: 'Cancelled' });
		expect(eventNames((await h.poll()).items)).toEqual([
			'appointment.canceled a',
			'appointment.canceled b',
		]);
	});

	test('is_cancelled: true with a status that is not a cancelled one is a cancellation, once, and gets no reminder', async () => {
		service.add('a', inDays(1));
		service.add('b', inDays(2));
		const changes = harness();
		const reminders = harness(['appointment.starting_soon'], { leadTime: 3 * 1440 });
		await changes.activate();
		await reminders.activate();
		Object.assign(service.records.get('a')!, { is_cancelled: true }); // status stays CONFIRMED
		const c = service.add('c', inDays(2.5));
		Object.assign(c, { is_cancelled: true });
		expect(eventNames((await changes.poll()).items)).toEqual([
			'appointment.canceled a',
			'appointment.canceled c',
			'appointment.created c',
		]);
		expect(await changes.poll()).toEqual({});
		service.add('d', inDays(2.5));
		expect(eventNames((await reminders.poll()).items)).toEqual(['appointment.starting_soon d']);
	});

	test("a watched appointment that disappears (404) is canceled for the workflows whose Filters its last seen calendar matches, not for another calendar's", async () => {
		const other = { calendar_key: '6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e', name: 'Box 2' };
		service.add('mine', inDays(2));
		service.add('theirs', inDays(3)).calendar = other;
		const byCalendar = (key: string) =>
			harness(['appointment.canceled'], {
				filters: { calendar: { __rl: true, mode: 'id', value: key.toUpperCase() } },
			});
		const box1 = byCalendar(CALENDAR.calendar_key);
		const box2 = byCalendar(other.calendar_key);
		const all = harness(['appointment.canceled']);
		for (const h of [box1, box2, all]) await h.activate();
		service.remove('mine');
		service.remove('theirs');
		const gone = (key: string) => [
			'appointment.canceled',
			{ appointment_key: key, canceled: true },
		];
		const emitted = async (h: PollingHarness) =>
			((await h.poll()).items ?? []).map((i) => [i.json.event, i.json.data]);
		expect(await emitted(box1)).toEqual([gone('mine')]);
		expect(await emitted(box2)).toEqual([gone('theirs')]);
		expect(await emitted(all)).toEqual([gone('mine'), gone('theirs')]);
	});

	test('an appointment with such a status gets no reminder', async () => {
		const h = harness(['appointment.starting_soon'], { leadTime: 2 * 1440 });
		await h.activate(); // the baseline: nothing inside Lead Time yet
		service.add('active', inDays(1));
		service.add('gone', inDays(1), 'CANCELED_ADMIN');
		expect(eventNames((await h.poll()).items)).toEqual(['appointment.starting_soon active']);
	});
});

test("Calendars match the appointment after the change: one moved to another calendar and rescheduled is reported by the new calendar's trigger only", async () => {
	const other = { calendar_key: '6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e', name: 'Box 2' };
	service.add('a', inDays(2));
	const byCalendar = (key: string) =>
		harness(['appointment.rescheduled'], {
			filters: { calendars: { calendar: [{ calendar: { __rl: true, mode: 'id', value: key } }] } },
		});
	const before = byCalendar(CALENDAR.calendar_key);
	const after = byCalendar(other.calendar_key);
	await before.activate();
	await after.activate();
	service.records.get('a')!.calendar = other; // the state keeps no calendar: only the current one can be matched
	service.set('a', { start: inDays(3) });
	expect(await before.poll()).toEqual({});
	expect(eventNames((await after.poll()).items)).toEqual(['appointment.rescheduled a']);
});

describe('an answer that is not an appointment fails the poll: nothing emitted, the state kept, the next poll catches up', () => {
	test.each<FaultyAnswer>(['html', 'empty', 'notRecord', 'otherKey'])(
		'read back by key: %s',
		async (answer) => {
			service.add('stays', inDays(2));
			service.add('moves', inDays(3));
			const h = harness();
			await h.activate();
			const saved = h.saved();
			service.set('moves', { start: inDays(60) }); // out of the window: read back by key
			service.fault = { on: 'read', answer };
			const failed = await h.poll();
			expect(failed.items).toBeUndefined();
			expect(failed.error?.message).toMatch(
				/read of appointment moves is not that appointment|not a JSON object/,
			);
			expect(service.served).toBeGreaterThan(0);
			expect(h.saved()).toEqual(saved);

			service.fault = undefined;
			const { items, error } = await h.poll();
			expect(error).toBeUndefined();
			expect(eventNames(items)).toEqual(['appointment.updated moves']);
			expect(items![0].json.data).toEqual(service.records.get('moves'));
			service.set('moves', { start: inDays(3) }); // back in the window: an update, never a phantom creation
			expect(eventNames((await h.poll()).items)).toEqual(['appointment.updated moves']);
		},
	);

	test.each([
		['change events', CHANGE_EVENTS, {}],
		['reminders', ['appointment.starting_soon'], { leadTime: 1440 }],
	])(
		'a list page whose results hold a JSON object that is no appointment (%s)',
		async (_what, events, extra) => {
			service.add('a', inDays(2));
			const h = harness(events, extra);
			await h.activate();
			const saved = h.saved();
			service.fault = { on: 'list', answer: 'notRecord' };
			const failed = await h.poll();
			expect(failed.items).toBeUndefined();
			expect(failed.error?.message).toMatch(/not an appointment/);
			expect(h.saved()).toEqual(saved);
			service.fault = undefined;
			expect(await h.poll()).toEqual({});
		},
	);
});

describe('an appointment whose record cannot be used (status null, start_date unreadable) is skipped, said once in the log, and the others are watched', () => {
	const skipped = (since: number) =>
		logsSince(since).filter((line) => line.includes('skipped appointment'));

	test('listed: the poll goes on, the others give their events; once readable again, its change is an update', async () => {
		service.options = { zone: ZONE, ignoresDates: true }; // the list shows even one whose start is unreadable
		service.add('a', inDays(2));
		service.add('b', inDays(3));
		service.add('c', inDays(4));
		const h = harness(['appointment.created', 'appointment.updated', 'appointment.starting_soon'], {
			leadTime: 5 * 1440,
		});
		await h.activate();
		const since = logCount();
		const aStart = service.records.get('a')!.start_date;
		service.records.get('a')!.start_date = 'next Tuesday';
		(service.records.get('b') as { status: unknown }).status = null;
		service.set('c', { status: 'PENDING' });
		const d = service.add('d', inDays(1));
		const first = await h.poll();
		expect(first.error).toBeUndefined();
		expect(eventNames(first.items)).toEqual([
			'appointment.created d',
			'appointment.starting_soon d',
			'appointment.updated c',
		]);
		expect(first.items!.find((i) => i.json.event === 'appointment.created')!.json.data).toEqual(d);
		expect(await h.poll()).toEqual({}); // read again, said again: not
		expect(skipped(since)).toEqual([
			expect.stringMatching(/skipped appointment a: its start_date is not a date/),
			expect.stringMatching(/skipped appointment b: its status is null/),
		]);

		Object.assign(service.records.get('a')!, { start_date: aStart, status: 'PENDING' });
		service.set('b', { status: 'CONFIRMED' }); // as it was last seen: nothing to say
		expect(eventNames((await h.poll()).items)).toEqual(['appointment.updated a']);
		(service.records.get('b') as { status: unknown }).status = 7; // unusable again, in another way: said again
		expect(await h.poll()).toEqual({});
		expect(skipped(since).slice(2)).toEqual([
			expect.stringMatching(/skipped appointment b: its status is a number/),
		]);
	});

	test('read back by key (the list leaves it out): skipped the same way, still watched', async () => {
		service.add('a', inDays(2));
		service.add('b', inDays(3));
		const h = harness();
		await h.activate();
		const since = logCount();
		service.records.get('a')!.start_date = 'soon'; // the service's date filter leaves it out: read by key
		service.set('b', { status: 'PENDING' });
		expect(eventNames((await h.poll()).items)).toEqual(['appointment.updated b']);
		expect(await h.poll()).toEqual({});
		expect(skipped(since)).toEqual([
			expect.stringMatching(/skipped appointment a: its start_date is not a date/),
		]);
		service.remove('a'); // still watched: its removal is seen
		expect(eventNames((await h.poll()).items)).toEqual(['appointment.canceled a']);
	});
});
