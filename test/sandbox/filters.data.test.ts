/**
 * The records the list filters run on: filter-only attributes stored but not shown, the configurable account time
 * zone (also across a DST change), and the seed data (coverage of yesterday/today/tomorrow, count, determinism).
 */
import { DateTime } from 'luxon';

import { STATUSES } from '../../sandbox';
import { ADMIN, client, start, type Sandbox } from './helpers';
import {
	adm,
	all,
	api,
	keysOf,
	ms,
	query,
	readAll,
	sortedKeys,
	TZ,
	useFilterSandbox,
	wall,
} from './filters';

useFilterSandbox();

describe('records and time zone', () => {
	it('filter-only attributes are stored but not shown in API records', async () => {
		const got = await query({});
		for (const r of got)
			expect(Object.keys(r).sort()).toEqual([
				'appointment_key',
				'calendar',
				'person',
				'search_code',
				'start_date',
				'status',
			]);
		const rec = all[0];
		for (const f of [
			'client_key',
			'person_key',
			'phone',
			'identification_code',
			'external_id',
			'service_keys',
			'tag_keys',
			'owner_user',
			'created_at',
			'is_cancelled',
		]) {
			expect(rec).toHaveProperty(f);
		}
	});

	it('the account time zone is configurable: offsets shown and offset-less filters follow it', async () => {
		try {
			await adm.ok('POST', '/__sandbox/config/', { timeZone: 'Asia/Tokyo' });
			const pivot = all[100].start_date;
			const got = await query({ start_date: wall(pivot, 'Asia/Tokyo') });
			expect(sortedKeys(got)).toEqual(sortedKeys(all.filter((x) => ms(x.start_date) >= ms(pivot))));
			expect(got[0].start_date).toMatch(/\+09:00$/);
			const bad = await adm('POST', '/__sandbox/config/', { timeZone: 'Mars/Olympus' });
			expect(bad.status).toBe(400);
			expect(Object.keys(bad.body)).toEqual(['timeZone']);
		} finally {
			await adm.ok('POST', '/__sandbox/config/', { timeZone: TZ });
		}
	});

	it('a day across the DST change (2026-09-06 starts at 01:00 in Santiago) is selected by wall-clock bounds', async () => {
		const before = await adm.ok('POST', '/__sandbox/appointments/', {
			start_date: '2026-09-05T23:30:00',
			status: 'CONFIRMED',
		});
		const after = await adm.ok('POST', '/__sandbox/appointments/', {
			start_date: '2026-09-06T01:30:00',
			status: 'CONFIRMED',
		});
		expect(before.start_date).toBe('2026-09-05T23:30:00-04:00');
		expect(after.start_date).toBe('2026-09-06T01:30:00-03:00');
		const day = await query({ start_date: '2026-09-06T00:00:00', end_date: '2026-09-06T23:59:59' });
		expect(keysOf(day)).toEqual([after.appointment_key]);
		await adm.ok('POST', '/__sandbox/reset/');
		await readAll();
	});
});

describe('offset-less times a clock change skips or repeats (option dstWallClock)', () => {
	// Santiago: 2026-04-04 23:00-23:59 comes twice (-03:00, then -04:00); 2026-09-06 00:00-00:59 does not exist.
	const records = {
		firstOf2330: '2026-04-04T23:30:00-03:00',
		secondOf2330: '2026-04-04T23:30:00-04:00',
		before0030: '2026-09-05T23:30:00-04:00', // 0030 read with the offset after the change
		after0030: '2026-09-06T01:30:00-03:00', // 0030 read with the offset before it
	};
	const keys: Record<string, string> = {};
	const at = async (wallClock: string) =>
		await api('GET', `/api/v3/appointments/?start_date=${wallClock}&end_date=${wallClock}`);

	beforeAll(async () => {
		for (const [name, start_date] of Object.entries(records)) {
			keys[name] = (
				await adm.ok('POST', '/__sandbox/appointments/', { start_date, status: 'CONFIRMED' })
			).appointment_key;
		}
	});
	afterAll(async () => {
		await adm.ok('POST', '/__sandbox/config/', { dstWallClock: 'zoneinfo' });
		await adm.ok('POST', '/__sandbox/reset/');
		await readAll();
	});

	it.each([
		['zoneinfo', 'firstOf2330', 'after0030'],
		['earlier', 'firstOf2330', 'before0030'],
		['later', 'secondOf2330', 'after0030'],
	])('%s: a repeated time is %s, a skipped one %s', async (dstWallClock, repeated, skipped) => {
		await adm.ok('POST', '/__sandbox/config/', { dstWallClock });
		expect(keysOf((await at('2026-04-04T23:30:00')).body.results)).toEqual([keys[repeated]]);
		expect(keysOf((await at('2026-09-06T00:30:00')).body.results)).toEqual([keys[skipped]]);
	});

	it('refuse: 400 naming the filter, as Django REST framework does; times that exist once and dates alone are read', async () => {
		await adm.ok('POST', '/__sandbox/config/', { dstWallClock: 'refuse' });
		for (const [param, wallClock] of [
			['start_date', '2026-04-04T23:30:00'],
			['end_date', '2026-09-06T00:30:00'],
			['created_at', '2026-09-06T00:00:00'],
		]) {
			const r = await api('GET', `/api/v3/appointments/?${param}=${wallClock}`);
			expect([r.status, r.body]).toEqual([
				400,
				{ [param]: [`Invalid datetime for the timezone "${TZ}".`] },
			]);
		}
		expect(keysOf((await at('2026-04-04T22:30:00')).body.results)).toEqual([]);
		const day = await api('GET', '/api/v3/appointments/?start_date=2026-09-06&end_date=2026-09-06');
		expect(keysOf(day.body.results)).toEqual([keys.after0030]);
		expect(keysOf((await at('2026-09-06T01:30:00')).body.results)).toEqual([keys.after0030]);
	});

	it('is zoneinfo by default and checked like every option', async () => {
		await adm.ok('POST', '/__sandbox/reset/');
		expect((await adm.ok('GET', '/__sandbox/config/')).dstWallClock).toBe('zoneinfo');
		const bad = await adm('POST', '/__sandbox/config/', { dstWallClock: 'pytz' });
		expect([bad.status, Object.keys(bad.body)]).toEqual([400, ['dstWallClock']]);
	});
});

describe('seed data', () => {
	const dayOf = (x: any) => DateTime.fromISO(x.start_date).setZone(TZ).toISODate();

	it('yesterday, today and tomorrow each have all 11 statuses and a CONFIRMED appointment in every calendar', async () => {
		const calendars = new Set(all.map((x) => x.calendar.calendar_key));
		expect(calendars.size).toBeGreaterThanOrEqual(4);
		const now = DateTime.now().setZone(TZ);
		for (const d of [now.minus({ days: 1 }), now, now.plus({ days: 1 })]) {
			const list = all.filter((x) => dayOf(x) === d.toISODate());
			expect(new Set(list.map((x) => x.status))).toEqual(new Set(STATUSES));
			const confirmedCalendars = new Set(
				list.filter((x) => x.status === 'CONFIRMED').map((x) => x.calendar.calendar_key),
			);
			expect(confirmedCalendars).toEqual(calendars);
		}
	});

	it('has the requested count, starts within now±14 days, unique keys and codes', () => {
		expect(all).toHaveLength(240);
		const now = Date.now();
		for (const x of all) {
			expect(Math.abs(ms(x.start_date) - now)).toBeLessThanOrEqual(14 * 86400_000 + 60_000);
			expect(ms(x.created_at)).toBeLessThanOrEqual(Math.min(now, ms(x.start_date)));
		}
		expect(new Set(keysOf(all)).size).toBe(all.length);
		expect(new Set(all.map((x) => x.search_code)).size).toBe(all.length);
	});

	it('is deterministic for a seed value and a fixed now; another seed value gives other data', async () => {
		const now = '2026-03-10T12:00:00-03:00';
		const [a, b, c] = await Promise.all([
			start({ seed: 80, seedValue: 5, now }),
			start({ seed: 80, seedValue: 5, now }),
			start({ seed: 80, seedValue: 6, now }),
		]);
		try {
			const get = async (s: Sandbox) =>
				(await client(() => s.url, ADMIN).ok('GET', '/__sandbox/appointments/')).appointments;
			const [ra, rb, rc] = await Promise.all([get(a), get(b), get(c)]);
			expect(ra).toEqual(rb);
			expect(ra).toHaveLength(80);
			expect(new Set(keysOf(ra)).size).toBe(80);
			expect(keysOf(rc).filter((k: string) => keysOf(ra).includes(k))).toEqual([]);
			for (const x of ra) {
				expect(ms(x.start_date)).toBeGreaterThanOrEqual(ms('2026-02-24T12:00:00-03:00'));
				expect(ms(x.start_date)).toBeLessThanOrEqual(ms('2026-03-24T12:00:00-03:00'));
			}
			expect(
				new Set(ra.filter((x: any) => dayOf(x) === '2026-03-10').map((x: any) => x.status)),
			).toEqual(new Set(STATUSES));
		} finally {
			await Promise.all([a.close(), b.close(), c.close()]);
		}
	});
});
