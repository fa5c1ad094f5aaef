/**
 * Reschedule › Only If Free against the sandbox over HTTP: a taken slot sends nothing and says so as data (or as
 * the node's error), with the appointments in the way and the next free times of that day; a free one is moved
 * and re-checked after the move; a service that refuses the move as a taken slot (409, or 400 saying so) gives
 * the same answer.
 */
import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService } from '../helpers/fakeService';
import { apiRequests, run, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
useSandbox({ seed: 20 }, (started) => ({ sb, admin } = started));

const CAL = '8b1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c40';
const ACCOUNT = { accountTimeZone: 'America/Santiago' };
let mover: IDataObject;
let inTheWay: IDataObject;

async function book(start: string, extra: IDataObject = {}): Promise<IDataObject> {
	return await admin.create({
		start_date: start,
		calendar: { calendar_key: CAL, name: 'Room 1' },
		person: { full_name: 'Bruno Díaz', email: 'bruno@example.com' },
		...extra,
	});
}

const reschedule = (startDate: string, extra: IDataObject = {}): IDataObject => ({
	resource: 'appointment',
	operation: 'reschedule',
	appointmentKey: { __rl: true, mode: 'id', value: mover.appointment_key },
	startDate,
	onlyIfFree: true,
	...extra,
});

beforeEach(async () => {
	await admin.reset();
	await admin.config({ takenSlot: 'allow', slotMinutes: 30 });
	inTheWay = await book('2027-11-25T10:00:00-03:00');
	await book('2027-11-25T10:30:00-03:00');
	await book('2027-11-25T11:15:00-03:00', { status: 'CANCELED' });
	mover = await book('2027-11-25T15:00:00-03:00', { person: { full_name: 'Carla Soto' } });
	await admin.clearRequests();
});

const startOf = async (record: IDataObject) =>
	Date.parse(String((await admin.appointment(String(record.appointment_key))).start_date));

test('a taken slot: nothing is sent; the item says slot taken, who is in the way and the next free times', async () => {
	const [out] = await runOk(sb, reschedule('2027-11-25T10:15:00'), ACCOUNT);
	expect(out).toMatchObject({
		appointment_key: mover.appointment_key,
		rescheduled: false,
		reason: 'slot taken',
		requested: { start: '2027-11-25T10:15:00-03:00', when: 'Thu 25 Nov, 10:15–10:45' },
	});
	expect(out.conflicts).toEqual([
		expect.objectContaining({
			search_code: inTheWay.search_code,
			when: 'Thu 25 Nov, 10:00–10:30',
			person: 'Bruno Díaz',
		}),
		expect.objectContaining({ when: 'Thu 25 Nov, 10:30–11:00' }),
	]);
	// 11:00 is free: the 11:15 appointment is cancelled. The moved appointment (15:00) is no conflict of its own.
	expect((out.nextFreeTimes as IDataObject[]).map((s) => s.when)).toEqual([
		'Thu 25 Nov, 11:00–11:30',
		'Thu 25 Nov, 11:15–11:45',
		'Thu 25 Nov, 11:30–12:00',
		'Thu 25 Nov, 11:45–12:15',
		'Thu 25 Nov, 12:00–12:30',
	]);
	expect((await apiRequests(admin)).map((r) => r.method)).toEqual(['GET', 'GET']);
	expect(await startOf(mover)).toBe(Date.parse('2027-11-25T15:00:00-03:00'));
});

test('When Taken › Fail: the node fails naming the appointment in the way and the next free time', async () => {
	const result = await run(sb, reschedule('2027-11-25T10:00:00', { whenTaken: 'error' }), ACCOUNT);
	expect(result.error?.message).toMatch(
		new RegExp(`Not rescheduled: Thu 25 Nov, 10:00–10:30 is taken by ${inTheWay.search_code}`),
	);
	expect(String((result.error as unknown as IDataObject).description)).toMatch(
		/Next free times that day: Thu 25 Nov, 11:00–11:30/,
	);
	expect((await apiRequests(admin)).some((r) => r.method === 'PATCH')).toBe(false);
});

test('a free slot: moved, then read again after the move (conflictsAfterMove)', async () => {
	const [out] = await runOk(sb, reschedule('2027-11-25T11:00:00'), ACCOUNT);
	expect(out).toMatchObject({
		appointment_key: mover.appointment_key,
		rescheduled: true,
		conflictsAfterMove: [],
	});
	expect(await startOf(mover)).toBe(Date.parse('2027-11-25T11:00:00-03:00'));
	const calls = (await apiRequests(admin)).map(
		(r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, 'K')}`,
	);
	expect(calls).toEqual([
		'GET /api/v3/appointments/K/',
		'GET /api/v3/appointments/',
		'PATCH /api/v3/appointments/K/reschedule/',
		'GET /api/v3/appointments/',
	]);
});

test('Only If Free off (the default): moved onto a taken slot as before, no read', async () => {
	const [out] = await runOk(
		sb,
		reschedule('2027-11-25T10:00:00', { onlyIfFree: undefined }),
		ACCOUNT,
	);
	expect(out.rescheduled).toBeUndefined();
	expect((await apiRequests(admin)).map((r) => r.method)).toEqual(['PATCH']);
});

describe.each([
	['conflict', '409'],
	['bad-request', '400'],
])('a service that refuses a taken slot itself (takenSlot %s: %s)', (takenSlot) => {
	test('gives the same "slot taken" item; Only If Free off fails as before', async () => {
		// The service counts 60 minutes an appointment, the node 30: 11:15 looks free to the node only.
		await admin.config({ takenSlot, slotMinutes: 60 });
		const [out] = await runOk(sb, reschedule('2027-11-25T11:15:00'), ACCOUNT);
		expect(out).toMatchObject({ rescheduled: false, reason: 'slot taken', conflicts: [] });
		expect(String(out.refusedByService)).toMatch(/not available/);
		expect((out.nextFreeTimes as IDataObject[])[0].when).toBe('Thu 25 Nov, 11:30–12:00');
		expect(await startOf(mover)).toBe(Date.parse('2027-11-25T15:00:00-03:00'));
		const plain = await run(sb, reschedule('2027-11-25T11:15:00', { onlyIfFree: false }), ACCOUNT);
		expect(plain.error?.message).toBeDefined();
	});
});

test('the re-check after the move reports a booking that landed meanwhile', async () => {
	const fake = await startFakeService();
	const key = 'c0000000-0000-4000-8000-000000000001';
	const record = (k: string, start: string) => ({
		appointment_key: k,
		search_code: k.slice(-4),
		status: 'CONFIRMED',
		start_date: start,
		calendar: { calendar_key: CAL, name: 'Room 1' },
		person: { full_name: 'Dana', email: 'd@example.com' },
	});
	let moved = false;
	fake.handle = (req, res) => {
		if (req.method === 'PATCH') {
			moved = true;
			return sendJson(res, 200, record(key, '2027-11-25T12:00:00-03:00'));
		}
		if (req.path.endsWith(`${key}/`))
			return sendJson(res, 200, record(key, '2027-11-25T15:00:00-03:00'));
		const landed = moved
			? [record('c0000000-0000-4000-8000-000000000002', '2027-11-25T12:10:00-03:00')]
			: [];
		return sendJson(res, 200, { count: landed.length, next: null, results: landed });
	};
	try {
		const [out] = await runOk(
			fake as unknown as Sandbox,
			{
				...reschedule('2027-11-25T12:00:00'),
				appointmentKey: { __rl: true, mode: 'id', value: key },
			},
			ACCOUNT,
		);
		expect(out).toMatchObject({ rescheduled: true, start_date: '2027-11-25T12:00:00-03:00' });
		expect(out.conflictsAfterMove).toEqual([
			expect.objectContaining({ search_code: '0002', when: 'Thu 25 Nov, 12:10–12:40' }),
		]);
	} finally {
		await fake.close();
	}
});

test('a re-check that fails after the move: the moved record, rescheduled, and a note; no error for a write that happened', async () => {
	const fake = await startFakeService();
	const key = 'c0000000-0000-4000-8000-000000000003';
	const record = (start: string) => ({
		appointment_key: key,
		search_code: 'K003',
		status: 'CONFIRMED',
		start_date: start,
		calendar: { calendar_key: CAL, name: 'Room 1' },
	});
	let moved = false;
	fake.handle = (req, res) => {
		if (req.method === 'PATCH') {
			moved = true;
			return sendJson(res, 200, record('2027-11-25T12:00:00-03:00'));
		}
		if (req.path.endsWith(`${key}/`))
			return sendJson(res, 200, record('2027-11-25T15:00:00-03:00'));
		if (moved) return sendJson(res, 400, { detail: 'Invalid filter.' });
		return sendJson(res, 200, { count: 0, next: null, results: [] });
	};
	try {
		const params = {
			...reschedule('2027-11-25T12:00:00'),
			appointmentKey: { __rl: true, mode: 'id', value: key },
		};
		const [out] = await runOk(fake as unknown as Sandbox, params, ACCOUNT);
		expect(out).toMatchObject({
			rescheduled: true,
			start_date: '2027-11-25T12:00:00-03:00',
			conflictsAfterMove: null,
		});
		expect(String(out.recheckFailed)).toMatch(/re-check after the move could not be made/);
	} finally {
		await fake.close();
	}
});

test('the next free times stay within the hours the calendar is used that day, never up to midnight', async () => {
	await admin.reset();
	await book('2027-11-25T10:00:00-03:00');
	await book('2027-11-25T10:30:00-03:00');
	await book('2027-11-25T11:30:00-03:00');
	mover = await book('2027-11-26T15:00:00-03:00');
	const [out] = await runOk(sb, reschedule('2027-11-25T10:15:00'), ACCOUNT);
	expect(out.rescheduled).toBe(false);
	// The day's last appointment ends at 12:00: 11:00 is the one free start before it.
	expect((out.nextFreeTimes as IDataObject[]).map((s) => s.when)).toEqual([
		'Thu 25 Nov, 11:00–11:30',
	]);
});
