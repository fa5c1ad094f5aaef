/**
 * Two behaviours the spec leaves open, played by the real sandbox: `cancelRemoves` (a DELETE cancels and then
 * deletes the record) and `readLagMs` (a read replica behind the primary: a new appointment is notified before
 * the API can read it). Both are start-up options, CLI flags (cli.test.ts) and run-time switches.
 */
import { startSandbox } from '../../sandbox';
import {
	ADMIN,
	TOKEN,
	client,
	pollUntil,
	receiver,
	selfSigned,
	start,
	type Sandbox,
} from './helpers';

let sb: Sandbox;
let hook: Awaited<ReturnType<typeof receiver>>;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);

beforeAll(async () => {
	sb = await start({ seed: 20, ca: selfSigned().cert, retrySchedule: [] });
	hook = await receiver();
});
afterAll(async () => {
	await hook?.close();
	await sb?.close();
});
beforeEach(async () => {
	// A reset drops queued deliveries but not one in flight: let the last test's land before clearing what came.
	await settled();
	await adm.ok('POST', '/__sandbox/reset/');
	hook.got.length = 0;
	await api.ok('POST', '/api/v3/webhooks/', {
		url: hook.url(),
		events: ['appointment.created', 'appointment.canceled'],
	});
});

const settled = () =>
	pollUntil('deliveries to settle', async () => {
		const d = await adm.ok('GET', '/__sandbox/deliveries/');
		return d.pending === 0 ? hook.got.map((r) => r.body) : undefined;
	});
const listed = async (query: string) =>
	(
		(await api.ok('GET', `/api/v3/appointments/?${query}`)).results as Array<{
			appointment_key: string;
		}>
	).map((a) => a.appointment_key);
const emails = async () =>
	((await adm.ok('GET', '/__sandbox/emails/')).emails as Array<{ appointment_key: string }>).map(
		(e) => e.appointment_key,
	);

describe('cancelRemoves', () => {
	it('off (default): a cancelled appointment stays readable and listed as CANCELED', async () => {
		expect((await adm.ok('GET', '/__sandbox/config/')).cancelRemoves).toBe(false);
		const a = await adm.ok('POST', '/__sandbox/appointments/', {});
		await api.ok('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=false`);
		expect((await api.ok('GET', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(
			'CANCELED',
		);
		expect(await listed(`search_code=${a.search_code}`)).toEqual([a.appointment_key]);
	});

	it('on: the DELETE answers the cancelled record, the event carries it, then GET is 404 and lists omit it; one e-mail', async () => {
		await adm.ok('POST', '/__sandbox/config/', { cancelRemoves: true });
		const a = await adm.ok('POST', '/__sandbox/appointments/', {
			status: 'PENDING',
			person: { full_name: 'Rosa Gone', email: 'rosa@example.com' },
		});
		const before = (await api.ok('GET', `/api/v3/appointments/${a.appointment_key}/`)) as Record<
			string,
			unknown
		>;
		const del = await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`);
		expect(del.status).toBe(200);
		expect(del.body).toEqual({ ...before, status: 'CANCELED' });
		const events = await settled();
		expect(events.map((e) => [e.event, e.data])).toEqual([
			['appointment.created', before],
			['appointment.canceled', { ...before, status: 'CANCELED' }],
		]);
		expect(await api(`GET`, `/api/v3/appointments/${a.appointment_key}/`)).toMatchObject({
			status: 404,
			body: { detail: 'Not found.' },
		});
		expect(await listed(`search_code=${a.search_code}`)).toEqual([]);
		expect(await listed('is_cancelled=true&page_size=500')).not.toContain(a.appointment_key);
		expect((await adm('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status).toBe(404);
		expect(await emails()).toEqual([a.appointment_key]);
		const mailbox = (await adm.ok('GET', '/__sandbox/mailbox/')).results as Array<{ to: string[] }>;
		expect(mailbox.map((m) => m.to)).toEqual([['rosa@example.com']]);
		// A repeated DELETE finds nothing: 404, no second e-mail, no second event, whatever repeatCancel says.
		await adm.ok('POST', '/__sandbox/config/', { repeatCancel: 'email-again' });
		expect(
			(await api('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`)).status,
		).toBe(404);
		expect(await emails()).toEqual([a.appointment_key]);
		expect((await settled()).map((e) => e.event)).toEqual([
			'appointment.created',
			'appointment.canceled',
		]);
	});

	it('on with mutationResponse empty: 204, and the record is gone all the same', async () => {
		await adm.ok('POST', '/__sandbox/config/', { cancelRemoves: true, mutationResponse: 'empty' });
		const a = await adm.ok('POST', '/__sandbox/appointments/', {});
		expect((await api('DELETE', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(204);
		expect((await api('GET', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(404);
	});
});

describe('readLagMs', () => {
	it('a new appointment is notified at once but not readable until the lag ends (here: set to 0 at run time)', async () => {
		expect((await adm.ok('GET', '/__sandbox/config/')).readLagMs).toBe(0);
		await adm.ok('POST', '/__sandbox/config/', { readLagMs: 3_600_000, pagination: 'cursor' });
		const a = await adm.ok('POST', '/__sandbox/appointments/', {});
		const [created] = await settled();
		expect(created).toMatchObject({
			event: 'appointment.created',
			data: { appointment_key: a.appointment_key },
		});
		expect(await api('GET', `/api/v3/appointments/${a.appointment_key}/`)).toMatchObject({
			status: 404,
			body: { detail: 'Not found.' },
		});
		expect(await listed(`search_code=${a.search_code}`)).toEqual([]);
		const seeded = (await adm.ok('GET', '/__sandbox/appointments/')).count as number;
		const all: string[] = [];
		for (let next: string | null = `${sb.url}/api/v3/appointments/?page_size=7`; next; ) {
			const page: { next: string | null; results: Array<{ appointment_key: string }> } =
				await api.ok('GET', next.slice(sb.url.length));
			all.push(...page.results.map((r) => r.appointment_key));
			next = page.next;
		}
		expect(all).toHaveLength(seeded - 1);
		expect(all).not.toContain(a.appointment_key);
		// The admin view reads the primary; so do writes: a status change works and is answered with the record.
		expect((await adm.ok('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status).toBe(
			'CONFIRMED',
		);
		expect(
			(await api.ok('PATCH', `/api/v3/appointments/${a.appointment_key}/`, { status: 'PENDING' }))
				.status,
		).toBe('PENDING');
		expect((await api('GET', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(404);
		// The replica catches up: readable and listed from now on, even if the lag grows again.
		await adm.ok('POST', '/__sandbox/config/', { readLagMs: 0 });
		expect(await api.ok('GET', `/api/v3/appointments/${a.appointment_key}/`)).toMatchObject({
			appointment_key: a.appointment_key,
			status: 'PENDING',
		});
		await adm.ok('POST', '/__sandbox/config/', { readLagMs: 3_600_000 });
		expect(await listed(`search_code=${a.search_code}`)).toEqual([a.appointment_key]);
	});

	it("the lag is counted on the sandbox's clock from the creation: once the record is older than the lag it is readable; seed data never lags", async () => {
		await adm.ok('POST', '/__sandbox/config/', { readLagMs: 3_600_000 });
		const seeded = (await adm.ok('GET', '/__sandbox/appointments/')).appointments[0];
		expect((await api('GET', `/api/v3/appointments/${seeded.appointment_key}/`)).status).toBe(200);
		const a = await adm.ok('POST', '/__sandbox/appointments/', {});
		const b = await adm.ok('POST', '/__sandbox/appointments/', {});
		expect((await api('GET', `/api/v3/appointments/${a.appointment_key}/`)).status).toBe(404);
		// A lag of 1 ms: both were created more than 1 ms ago (several requests back), so both are readable.
		await adm.ok('POST', '/__sandbox/config/', { readLagMs: 1 });
		for (const x of [a, b])
			expect((await api('GET', `/api/v3/appointments/${x.appointment_key}/`)).status).toBe(200);
	});
});

it('reset restores both start-up values; bad values are 400 naming them; startSandbox takes them', async () => {
	await adm.ok('POST', '/__sandbox/config/', { cancelRemoves: true, readLagMs: 5000 });
	await adm.ok('POST', '/__sandbox/reset/');
	expect(await adm.ok('GET', '/__sandbox/config/')).toMatchObject({
		cancelRemoves: false,
		readLagMs: 0,
	});
	const bad = await adm('POST', '/__sandbox/config/', { cancelRemoves: 'yes', readLagMs: -1 });
	expect(bad.status).toBe(400);
	expect(Object.keys(bad.body).sort()).toEqual(['cancelRemoves', 'readLagMs']);
	const other = await startSandbox({
		tokens: [TOKEN],
		adminToken: ADMIN,
		seed: 1,
		cancelRemoves: true,
		readLagMs: 250,
	});
	try {
		const r = await fetch(`${other.url}/__sandbox/config/`, {
			headers: { authorization: `Bearer ${ADMIN}` },
		});
		expect(await r.json()).toMatchObject({ cancelRemoves: true, readLagMs: 250 });
	} finally {
		await other.close();
	}
	await expect(startSandbox({ readLagMs: 1.5 })).rejects.toThrow(/readLagMs/);
});
