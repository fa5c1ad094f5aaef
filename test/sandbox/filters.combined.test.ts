/**
 * The sandbox's list filters together: combined filters restrict together (an empty intersection is an empty list),
 * invalid values answer 400 naming every bad field, random query strings never produce a 5xx.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import { LIST_FILTERS } from '../../sandbox';
import { all, api, expectFilter, ms, TZ, useFilterSandbox, wall } from './filters';

useFilterSandbox();

describe('combined filters', () => {
	it('rule 1: status + start_date + end_date restrict together', async () => {
		const lo = all[40].start_date;
		const hi = all[200].start_date;
		for (const s of ['CONFIRMED', 'ATTENDED', 'PENDING']) {
			await expectFilter(
				{ status: s, start_date: wall(lo), end_date: wall(hi) },
				all.filter(
					(x) => x.status === s && ms(x.start_date) >= ms(lo) && ms(x.start_date) <= ms(hi),
				),
			);
		}
	});

	it('calendar + status + one day; name + is_cancelled; tags + services + owner', async () => {
		const today = DateTime.now().setZone(TZ);
		const cal = all[0].calendar.calendar_key;
		await expectFilter(
			{
				calendar_key: cal,
				status: 'CONFIRMED',
				start_date: today.startOf('day').toFormat("yyyy-MM-dd'T'HH:mm:ss"),
				end_date: today.toFormat("yyyy-MM-dd'T'23:59:59"),
			},
			all.filter(
				(x) =>
					x.calendar.calendar_key === cal &&
					x.status === 'CONFIRMED' &&
					DateTime.fromISO(x.start_date).setZone(TZ).hasSame(today, 'day'),
			),
		);
		const r = all.find((x) => !x.is_cancelled)!;
		const last = r.person.full_name.split(' ')[1];
		await expectFilter(
			{ name: last, is_cancelled: 'false' },
			all.filter((x) => x.person.full_name.includes(last) && !x.is_cancelled),
		);
		const withTags = all.find((x) => x.tag_keys.length > 0)!;
		await expectFilter(
			[
				['tag_keys', withTags.tag_keys[0]],
				['service_keys', withTags.service_keys.join(',')],
				['owner_user', withTags.owner_user],
			],
			all.filter(
				(x) =>
					x.tag_keys.includes(withTags.tag_keys[0]) &&
					x.service_keys.some((k: string) => withTags.service_keys.includes(k)) &&
					x.owner_user === withTags.owner_user,
			),
		);
	});

	it('an empty intersection is an empty list, not an error', async () => {
		const r = await api(
			'GET',
			`/api/v3/appointments/?search_code=${all[0].search_code}&status=${all[0].status === 'PENDING' ? 'ATTENDED' : 'PENDING'}`,
		);
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
		const values = fc.oneof(
			fc.string(),
			fc.constantFrom(
				'2026-11-23T10:00:00',
				'2026-11-23',
				'CONFIRMED',
				'true',
				all[0].calendar.calendar_key,
				'',
				',',
				'%',
				'+',
			),
		);
		await fc.assert(
			fc.asyncProperty(fc.array(fc.tuple(names, values), { maxLength: 6 }), async (pairs) => {
				const r = await api(
					'GET',
					`/api/v3/appointments/?${new URLSearchParams(pairs).toString()}`,
				);
				expect([200, 400]).toContain(r.status);
				if (r.status === 400)
					for (const v of Object.values(r.body))
						expect(v).toEqual(expect.arrayContaining([expect.any(String)]));
			}),
			{ numRuns: 150 },
		);
	});
});
