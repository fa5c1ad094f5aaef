/**
 * Webhook delivery to real https receivers with a self-signed CA: envelopes, which operation emits what, retries
 * until success, give-up after the schedule, failure classes (3xx/4xx/5xx, time-out, refused, untrusted TLS),
 * duplicate and shuffle options, never blocking the API, `pending`, reset and shutdown.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';

import { ADMIN, TOKEN, client, pollUntil, receiver, selfSigned, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
type Receiver = Awaited<ReturnType<typeof receiver>>;
const receivers: Receiver[] = [];

function deferred() {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

async function recv(answer?: Parameters<typeof receiver>[0]) {
	const r = await receiver(answer);
	receivers.push(r);
	return r;
}
async function subscribe(url: string, events = ['appointment.created', 'appointment.updated', 'appointment.canceled']) {
	return api.ok('POST', '/api/v3/webhooks/', { url, events });
}
const deliveries = () => adm.ok('GET', '/__sandbox/deliveries/');
/** Waits until nothing is pending and `cond` holds for the log. */
const settled = (cond: (d: any) => boolean = () => true, timeoutMs = 10000) =>
	pollUntil('deliveries to settle', async () => {
		const d = await deliveries();
		return d.pending === 0 && cond(d) ? d : undefined;
	}, timeoutMs);
const create = (body: Record<string, unknown> = {}) => adm.ok('POST', '/__sandbox/appointments/', { status: 'CONFIRMED', ...body });

beforeAll(async () => {
	selfSigned();
	sb = await start({ seed: 30, ca: selfSigned().cert, retrySchedule: [50, 100] });
});
afterAll(async () => {
	await sb?.close();
	await Promise.all(receivers.map((r) => r.close()));
});
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

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
		const afterMove = await api.ok('PATCH', `${base}reschedule/`, { start_date: '2031-05-05T10:00:00Z' });
		const afterCancel = await api.ok('DELETE', `${base}?send_email=false`);
		await api.ok('DELETE', `${base}?send_email=false`); // already cancelled: no event
		const t1 = Date.now();
		const d = await settled((x) => x.deliveries.length === 5);
		expect(d.deliveries.every((x: any) => x.ok && x.attempt === 1)).toBe(true);

		const bodies = all.got.map((g) => g.body).sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
		expect(bodies.map((b) => b.event)).toEqual(['appointment.created', 'appointment.updated', 'appointment.updated', 'appointment.canceled']);
		const { client_key, person_key, phone, identification_code, external_id, service_keys, tag_keys, owner_user, created_at, is_cancelled, ...publicCreated } = created;
		expect(bodies.map((b) => b.data)).toEqual([publicCreated, afterPatch, afterMove, afterCancel]);
		for (const b of bodies) {
			expect(Object.keys(b)).toEqual(['event', 'timestamp', 'data']);
			expect(b.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[-+]\d{2}:\d{2}$/);
			const ts = DateTime.fromISO(b.timestamp).toMillis();
			expect(ts).toBeGreaterThanOrEqual(t0 - 5);
			expect(ts).toBeLessThanOrEqual(t1 + 5);
		}
		expect(all.got.every((g) => g.path === '/all' && g.headers['content-type'] === 'application/json')).toBe(true);
		expect(onlyCancel.got.map((g) => g.body.event)).toEqual(['appointment.canceled']);
		expect(onlyCancel.got[0].raw).toBe(all.got.find((g) => g.body.event === 'appointment.canceled')!.raw);
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
		expect(d.deliveries[0]).toMatchObject({ webhook_key: w.webhook_key, url: r.url(), event: 'appointment.created', appointment_key: a.appointment_key, error: 'HTTP 500' });
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
		expect(d.deliveries[0]).toMatchObject({ attempt: 1, ok: false, status: null, error: 'timed out after 1000 ms' });
		expect(d.deliveries[1]).toMatchObject({ attempt: 2, ok: true, status: 200 });
	});

	it('a refused connection is recorded and retried', async () => {
		const s = createServer();
		await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
		const port = (s.address() as AddressInfo).port;
		await new Promise<void>((r) => s.close(() => r()));
		await subscribe(`https://127.0.0.1:${port}/gone`);
		await create();
		const d = await settled((x) => x.deliveries.length === 3);
		expect(d.deliveries.every((x: any) => x.status === null && /ECONNREFUSED/.test(x.error))).toBe(true);
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
			expect(d.deliveries.filter((x: any) => x.event === event).map((x: any) => x.copy).sort()).toEqual([1, 2]);
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
		expect(r.got.map((g) => g.body.data.appointment_key)).toEqual([a.appointment_key, a.appointment_key]);
		expect(r.got[0].raw).toBe(r.got[1].raw);
		await adm.ok('POST', '/__sandbox/config/', { deliveryFailRate: 0 });
		await create();
		expect((await settled((x) => x.deliveries.length === 3)).deliveries[2]).toMatchObject({ attempt: 1, ok: true });
		expect((await adm('POST', '/__sandbox/config/', { deliveryFailRate: 1.5 })).status).toBe(400);
	});

	async function order(shuffle: boolean): Promise<{ sent: string[]; got: string[] }> {
		await adm.ok('POST', '/__sandbox/reset/');
		await adm.ok('POST', '/__sandbox/config/', { shuffleDelivery: shuffle, shuffleWindowMs: 1500, deliveryConcurrency: 1 });
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

describe('never blocking the API', () => {
	it('the API answers while the receiver holds the delivery; pending counts it until it settles', async () => {
		const hold = deferred();
		const r = await recv(async () => {
			await hold.promise;
			return 200;
		});
		await subscribe(r.url());
		const a = await create();
		await pollUntil('the receiver to get the event', async () => (r.got.length === 1 ? true : undefined));
		// the receiver has not answered: the API still answers, and more events queue up
		const patched = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'ATTENDED' });
		expect(patched.status).toBe(200);
		const d = await deliveries();
		expect(d.pending).toBe(2);
		expect(d.deliveries).toEqual([]);
		hold.resolve();
		const done = await settled((x) => x.deliveries.length === 2);
		expect(done.deliveries.every((x: any) => x.ok)).toBe(true);
	});

	it('reset drops queued deliveries and the log', async () => {
		const hold = deferred();
		const r = await recv(async () => {
			await hold.promise;
			return 200;
		});
		await subscribe(r.url());
		await create();
		await pollUntil('the receiver to get the event', async () => (r.got.length === 1 ? true : undefined));
		await adm.ok('POST', '/__sandbox/reset/');
		hold.resolve();
		const d = await deliveries();
		expect(d).toMatchObject({ pending: 0, deliveries: [] });
	});
});

describe('shutdown', () => {
	it('close() lets the attempt in flight finish and does not wait for scheduled retries', async () => {
		const own = await start({ seed: 5, ca: selfSigned().cert, retrySchedule: [60_000] });
		const oc = client(() => own.url, TOKEN);
		const oa = client(() => own.url, ADMIN);
		const hold = deferred();
		let answered = false;
		const slow = await recv(async () => {
			await hold.promise;
			answered = true;
			return 200;
		});
		const failing = await recv(() => 500);
		await oc.ok('POST', '/api/v3/webhooks/', { url: slow.url(), events: ['appointment.created'] });
		await oc.ok('POST', '/api/v3/webhooks/', { url: failing.url(), events: ['appointment.updated'] });
		const a = await oa.ok('POST', '/__sandbox/appointments/', {});
		await oc.ok('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'ATTENDED' });
		await pollUntil('both receivers hit', async () => (slow.got.length === 1 && failing.got.length === 1 ? true : undefined));
		await pollUntil('the failure to be logged', async () => ((await oa.ok('GET', '/__sandbox/deliveries/')).deliveries.length === 1 ? true : undefined));
		const closing = own.close();
		let closed = false;
		void closing.then(() => (closed = true));
		await new Promise((r) => setImmediate(r));
		expect(closed).toBe(false); // waits for the attempt in flight
		hold.resolve();
		await closing;
		expect(answered).toBe(true);
		expect(failing.got).toHaveLength(1); // the retry scheduled in 60 s was not waited for
		await expect(fetch(`${own.url}/api/v3/appointments/`)).rejects.toThrow();
	});
});
