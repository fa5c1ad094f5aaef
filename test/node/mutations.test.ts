/**
 * Get, Update Status, Reschedule and Cancel through the node against the sandbox, with the service answering
 * with the record (200) and with no body (204, read back with GET).
 */
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { STATUSES } from '../../nodes/Appointments/shared/constants.js';
import { apiRequests, run, runFail, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useSandbox({ seed: 30, seedValue: 5 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	// Not cancelled: the sandbox refuses to change or reschedule cancelled appointments.
	all = (await admin.appointments()).filter((a) => a.is_cancelled !== true);
	expect(all.length).toBeGreaterThanOrEqual(10);
});

const key = (n: number) => String(all[n].appointment_key);
const MISSING = '00000000-0000-4000-8000-000000000000';

test('get (version 1) returns the full record', async () => {
	const [out] = await runOk(
		sb,
		{ resource: 'appointment', operation: 'get', appointmentKey: key(3) },
		{ version: 1 },
	);
	const expected = { ...all[3] };
	expect(out).toMatchObject({
		appointment_key: expected.appointment_key,
		search_code: expected.search_code,
		status: expected.status,
		start_date: expected.start_date,
		calendar: expected.calendar,
		person: expected.person,
	});
	const reqs = await apiRequests(admin);
	expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v3/appointments/${key(3)}/`]);
});

test('get of an unknown key: NodeApiError "Appointment <key> not found"', async () => {
	const error = await runFail(sb, {
		resource: 'appointment',
		operation: 'get',
		appointmentKey: MISSING,
	});
	expect(error.message).toBe(`Appointment ${MISSING} not found`);
	expect(error.name).toBe('NodeApiError');
});

test('an invalid token: "check the access token", and the token never appears in messages or logs', async () => {
	const unknownToken = `unknown-${Date.now()}-${Math.random().toString(36).slice(2)}`;
	const result = await run(
		sb,
		{ resource: 'appointment', operation: 'get', appointmentKey: key(0) },
		{ token: unknownToken },
	);
	expect(result.error?.message).toMatch(/check the access token/);
	expect(JSON.stringify(result.run)).not.toContain(unknownToken);
	expect(result.logs.join('\n')).not.toContain(unknownToken);
});

describe.each(['body', 'empty'])('mutation response "%s"', (mutationResponse) => {
	beforeEach(async () => {
		await admin.config({ mutationResponse });
		await admin.clearRequests();
	});

	const readBack = mutationResponse === 'empty';

	test.each(STATUSES.map((s) => s.value))(
		'update status to %s returns the updated appointment',
		async (status) => {
			const target = all.find((a) => a.status !== status && a.is_cancelled !== true)!;
			const k = String(target.appointment_key);
			const [out] = await runOk(sb, {
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: k,
				status,
			});
			expect(out.appointment_key).toBe(k);
			expect(out.status).toBe(status);
			expect((await admin.appointment(k)).status).toBe(status);
			const reqs = await apiRequests(admin);
			expect(reqs.map((r) => r.method)).toEqual(readBack ? ['PATCH', 'GET'] : ['PATCH']);
		},
	);

	test("reschedule: wall clock in the chosen zone goes out with that zone's offset", async () => {
		const k = key(4);
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'reschedule',
			appointmentKey: k,
			startDate: '2026-09-07T10:15:00',
		});
		// 7 September 2026 is after Santiago's change to -03:00.
		expect(DateTime.fromISO(String(out.start_date)).toMillis()).toBe(
			Date.parse('2026-09-07T10:15:00-03:00'),
		);
		expect(DateTime.fromISO(String((await admin.appointment(k)).start_date)).toMillis()).toBe(
			Date.parse('2026-09-07T13:15:00Z'),
		);
		const reqs = await apiRequests(admin);
		expect(reqs[0]).toMatchObject({
			method: 'PATCH',
			path: `/api/v3/appointments/${k}/reschedule/`,
		});
		expect(reqs.map((r) => r.method)).toEqual(readBack ? ['PATCH', 'GET'] : ['PATCH']);
	});

	test('cancel sends send_email=false by default: no e-mail', async () => {
		const k = key(5);
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: k,
		});
		expect(out.appointment_key).toBe(k);
		const reqs = await apiRequests(admin);
		// read first: an appointment already cancelled is not cancelled (nor its client e-mailed) again
		expect(reqs[1]).toMatchObject({ method: 'DELETE', query: { send_email: 'false' } });
		expect(reqs.map((r) => r.method)).toEqual(
			readBack ? ['GET', 'DELETE', 'GET'] : ['GET', 'DELETE'],
		);
		expect((await admin.emails()).filter((e) => e.appointment_key === k)).toHaveLength(0);
		expect((await admin.appointment(k)).is_cancelled).toBe(true);
	});

	test('cancel with Send Email to Client: send_email=true and the client gets the e-mail', async () => {
		const k = key(6);
		const person = all[6].person as IDataObject;
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: k,
			sendEmail: true,
		});
		expect(out.appointment_key).toBe(k);
		expect((await apiRequests(admin, 'DELETE'))[0].query).toEqual({ send_email: 'true' });
		const emails = (await admin.emails()).filter((e) => e.appointment_key === k);
		expect(emails).toHaveLength(1);
		expect(emails[0].to).toBe(person.email);
	});
});

describe('cancel against a service that removes what it cancels (sandbox cancelRemoves)', () => {
	test.each([
		['200 with the record', 'body', 1, { status: 'CANCELED' }],
		['200 with the record', 'body', 4, { status: 'CANCELED', already_canceled: false }],
		['204, then 404 on read-back', 'empty', 1, { canceled: true }],
		['204, then 404 on read-back', 'empty', 4, { canceled: true, already_canceled: false }],
	])(
		'%s (mutationResponse %s), node version %i: a result that says cancelled, one e-mail, the record gone',
		async (_answer, mutationResponse, version, expected) => {
			await admin.config({ cancelRemoves: true, mutationResponse });
			const k = key(9);
			const [out] = await runOk(
				sb,
				{ resource: 'appointment', operation: 'cancel', appointmentKey: k, sendEmail: true },
				{ version },
			);
			expect(out).toMatchObject({ appointment_key: k, ...expected });
			const sent = (await apiRequests(admin)).map((r) => `${r.method} ${r.status}`);
			expect(sent).toEqual(
				mutationResponse === 'empty'
					? ['GET 200', 'DELETE 204', 'GET 404']
					: ['GET 200', 'DELETE 200'],
			);
			expect((await admin.emails()).map((e) => e.appointment_key)).toEqual([k]);
			await expect(admin.appointment(k)).rejects.toThrow(/404/);
		},
	);

	test('an appointment the service cannot read yet (readLagMs) is cancelled all the same', async () => {
		await admin.config({ readLagMs: 3_600_000 });
		const created = await admin.create({});
		const k = String(created.appointment_key);
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: k,
		});
		expect(out).toMatchObject({ appointment_key: k, status: 'CANCELED', already_canceled: false });
		expect((await apiRequests(admin)).map((r) => `${r.method} ${r.status}`)).toEqual([
			'GET 404',
			'DELETE 200',
		]);
		expect((await admin.appointment(k)).is_cancelled).toBe(true);
	});
});

describe('reschedule time-zone conversion', () => {
	const reschedule = async (startDate: string, options: IDataObject = {}, timezone?: string) => {
		await admin.clearRequests();
		const k = key(8);
		await runOk(
			sb,
			{ resource: 'appointment', operation: 'reschedule', appointmentKey: k, startDate, options },
			{ timezone },
		);
		return DateTime.fromISO(String((await admin.appointment(k)).start_date))
			.toUTC()
			.toISO();
	};

	test("a wall clock before Santiago's change gets -04:00", async () => {
		expect(await reschedule('2026-09-05T10:00:00')).toBe('2026-09-05T14:00:00.000Z');
	});

	test('options.timeZone overrides the workflow zone', async () => {
		expect(await reschedule('2026-07-01T10:00:00', { timeZone: 'Europe/Berlin' })).toBe(
			'2026-07-01T08:00:00.000Z',
		);
	});

	test('the workflow zone is the default', async () => {
		expect(await reschedule('2026-12-01T10:00:00', {}, 'Europe/Berlin')).toBe(
			'2026-12-01T09:00:00.000Z',
		);
	});

	test('an ISO string with an offset keeps its instant', async () => {
		expect(await reschedule('2026-10-01T10:00:00+05:30')).toBe('2026-10-01T04:30:00.000Z');
	});

	test('a Luxon DateTime from an expression keeps its instant', async () => {
		expect(
			await reschedule(
				"={{ DateTime.fromISO('2026-10-25T12:00:00', { zone: 'Europe/Berlin' }).plus({ days: 1 }) }}",
			),
		).toBe('2026-10-26T11:00:00.000Z');
	});
});
