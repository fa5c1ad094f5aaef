/**
 * The transport inside n8n-core's WorkflowExecute against the sandbox over real HTTP on loopback, when things go
 * wrong: the credential test (wrong token, missing permission, unreachable host), errors, retries (429 in both
 * Retry-After forms, 503, resets, time-outs); the token never leaking. A spent budget and a Retry-After beyond it:
 * test/reliability/faults.spent.test.ts.
 */
import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';
import { startFakeService } from '../helpers/fakeService';
import { testCredential } from '../helpers/n8n';
import type { Sandbox } from '../helpers/sandbox';
import { admin, fault, LIMITED, records, requests, run, TOKEN, useTransportSandbox } from './sandboxTransport';

let sb: Sandbox;

useTransportSandbox((started) => (sb = started));

describe('credential test', () => {
	it('passes with the right token for every base URL form, with no double slash', async () => {
		for (const baseUrl of [sb.url, `${sb.url}/`, `${sb.url}/api/v3`, `${sb.url}/api/v3/`]) {
			const result = await testCredential({ baseUrl, accessToken: TOKEN });
			expect(result).toMatchObject({ status: 'OK' });
			expect(result.url).toBe(`${sb.url}/api/v3/webhooks/`);
		}
		expect((await requests()).map((r) => r.path)).toEqual(Array(4).fill('/api/v3/webhooks/'));
	});
	it('tells an invalid token (401) from a token without webhook permission (403)', async () => {
		expect(await testCredential({ baseUrl: sb.url, accessToken: 'wrong-token-xyz' })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/access token is invalid/),
		});
		expect(await testCredential({ baseUrl: sb.url, accessToken: LIMITED })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/lacks permission for webhooks/),
		});
	});
	it('a service that cannot be reached: n8n shows only its network code, and the Base URL field says what it means and what to check', async () => {
		const closed = await startFakeService();
		await closed.close(); // nothing answers at its address any more
		const baseUrl = new AppointmentsApi().properties.find((p) => p.name === 'baseUrl')!;
		for (const [url, code, meaning] of [
			[closed.url, 'ECONNREFUSED', 'nothing answers at this host and port'],
			['http://no-such-host.invalid', 'ENOTFOUND', 'the host name does not exist'],
		]) {
			const result = await testCredential({ baseUrl: url, accessToken: TOKEN });
			expect(result).toMatchObject({ status: 'Error', message: expect.stringContaining(code) });
			expect(baseUrl.hint).toContain(`${code}, ${meaning}`);
		}
		expect(baseUrl.hint).toMatch(/Check the address, and that n8n can reach it\.$/);
	});
});

describe('errors', () => {
	it('401, 403 and 404 get human messages; 400 joins the field messages', async () => {
		let r = await run({ call: 'listWebhooks' }, { token: 'not-a-token' });
		expect(r.error?.message).toBe('Authorization failed - check the access token');
		r = await run({ call: 'listWebhooks' }, { token: LIMITED });
		expect(r.error?.message).toBe('The access token lacks permission for webhooks');
		r = await run({ call: 'getAppointment', key: 'no-such-key' });
		expect(r.error?.message).toBe('Appointment no-such-key not found');
		r = await run({ call: 'apiRequest', method: 'POST', path: 'webhooks/', body: JSON.stringify({ url: 'https://x.test/h' }) });
		expect(r.error?.message).toMatch(/^The service rejected the request: events: /);
		expect(String((r.error as any).description)).toContain('events');
	});
});

describe('retries', () => {
	it('429 with Retry-After in seconds', async () => {
		await fault({ status: 429, retryAfter: '1', match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const started = Date.now();
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	});
	it('429 with Retry-After as an HTTP-date', async () => {
		const at = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000).toUTCString();
		await fault({ status: 429, retryAfter: at, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const started = Date.now();
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at) - 50);
		expect(Date.now() - started).toBeLessThan(5000);
	});
	it('503 without Retry-After, even for a POST', async () => {
		await fault({ count: 2, status: 503, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ call: 'createWebhook', body: JSON.stringify({ url: 'https://hooks.test/a', events: ['appointment.created'] }) });
		expect(r.error).toBeUndefined();
		const all = await admin<any>('GET', '/__sandbox/webhooks/');
		const list = Array.isArray(all) ? all : all.webhooks ?? all.results;
		expect(list.filter((w: any) => w.url === 'https://hooks.test/a')).toHaveLength(1);
	});
	it('a connection reset is retried', async () => {
		await fault({ reset: true, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		const r = await run({ call: 'apiRequest', path: 'webhooks/' });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
	});
	it('a response slower than the time-out is retried, and the final error says it timed out', async () => {
		await fault({ delayMs: 1500, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		let r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { timeoutMs: 400, baseDelayMs: 20 } });
		expect(r.error).toBeUndefined();
		expect(records(r)[0]).toMatchObject({ statusCode: 200, attempts: 2 });
		await fault({ count: 3, delayMs: 1500, match: { method: 'GET', path: '/api/v3/webhooks/' } });
		r = await run({ call: 'apiRequest', path: 'webhooks/', policy: { timeoutMs: 300, baseDelayMs: 20, maxAttempts: 2 } });
		expect(r.error?.message).toMatch(/^Could not reach the service: the request timed out after 2 attempts/);
	});
});
