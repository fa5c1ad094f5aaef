/**
 * The transport inside n8n-core's WorkflowExecute against the sandbox over real HTTP on loopback, when things go
 * wrong: the credential test (wrong token, missing permission, unreachable host) and errors; the token never
 * leaking. Retries (429 in both Retry-After forms, 5xx, resets, time-outs) for every operation:
 * test/reliability/faults.retried.test.ts; a spent budget: test/reliability/faults.spent.test.ts. */
import https from 'node:https';
import type { AddressInfo } from 'node:net';

import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';
import { startFakeService } from '../helpers/fakeService';
import { testCredential } from '../helpers/n8n';
import type { Sandbox } from '../helpers/sandbox';
import { testCert } from '../helpers/testCert';
import { LIMITED, requests, run, TOKEN, useTransportSandbox } from './sandboxTransport';

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
		expect(await testCredential({ baseUrl: sb.url, accessToken: 'wrong-token-xyz' })).toMatchObject(
			{
				status: 'Error',
				message: expect.stringMatching(/access token is invalid/),
			},
		);
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
	it('an https address with a certificate n8n does not trust: the code n8n shows is explained under Base URL', async () => {
		const server = https.createServer(testCert('credential-self-signed', { days: 30 }), (_, res) =>
			res.end('{}'),
		);
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		try {
			const { port } = server.address() as AddressInfo;
			const result = await testCredential({
				baseUrl: `https://127.0.0.1:${port}`,
				accessToken: TOKEN,
			});
			expect(result).toMatchObject({
				status: 'Error',
				message: expect.stringContaining('DEPTH_ZERO_SELF_SIGNED_CERT'),
			});
			const baseUrl = new AppointmentsApi().properties.find((p) => p.name === 'baseUrl')!;
			expect(baseUrl.hint).toContain(
				'DEPTH_ZERO_SELF_SIGNED_CERT or another certificate error, the address serves https with a certificate n8n does not trust',
			);
		} finally {
			server.close();
		}
	});
	it('an https:// Base URL at an address that answers in plain http: the code n8n shows is explained under Base URL', async () => {
		const result = await testCredential({
			baseUrl: sb.url.replace(/^http:/, 'https:'),
			accessToken: TOKEN,
		});
		expect(result).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('ERR_SSL_WRONG_VERSION_NUMBER'),
		});
		const baseUrl = new AppointmentsApi().properties.find((p) => p.name === 'baseUrl')!;
		expect(baseUrl.hint).toContain(
			'ERR_SSL_WRONG_VERSION_NUMBER, the address answers in plain http, not https (use the address Settings › API access shows)',
		);
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
		r = await run({
			call: 'apiRequest',
			method: 'POST',
			path: 'webhooks/',
			body: JSON.stringify({ url: 'https://x.test/h' }),
		});
		expect(r.error?.message).toMatch(/^The service rejected the request: events: /);
		expect(String((r.error as any).description)).toContain('events');
	});
});
