/**
 * The sandbox's API over real HTTP, the other changes: reschedule, cancel (with and without e-mail), the 204 variant
 * (mutationResponse: empty), the body size limit, and parallel changes to one appointment.
 */
import { DateTime } from 'luxon';

import { adm, api, internal, make, MISSING, NON_CANCELLED, useApiSandbox } from './api';

useApiSandbox();

describe('reschedule', () => {
	it('moves the start (any offset), keeps the status and shows the account offset', async () => {
		const a = await make('PENDING_PAYMENT');
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, {
			start_date: '2030-03-05T14:30:00+01:00',
		});
		expect(r.status).toBe(200);
		expect(r.body.status).toBe('PENDING_PAYMENT');
		expect(DateTime.fromISO(r.body.start_date).toMillis()).toBe(Date.parse('2030-03-05T13:30:00Z'));
		expect(r.body.start_date).toBe('2030-03-05T10:30:00-03:00');
		const z = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, {
			start_date: '2030-07-01T12:00:00.250Z',
		});
		expect(z.body.start_date).toBe('2030-07-01T08:00:00.250-04:00');
		// the list follows the new position
		const list = await api.ok(
			'GET',
			'/api/v3/appointments/?start_date=2030-07-01T00:00:00&end_date=2030-07-01T23:59:59',
		);
		expect(list.results.map((x: any) => x.appointment_key)).toEqual([a.appointment_key]);
	});

	it('refuses a start without offset, unparsable or missing, unknown keys, and cancelled appointments', async () => {
		const a = await make('CONFIRMED');
		const path = `/api/v3/appointments/${a.appointment_key}/reschedule/`;
		const before = await internal(a.appointment_key);
		for (const [body, field] of [
			[{ start_date: '2030-03-05T14:30:00' }, 'start_date'],
			[{ start_date: '2030-03-05' }, 'start_date'],
			[{ start_date: 'tomorrow' }, 'start_date'],
			[{ start_date: '2030-02-30T10:00:00Z' }, 'start_date'],
			[{ start_date: '2030-03-05T25:00:00Z' }, 'start_date'],
			[{ start_date: 1893456000000 }, 'start_date'],
			[{}, 'start_date'],
			[{ start_date: '2030-03-05T14:30:00Z', status: 'ATTENDED' }, 'status'],
		] as const) {
			const r = await api('PATCH', path, body);
			expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
			expect(Object.keys(r.body)).toContain(field);
		}
		expect((await api('PATCH', path, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
		expect(await internal(a.appointment_key)).toEqual(before);
		const c = await make('CANCELED_CLIENT');
		const r = await api('PATCH', `/api/v3/appointments/${c.appointment_key}/reschedule/`, {
			start_date: '2030-03-05T14:30:00Z',
		});
		expect(r.status).toBe(400);
		expect(r.body.non_field_errors[0]).toMatch(/cancelled/);
		expect(
			(
				await api('PATCH', `/api/v3/appointments/${MISSING}/reschedule/`, {
					start_date: '2030-03-05T14:30:00Z',
				})
			).status,
		).toBe(404);
	});
});

describe('cancel', () => {
	it('DELETE sets CANCELED and is_cancelled; send_email=true records one e-mail to the person', async () => {
		const a = await make('CONFIRMED', {
			person: { full_name: 'Ana Test', email: 'ana.test@example.com' },
		});
		const r = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`);
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({ appointment_key: a.appointment_key, status: 'CANCELED' });
		const rec = await internal(a.appointment_key);
		expect(rec).toMatchObject({ status: 'CANCELED', is_cancelled: true });
		const { emails } = await adm.ok('GET', '/__sandbox/emails/');
		expect(emails).toEqual([
			{
				appointment_key: a.appointment_key,
				to: 'ana.test@example.com',
				type: 'cancellation',
				at: expect.any(String),
			},
		]);
	});

	it('no e-mail by default or with send_email=false; cancelling twice changes nothing and sends nothing', async () => {
		const a = await make('PENDING');
		const b = await make('CANCELED_GOOGLE');
		expect((await api('DELETE', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(200);
		expect(
			(await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`)).status,
		).toBe(200);
		const again = await api(
			'DELETE',
			`/api/v3/appointments/${b.appointment_key}/?send_email=false`,
		);
		expect(again.body.status).toBe('CANCELED_GOOGLE');
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([]);
	});

	it('a bad send_email is 400 naming it; an unknown key 404; both change nothing', async () => {
		const a = await make('CONFIRMED');
		const r = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=maybe`);
		expect(r.status).toBe(400);
		expect(Object.keys(r.body)).toEqual(['send_email']);
		expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
		expect((await api('DELETE', `/api/v3/appointments/${MISSING}/?send_email=true`)).status).toBe(
			404,
		);
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([]);
	});
});

describe('mutationResponse: empty', () => {
	it('PATCH, reschedule and DELETE answer 204 with no body, and the change is made', async () => {
		await adm.ok('POST', '/__sandbox/config/', { mutationResponse: 'empty' });
		const a = await make('CONFIRMED');
		const base = `/api/v3/appointments/${a.appointment_key}/`;
		for (const [method, path, body] of [
			['PATCH', base, { status: 'ATTENDED' }],
			['PATCH', `${base}reschedule/`, { start_date: '2031-01-02T03:04:05Z' }],
			['DELETE', `${base}?send_email=false`, undefined],
		] as const) {
			const r = await api(method, path, body);
			expect(r.status).toBe(204);
			expect(r.text).toBe('');
		}
		expect(await internal(a.appointment_key)).toMatchObject({
			status: 'CANCELED',
			start_date: '2031-01-02T00:04:05-03:00',
		});
		// errors stay JSON
		expect((await api('PATCH', base, { status: 'NOPE' })).status).toBe(400);
	});
});

describe('limits', () => {
	it('a body over 1 MiB gets 413 JSON', async () => {
		const a = await make('CONFIRMED');
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, {
			status: 'ATTENDED',
			pad: 'x'.repeat(1_100_000),
		});
		expect(r.status).toBe(413);
		expect(r.body.detail).toMatch(/too large/);
		expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
	});
});

describe('concurrency', () => {
	it('parallel PATCH, reschedule and DELETE on one appointment leave a consistent record and one cancellation', async () => {
		for (let round = 0; round < 5; round++) {
			const a = await make('CONFIRMED');
			const base = `/api/v3/appointments/${a.appointment_key}/`;
			const calls = [
				...NON_CANCELLED.map((s) => api('PATCH', base, { status: s })),
				...[1, 2, 3].map((i) =>
					api('PATCH', `${base}reschedule/`, { start_date: `2032-01-0${i}T10:00:00Z` }),
				),
				api('DELETE', `${base}?send_email=true`),
				api('DELETE', `${base}?send_email=true`),
				...NON_CANCELLED.map((s) => api('PATCH', base, { status: s })),
			];
			const results = await Promise.all(calls);
			for (const r of results) expect([200, 400]).toContain(r.status);
			const rec = await internal(a.appointment_key);
			expect(rec.status).toBe('CANCELED');
			expect(rec.is_cancelled).toBe(true);
			const { emails } = await adm.ok('GET', '/__sandbox/emails/');
			expect(emails.filter((e: any) => e.appointment_key === a.appointment_key)).toHaveLength(1);
		}
	});
});
