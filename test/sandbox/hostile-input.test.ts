/**
 * Inputs found to answer 500 or to be logged wrong: every one answers 4xx with a reason naming the field, changes
 * nothing, and the request log records what the router decided.
 */
import { MAX_JSON_DEPTH } from '../../sandbox';
import { ADMIN, LIMITED, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const limited = client(() => sb.url, LIMITED);
const adm = client(() => sb.url, ADMIN);

beforeAll(async () => {
	sb = await start();
});
afterAll(() => sb?.close());
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

const confirmed = () =>
	adm.ok('POST', '/__sandbox/appointments/', {
		status: 'CONFIRMED',
		start_date: '2030-03-04T10:00:00-03:00',
	});
const internal = (key: string) => adm.ok('GET', `/__sandbox/appointments/${key}/`);

describe('bodies that answered 500', () => {
	it('a status object without a usable toString is 400 naming status', async () => {
		const a = await confirmed();
		const r = await api(
			'PATCH',
			`/api/v3/appointments/${a.appointment_key}/`,
			'{"status":{"toString":null}}',
		);
		expect(r.status).toBe(400);
		expect(Object.keys(r.body)).toEqual(['status']);
		expect(r.body.status[0]).toMatch(/not a valid choice/);
		expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
	});

	it('webhook events that are objects are 400 naming events; nothing is subscribed', async () => {
		for (const events of ['[{"toString":1}]', '[{"toString":null,"valueOf":null}]', '[[1,[2]]]']) {
			const r = await api(
				'POST',
				'/api/v3/webhooks/',
				`{"url":"https://hooks.example/h","events":${events}}`,
			);
			expect(r.status).toBe(400);
			expect(Object.keys(r.body)).toEqual(['events']);
		}
		expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toEqual([]);
	});

	it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is 400, on the API and the admin interface alike`, async () => {
		const deep = (n: number) => `{"status":${'['.repeat(n)}${']'.repeat(n)}}`;
		const a = await confirmed();
		for (const n of [MAX_JSON_DEPTH, 200_000]) {
			for (const [call, path] of [
				[api, `/api/v3/appointments/${a.appointment_key}/`],
				[adm, '/__sandbox/config/'],
			] as const) {
				const r = await call(path.startsWith('/api') ? 'PATCH' : 'POST', path, deep(n));
				expect(r.status).toBe(400);
				expect(r.body.detail).toBe(
					`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels.`,
				);
			}
		}
		// The limit itself is fine: one level less is parsed and refused for its content, naming the field.
		const ok = await api(
			'PATCH',
			`/api/v3/appointments/${a.appointment_key}/`,
			deep(MAX_JSON_DEPTH - 1),
		);
		expect([ok.status, Object.keys(ok.body)]).toEqual([400, ['status']]);
		// Brackets inside strings do not count.
		const inString = await api(
			'POST',
			'/api/v3/webhooks/',
			JSON.stringify({
				url: `https://h.example/${'['.repeat(100)}`,
				events: ['appointment.created'],
			}),
		);
		expect(inString.status).toBe(201);
	});

	it('a __proto__ key is refused like any unknown field, in API and admin bodies, at any depth', async () => {
		const a = await confirmed();
		const cases: Array<[typeof api, string, string, string, string]> = [
			[
				api,
				'PATCH',
				`/api/v3/appointments/${a.appointment_key}/`,
				'{"status":"ATTENDED","__proto__":{"x":1}}',
				'__proto__',
			],
			[
				api,
				'PATCH',
				`/api/v3/appointments/${a.appointment_key}/reschedule/`,
				'{"start_date":"2030-01-01T10:00:00Z","__proto__":null}',
				'__proto__',
			],
			[
				api,
				'POST',
				'/api/v3/webhooks/',
				'{"url":"https://h.example/x","events":["appointment.created"],"__proto__":{}}',
				'__proto__',
			],
			[adm, 'POST', '/__sandbox/appointments/', '{"__proto__":{"status":"CANCELED"}}', '__proto__'],
			[
				adm,
				'POST',
				'/__sandbox/appointments/',
				'{"person":{"__proto__":{"full_name":"x"}}}',
				'person.__proto__',
			],
			[adm, 'POST', '/__sandbox/config/', '{"__proto__":{"latencyMs":5}}', '__proto__'],
			[
				adm,
				'POST',
				'/__sandbox/faults/',
				'{"status":500,"match":{"query":{"__proto__":"1"}}}',
				'match.query.__proto__',
			],
			[adm, 'POST', '/__sandbox/reset/', '{"__proto__":{}}', '__proto__'],
		];
		const before = (await adm.ok('GET', '/__sandbox/appointments/')).count;
		for (const [call, method, path, body, field] of cases) {
			const r = await call(method, path, body);
			expect([path, r.status, Object.keys(r.body)]).toEqual([path, 400, [field]]);
		}
		expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
		expect((await internal(a.appointment_key)).start_date).toBe('2030-03-04T10:00:00-03:00');
		expect((await adm.ok('GET', '/__sandbox/appointments/')).count).toBe(before);
		expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
		expect((await adm.ok('GET', '/__sandbox/config/')).latencyMs).toBe(0);
	});
});

describe('keys named like Object.prototype members', () => {
	// A field map built on a plain object finds `constructor` (and the like) already there and answered 500.
	const names = [
		'constructor',
		'toString',
		'hasOwnProperty',
		'valueOf',
		'isPrototypeOf',
		'__defineGetter__',
	];
	it.each(names)(
		'"%s" in any body is refused as an unknown field, naming it, and changes nothing',
		async (name) => {
			const a = await confirmed();
			const cases: Array<[typeof api, string, string, Record<string, unknown>, string]> = [
				[
					api,
					'PATCH',
					`/api/v3/appointments/${a.appointment_key}/`,
					{ status: 'ATTENDED', [name]: 1 },
					name,
				],
				[
					api,
					'PATCH',
					`/api/v3/appointments/${a.appointment_key}/reschedule/`,
					{ start_date: '2030-01-01T10:00:00Z', [name]: 1 },
					name,
				],
				[
					api,
					'POST',
					'/api/v3/webhooks/',
					{ url: 'https://h.example/x', events: ['appointment.created'], [name]: 1 },
					name,
				],
				[adm, 'POST', '/__sandbox/appointments/', { [name]: { status: 'CANCELED' } }, name],
				[adm, 'POST', '/__sandbox/appointments/', { person: { [name]: 'x' } }, `person.${name}`],
				[adm, 'POST', '/__sandbox/config/', { [name]: 1 }, name],
				[adm, 'POST', '/__sandbox/config/', { latencyMs: 5, [name]: { latencyMs: 5 } }, name],
				[adm, 'POST', '/__sandbox/reset/', { [name]: {} }, name],
			];
			for (const [call, method, path, body, field] of cases) {
				const r = await call(method, path, JSON.stringify(body));
				expect([path, r.status, Object.keys(r.body)]).toEqual([path, 400, [field]]);
				expect(r.body[field][0]).toMatch(/Unknown field|expected|not/);
			}
			expect((await internal(a.appointment_key)).status).toBe('CONFIRMED');
			expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks).toEqual([]);
			expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
			expect((await adm.ok('GET', '/__sandbox/config/')).latencyMs).toBe(0);
		},
	);
});

describe('reschedule refuses instants its events could not carry', () => {
	it.each([
		['9999-12-31T23:59:59-23:59', 'offset beyond 18:00'],
		['2030-01-01T10:00:00+18:30', 'offset beyond 18:00'],
		['9999-12-31T23:59:59-18:00', 'year 10000 in UTC'],
		['9999-12-31T23:00:00Z', 'year 9999 in UTC and in the account zone (behind UTC): accepted'],
		['0000-06-01T10:00:00Z', 'year 0'],
		['0001-01-01T00:00:00+01:00', 'year 0 in UTC'],
	])('%s (%s)', async (start, why) => {
		const a = await confirmed();
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, {
			start_date: start,
		});
		if (why.endsWith('accepted')) {
			expect(r.status).toBe(200);
			expect(r.body.start_date).toBe('9999-12-31T20:00:00-03:00');
			return;
		}
		expect(r.status).toBe(400);
		expect(Object.keys(r.body)).toEqual(['start_date']);
		expect(r.body.start_date[0]).toMatch(/years 0001-9999, offsets up to ±18:00/);
		expect((await internal(a.appointment_key)).start_date).toBe('2030-03-04T10:00:00-03:00');
	});

	it('±18:00 itself is accepted', async () => {
		const a = await confirmed();
		const r = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/reschedule/`, {
			start_date: '2030-01-01T18:00:00+18:00',
		});
		expect([r.status, r.body.start_date]).toEqual([200, '2029-12-31T21:00:00-03:00']);
	});
});

describe('the request log records what the router decided', () => {
	it('a percent-encoded /webhooks/ path with a restricted token: 403, logged as refused', async () => {
		await adm.ok('DELETE', '/__sandbox/requests/');
		const r = await limited('GET', '/api/v3/%77ebhooks/');
		expect(r.status).toBe(403);
		const { requests } = await adm.ok('GET', '/__sandbox/requests/');
		expect(requests).toEqual([
			expect.objectContaining({
				method: 'GET',
				path: '/api/v3/webhooks/',
				status: 403,
				authorized: false,
			}),
		]);
		// while the restricted token on appointments is authorized
		await limited.ok('GET', '/api/v3/appointments/?page_size=1');
		expect((await adm.ok('GET', '/__sandbox/requests/')).requests[1]).toMatchObject({
			status: 200,
			authorized: true,
		});
	});

	it('query parameters named constructor, __proto__, toString and hasOwnProperty are logged as given', async () => {
		await adm.ok('DELETE', '/__sandbox/requests/');
		await api.ok(
			'GET',
			'/api/v3/appointments/?constructor=a&__proto__=b&__proto__=c&toString=d&hasOwnProperty=e&page_size=1',
		);
		const { requests } = await adm.ok('GET', '/__sandbox/requests/');
		// (JSON.parse makes "__proto__" an own key of the parsed answer; an object literal would not)
		expect(Object.entries(requests[0].query)).toEqual([
			['constructor', 'a'],
			['__proto__', ['b', 'c']],
			['toString', 'd'],
			['hasOwnProperty', 'e'],
			['page_size', '1'],
		]);
	});

	it('a refused request is logged without its query (only its length), an accepted one with it', async () => {
		await adm.ok('DELETE', '/__sandbox/requests/');
		const q = `name=${'x'.repeat(5000)}`;
		expect(
			(await client(() => sb.url, undefined)('GET', `/api/v3/appointments/?${q}`)).status,
		).toBe(401);
		expect((await client(() => sb.url, 'wrong')('GET', `/api/v3/appointments/?${q}`)).status).toBe(
			401,
		);
		expect((await api('GET', `/api/v3/appointments/?${q}`)).status).toBe(200);
		const { requests } = await adm.ok('GET', '/__sandbox/requests/');
		expect(
			requests.map((r: any) => [r.status, r.authorized, r.query_omitted, Object.keys(r.query)]),
		).toEqual([
			[401, false, q.length, []],
			[401, false, q.length, []],
			[200, true, undefined, ['name']],
		]);
	});
});

it('the request log is capped in bytes (maxLoggedBytes): the newest entries are kept', async () => {
	const small = await start({ maxLoggedBytes: 200_000 });
	try {
		const call = client(() => small.url, TOKEN);
		for (let i = 0; i < 60; i++)
			expect(
				(await call('GET', `/api/v3/appointments/?page_size=1&name=${i}-${'y'.repeat(10_000)}`))
					.status,
			).toBe(200);
		const { requests } = await client(() => small.url, ADMIN).ok('GET', '/__sandbox/requests/');
		expect(requests.length).toBeGreaterThan(3);
		expect(requests.length).toBeLessThan(10); // 60 entries of ~20 kB each do not fit in 200 kB
		expect(requests[requests.length - 1].query.name.startsWith('59-')).toBe(true);
	} finally {
		await small.close();
	}
});
