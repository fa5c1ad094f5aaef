/** The admin interface: its token, creation, reset, config, the request and e-mail logs. */
import { ADMIN, LIMITED, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const count = async () => (await adm.ok('GET', '/__sandbox/appointments/')).count as number;

beforeAll(async () => {
	sb = await start({ seed: 60, seedValue: 9 });
});
afterAll(() => sb?.close());
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

it('every admin endpoint needs the admin token (401 otherwise, API tokens included)', async () => {
	const endpoints: Array<[string, string, unknown?]> = [
		['POST', '/__sandbox/appointments/', {}],
		['GET', '/__sandbox/appointments/'],
		['GET', '/__sandbox/appointments/0f0e0d0c-0b0a-4908-8706-050403020100/'],
		['POST', '/__sandbox/reset/', {}],
		['GET', '/__sandbox/deliveries/'],
		['DELETE', '/__sandbox/deliveries/'],
		['GET', '/__sandbox/requests/'],
		['DELETE', '/__sandbox/requests/'],
		['GET', '/__sandbox/emails/'],
		['DELETE', '/__sandbox/emails/'],
		['GET', '/__sandbox/webhooks/'],
		['GET', '/__sandbox/faults/'],
		['POST', '/__sandbox/faults/', { status: 500 }],
		['DELETE', '/__sandbox/faults/'],
		['GET', '/__sandbox/config/'],
		['POST', '/__sandbox/config/', { pagination: 'none' }],
	];
	const before = await count();
	for (const [method, path, body] of endpoints) {
		for (const token of [undefined, TOKEN, LIMITED, 'x']) {
			const r = await client(() => sb.url, token)(method, path, body);
			expect([method, path, token, r.status]).toEqual([method, path, token, 401]);
			expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
			expect(Object.keys(r.body)).toEqual(['detail']);
		}
	}
	expect(await count()).toBe(before);
	expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
	expect((await adm.ok('GET', '/__sandbox/config/')).pagination).toBe('page');
});

describe('POST /__sandbox/appointments/', () => {
	it('generates what is missing; keeps what is given; filter-only attributes only in the admin view', async () => {
		const gen = await adm('POST', '/__sandbox/appointments/', {});
		expect(gen.status).toBe(201);
		expect(gen.body).toMatchObject({
			status: 'CONFIRMED',
			is_cancelled: false,
			appointment_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
		});
		const given = {
			appointment_key: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
			search_code: 'GIVEN01',
			status: 'CANCELED_CLIENT',
			start_date: '2030-06-01T09:00:00',
			calendar: { calendar_key: '11111111-2222-4333-8444-555555555555', name: 'Box 9' },
			person: { full_name: 'Given Person', email: 'given@example.com' },
			client_key: '21111111-2222-4333-8444-555555555555',
			person_key: '31111111-2222-4333-8444-555555555555',
			phone: '+56 9 0000 0001',
			identification_code: '11.111.111-1',
			external_id: null,
			service_keys: ['41111111-2222-4333-8444-555555555555'],
			tag_keys: [],
			owner_user: 'someone@clinic.example',
			created_at: '2030-05-01T08:00:00Z',
			is_cancelled: true,
		};
		const r = await adm.ok('POST', '/__sandbox/appointments/', given);
		expect(r).toEqual({
			...given,
			appointment_key: given.appointment_key.toLowerCase(),
			start_date: '2030-06-01T09:00:00-04:00',
			created_at: '2030-05-01T04:00:00-04:00',
		});
		expect(await adm.ok('GET', `/__sandbox/appointments/${r.appointment_key}/`)).toEqual(r);
		const pub = await api.ok('GET', `/api/v3/appointments/${r.appointment_key}/`);
		expect(pub).toEqual({
			appointment_key: r.appointment_key,
			search_code: 'GIVEN01',
			status: 'CANCELED_CLIENT',
			start_date: '2030-06-01T09:00:00-04:00',
			calendar: given.calendar,
			person: given.person,
		});
		expect(await count()).toBe(62);
	});

	it('a known calendar_key gets its name', async () => {
		const [first] = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
		const r = await adm.ok('POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: first.calendar.calendar_key },
		});
		expect(r.calendar).toEqual(first.calendar);
	});

	it('bad input is 400 naming the field and creates nothing', async () => {
		const [first] = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
		for (const [body, field] of [
			[{ status: 'DONE' }, 'status'],
			[{ start_date: 'soon' }, 'start_date'],
			[{ created_at: '2030-02-31' }, 'created_at'],
			[{ appointment_key: 'k1' }, 'appointment_key'],
			[{ appointment_key: first.appointment_key }, 'appointment_key'],
			[{ search_code: first.search_code }, 'search_code'],
			[{ calendar: { calendar_key: 'x' } }, 'calendar.calendar_key'],
			[{ service_keys: ['x'] }, 'service_keys.0'],
			[{ status: 'CONFIRMED', is_cancelled: true }, 'is_cancelled'],
			[{ colour: 'red' }, 'colour'],
		] as const) {
			const r = await adm('POST', '/__sandbox/appointments/', body);
			expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
			expect(Object.keys(r.body)).toContain(field);
		}
		expect((await adm('POST', '/__sandbox/appointments/', '{', {})).status).toBe(400);
		expect(
			(await adm('POST', '/__sandbox/appointments/', 'a=b', { 'content-type': 'text/plain' }))
				.status,
		).toBe(415);
		expect(await count()).toBe(60);
		expect(
			(await adm('GET', '/__sandbox/appointments/0f0e0d0c-0b0a-4908-8706-050403020100/')).status,
		).toBe(404);
	});
});

describe('reset', () => {
	it('restores seed data, start-up config and tokens, and empties webhooks, logs and faults', async () => {
		const configBefore = await adm.ok('GET', '/__sandbox/config/');
		const keysBefore = (await adm.ok('GET', '/__sandbox/appointments/')).appointments.map(
			(a: any) => a.appointment_key,
		);
		const key = keysBefore[0];
		await adm.ok('POST', '/__sandbox/config/', {
			pagination: 'cursor',
			latencyMs: 5,
			tokens: ['rotated-token'],
		});
		await client(() => sb.url, 'rotated-token').ok('POST', '/api/v3/webhooks/', {
			url: 'https://h.test/r',
			events: ['appointment.created'],
		});
		await client(() => sb.url, 'rotated-token').ok(
			'DELETE',
			`/api/v3/appointments/${key}/?send_email=true`,
		);
		await adm.ok('POST', '/__sandbox/appointments/', {});
		await adm.ok('POST', '/__sandbox/faults/', { status: 500, count: 5 });
		const r = await adm('POST', '/__sandbox/reset/');
		expect(r.status).toBe(200);
		expect(r.body).toEqual({ appointments: 60 });
		expect(await adm.ok('GET', '/__sandbox/config/')).toEqual(configBefore);
		expect(
			(await adm.ok('GET', '/__sandbox/appointments/')).appointments.map(
				(a: any) => a.appointment_key,
			),
		).toEqual(keysBefore);
		expect((await adm.ok('GET', `/__sandbox/appointments/${key}/`)).is_cancelled).toBe(false);
		expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/requests/')).requests).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/deliveries/')).deliveries).toEqual([]);
		expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
		expect(
			(await client(() => sb.url, 'rotated-token')('GET', '/api/v3/appointments/')).status,
		).toBe(401);
	});

	it('takes another seed size and value for this reset; bad bodies are 400', async () => {
		expect(
			await adm.ok('POST', '/__sandbox/reset/', {
				seed: 12,
				seedValue: 2,
				now: '2027-01-15T10:00:00',
			}),
		).toEqual({ appointments: 12 });
		const list = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
		expect(list.some((a: any) => a.start_date.startsWith('2027-01-15'))).toBe(true);
		for (const [body, field] of [
			[{ seed: -1 }, 'seed'],
			[{ seedValue: 'x' }, 'seedValue'],
			[{ now: 'later' }, 'now'],
			[{ webhooks: [] }, 'webhooks'],
		] as const) {
			const r = await adm('POST', '/__sandbox/reset/', body);
			expect(r.status).toBe(400);
			expect(Object.keys(r.body)).toEqual([field]);
		}
		expect(await count()).toBe(12);
	});
});

describe('config', () => {
	it('reads and partially changes the run-time options; never shows a token', async () => {
		const c = await adm('GET', '/__sandbox/config/');
		expect(c.body).toMatchObject({
			timeZone: 'America/Santiago',
			pagination: 'page',
			mutationResponse: 'body',
			nextLinks: 'absolute',
			nextOrigin: null,
			webhookList: 'paginated',
			retrySchedule: [500, 1000, 2000, 4000, 8000],
			deliveryTimeoutMs: 10000,
			duplicateDelivery: false,
			shuffleDelivery: false,
			latencyMs: 0,
			ca: 0,
			tokens: 1,
			restrictedTokens: 1,
		});
		for (const secret of [TOKEN, LIMITED, ADMIN]) expect(c.text).not.toContain(secret);
		const changed = await adm.ok('POST', '/__sandbox/config/', {
			retrySchedule: [10, 20],
			duplicateDelivery: true,
		});
		expect(changed).toEqual({ ...c.body, retrySchedule: [10, 20], duplicateDelivery: true });
		for (const [body, field] of [
			[{ pagination: 'offset' }, 'pagination'],
			[{ retrySchedule: [-1] }, 'retrySchedule.0'],
			[{ deliveryTimeoutMs: 0 }, 'deliveryTimeoutMs'],
			[{ duplicateDelivery: 'yes' }, 'duplicateDelivery'],
			[{ tokens: [] }, 'tokens'],
			[{ colour: 'red' }, 'colour'],
		] as const) {
			const r = await adm('POST', '/__sandbox/config/', body);
			expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
			expect(Object.keys(r.body)).toEqual([field]);
		}
		expect(await adm.ok('GET', '/__sandbox/config/')).toEqual(changed);
	});
});

describe('logs', () => {
	it('the request log holds API requests only, with query, status, authorized and fault', async () => {
		await api('GET', '/api/v3/appointments/?status=CONFIRMED&tag_keys=a&tag_keys=b');
		await client(() => sb.url, 'nope')('GET', '/api/v3/webhooks/');
		await client(() => sb.url, LIMITED)('GET', '/api/v3/webhooks/');
		await api('GET', '/api/v3/nothing/');
		await adm('GET', '/__sandbox/config/');
		const { requests } = await adm.ok('GET', '/__sandbox/requests/');
		expect(requests).toEqual([
			{
				method: 'GET',
				path: '/api/v3/appointments/',
				query: { status: 'CONFIRMED', tag_keys: ['a', 'b'] },
				status: 400,
				at: expect.any(String),
				authorized: true,
				fault: null,
			},
			{
				method: 'GET',
				path: '/api/v3/webhooks/',
				query: {},
				status: 401,
				at: expect.any(String),
				authorized: false,
				fault: null,
			},
			{
				method: 'GET',
				path: '/api/v3/webhooks/',
				query: {},
				status: 403,
				at: expect.any(String),
				authorized: false,
				fault: null,
			},
			{
				method: 'GET',
				path: '/api/v3/nothing/',
				query: {},
				status: 404,
				at: expect.any(String),
				authorized: true,
				fault: null,
			},
		]);
		expect(JSON.stringify(requests)).not.toContain(TOKEN);
		expect((await adm('DELETE', '/__sandbox/requests/')).status).toBe(204);
		expect((await adm.ok('GET', '/__sandbox/requests/')).requests).toEqual([]);
	});

	it('e-mails can be cleared; the delivery summary has counters only', async () => {
		const [a] = (await api.ok('GET', '/api/v3/appointments/?is_cancelled=false')).results;
		await api.ok('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=1`);
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toHaveLength(1);
		expect((await adm('DELETE', '/__sandbox/emails/')).status).toBe(204);
		expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([]);
		expect(await adm.ok('GET', '/__sandbox/deliveries/?summary=true')).toEqual({
			pending: 0,
			total_events: 0,
			attempts: 0,
			succeeded: 0,
			failed_attempts: 0,
			gave_up: 0,
		});
	});
});
