/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers, reads the environment and handles arbitrary JSON from the sandbox and run data */
/**
 * The sandbox refuses every API endpoint and method without a valid token, and every admin endpoint without the
 * admin token, and such a refused request changes nothing; the package ships no runtime dependency (so there is
 * nothing for `npm audit --omit=dev` to find).
 */
import { ADMIN, LIMITED, TestSandbox, TOKEN } from './common';
import { startSecuritySandbox } from './security';

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startSecuritySandbox();
});

afterAll(async () => {
	await sb?.close();
});

describe('the sandbox API refuses requests without a valid token', () => {
	const KEY = '{key}';
	const WH = '{wh}';
	// every documented endpoint and method, with a body that would be valid
	// (every row has three cells: jest passes a missing one as the test's `done` callback)
	const ENDPOINTS: Array<[string, string, unknown]> = [
		['GET', 'appointments/', undefined],
		['GET', `appointments/${KEY}/`, undefined],
		['PATCH', `appointments/${KEY}/`, { status: 'ATTENDED' }],
		['PATCH', `appointments/${KEY}/reschedule/`, { start_date: '2031-01-02T10:00:00-03:00' }],
		['DELETE', `appointments/${KEY}/?send_email=true`, undefined],
		['GET', 'webhooks/', undefined],
		['POST', 'webhooks/', { url: 'https://hooks.test/intruder', events: ['appointment.created'] }],
		[
			'PUT',
			`webhooks/${WH}/`,
			{ url: 'https://hooks.test/intruder', events: ['appointment.created'] },
		],
		['DELETE', `webhooks/${WH}/`, undefined],
	];
	// methods the API does not offer on a path must be refused too (401, or 405 at most), never served
	const OTHER_METHODS: Array<[string, string]> = [
		['POST', 'appointments/'],
		['PUT', `appointments/${KEY}/`],
		['POST', `appointments/${KEY}/reschedule/`],
		['PATCH', 'webhooks/'],
		['DELETE', 'webhooks/'],
		['GET', `webhooks/${WH}/`],
		['PATCH', `webhooks/${WH}/`],
	];
	const CREDENTIALS: Array<[string, Record<string, string>, string?]> = [
		['no Authorization header', {}],
		['a wrong token', { authorization: 'Bearer wrong-token-123' }],
		['the token with a suffix', { authorization: `Bearer ${TOKEN}x` }],
		['a prefix of the token', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
		['an empty bearer', { authorization: 'Bearer ' }],
		['the scheme alone', { authorization: 'Bearer' }],
		['the token without a scheme', { authorization: TOKEN }],
		[
			'the token as Basic credentials',
			{ authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}` },
		],
		['the admin token', { authorization: `Bearer ${ADMIN}` }],
		['the token in the query string', {}, `access_token=${TOKEN}&token=${TOKEN}`],
	];
	let key: string;
	let wh: string;
	let before: unknown;

	beforeAll(async () => {
		await sb.reset(40, 5);
		key = (await sb.allAppointments()).find(
			(a) => a.status === 'CONFIRMED' || a.status === 'PENDING',
		)!.appointment_key;
		wh = (
			await sb.api('POST', 'webhooks/', {
				url: 'https://hooks.test/mine',
				events: ['appointment.created'],
			})
		).body.webhook_key;
		before = { a: await sb.appointment(key), w: await sb.webhooks(), e: await sb.emails() };
	});

	const fill = (path: string) => path.replace(KEY, key).replace(WH, wh);

	async function call(
		method: string,
		path: string,
		headers: Record<string, string>,
		query?: string,
		body?: unknown,
	) {
		const url = `${sb.url}/api/v3/${fill(path)}${query ? (path.includes('?') ? '&' : '?') + query : ''}`;
		const res = await fetch(url, {
			method,
			headers: {
				...headers,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return {
			status: res.status,
			text: await res.text(),
			wwwAuth: res.headers.get('www-authenticate'),
		};
	}

	describe.each(CREDENTIALS)('with %s', (_label, headers, query) => {
		it.each(ENDPOINTS)('%s %s: 401 with a JSON error and no data', async (method, path, body) => {
			const res = await call(method, path, headers, query, body);
			expect({ status: res.status }).toEqual({ status: 401 });
			expect(res.wwwAuth ?? '').toMatch(/^Bearer/i);
			const parsed = JSON.parse(res.text);
			expect(Object.keys(parsed)).toEqual(['detail']);
			expect(res.text).not.toContain(key);
			expect(res.text).not.toContain(wh);
		});
		it.each(OTHER_METHODS)('%s %s: refused, never served', async (method, path) => {
			const res = await call(method, path, headers, query, method === 'GET' ? undefined : {});
			expect([401, 405]).toContain(res.status);
		});
	});

	it('the restricted token reads appointments but gets 403 on every webhook endpoint', async () => {
		expect(
			(await call('GET', 'appointments/', { authorization: `Bearer ${LIMITED}` })).status,
		).toBe(200);
		for (const [method, path, body] of ENDPOINTS.filter(([, p]) => p.startsWith('webhooks/'))) {
			const res = await call(method, path, { authorization: `Bearer ${LIMITED}` }, undefined, body);
			expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
		}
	});

	it('none of the refused requests changed anything', async () => {
		expect({ a: await sb.appointment(key), w: await sb.webhooks(), e: await sb.emails() }).toEqual(
			before,
		);
		// and every refused request was logged as not authorized
		const log = await sb.requests();
		expect(log.filter((q) => q.status === 401).length).toBeGreaterThanOrEqual(
			CREDENTIALS.length * ENDPOINTS.length,
		);
		expect(log.filter((q) => q.status === 401).every((q) => q.authorized !== true)).toBe(true);
	});
});

describe('the sandbox admin API refuses requests without the admin token', () => {
	const ADMIN_ENDPOINTS: Array<[string, string, unknown?]> = [
		['POST', '/__sandbox/appointments/', { status: 'CONFIRMED' }],
		['GET', '/__sandbox/appointments/{key}/'],
		['POST', '/__sandbox/reset/', {}],
		['GET', '/__sandbox/deliveries/'],
		['GET', '/__sandbox/requests/'],
		['DELETE', '/__sandbox/requests/'],
		['GET', '/__sandbox/emails/'],
		['GET', '/__sandbox/webhooks/'],
		['POST', '/__sandbox/faults/', { count: 5, status: 500 }],
		['DELETE', '/__sandbox/faults/'],
		['GET', '/__sandbox/config/'],
		['POST', '/__sandbox/config/', { pagination: 'none' }],
	];
	const NOT_ADMIN: Array<[string, Record<string, string>]> = [
		['no Authorization header', {}],
		['the API token', { authorization: `Bearer ${TOKEN}` }],
		['a wrong token', { authorization: 'Bearer nope' }],
		['the admin token with a suffix', { authorization: `Bearer ${ADMIN}x` }],
		['the admin token without a scheme', { authorization: ADMIN }],
	];
	let key: string;
	beforeAll(async () => {
		await sb.reset(40, 5);
		key = (await sb.allAppointments())[0].appointment_key;
		await sb.api('POST', 'webhooks/', {
			url: 'https://hooks.test/admin',
			events: ['appointment.created'],
		});
	});

	it.each(NOT_ADMIN)(
		'with %s every admin endpoint answers 401/403 and nothing changes',
		async (_label, headers) => {
			const count = (await sb.allAppointments()).length;
			const hooks = await sb.webhooks();
			for (const [method, path, body] of ADMIN_ENDPOINTS) {
				const res = await fetch(`${sb.url}${path.replace('{key}', key)}`, {
					method,
					headers: {
						...headers,
						...(body === undefined ? {} : { 'content-type': 'application/json' }),
					},
					body: body === undefined ? undefined : JSON.stringify(body),
				});
				const text = await res.text();
				expect({ method, path, status: [401, 403].includes(res.status) }).toEqual({
					method,
					path,
					status: true,
				});
				expect(text).not.toContain(key);
			}
			// no appointment created, no reset (our webhook is still there), no fault installed, config unchanged
			expect((await sb.allAppointments()).length).toBe(count);
			expect(await sb.webhooks()).toEqual(hooks);
			expect((await sb.api('GET', 'webhooks/')).status).toBe(200);
			const cfg = await sb.admin('GET', '/__sandbox/config/');
			expect(cfg.pagination).not.toBe('none');
		},
	);
});

describe('published package', () => {
	// What npm audit --omit=dev would look at: with no runtime dependency there is nothing to audit.
	it('has no runtime dependencies', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json as data
		const pkg = require('../../package.json') as { dependencies?: Record<string, string> };
		expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
	});
});
