/**
 * Appointment > Get Many through the node's real execute against the sandbox: every filter (request log and
 * results), Output Simplified and Raw, date ranges (with luxon's clock fixed across a DST change), custom ranges, pagination
 * variants and limits.
 */
import { DateTime, Settings } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { GET_MANY_FILTERS } from '../../nodes/Appointments/actions/appointment/getAll.filters';
import {
	apiRequests,
	runFail,
	runOk,
	sortKeys,
	useSandbox,
	ZONE,
	type Admin,
	type Sandbox,
} from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

const base = { resource: 'appointment', operation: 'getAll', returnAll: true, output: 'raw' };
/** A credential naming the account's zone: the query holds exactly the window (empty, it is padded: getAllWindows). */
const ACCOUNT = { accountTimeZone: ZONE };

useSandbox({ seed: 60, seedValue: 11 }, (started) => ({ sb, admin } = started));

beforeAll(async () => {
	all = await admin.appointments();
});

beforeEach(async () => {
	await admin.clearRequests();
});

async function lastListQuery(): Promise<Record<string, string | string[]>> {
	const gets = (await apiRequests(admin, 'GET')).filter((r) => r.path === '/api/v3/appointments/');
	expect(gets.length).toBeGreaterThan(0);
	return gets[0].query;
}

const keysWhere = (pred: (a: IDataObject) => boolean) => sortKeys(all.filter(pred));

describe('filters', () => {
	const sample = () => all[7];

	/** Filters matched exactly, with where a record shows their value; the parameter each is sent as is the node table's. */
	const matchedExactly: Array<[string, (a: IDataObject) => unknown]> = [
		['calendarKey', (a) => (a.calendar as IDataObject).calendar_key],
		['clientKey', (a) => a.client_key],
		['personKey', (a) => a.person_key],
		['status', (a) => a.status],
		['phone', (a) => a.phone],
		['identificationCode', (a) => a.identification_code],
		['searchCode', (a) => a.search_code],
		['ownerUser', (a) => a.owner_user],
	];
	const exact = matchedExactly.map(
		([field, get]) =>
			[field, GET_MANY_FILTERS.find((row) => row.name === field)!.param, get] as const,
	);

	test.each(exact)(
		'%s is sent as %s and selects exactly the matching appointments',
		async (field, param, get) => {
			const value = String(get(sample()));
			const out = await runOk(sb, { ...base, filters: { [field]: value } });
			expect((await lastListQuery())[param]).toBe(value);
			const expected = keysWhere((a) => String(get(a)) === value);
			expect(expected).toContain(sample().appointment_key);
			expect(sortKeys(out)).toEqual(expected);
		},
	);

	test('externalId', async () => {
		const withId = all.find((a) => typeof a.external_id === 'string' && a.external_id !== '')!;
		expect(withId).toBeDefined();
		const out = await runOk(sb, { ...base, filters: { externalId: withId.external_id } });
		expect((await lastListQuery()).external_id).toBe(withId.external_id);
		expect(sortKeys(out)).toEqual(keysWhere((a) => a.external_id === withId.external_id));
	});

	test('email (trimmed) selects that person', async () => {
		const email = String((sample().person as IDataObject).email);
		const out = await runOk(sb, { ...base, filters: { email: `  ${email} ` } });
		expect((await lastListQuery()).email).toBe(email);
		expect(sortKeys(out)).toEqual(
			keysWhere(
				(a) => String((a.person as IDataObject).email).toLowerCase() === email.toLowerCase(),
			),
		);
	});

	test('name', async () => {
		const name = String((sample().person as IDataObject).full_name);
		const out = await runOk(sb, { ...base, filters: { name } });
		expect((await lastListQuery()).name).toBe(name);
		expect(out.map((a) => a.appointment_key)).toContain(sample().appointment_key);
		expect(sortKeys(out)).toEqual(
			keysWhere((a) =>
				String((a.person as IDataObject).full_name)
					.toLowerCase()
					.includes(name.toLowerCase()),
			),
		);
	});

	test.each([true, false])('isCancelled %s is sent explicitly', async (value) => {
		const out = await runOk(sb, { ...base, filters: { isCancelled: value } });
		expect((await lastListQuery()).is_cancelled).toBe(String(value));
		expect(sortKeys(out)).toEqual(keysWhere((a) => a.is_cancelled === value));
	});

	test('serviceKeys as comma-separated text go out as repeated parameters', async () => {
		const keys = [...new Set(all.flatMap((a) => a.service_keys as string[]))].slice(0, 2);
		expect(keys).toHaveLength(2);
		const out = await runOk(sb, { ...base, filters: { serviceKeys: `${keys[0]}, ${keys[1]}` } });
		expect((await lastListQuery()).service_keys).toEqual(keys);
		const expected = keysWhere((a) => (a.service_keys as string[]).some((k) => keys.includes(k)));
		expect(expected.length).toBeGreaterThan(0);
		expect(sortKeys(out)).toEqual(expected);
	});

	test('tagKeys as an array from an expression', async () => {
		const keys = [...new Set(all.flatMap((a) => a.tag_keys as string[]))].slice(0, 2);
		expect(keys).toHaveLength(2);
		const out = await runOk(sb, {
			...base,
			filters: { tagKeys: `={{ ${JSON.stringify(keys)} }}` },
		});
		expect((await lastListQuery()).tag_keys).toEqual(keys);
		expect(sortKeys(out)).toEqual(
			keysWhere((a) => (a.tag_keys as string[]).some((k) => keys.includes(k))),
		);
	});

	test('createdAt is sent as local wall clock and selects that creation day', async () => {
		const created = DateTime.fromISO(String(sample().created_at), { setZone: true }).setZone(ZONE);
		const out = await runOk(sb, { ...base, filters: { createdAt: created.toUTC().toISO() } });
		expect((await lastListQuery()).created_at).toBe(created.toFormat("yyyy-MM-dd'T'HH:mm:ss"));
		const day = created.toFormat('yyyy-MM-dd');
		expect(sortKeys(out)).toEqual(
			keysWhere(
				(a) =>
					DateTime.fromISO(String(a.created_at), { setZone: true })
						.setZone(ZONE)
						.toFormat('yyyy-MM-dd') === day,
			),
		);
	});

	test('status + custom range + calendar together (the spec rule for status with start and end)', async () => {
		const a = sample();
		const start = DateTime.fromISO(String(a.start_date), { setZone: true }).setZone(ZONE);
		const from = start.minus({ days: 2 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
		const to = start.plus({ days: 2 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
		const out = await runOk(
			sb,
			{
				...base,
				dateRange: 'custom',
				startDate: from,
				endDate: to,
				filters: { status: a.status, calendarKey: (a.calendar as IDataObject).calendar_key },
			},
			ACCOUNT,
		);
		const q = await lastListQuery();
		expect(q).toMatchObject({ start_date: from, end_date: to, status: a.status });
		const lo = start.minus({ days: 2 }).toMillis();
		const hi = start.plus({ days: 2 }).toMillis();
		const expected = keysWhere((r) => {
			const t = DateTime.fromISO(String(r.start_date)).toMillis();
			return (
				r.status === a.status &&
				(r.calendar as IDataObject).calendar_key === (a.calendar as IDataObject).calendar_key &&
				t >= lo &&
				t <= hi
			);
		});
		expect(expected).toContain(a.appointment_key);
		expect(sortKeys(out)).toEqual(expected);
	});

	test('custom range with dates only covers whole days; values with an offset are converted to the zone', async () => {
		await runOk(
			sb,
			{ ...base, dateRange: 'custom', startDate: '2026-11-20', endDate: '2026-11-21' },
			ACCOUNT,
		);
		expect(await lastListQuery()).toMatchObject({
			start_date: '2026-11-20T00:00:00',
			end_date: '2026-11-21T23:59:59',
		});
		await admin.clearRequests();
		await runOk(sb, { ...base, dateRange: 'custom', startDate: '2026-11-20T12:00:00Z' }, ACCOUNT);
		const q = await lastListQuery();
		expect(q.start_date).toBe('2026-11-20T09:00:00');
		expect(q.end_date).toBeUndefined();
	});

	test('no filters: no query parameters at all', async () => {
		const out = await runOk(sb, { ...base });
		expect(await lastListQuery()).toEqual({});
		expect(sortKeys(out)).toEqual(sortKeys(all));
	});
});

describe('output', () => {
	test('on by default: key, code, status, start, calendar key and name, person name and e-mail', async () => {
		const out = await runOk(sb, { resource: 'appointment', operation: 'getAll', limit: 3 });
		expect(out).toHaveLength(3);
		for (const a of out) {
			const full = all.find((r) => r.appointment_key === a.appointment_key)!;
			expect(a).toEqual({
				appointment_key: full.appointment_key,
				search_code: full.search_code,
				status: full.status,
				start_date: full.start_date,
				calendar: {
					calendar_key: (full.calendar as IDataObject).calendar_key,
					name: (full.calendar as IDataObject).name,
				},
				person: {
					full_name: (full.person as IDataObject).full_name,
					email: (full.person as IDataObject).email,
				},
			});
		}
	});

	test('Raw: the full record the API returns', async () => {
		const out = await runOk(sb, { ...base, returnAll: false, limit: 1 });
		expect(out[0]).toHaveProperty('calendar.calendar_key');
	});
});

describe('date range presets', () => {
	afterEach(() => {
		Settings.now = () => Date.now();
	});

	test('today (real clock) selects the appointments of the current day in the workflow zone', async () => {
		const now = DateTime.now().setZone(ZONE);
		const today = now.toFormat('yyyy-MM-dd');
		const out = await runOk(sb, { ...base, dateRange: 'today' }, ACCOUNT);
		// On the days Santiago's clocks change the edges move (tests with the clock fixed below say how).
		const changeDay =
			now.startOf('day').minus({ milliseconds: 1 }).offset !== now.endOf('day').offset;
		if (!changeDay)
			expect(await lastListQuery()).toEqual({
				start_date: `${today}T00:00:00`,
				end_date: `${today}T23:59:59`,
			});
		const expected = keysWhere(
			(a) => DateTime.fromISO(String(a.start_date)).setZone(ZONE).toFormat('yyyy-MM-dd') === today,
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(sortKeys(out)).toEqual(expected);
	});

	test('today on the day Santiago skips midnight (clock fixed): from its first instant (01:00) to 23:59:59, results of that day only', async () => {
		const inside = [
			await admin.create({ start_date: '2026-09-06T01:30:00-03:00' }),
			await admin.create({ start_date: '2026-09-06T23:45:00-03:00' }),
		];
		await admin.create({ start_date: '2026-09-05T23:30:00-04:00' });
		await admin.create({ start_date: '2026-09-07T00:15:00-03:00' });
		await admin.clearRequests();
		Settings.now = () => Date.parse('2026-09-06T15:00:00-03:00');
		const out = await runOk(sb, { ...base, dateRange: 'today' }, ACCOUNT);
		expect(await lastListQuery()).toEqual({
			start_date: '2026-09-06T01:00:00',
			end_date: '2026-09-06T23:59:59',
		});
		expect(sortKeys(out)).toEqual(sortKeys(inside));
	});

	test('yesterday/tomorrow/this week/next 7 days in Europe/Berlin across its spring change (options.timeZone)', async () => {
		Settings.now = () => Date.parse('2026-03-29T12:00:00+02:00'); // Sunday, the change day
		const cases: Array<[string, string, string]> = [
			['yesterday', '2026-03-28T00:00:00', '2026-03-28T23:59:59'],
			['tomorrow', '2026-03-30T00:00:00', '2026-03-30T23:59:59'],
			['thisWeek', '2026-03-23T00:00:00', '2026-03-29T23:59:59'],
			['next7Days', '2026-03-29T00:00:00', '2026-04-04T23:59:59'],
			['today', '2026-03-29T00:00:00', '2026-03-29T23:59:59'],
		];
		for (const [dateRange, startDate, endDate] of cases) {
			await admin.clearRequests();
			// An account in Berlin too: the query is the days as built, on Berlin's clock.
			await runOk(
				sb,
				{ ...base, dateRange, options: { timeZone: 'Europe/Berlin' } },
				{ accountTimeZone: 'Europe/Berlin' },
			);
			expect(await lastListQuery()).toEqual({ start_date: startDate, end_date: endDate });
		}
	});

	test('the workflow time zone is the default', async () => {
		Settings.now = () => Date.parse('2026-03-10T02:00:00Z'); // 9 March in Santiago, 10 March in Berlin
		const berlin = { timezone: 'Europe/Berlin', accountTimeZone: 'Europe/Berlin' };
		await runOk(sb, { ...base, dateRange: 'today' }, berlin);
		expect((await lastListQuery()).start_date).toBe('2026-03-10T00:00:00');
		await admin.clearRequests();
		await runOk(sb, { ...base, dateRange: 'today' }, { timezone: ZONE, ...ACCOUNT });
		expect((await lastListQuery()).start_date).toBe('2026-03-09T00:00:00');
	});
});

describe('the account time zone, and the days its clocks change', () => {
	const SCL = 'America/Santiago';
	const BER = 'Europe/Berlin';
	// Santiago (the sandbox's account): 2026-04-04 23:00-23:59 comes twice (-03:00, then -04:00); 2026-09-06
	// 00:00-00:59 does not exist. Berlin is +02:00 on both days.
	const starts = [
		'2026-04-04T00:00:00-03:00',
		'2026-04-04T17:59:59-03:00',
		'2026-04-04T18:00:00-03:00',
		'2026-04-04T22:29:59-03:00',
		'2026-04-04T22:30:00-03:00',
		'2026-04-04T22:59:59-03:00',
		'2026-04-04T23:00:00-03:00',
		'2026-04-04T23:15:00-03:00',
		'2026-04-04T23:45:00-03:00',
		'2026-04-04T23:59:59-03:00',
		'2026-04-04T23:00:00-04:00',
		'2026-04-04T23:15:00-04:00',
		'2026-04-04T23:45:00-04:00',
		'2026-04-04T23:59:59-04:00',
		'2026-04-05T00:00:00-04:00',
		'2026-04-05T00:30:00-04:00',
		'2026-04-05T17:59:59-04:00',
		'2026-04-05T18:00:00-04:00',
		'2026-09-05T17:59:59-04:00',
		'2026-09-05T18:00:00-04:00',
		'2026-09-05T23:30:00-04:00',
		'2026-09-05T23:59:59-04:00',
		'2026-09-06T01:00:00-03:00',
		'2026-09-06T01:30:00-03:00',
		'2026-09-06T18:59:59-03:00',
		'2026-09-06T19:00:00-03:00',
	];
	let created: IDataObject[];
	const ms = (iso: string) => Date.parse(iso);
	/** The appointments of this describe whose start lies in [from, to]. */
	const startingIn = (from: string, to: string) =>
		sortKeys(
			created.filter(
				(a) => ms(String(a.start_date)) >= ms(from) && ms(String(a.start_date)) <= ms(to),
			),
		);
	const mine = (out: IDataObject[]) =>
		sortKeys(out.filter((a) => created.some((c) => c.appointment_key === a.appointment_key)));

	beforeAll(async () => {
		created = [];
		for (const start_date of starts)
			created.push(await admin.create({ start_date, status: 'CONFIRMED' }));
	});
	afterEach(async () => {
		Settings.now = () => Date.now();
		await admin.config({ dstWallClock: 'zoneinfo', pageSize: 50 });
	});

	test("workflow in Europe/Berlin, account in America/Santiago: Today and Custom are Berlin's days and times, sent as the same instants on Santiago's clock", async () => {
		const opts = { timezone: BER, accountTimeZone: SCL };
		const cases: Array<[string, IDataObject, Record<string, string>, [string, string]]> = [
			// Berlin's 5 April: 2026-04-04T22:00Z .. 2026-04-05T21:59:59Z, across Santiago's repeated hour.
			[
				'2026-04-05T12:00:00+02:00',
				{ dateRange: 'today' },
				{ start_date: '2026-04-04T19:00:00', end_date: '2026-04-05T17:59:59' },
				['2026-04-05T00:00:00+02:00', '2026-04-05T23:59:59+02:00'],
			],
			// Berlin's 6 September, across Santiago's skipped hour.
			[
				'2026-09-06T08:00:00+02:00',
				{ dateRange: 'today' },
				{ start_date: '2026-09-05T18:00:00', end_date: '2026-09-06T18:59:59' },
				['2026-09-06T00:00:00+02:00', '2026-09-06T23:59:59+02:00'],
			],
			[
				'2026-09-06T08:00:00+02:00',
				{ dateRange: 'yesterday' },
				{ start_date: '2026-09-04T18:00:00', end_date: '2026-09-05T17:59:59' },
				['2026-09-05T00:00:00+02:00', '2026-09-05T23:59:59+02:00'],
			],
			[
				'2026-04-01T08:00:00+02:00',
				{ dateRange: 'custom', startDate: '2026-04-05', endDate: '2026-04-05T04:15:00' },
				{ start_date: '2026-04-04T19:00:00', end_date: '2026-04-05T00:15:00' },
				['2026-04-05T00:00:00+02:00', '2026-04-05T04:15:00+02:00'],
			],
		];
		for (const [now, range, query, [from, to]] of cases) {
			Settings.now = () => ms(now);
			await admin.clearRequests();
			const out = await runOk(sb, { ...base, ...range }, opts);
			expect([now, range, await lastListQuery()]).toEqual([now, range, query]);
			expect([now, range, mine(out)]).toEqual([now, range, startingIn(from, to)]);
			expect(startingIn(from, to).length).toBeGreaterThan(0);
		}
	});

	test('an empty Account Time Zone: the window goes out in the zone the dates are read in, from and to a noon 27 h or more outside it', async () => {
		Settings.now = () => ms('2026-04-05T12:00:00+02:00');
		await runOk(sb, { ...base, dateRange: 'today' }, { timezone: BER });
		expect(await lastListQuery()).toEqual({
			start_date: '2026-04-03T12:00:00',
			end_date: '2026-04-07T12:00:00',
		});
		await admin.clearRequests();
		await runOk(
			sb,
			{ ...base, dateRange: 'today', options: { timeZone: SCL } },
			{ timezone: BER, accountTimeZone: '  ' },
		);
		expect(await lastListQuery()).toEqual({
			start_date: '2026-04-03T12:00:00',
			end_date: '2026-04-07T12:00:00',
		});
	});

	test('an Account Time Zone that is not one fails before any request, naming the field', async () => {
		Settings.now = () => ms('2026-04-05T12:00:00+02:00');
		const error = await runFail(
			sb,
			{ ...base, dateRange: 'today' },
			{ accountTimeZone: 'Mars/Olympus' },
		);
		expect(error.message).toMatch(/Account Time Zone "Mars\/Olympus" is not an IANA time zone/);
		expect(await apiRequests(admin)).toEqual([]);
	});

	/** Windows with an edge on a Santiago clock change: [clock, parameters, workflow zone, the window's instants]. */
	const edgeCases: Array<[string, IDataObject, string, [string, string]]> = [
		[
			'2026-04-04T12:00:00-03:00',
			{ dateRange: 'today' },
			SCL,
			['2026-04-04T00:00:00-03:00', '2026-04-04T23:59:59-04:00'],
		],
		[
			'2026-04-05T12:00:00-04:00',
			{ dateRange: 'yesterday' },
			SCL,
			['2026-04-04T00:00:00-03:00', '2026-04-04T23:59:59-04:00'],
		],
		[
			'2026-04-05T12:00:00-04:00',
			{ dateRange: 'today' },
			SCL,
			['2026-04-05T00:00:00-04:00', '2026-04-05T23:59:59-04:00'],
		],
		[
			'2026-09-06T12:00:00-03:00',
			{ dateRange: 'today' },
			SCL,
			['2026-09-06T01:00:00-03:00', '2026-09-06T23:59:59-03:00'],
		],
		[
			'2026-09-06T12:00:00-03:00',
			{ dateRange: 'yesterday' },
			SCL,
			['2026-09-05T00:00:00-04:00', '2026-09-05T23:59:59-04:00'],
		],
		[
			'2026-09-01T12:00:00-04:00',
			{ dateRange: 'custom', startDate: '2026-09-06', endDate: '2026-09-06T01:30:00' },
			SCL,
			['2026-09-06T01:00:00-03:00', '2026-09-06T01:30:00-03:00'],
		],
		// Typed in Berlin, falling in Santiago's repeated hour: 23:15 -03 (its first pass) to 23:45 -04 (its second).
		[
			'2026-04-01T12:00:00-03:00',
			{ dateRange: 'custom', startDate: '2026-04-05T04:15:00', endDate: '2026-04-05T05:45:00' },
			BER,
			['2026-04-04T23:15:00-03:00', '2026-04-04T23:45:00-04:00'],
		],
		[
			'2026-04-01T12:00:00-03:00',
			{ dateRange: 'custom', startDate: '2026-04-05T05:15:00' },
			BER,
			['2026-04-04T23:15:00-04:00', '9999-01-01T00:00:00Z'],
		],
	];

	test.each(['zoneinfo', 'earlier', 'later', 'refuse'])(
		'a service reading times its zone repeats or skips as %s: Today and Custom select exactly the appointments starting in the window',
		async (dstWallClock) => {
			await admin.config({ dstWallClock });
			for (const [now, range, zone, [from, to]] of edgeCases) {
				Settings.now = () => ms(now);
				const out = await runOk(
					sb,
					{ ...base, ...range },
					{ timezone: zone, accountTimeZone: SCL },
				);
				expect([now, range, mine(out)]).toEqual([now, range, startingIn(from, to)]);
			}
		},
	);

	test('Limit counts the appointments inside the window, after the cut, and no page past the one that fills it is read', async () => {
		await admin.config({ pageSize: 2 });
		Settings.now = () => ms('2026-04-01T12:00:00-03:00');
		await admin.clearRequests();
		// Starts inside Santiago's repeated hour (23:15 -03): the query starts before it, at 22:15.
		const out = await runOk(
			sb,
			{
				...base,
				returnAll: false,
				limit: 3,
				dateRange: 'custom',
				startDate: '2026-04-05T04:15:00',
			},
			{ timezone: BER, accountTimeZone: SCL },
		);
		const inside = created.filter(
			(a) => ms(String(a.start_date)) >= ms('2026-04-04T23:15:00-03:00'),
		);
		const byStart = (list: IDataObject[]) =>
			[...list].sort(
				(a, b) =>
					ms(String(a.start_date)) - ms(String(b.start_date)) ||
					String(a.appointment_key).localeCompare(String(b.appointment_key)),
			);
		expect(out.map((a) => a.appointment_key)).toEqual(
			byStart(inside)
				.slice(0, 3)
				.map((a) => a.appointment_key),
		);
		const gets = (await apiRequests(admin, 'GET')).filter(
			(r) => r.path === '/api/v3/appointments/',
		);
		expect(gets[0].query).toEqual({ start_date: '2026-04-04T22:15:00' });
		// The pages the service has from that edge on, up to the one holding the third appointment inside.
		const listed = byStart(
			created.filter((a) => ms(String(a.start_date)) >= ms('2026-04-04T22:15:00-03:00')),
		);
		const third = listed.findIndex((a) => a.appointment_key === out[2].appointment_key);
		expect(gets).toHaveLength(Math.floor(third / 2) + 1);
	});
});
