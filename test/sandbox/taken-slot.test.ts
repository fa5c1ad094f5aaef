/**
 * The takenSlot switch: by default a reschedule onto another appointment's time is accepted (spec rule 2);
 * 'conflict' and 'bad-request' stand in for services that check availability and refuse the move (409 or 400
 * naming the slot), within slotMinutes of another active appointment of the same calendar.
 */
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const CAL = '9c1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c40';

beforeAll(async () => {
	sb = await start({ retrySchedule: [] });
});
afterAll(() => sb?.close());

async function pair() {
	await adm.ok('POST', '/__sandbox/reset/');
	const create = (start_date: string, status = 'CONFIRMED') =>
		adm.ok('POST', '/__sandbox/appointments/', {
			start_date,
			status,
			calendar: { calendar_key: CAL },
		});
	const a = await create('2027-11-25T10:00:00-03:00');
	await create('2027-11-25T12:00:00-03:00', 'CANCELED');
	const b = await create('2027-11-25T15:00:00-03:00');
	return {
		a,
		b,
		move: (to: string) =>
			api('PATCH', `/api/v3/appointments/${b.appointment_key}/reschedule/`, { start_date: to }),
	};
}

test('allow (default): a taken slot is accepted', async () => {
	expect((await adm.ok('GET', '/__sandbox/config/')).takenSlot).toBe('allow');
	const { move } = await pair();
	expect((await move('2027-11-25T10:00:00-03:00')).status).toBe(200);
});

test('conflict: 409 naming the slot and the appointment; a cancelled one or one slotMinutes away takes nothing', async () => {
	const { a, move } = await pair(); // a reset restores the start-up options: configure after it
	await adm.ok('POST', '/__sandbox/config/', { takenSlot: 'conflict', slotMinutes: 30 });
	const refused = await move('2027-11-25T10:29:00-03:00');
	expect(refused.status).toBe(409);
	expect(refused.body.detail).toBe(
		`The slot at 2027-11-25T10:29:00-03:00 is not available: appointment ${a.search_code} is booked then.`,
	);
	expect((await move('2027-11-25T12:00:00-03:00')).status).toBe(200);
	expect((await move('2027-11-25T10:30:00-03:00')).status).toBe(200);
	await adm.ok('POST', '/__sandbox/config/', { takenSlot: 'allow' });
});

test('bad-request: 400 with the message under start_date; nothing moved', async () => {
	const { b, move } = await pair();
	await adm.ok('POST', '/__sandbox/config/', { takenSlot: 'bad-request', slotMinutes: 60 });
	const refused = await move('2027-11-25T10:45:00-03:00');
	expect(refused.status).toBe(400);
	expect(refused.body.start_date[0]).toMatch(
		/^The slot at 2027-11-25T10:45:00-03:00 is not available/,
	);
	const after = await adm.ok('GET', `/__sandbox/appointments/${b.appointment_key}/`);
	expect(after.start_date).toBe('2027-11-25T15:00:00-03:00');
	const bad = await adm('POST', '/__sandbox/config/', { takenSlot: 'maybe' });
	expect(bad.status).toBe(400);
	await adm.ok('POST', '/__sandbox/config/', { takenSlot: 'allow' });
});
