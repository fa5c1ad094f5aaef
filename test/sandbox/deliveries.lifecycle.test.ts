/**
 * Webhook delivery never blocks the sandbox: the API answers while a receiver holds a delivery, `pending` counts
 * it, reset drops queued deliveries, and close() finishes the attempt in flight without waiting for retries.
 */
import { ADMIN, TOKEN, client, pollUntil, selfSigned, start } from './helpers';
import {
	adm,
	api,
	create,
	deferred,
	deliveries,
	recv,
	settled,
	subscribe,
	useDeliverySandbox,
} from './deliveries';

useDeliverySandbox();

describe('never blocking the API', () => {
	it('the API answers while the receiver holds the delivery; pending counts it until it settles', async () => {
		const hold = deferred();
		const r = await recv(async () => {
			await hold.promise;
			return 200;
		});
		await subscribe(r.url());
		const a = await create();
		await pollUntil('the receiver to get the event', async () =>
			r.got.length === 1 ? true : undefined,
		);
		// the receiver has not answered: the API still answers, and more events queue up
		const patched = await api('PATCH', `/api/v3/appointments/${a.appointment_key}/`, {
			status: 'ATTENDED',
		});
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
		await pollUntil('the receiver to get the event', async () =>
			r.got.length === 1 ? true : undefined,
		);
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
		await oc.ok('POST', '/api/v3/webhooks/', {
			url: failing.url(),
			events: ['appointment.updated'],
		});
		const a = await oa.ok('POST', '/__sandbox/appointments/', {});
		await oc.ok('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'ATTENDED' });
		await pollUntil('both receivers hit', async () =>
			slow.got.length === 1 && failing.got.length === 1 ? true : undefined,
		);
		await pollUntil('the failure to be logged', async () =>
			(await oa.ok('GET', '/__sandbox/deliveries/')).deliveries.length === 1 ? true : undefined,
		);
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
