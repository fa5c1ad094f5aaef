/**
 * The 17 list filters of the sandbox, each alone, checked against the internal records (filter-only attributes
 * included) that the admin interface exposes; datetimes without offset read in the account time zone; array
 * filters as repeated and comma-separated parameters. Combined and invalid filters: filters.combined.test.ts;
 * records, time zone and seed data: filters.data.test.ts.
 */
import { DateTime } from 'luxon';

import { CANCELLED_STATUSES, LIST_FILTERS, STATUSES } from '../../sandbox';
import {
	all,
	api,
	expectFilter,
	ms,
	query,
	sortedKeys,
	TZ,
	useFilterSandbox,
	wall,
} from './filters';

useFilterSandbox();

it('lists all 17 filters', () => {
	expect(LIST_FILTERS).toHaveLength(17);
});

describe('each filter alone', () => {
	it('calendar_key, client_key, person_key (UUIDs, case-insensitive)', async () => {
		const r = all[17];
		await expectFilter(
			{ calendar_key: r.calendar.calendar_key.toUpperCase() },
			all.filter((x) => x.calendar.calendar_key === r.calendar.calendar_key),
		);
		await expectFilter(
			{ client_key: r.client_key },
			all.filter((x) => x.client_key === r.client_key),
		);
		await expectFilter(
			{ person_key: r.person_key },
			all.filter((x) => x.person_key === r.person_key),
		);
	});

	it('status: each of the 11 values', async () => {
		for (const s of STATUSES)
			await expectFilter(
				{ status: s },
				all.filter((x) => x.status === s),
			);
	});

	it('start_date and end_date bound the start inclusively; without offset they are account wall-clock time', async () => {
		const pivot = all[Math.floor(all.length / 2)].start_date;
		await expectFilter(
			{ start_date: wall(pivot) },
			all.filter((x) => ms(x.start_date) >= ms(pivot)),
		);
		await expectFilter(
			{ end_date: wall(pivot) },
			all.filter((x) => ms(x.start_date) <= ms(pivot)),
		);
		// one second later / earlier excludes the pivot's own start
		const after = DateTime.fromISO(pivot).plus({ seconds: 1 }).toISO()!;
		await expectFilter(
			{ start_date: wall(after) },
			all.filter((x) => ms(x.start_date) > ms(pivot)),
		);
	});

	it('datetimes with an offset (Z, +hh:mm, -hh:mm, even an unencoded "+") mean the same instant', async () => {
		const pivot = all[60].start_date;
		const expected = all.filter((x) => ms(x.start_date) >= ms(pivot));
		const utc = DateTime.fromISO(pivot).toUTC();
		for (const value of [
			utc.toISO()!,
			utc.setZone('UTC+2').toISO({ suppressMilliseconds: true })!,
			utc.setZone('UTC-5').toISO()!,
		]) {
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
		await expectFilter(
			{ email: r.person.email.toUpperCase() },
			all.filter((x) => x.person.email.toLowerCase() === r.person.email.toLowerCase()),
		);
		const digits = (s: string) => s.replace(/[^\d+]/g, '');
		await expectFilter(
			{ phone: digits(r.phone) },
			all.filter((x) => digits(x.phone) === digits(r.phone)),
		);
		await expectFilter(
			{ phone: r.phone },
			all.filter((x) => digits(x.phone) === digits(r.phone)),
		);
		const part = r.person.full_name.split(' ')[1].toUpperCase();
		await expectFilter(
			{ name: part },
			all.filter((x) => x.person.full_name.toLowerCase().includes(part.toLowerCase())),
		);
	});

	it('identification_code (ignoring dots, dashes, case), external_id and search_code', async () => {
		const r = all.find((x) => x.external_id);
		const norm = (s: string) => s.replace(/[.\-\s]/g, '').toLowerCase();
		await expectFilter(
			{ identification_code: norm(r.identification_code) },
			all.filter((x) => norm(x.identification_code) === norm(r.identification_code)),
		);
		await expectFilter(
			{ identification_code: r.identification_code },
			all.filter((x) => norm(x.identification_code) === norm(r.identification_code)),
		);
		await expectFilter(
			{ external_id: r.external_id },
			all.filter((x) => x.external_id === r.external_id),
		);
		await expectFilter({ search_code: r.search_code.toLowerCase() }, [r]);
	});

	it('is_cancelled true and false (and 1/0)', async () => {
		await expectFilter(
			{ is_cancelled: 'true' },
			all.filter((x) => x.is_cancelled),
		);
		await expectFilter(
			{ is_cancelled: '0' },
			all.filter((x) => !x.is_cancelled),
		);
		for (const x of all) expect(x.is_cancelled).toBe(CANCELLED_STATUSES.has(x.status));
	});

	it('service_keys and tag_keys: any of the keys, as repeated parameters or comma-separated', async () => {
		for (const field of ['service_keys', 'tag_keys']) {
			const keys: string[] = [...new Set(all.flatMap((x) => x[field] as string[]))].sort();
			expect(keys.length).toBeGreaterThan(2);
			const [a, b] = keys;
			const anyOf = (ks: string[]) =>
				all.filter((x) => x[field].some((k: string) => ks.includes(k)));
			await expectFilter({ [field]: a }, anyOf([a]));
			await expectFilter(
				[
					[field, a],
					[field, b],
				],
				anyOf([a, b]),
			);
			await expectFilter({ [field]: `${a},${b}` }, anyOf([a, b]));
			await expectFilter(
				[
					[field, `${a}, ${b}`],
					[field, keys[2]],
				],
				anyOf([a, b, keys[2]]),
			);
		}
	});

	it('owner_user (exact, case-insensitive)', async () => {
		const o = all[3].owner_user;
		await expectFilter(
			{ owner_user: o.toUpperCase() },
			all.filter((x) => x.owner_user.toLowerCase() === o.toLowerCase()),
		);
	});

	it('created_at: the day of creation in the account time zone', async () => {
		const day = DateTime.fromISO(all[9].created_at).setZone(TZ).toISODate()!;
		const expected = all.filter(
			(x) => DateTime.fromISO(x.created_at).setZone(TZ).toISODate() === day,
		);
		await expectFilter({ created_at: day }, expected);
		await expectFilter({ created_at: `${day}T15:00:00` }, expected);
	});

	it('empty values and unknown parameters are ignored', async () => {
		const got = await query({ status: '', calendar_key: '', start_date: '', foo: 'bar' });
		expect(got).toHaveLength(all.length);
	});
});
