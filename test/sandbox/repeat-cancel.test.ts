/**
 * The repeatCancel switch: by default a DELETE of an already cancelled appointment changes nothing and e-mails
 * nobody; 'email-again' and 'not-found' stand in for services that e-mail on every DELETE or answer 404, so clients
 * can be tested for never e-mailing twice.
 */
import { startSandbox } from '../../sandbox';
import { ADMIN, TOKEN, client, pollUntil, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);

beforeAll(async () => {
	sb = await start({ retrySchedule: [] });
});
afterAll(() => sb?.close());
beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));

async function cancelledOnce() {
	const a = await adm.ok('POST', '/__sandbox/appointments/', {
		status: 'CONFIRMED',
		person: { full_name: 'Rita Twice', email: 'rita@example.com' },
	});
	const first = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`);
	expect(first.status).toBe(200);
	return a.appointment_key as string;
}
const emails = async () =>
	(await adm.ok('GET', '/__sandbox/emails/')).emails as Array<{ appointment_key: string }>;
/** Cancel events queued so far (each delivery to the unreachable hook fails once and is given up at once). */
const cancelEvents = () =>
	pollUntil('deliveries to settle', async () => {
		const d = await adm.ok('GET', '/__sandbox/deliveries/?event=appointment.canceled');
		return d.pending === 0 ? (d.deliveries as unknown[]).length : undefined;
	});

it('idempotent (default): a repeated DELETE answers 200 with the record and sends no second e-mail', async () => {
	expect((await adm.ok('GET', '/__sandbox/config/')).repeatCancel).toBe('idempotent');
	const key = await cancelledOnce();
	const again = await api('DELETE', `/api/v3/appointments/${key}/?send_email=true`);
	expect(again.status).toBe(200);
	expect(again.body).toMatchObject({ appointment_key: key, status: 'CANCELED' });
	expect(await emails()).toHaveLength(1);
});

it('email-again: a repeated DELETE with send_email=true records a second e-mail and answers as usual, no event', async () => {
	expect(
		(await adm.ok('POST', '/__sandbox/config/', { repeatCancel: 'email-again' })).repeatCancel,
	).toBe('email-again');
	await api.ok('POST', '/api/v3/webhooks/', {
		url: 'https://127.0.0.1:1/hook',
		events: ['appointment.canceled'],
	});
	const key = await cancelledOnce();
	expect(await cancelEvents()).toBe(1);
	const again = await api('DELETE', `/api/v3/appointments/${key}/?send_email=true`);
	expect(again.status).toBe(200);
	expect(again.body).toMatchObject({ appointment_key: key, status: 'CANCELED' });
	expect((await emails()).map((e) => e.appointment_key)).toEqual([key, key]);
	expect(await cancelEvents()).toBe(1);
	// without send_email nothing is sent, as for a first cancel
	expect((await api('DELETE', `/api/v3/appointments/${key}/?send_email=false`)).status).toBe(200);
	expect(await emails()).toHaveLength(2);
});

it('not-found: a repeated DELETE answers 404 and sends nothing; a first DELETE still works', async () => {
	await adm.ok('POST', '/__sandbox/config/', { repeatCancel: 'not-found' });
	const key = await cancelledOnce();
	const again = await api('DELETE', `/api/v3/appointments/${key}/?send_email=true`);
	expect(again.status).toBe(404);
	expect(again.body).toEqual({ detail: 'Not found.' });
	expect(await emails()).toHaveLength(1);
	expect((await adm.ok('GET', `/__sandbox/appointments/${key}/`)).status).toBe('CANCELED');
});

it('reset restores the start-up value; a bad value is 400 naming it; startSandbox takes it as an option', async () => {
	await adm.ok('POST', '/__sandbox/config/', { repeatCancel: 'not-found' });
	await adm.ok('POST', '/__sandbox/reset/');
	expect((await adm.ok('GET', '/__sandbox/config/')).repeatCancel).toBe('idempotent');
	const bad = await adm('POST', '/__sandbox/config/', { repeatCancel: 'twice' });
	expect(bad.status).toBe(400);
	expect(Object.keys(bad.body)).toEqual(['repeatCancel']);
	const other = await startSandbox({
		tokens: [TOKEN],
		adminToken: ADMIN,
		seed: 1,
		repeatCancel: 'email-again',
	});
	try {
		const r = await fetch(`${other.url}/__sandbox/config/`, {
			headers: { authorization: `Bearer ${ADMIN}` },
		});
		expect(((await r.json()) as { repeatCancel: string }).repeatCancel).toBe('email-again');
	} finally {
		await other.close();
	}
	await expect(startSandbox({ repeatCancel: 'sometimes' as never })).rejects.toThrow(
		/repeatCancel/,
	);
});
