/** Fault injection over HTTP: statuses with Retry-After, counts, matching, delays, resets, phase after, latency. */
import { spawn } from 'node:child_process';
import path from 'node:path';

import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const fault = (spec: Record<string, unknown>) => adm.ok('POST', '/__sandbox/faults/', spec);
const requests = async () => (await adm.ok('GET', '/__sandbox/requests/')).requests as any[];
let key: string;

beforeAll(async () => {
	sb = await start({ seed: 40 });
});
afterAll(() => sb?.close());
beforeEach(async () => {
	await adm.ok('POST', '/__sandbox/reset/');
	key = (await api.ok('GET', '/api/v3/appointments/?page_size=1')).results[0].appointment_key;
	await adm.ok('DELETE', '/__sandbox/requests/');
});

it('429 with Retry-After (seconds or HTTP-date), for the next request only', async () => {
	const created = await fault({ status: 429, retryAfter: 3 });
	expect(created.fault).toMatchObject({
		id: expect.any(Number),
		remaining: 1,
		status: 429,
		retryAfter: '3',
		phase: 'before',
	});
	let r = await api('GET', '/api/v3/appointments/');
	expect(r.status).toBe(429);
	expect(r.headers.get('retry-after')).toBe('3');
	expect(r.text).toBe('');
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
	const date = new Date(Date.now() + 5000).toUTCString();
	await fault({ status: 429, retryAfter: date, body: { detail: 'Request was throttled.' } });
	r = await api('GET', '/api/v3/webhooks/');
	expect(r.status).toBe(429);
	expect(r.headers.get('retry-after')).toBe(date);
	expect(r.body).toEqual({ detail: 'Request was throttled.' });
	const log = await requests();
	expect(log.map((q) => [q.status, q.fault !== null])).toEqual([
		[429, true],
		[200, false],
		[429, true],
	]);
});

it('500 and 503 for `count` requests, then normal answers; a string body is sent as is', async () => {
	await fault({ status: 503, count: 2 });
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(503);
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(503);
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
	await fault({ status: 500, body: '<html>oops</html>' });
	const r = await api('GET', '/api/v3/appointments/');
	expect(r.status).toBe(500);
	expect(r.text).toBe('<html>oops</html>');
	expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
});

it('faults apply before authentication, only to API requests, never to the admin interface', async () => {
	await fault({ status: 502, count: 3 });
	expect((await client(() => sb.url, 'wrong')('GET', '/api/v3/appointments/')).status).toBe(502);
	expect((await adm('GET', '/__sandbox/config/')).status).toBe(200);
	expect((await adm.ok('GET', '/__sandbox/faults/')).faults[0].remaining).toBe(2);
	await adm.ok('DELETE', '/__sandbox/faults/');
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
});

it('match by method, exact path or prefix*, and query values; other requests pass', async () => {
	await fault({ status: 500, match: { method: 'patch', path: `/api/v3/appointments/${key}/` } });
	expect((await api('GET', `/api/v3/appointments/${key}/`)).status).toBe(200);
	expect(
		(
			await api('PATCH', `/api/v3/appointments/${key}/reschedule/`, {
				start_date: '2030-01-01T10:00:00Z',
			})
		).status,
	).toBe(200);
	expect((await api('PATCH', `/api/v3/appointments/${key}/`, { status: 'ATTENDED' })).status).toBe(
		500,
	);
	await fault({ status: 503, count: 2, match: { path: '/api/v3/webhooks/*' } });
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
	expect((await api('DELETE', '/api/v3/webhooks/abc/')).status).toBe(503);
	expect((await api('GET', '/api/v3/webhooks/')).status).toBe(503);
	await fault({ status: 500, match: { query: { page: 3, status: 'CONFIRMED' } } });
	expect((await api('GET', '/api/v3/appointments/?page=3')).status).toBe(404); // no fault, but only 1 page exists
	expect(
		(await api('GET', '/api/v3/appointments/?status=CONFIRMED&page_size=5&page=3')).status,
	).toBe(500);
});

it('phase before fails without applying the change; phase after applies it, then fails', async () => {
	await fault({ status: 500, match: { method: 'PATCH' } });
	expect((await api('PATCH', `/api/v3/appointments/${key}/`, { status: 'NO_SHOW' })).status).toBe(
		500,
	);
	expect((await adm.ok('GET', `/__sandbox/appointments/${key}/`)).status).not.toBe('NO_SHOW');
	await fault({ status: 500, phase: 'after', match: { method: 'PATCH' } });
	expect((await api('PATCH', `/api/v3/appointments/${key}/`, { status: 'NO_SHOW' })).status).toBe(
		500,
	);
	expect((await adm.ok('GET', `/__sandbox/appointments/${key}/`)).status).toBe('NO_SHOW');
	await fault({ reset: true, phase: 'after', match: { method: 'POST' } });
	await expect(
		api('POST', '/api/v3/webhooks/', { url: 'https://h.test/x', events: ['appointment.created'] }),
	).rejects.toThrow();
	expect((await adm.ok('GET', '/__sandbox/webhooks/')).webhooks.map((w: any) => w.url)).toEqual([
		'https://h.test/x',
	]);
});

it('delayMs holds the answer (before: then handles; after: the change is already made)', async () => {
	await fault({ delayMs: 150, match: { method: 'GET' } });
	let t = Date.now();
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
	expect(Date.now() - t).toBeGreaterThanOrEqual(140);
	await fault({ delayMs: 150, phase: 'after', match: { method: 'PATCH' } });
	t = Date.now();
	const pending = api('PATCH', `/api/v3/appointments/${key}/`, { status: 'PENDING_FORM' });
	const seen = await adm.ok('GET', `/__sandbox/appointments/${key}/`);
	expect(seen.status).toBe('PENDING_FORM');
	expect((await pending).status).toBe(200);
	expect(Date.now() - t).toBeGreaterThanOrEqual(140);
	await fault({ delayMs: 150, status: 504 });
	t = Date.now();
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(504);
	expect(Date.now() - t).toBeGreaterThanOrEqual(140);
});

it('a delay still running when the sandbox closes ends with it: the process that closed it exits', async () => {
	// In a process of its own, which must exit by itself once its sandbox closed; before, the 60 s delay kept it.
	const script = `
		const { startSandbox } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'sandbox'))});
		(async () => {
			const sb = await startSandbox({ port: 0, host: '127.0.0.1', tokens: ['t'], adminToken: 'a' });
			const admin = { authorization: 'Bearer a', 'content-type': 'application/json' };
			await fetch(sb.url + '/__sandbox/faults/', { method: 'POST', headers: admin, body: JSON.stringify({ delayMs: 60000 }) });
			const answer = fetch(sb.url + '/api/v3/appointments/', { headers: { authorization: 'Bearer t' } }).then((r) => r.status, () => 'none');
			// The fault is taken (and leaves the list) when the request reaches the sandbox.
			while ((await (await fetch(sb.url + '/__sandbox/faults/', { headers: admin })).json()).faults.length > 0);
			await sb.close();
			console.log('answer: ' + (await answer));
		})();`;
	const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
		cwd: path.join(__dirname, '..', '..'),
		stdio: 'pipe',
	});
	let out = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
	const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
	expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'answer: none' });
}, 30000);

it('reset drops the connection without an answer; it is logged with status 0', async () => {
	const f = await fault({ reset: true });
	await expect(api('GET', '/api/v3/appointments/')).rejects.toThrow(/fetch failed/);
	expect((await api('GET', '/api/v3/appointments/')).status).toBe(200);
	const log = await requests();
	expect(log[0]).toMatchObject({
		method: 'GET',
		path: '/api/v3/appointments/',
		status: 0,
		fault: f.fault.id,
	});
});

it('{latencyMs} delays every API response until DELETE /__sandbox/faults/', async () => {
	const r = await fault({ latencyMs: 100 });
	expect(r).toMatchObject({ fault: null, latencyMs: 100 });
	for (let i = 0; i < 2; i++) {
		const t = Date.now();
		await api('GET', `/api/v3/appointments/${key}/`);
		expect(Date.now() - t).toBeGreaterThanOrEqual(90);
	}
	expect((await adm('DELETE', '/__sandbox/faults/')).status).toBe(204);
	expect((await adm.ok('GET', '/__sandbox/faults/')).latencyMs).toBe(0);
});

it('the configured latencyMs (start-up option or config) delays every API response, not the admin interface', async () => {
	await adm.ok('POST', '/__sandbox/config/', { latencyMs: 100 });
	let t = Date.now();
	expect((await api('GET', `/api/v3/appointments/${key}/`)).status).toBe(200);
	expect(Date.now() - t).toBeGreaterThanOrEqual(90);
	await adm.ok('POST', '/__sandbox/reset/');
	const own = await start({ seed: 1, latencyMs: 100 });
	try {
		t = Date.now();
		expect((await client(() => own.url, TOKEN)('GET', '/api/v3/webhooks/')).status).toBe(200);
		expect(Date.now() - t).toBeGreaterThanOrEqual(90);
	} finally {
		await own.close();
	}
});

it('bad fault specs are 400 naming the field', async () => {
	for (const [spec, field] of [
		[{}, 'non_field_errors'],
		[{ count: 2 }, 'non_field_errors'],
		[{ status: 99 }, 'status'],
		[{ status: 500, count: 0 }, 'count'],
		[{ status: 500, phase: 'during' }, 'phase'],
		[{ status: 500, match: { host: 'x' } }, 'match.host'],
		[{ status: 500, nope: 1 }, 'nope'],
		[{ retryAfter: 5, delayMs: 10 }, 'retryAfter'],
		[{ delayMs: -1 }, 'delayMs'],
	] as const) {
		const r = await adm('POST', '/__sandbox/faults/', spec);
		expect([JSON.stringify(spec), r.status]).toEqual([JSON.stringify(spec), 400]);
		expect(Object.keys(r.body)).toContain(field);
	}
	expect((await adm.ok('GET', '/__sandbox/faults/')).faults).toEqual([]);
});
