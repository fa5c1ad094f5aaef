/**
 * The sandbox's API over real HTTP: authentication, retrieve, status changes and the transition table, reschedule,
 * cancel, the 204 variant, and every class of bad input (which must answer 4xx JSON naming the field and change
 * nothing).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import { CANCELLED_STATUSES, STATUSES } from '../../sandbox';
import { ADMIN, LIMITED, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const anon = client(() => sb.url, undefined);
const NON_CANCELLED = STATUSES.filter((s) => !CANCELLED_STATUSES.has(s));
const PUBLIC_FIELDS = ['appointment_key', 'calendar', 'person', 'search_code', 'start_date', 'status'];
const MISSING = '0f0e0d0c-0b0a-4908-8706-050403020100';

beforeAll(async () => {
	sb = await start();
});
afterAll(() => sb?.close());
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

async function make(status: string, extra: Record<string, unknown> = {}) {
	return adm.ok('POST', '/__sandbox/appointments/', { status, ...extra });
}
const internal = (key: string) => adm.ok('GET', `/__sandbox/appointments/${key}/`);

describe('authentication', () => {
	const endpoints: Array<[string, string, unknown?]> = [
		['GET', '/api/v3/appointments/'],
		['GET', `/api/v3/appointments/${MISSING}/`],
		['PATCH', `/api/v3/appointments/${MISSING}/`, { status: 'ATTENDED' }],
		['PATCH', `/api/v3/appointments/${MISSING}/reschedule/`, { start_date: '2030-01-01T10:00:00Z' }],
		['DELETE', `/api/v3/appointments/${MISSING}/?send_email=true`],
		['GET', '/api/v3/webhooks/'],
		['POST', '/api/v3/webhooks/', { url: 'https://x.test/h', events: ['appointment.created'] }],
		['PUT', `/api/v3/webhooks/${MISSING}/`, { url: 'https://x.test/h', events: ['appointment.created'] }],
		['DELETE', `/api/v3/webhooks/${MISSING}/`],
	];

	it.each(endpoints)('%s %s answers 401 with WWW-Authenticate and no data without a token, with an unknown token and with the admin token', async (...row) => {
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
	});

	it('a malformed Authorization header is refused', async () => {
		for (const value of [TOKEN, `Basic ${TOKEN}`, `Bearer`, `Bearer ${TOKEN} extra`]) {
			const r = await anon('GET', '/api/v3/appointments/', undefined, { authorization: value });
			expect(r.status).toBe(401);
		}
		const ok = await anon('GET', '/api/v3/appointments/?page_size=1', undefined, { authorization: `bearer ${TOKEN}` });
		expect(ok.status).toBe(200);
	});

	it('a restricted token reads and changes appointments but gets 403 on every webhooks endpoint', async () => {
		const limited = client(() => sb.url, LIMITED);
		// A not-cancelled one: a cancelled appointment accepts no other status, and which one comes first depends on the day.
		const list = await limited('GET', '/api/v3/appointments/?page_size=1&is_cancelled=false');
		expect(list.status).toBe(200);
		const key = list.body.results[0].appointment_key;
		expect((await limited('PATCH', `/api/v3/appointments/${key}/`, { status: 'PENDING_FORM' })).status).toBe(200);
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
		expect((await api.ok('GET', `/api/v3/appointments/${rec.appointment_key.toUpperCase()}/`)).appointment_key).toBe(rec.appointment_key);
	});
	it('an unknown or malformed key is 404 {detail: "Not found."}', async () => {
		for (const key of [MISSING, 'no-such-key', '1234', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', '%20']) {
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
	])('OPTIONS on %s is 405 with Allow: %s (the methods its routes register)', async (path, allow) => {
		const r = await api('OPTIONS', path);
		expect([r.status, r.headers.get('allow')]).toEqual([405, allow]);
	});
});

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
			const same = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: from });
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
		const res = await fetch(`${sb.url}${path}`, { method: 'PATCH', headers: { authorization: `Bearer ${TOKEN}` }, body: new Blob(['{"status":"ATTENDED"}']) });
		expect(res.status).toBe(415);
		expect(await internal(a.appointment_key)).toEqual(before);
	});

	it('random bodies and keys never produce a 5xx', async () => {
		const a = await make('PENDING');
		await fc.assert(
			fc.asyncProperty(fc.oneof(fc.json(), fc.string()), fc.oneof(fc.constant(a.appointment_key), fc.uuid(), fc.string({ minLength: 1 })), async (body, key) => {
				const r = await api('PATCH', `/api/v3/appointments/${encodeURIComponent(key)}/`, body, { 'content-type': 'application/json' });
				expect(r.status).toBeLessThan(500);
				expect(r.status).toBeGreaterThanOrEqual(200);
				const rec = await internal(a.appointment_key);
				expect(rec.is_cancelled).toBe(CANCELLED_STATUSES.has(rec.status));
			}),
			{ numRuns: 60 },
		);
	});
});

describe('reschedule', () => {
	it('moves the start (any offset), keeps the status and shows the account offset', async () => {
		const a = await make('PENDING_PAYMENT');
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, { start_date: '2030-03-05T14:30:00+01:00' });
		expect(r.status).toBe(200);
		expect(r.body.status).toBe('PENDING_PAYMENT');
		expect(DateTime.fromISO(r.body.start_date).toMillis()).toBe(Date.parse('2030-03-05T13:30:00Z'));
		expect(r.body.start_date).toBe('2030-03-05T10:30:00-03:00');
		const z = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, { start_date: '2030-07-01T12:00:00.250Z' });
		expect(z.body.start_date).toBe('2030-07-01T08:00:00.250-04:00');
		// the list follows the new position
		const list = await api.ok('GET', '/api/v3/appointments/?start_date=2030-07-01T00:00:00&end_date=2030-07-01T23:59:59');
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
		const r = await api('PATCH', `/api/v3/appointments/${c.appointment_key}/reschedule/`, { start_date: '2030-03-05T14:30:00Z' });
		expect(r.status).toBe(400);
		expect(r.body.non_field_errors[0]).toMatch(/cancelled/);
		expect((await api('PATCH', `/api/v3/appointments/${MISSING}/reschedule/`, { start_date: '2030-03-05T14:30:00Z' })).status).toBe(404);
	});
});

describe('cancel', () => {
	it('DELETE sets CANCELED and is_cancelled; send_email=true records one e-mail to the person', async () => {
		const a = await make('CONFIRMED', { person: { full_name: 'Ana Test', email: 'ana.test@example.com' } });
		const r = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`);
		expect(r.status).toBe(200);
		expect(r.body).toMatchObject({ appointment_key: a.appointment_key, status: 'CANCELED' });
		const rec = await internal(a.appointment_key);
		expect(rec).toMatchObject({ status: 'CANCELED', is_cancelled: true });
		const { emails } = await adm.ok('GET', '/__sandbox/emails/');
		expect(emails).toEqual([{ appointment_key: a.appointment_key, to: 'ana.test@example.com', type: 'cancellation', at: expect.any(String) }]);
	});

	it('no e-mail by default or with send_email=false; cancelling twice changes nothing and sends nothing', async () => {
		const a = await make('PENDING');
		const b = await make('CANCELED_GOOGLE');
		expect((await api('DELETE', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(200);
		expect((await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`)).status).toBe(200);
		const again = await api('DELETE', `/api/v3/appointments/${b.appointment_key}/?send_email=false`);
		expect(again.body.status).toBe('CANCELED_GOOGLE');
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([]);
	});

	it('a bad send_email is 400 naming it; an unknown key 404; both change nothing', async () => {
		const a = await make('CONFIRMED');
		const r = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=maybe`);
		expect(r.status).toBe(400);
		expect(Object.keys(r.body)).toEqual(['send_email']);
		expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
		expect((await api('DELETE', `/api/v3/appointments/${MISSING}/?send_email=true`)).status).toBe(404);
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
		expect(await internal(a.appointment_key)).toMatchObject({ status: 'CANCELED', start_date: '2031-01-02T00:04:05-03:00' });
		// errors stay JSON
		expect((await api('PATCH', base, { status: 'NOPE' })).status).toBe(400);
	});
});

describe('limits', () => {
	it('a body over 1 MiB gets 413 JSON', async () => {
		const a = await make('CONFIRMED');
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'ATTENDED', pad: 'x'.repeat(1_100_000) });
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
				...[1, 2, 3].map((i) => api('PATCH', `${base}reschedule/`, { start_date: `2032-01-0${i}T10:00:00Z` })),
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
