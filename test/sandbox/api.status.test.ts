/**
 * The sandbox's API over real HTTP, status changes: the transitions the workflows need, the transition table,
 * cancelled appointments keeping their status, and bad or random bodies (4xx JSON naming the field, never a 5xx,
 * nothing changed).
 */
import fc from 'fast-check';

import { CANCELLED_STATUSES, STATUSES } from '../../sandbox';
import { TOKEN } from './helpers';
import { api, internal, make, NON_CANCELLED, PUBLIC_FIELDS, sb, useApiSandbox } from './api';

useApiSandbox();

describe('status changes', () => {
	it('the transitions the workflows need are accepted and visible in GET and the list', async () => {
		for (const [from, to] of [
			['CONFIRMED', 'NO_SHOW'],
			['CONFIRMED', 'ATTENDED'],
			['PENDING', 'CONFIRMED'],
			['IN_PROGRESS', 'ATTENDED'],
		]) {
			const a = await make(from);
			const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: to });
			expect(r.status).toBe(200);
			expect(r.body).toMatchObject({ appointment_key: a.appointment_key, status: to });
			expect(Object.keys(r.body).sort()).toEqual(PUBLIC_FIELDS);
			expect((await api.ok('GET', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(to);
		}
	});

	it('from every status that is not cancelled, every status is accepted; is_cancelled follows', async () => {
		for (const from of NON_CANCELLED) {
			for (const to of STATUSES) {
				const a = await make(from);
				const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: to });
				expect([from, to, r.status]).toEqual([from, to, 200]);
				const rec = await internal(a.appointment_key);
				expect(rec.status).toBe(to);
				expect(rec.is_cancelled).toBe(CANCELLED_STATUSES.has(to));
			}
		}
	});

	it('a cancelled appointment keeps its status: 400 naming status; the same status is a no-op', async () => {
		for (const from of CANCELLED_STATUSES) {
			const a = await make(from);
			for (const to of STATUSES.filter((s) => s !== from)) {
				const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: to });
				expect(r.status).toBe(400);
				expect(Object.keys(r.body)).toEqual(['status']);
				expect(r.body.status[0]).toMatch(/cancelled/);
			}
			const same = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, {
				status: from,
			});
			expect(same.status).toBe(200);
			expect((await internal(a.appointment_key)).status).toBe(from);
		}
	});

	it('bad bodies get 4xx JSON naming the field and change nothing', async () => {
		const a = await make('CONFIRMED');
		const path = `/api/v3/appointments/${a.appointment_key}/`;
		const before = await internal(a.appointment_key);
		const cases: Array<[unknown, Record<string, string>, number, string]> = [
			[{ status: 'FINISHED' }, {}, 400, 'status'],
			[{ status: 'confirmed' }, {}, 400, 'status'],
			[{ status: 7 }, {}, 400, 'status'],
			[{ status: null }, {}, 400, 'status'],
			[{}, {}, 400, 'status'],
			[{ status: 'ATTENDED', start_date: '2030-01-01T00:00:00Z' }, {}, 400, 'start_date'],
			[{ status: 'ATTENDED', foo: 1 }, {}, 400, 'foo'],
			['[1,2]', {}, 400, 'non_field_errors'],
			['"ATTENDED"', {}, 400, 'non_field_errors'],
			['{"status": "ATTENDED"', {}, 400, 'detail'],
			['status=ATTENDED', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'detail'],
			['{"status":"ATTENDED"}', { 'content-type': 'text/plain' }, 415, 'detail'],
		];
		for (const [body, headers, status, field] of cases) {
			const r = await api('PATCH', path, body, headers);
			expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status]);
			expect(r.headers.get('content-type')).toMatch(/^application\/json/);
			expect(Object.keys(r.body)).toContain(field);
		}
		// no Content-Type at all, with a body
		const res = await fetch(`${sb.url}${path}`, {
			method: 'PATCH',
			headers: { authorization: `Bearer ${TOKEN}` },
			body: new Blob(['{"status":"ATTENDED"}']),
		});
		expect(res.status).toBe(415);
		expect(await internal(a.appointment_key)).toEqual(before);
	});

	it('random bodies and keys never produce a 5xx', async () => {
		const a = await make('PENDING');
		await fc.assert(
			fc.asyncProperty(
				fc.oneof(fc.json(), fc.string()),
				fc.oneof(fc.constant(a.appointment_key), fc.uuid(), fc.string({ minLength: 1 })),
				async (body, key) => {
					const r = await api('PATCH', `/api/v3/appointments/${encodeURIComponent(key)}/`, body, {
						'content-type': 'application/json',
					});
					expect(r.status).toBeLessThan(500);
					expect(r.status).toBeGreaterThanOrEqual(200);
					const rec = await internal(a.appointment_key);
					expect(rec.is_cancelled).toBe(CANCELLED_STATUSES.has(rec.status));
				},
			),
			{ numRuns: 60 },
		);
	});
});
