/**
 * Version 2 of the Appointments node against the sandbox: resource locators (From List, By Key, expressions)
 * for appointments and webhooks, Get's Simplify giving Get Many's shape, and version 1 unchanged.
 */
import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { apiRequests, runFail, runOk, TOKEN, type Admin, type Sandbox } from './helpers';
import { rl, useVersion2Sandbox } from './version2Sandbox';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useVersion2Sandbox((started) => ({ sb, admin, all } = started));

const open = (a: IDataObject) => a.is_cancelled !== true;

describe('resource locators', () => {
	test('Update Status with an appointment picked from the list changes that appointment', async () => {
		const target = all.find((a) => a.status === 'CONFIRMED')!;
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: rl(String(target.appointment_key)),
			status: 'ATTENDED',
		});
		expect(out).toMatchObject({ appointment_key: target.appointment_key, status: 'ATTENDED' });
		expect((await admin.appointment(String(target.appointment_key))).status).toBe('ATTENDED');
	});

	test('By Key accepts a UUID without hyphens and sends the hyphenated form', async () => {
		const target = all.find(open)!;
		const key = String(target.appointment_key);
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(key.replace(/-/g, '').toUpperCase(), 'id'),
		});
		expect(out.appointment_key).toBe(key);
		expect((await apiRequests(admin)).map((r) => r.path)).toEqual([
			`/api/v3/appointments/${key.toUpperCase()}/`,
		]);
	});

	test('an expression in the locator reads each item', async () => {
		const targets = all.filter(open).slice(0, 3);
		const out = await runOk(
			sb,
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: rl('={{ $json.appointment_key }}', 'id'),
			},
			{ input: targets.map((a) => ({ appointment_key: a.appointment_key })) },
		);
		expect(out.map((a) => a.appointment_key)).toEqual(targets.map((a) => a.appointment_key));
	});

	test('an empty or malformed key is refused before any request', async () => {
		// Nothing picked: n8n itself refuses to run the node (a required parameter).
		await expect(
			runOk(sb, { resource: 'appointment', operation: 'cancel', appointmentKey: rl('') }),
		).rejects.toThrow(/Parameter "Appointment" is required/);
		// Nothing typed in By Key: that one message, not also the pattern's "Not an appointment key".
		await expect(
			runOk(sb, { resource: 'appointment', operation: 'cancel', appointmentKey: rl('', 'id') }),
		).rejects.toThrow(/has issues:\n- Parameter "Appointment" is required\.$/);
		// A typed key that is no UUID: n8n checks the By Key mode's pattern before running.
		await expect(
			runOk(sb, {
				resource: 'appointment',
				operation: 'get',
				appointmentKey: rl('not-a-key', 'id'),
			}),
		).rejects.toThrow(/Not an appointment key: expected a UUID .* \(hyphens optional\)/);
		// An expression that yields no UUID: the node's own check names the field and the item.
		const bad = await runFail(
			sb,
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: rl('={{ $json.key }}', 'id'),
				startDate: '2030-01-01T10:00:00',
			},
			{ input: [{ key: all[0].appointment_key }, { key: 'not-a-key' }] },
		);
		// The field as version 2 labels it ("Appointment"); version 1's field is still "Appointment Key".
		expect(bad.message).toMatch(/"Appointment" \(item 1\) must be a UUID.*not-a-key/);
		expect(await apiRequests(admin)).toEqual([]);
		const { runNode } = await import('../helpers/n8n');
		const v1 = await runNode({
			parameters: { resource: 'appointment', operation: 'get', appointmentKey: 'not-a-key' },
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			nodeTypeVersion: 1,
		});
		expect(v1.error?.message).toMatch(/"Appointment Key" \(item 0\) must be a UUID.*not-a-key/);
		expect(await apiRequests(admin)).toEqual([]);
	});

	test('Webhook Update and Delete take the subscription from the locator', async () => {
		const [created] = await runOk(sb, {
			resource: 'webhook',
			operation: 'create',
			url: 'https://example.com/hooks/a',
			events: ['appointment.created'],
		});
		const key = String(created.webhook_key);
		const [updated] = await runOk(sb, {
			resource: 'webhook',
			operation: 'update',
			webhookKey: rl(key),
			url: 'https://example.com/hooks/b',
			events: ['appointment.canceled'],
		});
		expect(updated).toMatchObject({ webhook_key: key, url: 'https://example.com/hooks/b' });
		const [deleted] = await runOk(sb, {
			resource: 'webhook',
			operation: 'delete',
			webhookKey: rl(key, 'id'),
		});
		expect(deleted).toEqual({ deleted: true, webhook_key: key });
		expect(await admin.webhooks()).toEqual([]);
	});
});

describe('one output shape', () => {
	test('Get with Simplify (on by default) gives what Get Many gives, calendar_key included', async () => {
		const target = all.find(open)!;
		const [one] = await runOk(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(String(target.appointment_key)),
		});
		const many = await runOk(sb, {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			filters: { searchCode: target.search_code },
		});
		expect(many).toEqual([one]);
		expect(one).toHaveProperty(
			'calendar.calendar_key',
			(target.calendar as IDataObject).calendar_key,
		);
	});

	test("a simplified item feeds the next node's Calendar Key filter", async () => {
		const [first] = await runOk(sb, { resource: 'appointment', operation: 'getAll', limit: 1 });
		const sameCalendar = await runOk(
			sb,
			{
				resource: 'appointment',
				operation: 'getAll',
				returnAll: true,
				filters: { calendarKey: '={{ $json.calendar.calendar_key }}' },
			},
			{ input: [first] },
		);
		const calendarKey = (first.calendar as IDataObject).calendar_key;
		expect(sameCalendar.length).toBe(
			all.filter((a) => (a.calendar as IDataObject).calendar_key === calendarKey).length,
		);
	});
});

describe('Get against a service whose records have more fields than the spec shows', () => {
	let service: FakeService;
	let url: string;
	const record = {
		appointment_key: '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
		search_code: 'K7M2P9QX',
		status: 'CONFIRMED',
		start_date: '2030-01-01T10:00:00-03:00',
		calendar: {
			calendar_key: '7c0e4b1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b',
			name: 'Dr. Rojas',
			color: 'blue',
		},
		person: { full_name: 'Ana Pérez', email: 'ana@example.com', phone: '+56 9 1234 5678' },
		notes: 'first visit',
	};
	beforeAll(async () => {
		service = await startFakeService();
		service.handle = (_req, res) => sendJson(res, 200, record);
		url = service.url;
	});
	afterAll(async () => await service.close());

	const get = async (version: number, extra: IDataObject = {}) => {
		const { runNode } = await import('../helpers/n8n');
		const result = await runNode({
			parameters: {
				resource: 'appointment',
				operation: 'get',
				appointmentKey: record.appointment_key,
				...extra,
			},
			credentials: { baseUrl: url, accessToken: TOKEN },
			nodeTypeVersion: version,
		});
		if (result.error) throw result.error;
		return result.items[0][0].json;
	};

	test('version 1: the full record, as before', async () => {
		expect(await get(1)).toEqual(record);
	});

	test('version 2: simplified by default, the full record with Simplify off', async () => {
		expect(await get(2)).toEqual({
			appointment_key: record.appointment_key,
			search_code: record.search_code,
			status: record.status,
			start_date: record.start_date,
			calendar: { calendar_key: record.calendar.calendar_key, name: 'Dr. Rojas' },
			person: { full_name: 'Ana Pérez', email: 'ana@example.com' },
		});
		expect(await get(2, { simplify: false })).toEqual(record);
	});
});
