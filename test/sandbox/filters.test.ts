/**
 * The 17 list filters, alone and combined, checked against the internal records (filter-only attributes included)
 * that the admin interface exposes; datetimes without offset read in the account time zone; array filters as
 * repeated and comma-separated parameters; the seed data (coverage of yesterday/today/tomorrow, determinism).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import { CANCELLED_STATUSES, LIST_FILTERS, STATUSES } from '../../sandbox';
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

const TZ = 'America/Santiago';
let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
let all: any[];

const ms = (iso: string) => DateTime.fromISO(iso).toMillis();
const wall = (iso: string, zone = TZ) => DateTime.fromISO(iso).setZone(zone).toFormat("yyyy-MM-dd'T'HH:mm:ss");
const keysOf = (list: any[]) => list.map((r) => r.appointment_key);
const sortedKeys = (list: any[]) => keysOf(list).sort();

async function query(params: Array<[string, string]> | Record<string, string>): Promise<any[]> {
	const qs = new URLSearchParams(params as any).toString();
	const r = await api('GET', `/api/v3/appointments/?${qs}`);
	if (r.status !== 200) throw new Error(`${qs} -> ${r.status} ${r.text}`);
	return r.body.results;
}

/** Runs the query and compares with the expected records; the expectation must be a proper, non-empty subset. */
async function expectFilter(params: Array<[string, string]> | Record<string, string>, expected: any[], opts: { allowAll?: boolean } = {}) {
	expect(expected.length).toBeGreaterThan(0);
	if (!opts.allowAll) expect(expected.length).toBeLessThan(all.length);
	const got = await query(params);
	expect(sortedKeys(got)).toEqual(sortedKeys(expected));
	// sorted by start, then key
	const starts = got.map((r) => ms(r.start_date));
	expect(starts).toEqual([...starts].sort((a, b) => a - b));
}

beforeAll(async () => {
	sb = await start({ seed: 240, seedValue: 11, pagination: 'none' });
	all = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
});
afterAll(() => sb?.close());

it('lists all 17 filters', () => {
	expect(LIST_FILTERS).toHaveLength(17);
});

describe('each filter alone', () => {
	it('calendar_key, client_key, person_key (UUIDs, case-insensitive)', async () => {
		const r = all[17];
		await expectFilter({ calendar_key: r.calendar.calendar_key.toUpperCase() }, all.filter((x) => x.calendar.calendar_key === r.calendar.calendar_key));
		await expectFilter({ client_key: r.client_key }, all.filter((x) => x.client_key === r.client_key));
		await expectFilter({ person_key: r.person_key }, all.filter((x) => x.person_key === r.person_key));
	});

	it('status: each of the 11 values', async () => {
		for (const s of STATUSES) await expectFilter({ status: s }, all.filter((x) => x.status === s));
	});

	it('start_date and end_date bound the start inclusively; without offset they are account wall-clock time', async () => {
		const pivot = all[Math.floor(all.length / 2)].start_date;
		await expectFilter({ start_date: wall(pivot) }, all.filter((x) => ms(x.start_date) >= ms(pivot)));
		await expectFilter({ end_date: wall(pivot) }, all.filter((x) => ms(x.start_date) <= ms(pivot)));
		// one second later / earlier excludes the pivot's own start
		const after = DateTime.fromISO(pivot).plus({ seconds: 1 }).toISO()!;
		await expectFilter({ start_date: wall(after) }, all.filter((x) => ms(x.start_date) > ms(pivot)));
	});

	it('datetimes with an offset (Z, +hh:mm, -hh:mm, even an unencoded "+") mean the same instant', async () => {
		const pivot = all[60].start_date;
		const expected = all.filter((x) => ms(x.start_date) >= ms(pivot));
		const utc = DateTime.fromISO(pivot).toUTC();
		for (const value of [utc.toISO()!, utc.setZone('UTC+2').toISO({ suppressMilliseconds: true })!, utc.setZone('UTC-5').toISO()!]) {
			await expectFilter({ start_date: value }, expected);
		}
		const plus = utc.setZone('UTC+2').toFormat("yyyy-MM-dd'T'HH:mm:ss'+02:00'");
		const r = await api.ok('GET', `/api/v3/appointments/?start_date=${plus}`); // "+" arrives as a space
		expect(sortedKeys(r.results)).toEqual(sortedKeys(expected));
	});

	it('a date alone: start_date from 00:00, end_date to the end of that day', async () => {
		const day = DateTime.now().setZone(TZ).toISODate()!;
		const inDay = all.filter((x) => DateTime.fromISO(x.start_date).setZone(TZ).toISODate() === day);
		await expectFilter({ start_date: day, end_date: day }, inDay);
	});

	it('email (exact, case-insensitive), phone (digits and +), name (partial, case-insensitive)', async () => {
		const r = all[5];
		await expectFilter({ email: r.person.email.toUpperCase() }, all.filter((x) => x.person.email.toLowerCase() === r.person.email.toLowerCase()));
		const digits = (s: string) => s.replace(/[^\d+]/g, '');
		await expectFilter({ phone: digits(r.phone) }, all.filter((x) => digits(x.phone) === digits(r.phone)));
		await expectFilter({ phone: r.phone }, all.filter((x) => digits(x.phone) === digits(r.phone)));
		const part = r.person.full_name.split(' ')[1].toUpperCase();
		await expectFilter({ name: part }, all.filter((x) => x.person.full_name.toLowerCase().includes(part.toLowerCase())));
	});

	it('identification_code (ignoring dots, dashes, case), external_id and search_code', async () => {
		const r = all.find((x) => x.external_id);
		const norm = (s: string) => s.replace(/[.\-\s]/g, '').toLowerCase();
		await expectFilter({ identification_code: norm(r.identification_code) }, all.filter((x) => norm(x.identification_code) === norm(r.identification_code)));
		await expectFilter({ identification_code: r.identification_code }, all.filter((x) => norm(x.identification_code) === norm(r.identification_code)));
		await expectFilter({ external_id: r.external_id }, all.filter((x) => x.external_id === r.external_id));
		await expectFilter({ search_code: r.search_code.toLowerCase() }, [r]);
	});

	it('is_cancelled true and false (and 1/0)', async () => {
		await expectFilter({ is_cancelled: 'true' }, all.filter((x) => x.is_cancelled));
		await expectFilter({ is_cancelled: '0' }, all.filter((x) => !x.is_cancelled));
		for (const x of all) expect(x.is_cancelled).toBe(CANCELLED_STATUSES.has(x.status));
	});

	it('service_keys and tag_keys: any of the keys, as repeated parameters or comma-separated', async () => {
		for (const field of ['service_keys', 'tag_keys']) {
			const keys: string[] = [...new Set(all.flatMap((x) => x[field] as string[]))].sort();
			expect(keys.length).toBeGreaterThan(2);
			const [a, b] = keys;
			const anyOf = (ks: string[]) => all.filter((x) => x[field].some((k: string) => ks.includes(k)));
			await expectFilter({ [field]: a }, anyOf([a]));
			await expectFilter([[field, a], [field, b]], anyOf([a, b]));
			await expectFilter({ [field]: `${a},${b}` }, anyOf([a, b]));
			await expectFilter([[field, `${a}, ${b}`], [field, keys[2]]], anyOf([a, b, keys[2]]));
		}
	});

	it('owner_user (exact, case-insensitive)', async () => {
		const o = all[3].owner_user;
		await expectFilter({ owner_user: o.toUpperCase() }, all.filter((x) => x.owner_user.toLowerCase() === o.toLowerCase()));
	});

	it('created_at: the day of creation in the account time zone', async () => {
		const day = DateTime.fromISO(all[9].created_at).setZone(TZ).toISODate()!;
		const expected = all.filter((x) => DateTime.fromISO(x.created_at).setZone(TZ).toISODate() === day);
		await expectFilter({ created_at: day }, expected);
		await expectFilter({ created_at: `${day}T15:00:00` }, expected);
	});

	it('empty values and unknown parameters are ignored', async () => {
		const got = await query({ status: '', calendar_key: '', start_date: '', foo: 'bar' });
		expect(got).toHaveLength(all.length);
	});
});

describe('combined filters', () => {
	it('rule 1: status + start_date + end_date restrict together', async () => {
		const lo = all[40].start_date;
		const hi = all[200].start_date;
		for (const s of ['CONFIRMED', 'ATTENDED', 'PENDING']) {
			await expectFilter(
				{ status: s, start_date: wall(lo), end_date: wall(hi) },
				all.filter((x) => x.status === s && ms(x.start_date) >= ms(lo) && ms(x.start_date) <= ms(hi)),
			);
		}
	});

	it('calendar + status + one day; name + is_cancelled; tags + services + owner', async () => {
		const today = DateTime.now().setZone(TZ);
		const cal = all[0].calendar.calendar_key;
		await expectFilter(
			{ calendar_key: cal, status: 'CONFIRMED', start_date: today.startOf('day').toFormat("yyyy-MM-dd'T'HH:mm:ss"), end_date: today.toFormat("yyyy-MM-dd'T'23:59:59") },
			all.filter((x) => x.calendar.calendar_key === cal && x.status === 'CONFIRMED' && DateTime.fromISO(x.start_date).setZone(TZ).hasSame(today, 'day')),
		);
		const r = all.find((x) => !x.is_cancelled)!;
		const last = r.person.full_name.split(' ')[1];
		await expectFilter({ name: last, is_cancelled: 'false' }, all.filter((x) => x.person.full_name.includes(last) && !x.is_cancelled));
		const withTags = all.find((x) => x.tag_keys.length > 0)!;
		await expectFilter(
			[['tag_keys', withTags.tag_keys[0]], ['service_keys', withTags.service_keys.join(',')], ['owner_user', withTags.owner_user]],
			all.filter((x) => x.tag_keys.includes(withTags.tag_keys[0]) && x.service_keys.some((k: string) => withTags.service_keys.includes(k)) && x.owner_user === withTags.owner_user),
		);
	});

	it('an empty intersection is an empty list, not an error', async () => {
		const r = await api('GET', `/api/v3/appointments/?search_code=${all[0].search_code}&status=${all[0].status === 'PENDING' ? 'ATTENDED' : 'PENDING'}`);
		expect(r.status).toBe(200);
		expect(r.body.results).toEqual([]);
	});
});

describe('invalid filter values', () => {
	it('answer 400 naming every bad field', async () => {
		const cases: Array<[string, string[]]> = [
			['calendar_key=abc', ['calendar_key']],
			['client_key=1234&person_key=x', ['client_key', 'person_key']],
			['status=DONE', ['status']],
			['status=confirmed', ['status']],
			['start_date=yesterday', ['start_date']],
			['end_date=2026-13-01T00:00:00', ['end_date']],
			['start_date=2026-02-30', ['start_date']],
			['is_cancelled=maybe', ['is_cancelled']],
			['service_keys=a,b', ['service_keys']],
			[`tag_keys=${all[0].calendar.calendar_key},nope`, ['tag_keys']],
			['created_at=last-week', ['created_at']],
			['status=DONE&start_date=x&tag_keys=y', ['status', 'start_date', 'tag_keys']],
		];
		for (const [qs, fields] of cases) {
			const r = await api('GET', `/api/v3/appointments/?${qs}`);
			expect([qs, r.status]).toEqual([qs, 400]);
			expect(Object.keys(r.body).sort()).toEqual([...fields].sort());
			for (const f of fields) expect(r.body[f][0]).toEqual(expect.any(String));
		}
	});
});

describe('random query strings', () => {
	it('answer 200 or a 400 field map, never a 5xx', async () => {
		const names = fc.constantFrom(...LIST_FILTERS, 'page', 'page_size', 'cursor', 'other');
		const values = fc.oneof(fc.string(), fc.constantFrom('2026-11-23T10:00:00', '2026-11-23', 'CONFIRMED', 'true', all[0].calendar.calendar_key, '', ',', '%', '+'));
		await fc.assert(
			fc.asyncProperty(fc.array(fc.tuple(names, values), { maxLength: 6 }), async (pairs) => {
				const r = await api('GET', `/api/v3/appointments/?${new URLSearchParams(pairs).toString()}`);
				expect([200, 400]).toContain(r.status);
				if (r.status === 400) for (const v of Object.values(r.body)) expect(v).toEqual(expect.arrayContaining([expect.any(String)]));
			}),
			{ numRuns: 150 },
		);
	});
});

describe('records and time zone', () => {
	it('filter-only attributes are stored but not shown in API records', async () => {
		const got = await query({});
		for (const r of got) expect(Object.keys(r).sort()).toEqual(['appointment_key', 'calendar', 'person', 'search_code', 'start_date', 'status']);
		const rec = all[0];
		for (const f of ['client_key', 'person_key', 'phone', 'identification_code', 'external_id', 'service_keys', 'tag_keys', 'owner_user', 'created_at', 'is_cancelled']) {
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
		const before = await adm.ok('POST', '/__sandbox/appointments/', { start_date: '2026-09-05T23:30:00', status: 'CONFIRMED' });
		const after = await adm.ok('POST', '/__sandbox/appointments/', { start_date: '2026-09-06T01:30:00', status: 'CONFIRMED' });
		expect(before.start_date).toBe('2026-09-05T23:30:00-04:00');
		expect(after.start_date).toBe('2026-09-06T01:30:00-03:00');
		const day = await query({ start_date: '2026-09-06T00:00:00', end_date: '2026-09-06T23:59:59' });
		expect(keysOf(day)).toEqual([after.appointment_key]);
		await adm.ok('POST', '/__sandbox/reset/');
		all = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
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
			const confirmedCalendars = new Set(list.filter((x) => x.status === 'CONFIRMED').map((x) => x.calendar.calendar_key));
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
		const [a, b, c] = await Promise.all([start({ seed: 80, seedValue: 5, now }), start({ seed: 80, seedValue: 5, now }), start({ seed: 80, seedValue: 6, now })]);
		try {
			const get = async (s: Sandbox) => (await client(() => s.url, ADMIN).ok('GET', '/__sandbox/appointments/')).appointments;
			const [ra, rb, rc] = await Promise.all([get(a), get(b), get(c)]);
			expect(ra).toEqual(rb);
			expect(ra).toHaveLength(80);
			expect(new Set(keysOf(ra)).size).toBe(80);
			expect(keysOf(rc).filter((k: string) => keysOf(ra).includes(k))).toEqual([]);
			for (const x of ra) {
				expect(ms(x.start_date)).toBeGreaterThanOrEqual(ms('2026-02-24T12:00:00-03:00'));
				expect(ms(x.start_date)).toBeLessThanOrEqual(ms('2026-03-24T12:00:00-03:00'));
			}
			expect(new Set(ra.filter((x: any) => dayOf(x) === '2026-03-10').map((x: any) => x.status))).toEqual(new Set(STATUSES));
		} finally {
			await Promise.all([a.close(), b.close(), c.close()]);
		}
	});
});
