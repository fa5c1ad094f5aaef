/**
 * Webhook delivery to real https receivers, what is sent: envelopes, which operation emits what to which webhook,
 * and the at-least-once options (duplicate, dropped answers, shuffle). Failures and retries:
 * deliveries.failures.test.ts; never blocking the API, reset and shutdown: deliveries.lifecycle.test.ts.
 */
import { DateTime } from 'luxon';

import {
	adm,
	api,
	create,
	deliveries,
	recv,
	settled,
	subscribe,
	useDeliverySandbox,
} from './deliveries';

useDeliverySandbox();

describe('events and envelopes', () => {
	it('each operation emits its event, to the webhooks subscribed to it; the envelope carries the record', async () => {
		const all = await recv();
		const onlyCancel = await recv();
		await subscribe(all.url('/all'));
		await subscribe(onlyCancel.url('/cancel'), ['appointment.canceled']);
		const t0 = Date.now();
		const created = await create({ status: 'PENDING' });
		const key = created.appointment_key;
		const base = `/api/v3/appointments/${key}/`;
		const afterPatch = await api.ok('PATCH', base, { status: 'CONFIRMED' });
		await api.ok('PATCH', base, { status: 'CONFIRMED' }); // same status: no event
		expect((await api('PATCH', base, { status: 'NOPE' })).status).toBe(400); // refused: no event
		const afterMove = await api.ok('PATCH', `${base}reschedule/`, {
			start_date: '2031-05-05T10:00:00Z',
		});
		const afterCancel = await api.ok('DELETE', `${base}?send_email=false`);
		await api.ok('DELETE', `${base}?send_email=false`); // already cancelled: no event
		const t1 = Date.now();
		const d = await settled((x) => x.deliveries.length === 5);
		expect(d.deliveries.every((x: any) => x.ok && x.attempt === 1)).toBe(true);

		const bodies = all.got
			.map((g) => g.body)
			.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
		expect(bodies.map((b) => b.event)).toEqual([
			'appointment.created',
			'appointment.updated',
			'appointment.updated',
			'appointment.canceled',
		]);
		const {
			client_key,
			person_key,
			phone,
			identification_code,
			external_id,
			service_keys,
			tag_keys,
			owner_user,
			created_at,
			is_cancelled,
			...publicCreated
		} = created;
		expect(bodies.map((b) => b.data)).toEqual([publicCreated, afterPatch, afterMove, afterCancel]);
		for (const b of bodies) {
			expect(Object.keys(b)).toEqual(['event', 'timestamp', 'data']);
			expect(b.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[-+]\d{2}:\d{2}$/);
			const ts = DateTime.fromISO(b.timestamp).toMillis();
			expect(ts).toBeGreaterThanOrEqual(t0 - 5);
			expect(ts).toBeLessThanOrEqual(t1 + 5);
		}
		expect(
			all.got.every((g) => g.path === '/all' && g.headers['content-type'] === 'application/json'),
		).toBe(true);
		expect(onlyCancel.got.map((g) => g.body.event)).toEqual(['appointment.canceled']);
		expect(onlyCancel.got[0].raw).toBe(
			all.got.find((g) => g.body.event === 'appointment.canceled')!.raw,
		);
		expect(d.deliveries.map((x: any) => x.appointment_key)).toEqual(Array(5).fill(key));
	});

	it('no webhooks, no deliveries; a deleted webhook gets nothing more', async () => {
		const r = await recv();
		const w = await subscribe(r.url());
		await api.ok('DELETE', `/api/v3/webhooks/${w.webhook_key}/`);
		await create();
		const d = await deliveries();
		expect(d.pending).toBe(0);
		expect(d.deliveries).toEqual([]);
		expect(r.got).toHaveLength(0);
	});
});

describe('at-least-once options', () => {
	it('duplicateDelivery sends every event twice with the same body', async () => {
		await adm.ok('POST', '/__sandbox/config/', { duplicateDelivery: true });
		const r = await recv();
		await subscribe(r.url());
		const a = await create();
		await api.ok('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'ATTENDED' });
		const d = await settled((x) => x.deliveries.length === 4);
		expect(d.deliveries.filter((x: any) => x.ok)).toHaveLength(4);
		expect(r.got).toHaveLength(4);
		for (const event of ['appointment.created', 'appointment.updated']) {
			const copies = r.got.filter((g) => g.body.event === event);
			expect(copies).toHaveLength(2);
			expect(copies[0].raw).toBe(copies[1].raw);
			expect(
				d.deliveries
					.filter((x: any) => x.event === event)
					.map((x: any) => x.copy)
					.sort(),
			).toEqual([1, 2]);
		}
	});

	it('deliveryFailRate 1: each delivery is received, its answer dropped, and sent again once; at 0 none is', async () => {
		await adm.ok('POST', '/__sandbox/config/', { deliveryFailRate: 1 });
		const r = await recv();
		await subscribe(r.url(), ['appointment.created']);
		const a = await create();
		const d = await settled((x) => x.deliveries.length === 2);
		expect(d.deliveries.map((x: any) => [x.attempt, x.status, x.ok, x.error])).toEqual([
			[1, 200, false, 'HTTP 200, answer dropped (deliveryFailRate fault)'],
			[2, 200, true, null],
		]);
		expect(r.got.map((g) => g.body.data.appointment_key)).toEqual([
			a.appointment_key,
			a.appointment_key,
		]);
		expect(r.got[0].raw).toBe(r.got[1].raw);
		await adm.ok('POST', '/__sandbox/config/', { deliveryFailRate: 0 });
		await create();
		expect((await settled((x) => x.deliveries.length === 3)).deliveries[2]).toMatchObject({
			attempt: 1,
			ok: true,
		});
		expect((await adm('POST', '/__sandbox/config/', { deliveryFailRate: 1.5 })).status).toBe(400);
	});

	async function order(shuffle: boolean): Promise<{ sent: string[]; got: string[] }> {
		await adm.ok('POST', '/__sandbox/reset/');
		await adm.ok('POST', '/__sandbox/config/', {
			shuffleDelivery: shuffle,
			shuffleWindowMs: 1500,
			deliveryConcurrency: 1,
		});
		const r = await recv();
		await subscribe(r.url(), ['appointment.created']);
		const sent: string[] = [];
		for (let i = 0; i < 25; i++) sent.push((await create()).appointment_key);
		await settled((x) => x.deliveries.length === 25);
		return { sent, got: r.got.map((g) => g.body.data.appointment_key) };
	}

	it('without shuffle (one at a time) events arrive in order; with shuffleDelivery in another order, each once', async () => {
		const inOrder = await order(false);
		expect(inOrder.got).toEqual(inOrder.sent);
		const shuffled = await order(true);
		expect([...shuffled.got].sort()).toEqual([...shuffled.sent].sort());
		expect(shuffled.got).not.toEqual(shuffled.sent); // 1 in 25! to fail by chance
	});
});
