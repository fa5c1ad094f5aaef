/**
 * Webhook delivery to real https receivers that fail: retries until success with the identical body, give-up after
 * the schedule, failure classes (3xx/4xx/5xx, time-out, refused, untrusted TLS).
 */
import { startFakeService } from '../helpers/fakeService';
import { selfSigned } from './helpers';
import { adm, create, deferred, recv, settled, subscribe, useDeliverySandbox } from './deliveries';

useDeliverySandbox();

describe('retries', () => {
	it('retries until a 2xx, with the identical body on every attempt, each attempt logged', async () => {
		const r = await recv((_g, n) => [500, 503, 202][n - 1] ?? 200);
		const w = await subscribe(r.url());
		const a = await create();
		const d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries.map((x: any) => [x.attempt, x.status, x.ok, x.gave_up])).toEqual([
			[1, 500, false, false],
			[2, 503, false, false],
			[3, 202, true, false],
		]);
		expect(d.deliveries[0]).toMatchObject({
			webhook_key: w.webhook_key,
			url: r.url(),
			event: 'appointment.created',
			appointment_key: a.appointment_key,
			error: 'HTTP 500',
		});
		expect(new Set(d.deliveries.map((x: any) => x.event_id)).size).toBe(1);
		expect(r.got).toHaveLength(3);
		expect(new Set(r.got.map((g) => g.raw)).size).toBe(1);
	});

	it('gives up after the schedule ([50, 100] ms: three attempts) and records it', async () => {
		const r = await recv(() => 500);
		await subscribe(r.url());
		await create();
		const d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries.map((x: any) => [x.attempt, x.ok, x.gave_up])).toEqual([
			[1, false, false],
			[2, false, false],
			[3, false, true],
		]);
		expect(d).toMatchObject({ pending: 0, gave_up: 1, succeeded: 0, attempts: 3 });
		expect(r.got).toHaveLength(3);
		// the gaps follow the schedule (lower bounds only)
		const at = d.deliveries.map((x: any) => Date.parse(x.at) + x.duration_ms);
		expect(Date.parse(d.deliveries[1].at) - at[0]).toBeGreaterThanOrEqual(45);
		expect(Date.parse(d.deliveries[2].at) - at[1]).toBeGreaterThanOrEqual(95);
	});

	it('3xx and 4xx are failures too', async () => {
		const r = await recv((_g, n) => [302, 404, 410][n - 1] ?? 204);
		await subscribe(r.url());
		await create();
		const d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries.map((x: any) => x.status)).toEqual([302, 404, 410]);
		expect(d.deliveries[2].gave_up).toBe(true);
	});

	it('a slow receiver times out (deliveryTimeoutMs) and is retried', async () => {
		await adm.ok('POST', '/__sandbox/config/', { deliveryTimeoutMs: 1000 });
		const release = deferred();
		const r = await recv(async (_g, n) => {
			if (n === 1) await release.promise;
			return 200;
		});
		await subscribe(r.url());
		await create();
		const d = await settled((x) => x.deliveries.length === 2);
		release.resolve();
		expect(d.deliveries[0]).toMatchObject({
			attempt: 1,
			ok: false,
			status: null,
			error: 'timed out after 1000 ms',
		});
		expect(d.deliveries[1]).toMatchObject({ attempt: 2, ok: true, status: 200 });
	});

	it('a refused connection is recorded and retried', async () => {
		const closed = await startFakeService();
		await closed.close(); // nothing answers at its port any more
		await subscribe(`https://127.0.0.1:${new URL(closed.url).port}/gone`);
		await create();
		const d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries.every((x: any) => x.status === null && /ECONNREFUSED/.test(x.error))).toBe(
			true,
		);
		expect(d.deliveries[2].gave_up).toBe(true);
	});
});

describe('TLS', () => {
	it('a self-signed callback fails without the CA and succeeds with it', async () => {
		const r = await recv();
		await subscribe(r.url());
		await adm.ok('POST', '/__sandbox/config/', { ca: [] });
		await create();
		let d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries[0].error).toMatch(/CERT|certificate/i);
		expect(r.got).toHaveLength(0);
		await adm.ok('POST', '/__sandbox/config/', { ca: selfSigned().cert });
		expect((await adm.ok('GET', '/__sandbox/config/')).ca).toBe(1);
		await create();
		d = await settled((x) => x.deliveries.length === 4);
		expect(d.deliveries[3]).toMatchObject({ ok: true, status: 200 });
		expect(r.got).toHaveLength(1);
	});
});
