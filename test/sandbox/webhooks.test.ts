/** Webhook subscriptions: create, list, full replacement, delete, and validation that stores nothing on error. */
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const stored = async () => (await adm.ok('GET', '/__sandbox/webhooks/')).webhooks as any[];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
	sb = await start({ seed: 10 });
});
afterAll(() => sb?.close());
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

it('create (201 record), list, update by full replacement (200), delete (204), then 404', async () => {
	const r = await api('POST', '/api/v3/webhooks/', {
		url: 'https://hooks.test/a?x=1',
		events: ['appointment.created', 'appointment.created', 'appointment.canceled'],
	});
	expect(r.status).toBe(201);
	expect(Object.keys(r.body).sort()).toEqual(['created_at', 'events', 'url', 'webhook_key']);
	expect(r.body).toMatchObject({
		url: 'https://hooks.test/a?x=1',
		events: ['appointment.created', 'appointment.canceled'],
	});
	expect(r.body.webhook_key).toMatch(UUID);
	expect(r.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[-+]\d{2}:\d{2}$/);
	const key = r.body.webhook_key;
	expect((await api.ok('GET', '/api/v3/webhooks/')).results).toEqual([r.body]);
	expect(await stored()).toEqual([r.body]);

	const put = await api('PUT', `/api/v3/webhooks/${key}/`, {
		url: 'https://hooks.test/b',
		events: ['appointment.updated'],
	});
	expect(put.status).toBe(200);
	expect(put.body).toEqual({
		...r.body,
		url: 'https://hooks.test/b',
		events: ['appointment.updated'],
	});
	expect(await stored()).toEqual([put.body]);

	const del = await api('DELETE', `/api/v3/webhooks/${key}/`);
	expect(del.status).toBe(204);
	expect(del.text).toBe('');
	expect(await stored()).toEqual([]);
	expect((await api('DELETE', `/api/v3/webhooks/${key}/`)).status).toBe(404);
	expect(
		(
			await api('PUT', `/api/v3/webhooks/${key}/`, {
				url: 'https://hooks.test/b',
				events: ['appointment.updated'],
			})
		).body,
	).toEqual({ detail: 'Not found.' });
	expect((await api('DELETE', '/api/v3/webhooks/not-a-key/')).status).toBe(404);
});

it('the same URL may be subscribed twice (the service does not deduplicate)', async () => {
	const body = { url: 'https://hooks.test/same', events: ['appointment.created'] };
	const a = await api.ok('POST', '/api/v3/webhooks/', body);
	const b = await api.ok('POST', '/api/v3/webhooks/', body);
	expect(a.webhook_key).not.toBe(b.webhook_key);
	expect(await stored()).toHaveLength(2);
});

it('refuses a URL that is not https, events that are not a non-empty list of known names, unknown keys; stores nothing', async () => {
	const good = { url: 'https://hooks.test/ok', events: ['appointment.updated'] };
	const cases: Array<[unknown, string[]]> = [
		[{ ...good, url: 'http://hooks.test/x' }, ['url']],
		[{ ...good, url: 'ftp://hooks.test/x' }, ['url']],
		[{ ...good, url: 'not a url' }, ['url']],
		[{ ...good, url: 'https://user:pw@hooks.test/x' }, ['url']],
		[{ ...good, url: '' }, ['url']],
		[{ ...good, url: 42 }, ['url']],
		[{ events: good.events }, ['url']],
		[{ url: good.url }, ['events']],
		[{ ...good, events: [] }, ['events']],
		[{ ...good, events: 'appointment.updated' }, ['events']],
		[{ ...good, events: ['appointment.deleted'] }, ['events']],
		[{ ...good, events: ['appointment.updated', 7] }, ['events']],
		[{ ...good, secret: 's' }, ['secret']],
		[{ url: 'http://x.test', events: [] }, ['url', 'events']],
	];
	for (const [body, fields] of cases) {
		const r = await api('POST', '/api/v3/webhooks/', body);
		expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
		expect(Object.keys(r.body).sort()).toEqual([...fields].sort());
		expect(r.body[fields[0]]).toEqual([expect.any(String)].concat(r.body[fields[0]].slice(1)));
	}
	expect((await api('POST', '/api/v3/webhooks/', '{"url":', {})).status).toBe(400);
	expect(
		(
			await api('POST', '/api/v3/webhooks/', 'url=https://x', {
				'content-type': 'application/x-www-form-urlencoded',
			})
		).status,
	).toBe(415);
	expect(await stored()).toEqual([]);
	const https = await api('POST', '/api/v3/webhooks/', {
		url: 'http://x.test',
		events: ['appointment.created'],
	});
	expect(https.body.url[0]).toMatch(/HTTPS/);

	const w = await api.ok('POST', '/api/v3/webhooks/', good);
	for (const [body, fields] of [
		[{ url: 'https://hooks.test/only-url' }, ['events']],
		[{ events: ['appointment.created'] }, ['url']],
		[{ url: 'http://hooks.test/x', events: ['appointment.created'] }, ['url']],
	] as const) {
		const r = await api('PUT', `/api/v3/webhooks/${w.webhook_key}/`, body);
		expect(r.status).toBe(400);
		expect(Object.keys(r.body)).toEqual(fields);
	}
	expect(await stored()).toEqual([w]);
});

it('http callbacks are accepted only with the sandbox-only allowInsecureCallbacks switch', async () => {
	await adm.ok('POST', '/__sandbox/config/', { allowInsecureCallbacks: true });
	expect(
		(
			await api('POST', '/api/v3/webhooks/', {
				url: 'http://127.0.0.1:9/h',
				events: ['appointment.created'],
			})
		).status,
	).toBe(201);
	await adm.ok('POST', '/__sandbox/config/', { allowInsecureCallbacks: false });
	expect(
		(
			await api('POST', '/api/v3/webhooks/', {
				url: 'http://127.0.0.1:9/h',
				events: ['appointment.created'],
			})
		).status,
	).toBe(400);
});
