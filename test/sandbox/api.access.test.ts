/**
 * The sandbox's API over real HTTP, who may call it and what it shows: authentication (401 with WWW-Authenticate,
 * malformed headers, the restricted token) and retrieve (the public fields, key matching, 404 and 405). Changes:
 * api.status.test.ts, api.changes.test.ts.
 */
import { DateTime } from 'luxon';

import { ADMIN, client, LIMITED, TOKEN } from './helpers';
import { adm, anon, api, MISSING, PUBLIC_FIELDS, sb, useApiSandbox } from './api';

useApiSandbox();

describe('authentication', () => {
	const endpoints: Array<[string, string, unknown?]> = [
		['GET', '/api/v3/appointments/'],
		['GET', `/api/v3/appointments/${MISSING}/`],
		['PATCH', `/api/v3/appointments/${MISSING}/`, { status: 'ATTENDED' }],
		[
			'PATCH',
			`/api/v3/appointments/${MISSING}/reschedule/`,
			{ start_date: '2030-01-01T10:00:00Z' },
		],
		['DELETE', `/api/v3/appointments/${MISSING}/?send_email=true`],
		['GET', '/api/v3/webhooks/'],
		['POST', '/api/v3/webhooks/', { url: 'https://x.test/h', events: ['appointment.created'] }],
		[
			'PUT',
			`/api/v3/webhooks/${MISSING}/`,
			{ url: 'https://x.test/h', events: ['appointment.created'] },
		],
		['DELETE', `/api/v3/webhooks/${MISSING}/`],
	];

	it.each(endpoints)(
		'%s %s answers 401 with WWW-Authenticate and no data without a token, with an unknown token and with the admin token',
		async (...row) => {
			const [method, path, body] = row as [string, string, unknown]; // a rest parameter: jest would take a third named one for done()
			for (const [c, error] of [
				[anon, false],
				[client(() => sb.url, 'not-a-known-token'), true],
				[client(() => sb.url, ADMIN), true],
			] as const) {
				const r = await c(method, path, body);
				expect(r.status).toBe(401);
				expect(r.headers.get('content-type')).toMatch(/^application\/json/);
				expect(Object.keys(r.body)).toEqual(['detail']);
				expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
				expect(r.headers.get('www-authenticate')?.includes('invalid_token')).toBe(error);
			}
			// nothing was created by the refused POST
			expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toHaveLength(0);
		},
	);

	it('a malformed Authorization header is refused', async () => {
		for (const value of [TOKEN, `Basic ${TOKEN}`, `Bearer`, `Bearer ${TOKEN} extra`]) {
			const r = await anon('GET', '/api/v3/appointments/', undefined, { authorization: value });
			expect(r.status).toBe(401);
		}
		const ok = await anon('GET', '/api/v3/appointments/?page_size=1', undefined, {
			authorization: `bearer ${TOKEN}`,
		});
		expect(ok.status).toBe(200);
	});

	it('a restricted token reads and changes appointments but gets 403 on every webhooks endpoint', async () => {
		const limited = client(() => sb.url, LIMITED);
		// A not-cancelled one: a cancelled appointment accepts no other status, and which one comes first depends on the day.
		const list = await limited('GET', '/api/v3/appointments/?page_size=1&is_cancelled=false');
		expect(list.status).toBe(200);
		const key = list.body.results[0].appointment_key;
		expect(
			(await limited('PATCH', `/api/v3/appointments/${key}/`, { status: 'PENDING_FORM' })).status,
		).toBe(200);
		for (const [method, path, body] of endpoints.filter(([, p]) => p.includes('/webhooks/'))) {
			const r = await limited(method, path, body);
			expect(r.status).toBe(403);
			expect(r.body).toEqual({ detail: expect.stringMatching(/permission/) });
		}
		expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toHaveLength(0);
	});
});

describe('retrieve', () => {
	it('returns exactly the public fields, start_date with the account offset', async () => {
		const list = await api.ok('GET', '/api/v3/appointments/?page_size=5');
		for (const rec of list.results) {
			const one = await api.ok('GET', `/api/v3/appointments/${rec.appointment_key}/`);
			expect(one).toEqual(rec);
			expect(Object.keys(one).sort()).toEqual(PUBLIC_FIELDS);
			expect(Object.keys(one.calendar).sort()).toEqual(['calendar_key', 'name']);
			expect(Object.keys(one.person).sort()).toEqual(['email', 'full_name']);
			expect(one.start_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[34]:00$/);
			const offset = DateTime.fromISO(one.start_date, { zone: 'America/Santiago' }).toFormat('ZZ');
			expect(one.start_date.endsWith(offset)).toBe(true);
		}
	});
	it('an upper-case key finds the record', async () => {
		const [rec] = (await api.ok('GET', '/api/v3/appointments/?page_size=1')).results;
		expect(
			(await api.ok('GET', `/api/v3/appointments/${rec.appointment_key.toUpperCase()}/`))
				.appointment_key,
		).toBe(rec.appointment_key);
	});
	it('an unknown or malformed key is 404 {detail: "Not found."}', async () => {
		for (const key of [
			MISSING,
			'no-such-key',
			'1234',
			'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
			'%20',
		]) {
			const r = await api('GET', `/api/v3/appointments/${key}/`);
			expect(r.status).toBe(404);
			expect(r.body).toEqual({ detail: 'Not found.' });
		}
	});
	it('paths without the trailing slash or unknown paths are 404, a wrong method 405', async () => {
		expect((await api('GET', '/api/v3/appointments')).status).toBe(404);
		expect((await api('GET', '/api/v3/nothing/')).status).toBe(404);
		expect((await api('GET', '/api/v2/appointments/')).status).toBe(404);
		const r = await api('PUT', `/api/v3/appointments/${MISSING}/`, { status: 'ATTENDED' });
		expect(r.status).toBe(405);
		expect(r.headers.get('allow')).toBe('GET, PATCH, DELETE');
		expect(r.body).toEqual({ detail: 'Method "PUT" not allowed.' });
		expect((await api('POST', '/api/v3/appointments/', {})).status).toBe(405);
	});
	it.each([
		['/api/v3/appointments/', 'GET'],
		[`/api/v3/appointments/${MISSING}/`, 'GET, PATCH, DELETE'],
		[`/api/v3/appointments/${MISSING}/reschedule/`, 'PATCH'],
		['/api/v3/webhooks/', 'GET, POST'],
		['/api/v3/webhooks/any-key/', 'PUT, DELETE'],
	])(
		'OPTIONS on %s is 405 with Allow: %s (the methods its routes register)',
		async (path, allow) => {
			const r = await api('OPTIONS', path);
			expect([r.status, r.headers.get('allow')]).toEqual([405, allow]);
		},
	);
});
