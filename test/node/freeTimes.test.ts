/**
 * Appointment > Find Free Times against the sandbox over HTTP: the grid, opening hours with several ranges, the
 * buffer, how long existing appointments last, cancelled ones ignored, the limit, one read of the calendar, and
 * the right number of free times on the days the account's clocks change, east and west of UTC.
 */
import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService } from '../helpers/fakeService';
import { apiRequests, run, runFail, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
useSandbox({ seed: 20 }, (started) => ({ sb, admin } = started));

const CAL = '7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c40';
const OTHER_CAL = '7a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c41';

async function book(start: string, extra: IDataObject = {}): Promise<IDataObject> {
	return await admin.create({
		start_date: start,
		calendar: { calendar_key: CAL, name: 'Dr. Free' },
		person: { full_name: 'Ana Pérez', email: 'ana@example.com' },
		...extra,
	});
}

/** Find Free Times on one day (Custom range), Thursday 25 November 2027 unless `day` says otherwise. */
function params(extra: IDataObject = {}, day = '2027-11-25'): IDataObject {
	return {
		resource: 'appointment',
		operation: 'findFreeTimes',
		calendar: { __rl: true, mode: 'id', value: CAL },
		dateRange: 'custom',
		startDate: day,
		endDate: day,
		duration: 30,
		startEvery: 30,
		openingHours: {
			ranges: [
				{ day: 'thursday', from: '09:00', to: '12:00' },
				{ day: 'thursday', from: '14:00', to: '16:00' },
			],
		},
		returnAll: true,
		...extra,
	};
}

const times = (items: IDataObject[]) => items.map((item) => String(item.start).slice(11, 16));
const SANTIAGO = { accountTimeZone: 'America/Santiago' };

beforeEach(async () => {
	await admin.reset();
	await admin.config({ timeZone: 'America/Santiago' });
	await admin.clearRequests();
});

test('two ranges on a 30-minute grid: every start in them, ISO with the account offset, a human line, the calendar', async () => {
	const items = await runOk(sb, params(), SANTIAGO);
	expect(times(items)).toEqual(
		['09:00', '09:30', '10:00', '10:30', '11:00', '11:30'].concat([
			'14:00',
			'14:30',
			'15:00',
			'15:30',
		]),
	);
	expect(items[0]).toEqual({
		start: '2027-11-25T09:00:00-03:00',
		end: '2027-11-25T09:30:00-03:00',
		when: 'Thu 25 Nov, 09:00–09:30',
		calendar: { calendar_key: CAL },
		timeZone: 'America/Santiago',
	});
});

test('an existing appointment takes its slot; the default grid is 15 minutes and reads the calendar name', async () => {
	await book('2027-11-25T10:00:00-03:00');
	await book('2027-11-25T10:00:00-03:00', { calendar: { calendar_key: OTHER_CAL } });
	const items = await runOk(sb, params({ startEvery: undefined }), SANTIAGO);
	const got = times(items);
	expect(got.slice(0, 8)).toEqual([
		'09:00',
		'09:15',
		'09:30',
		'10:30',
		'10:45',
		'11:00',
		'11:15',
		'11:30',
	]);
	expect(got).not.toContain('09:45');
	expect(got).not.toContain('10:15');
	expect(items[0].calendar).toEqual({ calendar_key: CAL, name: 'Dr. Free' });
});

test('Buffer keeps a gap on both sides; Existing Appointments Last sets their end', async () => {
	await book('2027-11-25T10:00:00-03:00');
	const buffered = times(await runOk(sb, params({ buffer: 15, startEvery: 15 }), SANTIAGO));
	expect(buffered.filter((t) => t < '12:00')).toEqual([
		'09:00',
		'09:15',
		'10:45',
		'11:00',
		'11:15',
		'11:30',
	]);
	const long = times(await runOk(sb, params({ existingDuration: 90 }), SANTIAGO));
	expect(long.filter((t) => t < '12:00')).toEqual(['09:00', '09:30', '11:30']);
	const longer = times(await runOk(sb, params({ duration: 60, existingDuration: 30 }), SANTIAGO));
	expect(longer.filter((t) => t < '12:00')).toEqual(['09:00', '10:30', '11:00']);
});

test('cancelled appointments (CANCELED_CLIENT, a DELETE) are ignored', async () => {
	await book('2027-11-25T10:00:00-03:00', { status: 'CANCELED_CLIENT' });
	const deleted = await book('2027-11-25T11:00:00-03:00');
	await runOk(sb, {
		resource: 'appointment',
		operation: 'cancel',
		appointmentKey: { __rl: true, mode: 'id', value: deleted.appointment_key },
	});
	await admin.clearRequests();
	expect(times(await runOk(sb, params(), SANTIAGO))).toHaveLength(10);
});

test('one read of the calendar, padded by the existing length and the buffer on the left, the duration and buffer on the right', async () => {
	await runOk(sb, params({ buffer: 10, existingDuration: 45 }), SANTIAGO);
	const reads = await apiRequests(admin, 'GET');
	expect(reads).toHaveLength(1);
	expect(reads[0].query).toMatchObject({
		calendar_key: CAL,
		start_date: '2027-11-24T23:05:00',
		end_date: '2027-11-26T00:39:59',
	});
});

test('Limit returns the first free times only', async () => {
	const items = await runOk(sb, params({ returnAll: false, limit: 3 }), SANTIAGO);
	expect(times(items)).toEqual(['09:00', '09:30', '10:00']);
});

test('a range over several days follows each weekday; pages are read one request each', async () => {
	await admin.config({ pageSize: 5 });
	for (let h = 9; h < 21; h++) await book(`2027-11-22T${String(h).padStart(2, '0')}:00:00-03:00`);
	const items = await runOk(
		sb,
		params({
			startDate: '2027-11-22',
			endDate: '2027-11-28',
			startEvery: 60,
			duration: 60,
			openingHours: {
				ranges: [
					{ day: 'weekdays', from: '09:00', to: '12:00' },
					{ day: 'saturday', from: '10:00', to: '11:00' },
				],
			},
		}),
		SANTIAGO,
	);
	expect(items.map((i) => String(i.when).slice(0, 10))).toEqual([
		'Tue 23 Nov',
		'Tue 23 Nov',
		'Tue 23 Nov',
		'Wed 24 Nov',
		'Wed 24 Nov',
		'Wed 24 Nov',
		'Thu 25 Nov',
		'Thu 25 Nov',
		'Thu 25 Nov',
		'Fri 26 Nov',
		'Fri 26 Nov',
		'Fri 26 Nov',
		'Sat 27 Nov',
	]);
	// 12 appointments at 5 a page: 3 pages, 3 requests.
	expect(await apiRequests(admin, 'GET')).toHaveLength(3);
	await admin.config({ pageSize: 50 });
});

describe.each([
	// [zone, day, from, to, expected wall-clock starts]: 30-minute appointments every 30 minutes
	['Europe/Berlin', '2027-03-28', '00:00', '06:00', 10], // 02:00 -> 03:00: 02:00 and 02:30 do not exist
	['Europe/Berlin', '2027-10-31', '00:00', '06:00', 12], // 03:00 -> 02:00: 02:00 and 02:30 once each
	['Australia/Sydney', '2027-10-03', '00:00', '06:00', 10],
	['Australia/Sydney', '2027-04-04', '00:00', '06:00', 12],
	['America/New_York', '2027-03-14', '00:00', '06:00', 10],
	['America/New_York', '2027-11-07', '00:00', '06:00', 12],
	['America/Santiago', '2027-09-05', '00:00', '03:00', 4], // midnight -> 01:00
	['America/Santiago', '2027-04-03', '22:00', '24:00', 4], // 24:00 -> 23:00 the same evening
])('%s on %s (clocks change)', (zone, day, from, to, expected) => {
	test(`${from}-${to} gives ${expected} free times, each wall-clock start once, none the clocks skip`, async () => {
		await admin.config({ timeZone: zone });
		const items = await runOk(
			sb,
			params({ openingHours: { ranges: [{ day: 'everyDay', from, to }] } }, day),
			{ accountTimeZone: zone },
		);
		expect(items).toHaveLength(expected);
		const walls = items.map((i) => String(i.start).slice(11, 16));
		expect(new Set(walls).size).toBe(expected);
		for (const item of items) {
			expect(String(item.start).slice(0, 10)).toBe(day);
			expect(Date.parse(String(item.end)) - Date.parse(String(item.start))).toBe(30 * 60_000);
		}
	});
});

test('a booking in the repeated hour takes only its own instant (Berlin, 31 October 2027)', async () => {
	await admin.config({ timeZone: 'Europe/Berlin' });
	await book('2027-10-31T02:30:00+01:00'); // the second 02:30
	const opening = { openingHours: { ranges: [{ day: 'sunday', from: '00:00', to: '06:00' }] } };
	const items = await runOk(sb, params(opening, '2027-10-31'), {
		accountTimeZone: 'Europe/Berlin',
	});
	expect(items.map((i) => i.start)).toContain('2027-10-31T02:30:00+02:00');
	expect(items).toHaveLength(12);
	await book('2027-10-31T02:30:00+02:00'); // the first
	const after = await runOk(sb, params(opening, '2027-10-31'), {
		accountTimeZone: 'Europe/Berlin',
	});
	expect(after.map((i) => i.start)).not.toContain('2027-10-31T02:30:00+02:00');
	expect(after).toHaveLength(11);
});

test('a preset range starting today never offers a start already past; the grid stays on the hour', async () => {
	const before = Date.now();
	const everyDay = { ranges: [{ day: 'everyDay', from: '00:00', to: '24:00' }] };
	const items = await runOk(
		sb,
		params({
			dateRange: 'next7Days',
			openingHours: everyDay,
			startEvery: 60,
			limit: 3,
			returnAll: false,
		}),
		SANTIAGO,
	);
	const starts = items.map((i) => Date.parse(String(i.start)));
	expect(starts).toHaveLength(3);
	expect(starts[0]).toBeGreaterThanOrEqual(before - 1000);
	expect(starts[0] - before).toBeLessThan(60 * 60_000);
	expect(items.map((i) => String(i.start).slice(14, 19))).toEqual(['00:00', '00:00', '00:00']);
});

test('without an Account Time Zone the workflow zone is used, and the item says so', async () => {
	const [first] = await runOk(sb, params(), { timezone: 'America/Santiago' });
	expect(first.timeZone).toBe('America/Santiago');
	expect(first.timeZoneNote).toMatch(
		/Account Time Zone is empty.*America\/Santiago, the workflow's time zone/,
	);
});

test('bad input names the field and sends nothing', async () => {
	const wrongTo = await runFail(
		sb,
		params({ openingHours: { ranges: [{ day: 'thursday', from: '12:00', to: '09:00' }] } }),
	);
	expect(wrongTo.message).toMatch(/"Opening Hours › To" \(item 0\) must be a time after 12:00/);
	const oneEnd = await runFail(sb, params({ endDate: '' }));
	expect(oneEnd.message).toMatch(/"End Date" \(item 0\).*both ends/);
	expect(await apiRequests(admin)).toHaveLength(0);
});

test('a record cancelled by is_cancelled alone is ignored; a record of another calendar is never a conflict', async () => {
	const fake = await startFakeService();
	try {
		const record = (key: string, start: string, extra: IDataObject = {}) => ({
			appointment_key: key,
			search_code: key.slice(0, 6),
			status: 'CONFIRMED',
			start_date: start,
			calendar: { calendar_key: CAL, name: 'Dr. Free' },
			person: { full_name: 'X', email: 'x@example.com' },
			...extra,
		});
		fake.handle = (_req, res) =>
			sendJson(res, 200, {
				count: 3,
				next: null,
				results: [
					record('a0000000-0000-4000-8000-000000000001', '2027-11-25T09:00:00-03:00', {
						is_cancelled: true,
					}),
					record('a0000000-0000-4000-8000-000000000002', '2027-11-25T09:30:00-03:00', {
						calendar: { calendar_key: OTHER_CAL },
					}),
					record('a0000000-0000-4000-8000-000000000003', '2027-11-25T10:00:00-03:00'),
				],
			});
		const items = await runOk(fake as unknown as Sandbox, params(), SANTIAGO);
		expect(times(items).slice(0, 3)).toEqual(['09:00', '09:30', '10:30']);
	} finally {
		await fake.close();
	}
});
