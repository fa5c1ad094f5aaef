/**
 * Version 2 of the Appointments node against the sandbox: resource locators (From List, By Key, expressions)
 * for appointments and webhooks, Get's Simplify, the list searches the editor calls, and version 1 unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { listSearch } from '../helpers/n8n';
import { apiRequests, runFail, runOk, TOKEN, useSandbox, ZONE, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useSandbox({ seed: 140, seedValue: 12, pageSize: 20 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	all = await admin.appointments();
	await admin.clearRequests();
});

const rl = (value: string, mode = 'list') => ({ __rl: true, mode, value });
const open = (a: IDataObject) => a.is_cancelled !== true;
const search = async (method: string, filter?: string, paginationToken?: string) =>
	await listSearch({
		method,
		filter,
		paginationToken,
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		timezone: ZONE,
	});

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
		// A typed key that is no UUID: n8n checks the By Key mode's pattern before running.
		await expect(
			runOk(sb, { resource: 'appointment', operation: 'get', appointmentKey: rl('not-a-key', 'id') }),
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
		const [deleted] = await runOk(sb, { resource: 'webhook', operation: 'delete', webhookKey: rl(key, 'id') });
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
		expect(one).toHaveProperty('calendar.calendar_key', (target.calendar as IDataObject).calendar_key);
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
	let server: Server;
	let url: string;
	const record = {
		appointment_key: '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
		search_code: 'K7M2P9QX',
		status: 'CONFIRMED',
		start_date: '2030-01-01T10:00:00-03:00',
		calendar: { calendar_key: '7c0e4b1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Dr. Rojas', color: 'blue' },
		person: { full_name: 'Ana Pérez', email: 'ana@example.com', phone: '+56 9 1234 5678' },
		notes: 'first visit',
	};
	beforeAll(async () => {
		server = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(record));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => await new Promise((resolve) => server.close(resolve)));

	const get = async (version: number, extra: IDataObject = {}) => {
		const { runNode } = await import('../helpers/n8n');
		const result = await runNode({
			parameters: { resource: 'appointment', operation: 'get', appointmentKey: record.appointment_key, ...extra },
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

describe('list search: appointments', () => {
	const label = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}( \d{4})? \d{2}:\d{2} · .+ · [A-Z_]+ · .+ · [A-Z0-9]+$/;
	const startMs = (a: IDataObject) => DateTime.fromISO(String(a.start_date)).toMillis();
	/** What the list should show for these appointments: from today 00:00 on, earliest first, then the earlier ones. */
	const upcomingFirst = (list: IDataObject[]) => {
		const today = DateTime.now().setZone(ZONE).startOf('day').toMillis();
		const byStart = [...list].sort((a, b) => startMs(a) - startMs(b) || String(a.appointment_key).localeCompare(String(b.appointment_key)));
		return [...byStart.filter((a) => startMs(a) >= today), ...byStart.filter((a) => startMs(a) < today)];
	};
	/** Scrolls the list to its end, as the editor does, and returns every entry and the number of calls. */
	const scrollAll = async (filter?: string) => {
		const shown: Array<{ name: string; value: string }> = [];
		let token: string | undefined;
		let calls = 0;
		do {
			const page = await search('searchAppointments', filter, token);
			shown.push(...page.results.map((r) => ({ name: r.name, value: String(r.value) })));
			token = page.paginationToken;
			calls++;
		} while (token);
		return { shown, calls };
	};

	test('without search text: upcoming first (from today 00:00), then the earlier ones, each once, as a person recognises them', async () => {
		const first = await search('searchAppointments');
		expect(first.results).toHaveLength(20);
		const { shown, calls } = await scrollAll();
		expect(calls).toBeGreaterThan(2); // paged over the service's next links
		expect(shown.map((r) => r.value)).toEqual(upcomingFirst(all).map((a) => a.appointment_key));
		const a = upcomingFirst(all)[0];
		const start = DateTime.fromISO(String(a.start_date), { zone: ZONE, locale: 'en' });
		expect(shown[0].name).toBe(
			`${start.toFormat('ccc d LLL HH:mm')} · ${(a.person as IDataObject).full_name} · ${a.status} · ${(a.calendar as IDataObject).name} · ${a.search_code}`,
		);
		for (const r of shown) expect(r.name).toMatch(label);
	});

	test('a name narrows the list (case-insensitive part of the name), still upcoming first', async () => {
		const name = String((all[0].person as IDataObject).full_name).split(' ')[0];
		const typed = name.toLowerCase().slice(0, 4);
		const matching = all.filter((a) => String((a.person as IDataObject).full_name).toLowerCase().includes(typed));
		const { shown } = await scrollAll(typed);
		expect(shown.length).toBeGreaterThan(0);
		expect(shown.length).toBeLessThan(all.length);
		expect(shown.map((r) => r.value)).toEqual(upcomingFirst(matching).map((a) => a.appointment_key));
		const sent = (await apiRequests(admin)).map((r) => r.query);
		expect(sent).toContainEqual(expect.objectContaining({ name: typed }));
	});

	test('an e-mail, a code or a key finds that appointment', async () => {
		const a = all[5];
		const email = String((a.person as IDataObject).email);
		const byEmail = await scrollAll(email);
		expect(byEmail.shown.map((r) => r.value)).toEqual(
			upcomingFirst(all.filter((x) => (x.person as IDataObject).email === email)).map((x) => x.appointment_key),
		);
		expect((await scrollAll(String(a.search_code))).shown.map((r) => r.value)).toEqual([a.appointment_key]);
		expect((await search('searchAppointments', String(a.appointment_key))).results.map((r) => r.value)).toEqual([a.appointment_key]);
		expect((await search('searchAppointments', '00000000-0000-4000-8000-000000000000')).results).toEqual([]);
	});

	test('a pagination token for another origin is refused without a request', async () => {
		await expect(
			search('searchAppointments', undefined, 'upcoming https://evil.example/api/v3/appointments/?page=2'),
		).rejects.toThrow(/only the credential's origin/);
		expect(await apiRequests(admin)).toEqual([]);
	});
});

describe('list search: webhooks', () => {
	test('subscriptions shown as URL and events, narrowed by the search text', async () => {
		for (const [path, events] of [
			['a', ['appointment.created']],
			['b', ['appointment.canceled', 'appointment.updated']],
		] as const) {
			await runOk(sb, {
				resource: 'webhook',
				operation: 'create',
				url: `https://example.com/hooks/${path}`,
				events: [...events],
			});
		}
		const hooks = await admin.webhooks();
		const { results } = await search('searchWebhooks');
		expect(results.map((r) => r.name).sort()).toEqual([
			'https://example.com/hooks/a · appointment.created',
			'https://example.com/hooks/b · appointment.canceled, appointment.updated',
		]);
		expect(results.map((r) => r.value).sort()).toEqual(hooks.map((h) => h.webhook_key).sort());
		const narrowed = await search('searchWebhooks', 'CANCELED');
		expect(narrowed.results.map((r) => r.name)).toEqual([
			'https://example.com/hooks/b · appointment.canceled, appointment.updated',
		]);
		for (const hook of hooks) {
			await runOk(sb, { resource: 'webhook', operation: 'delete', webhookKey: rl(String(hook.webhook_key)) });
		}
	});
});

describe('hints', () => {
	// n8n's editor shows a hint when its displayCondition, an expression over the node's parameters, is true.
	const shown = (parameters: IDataObject): string[] => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Workflow, NodeHelpers } = require('n8n-workflow') as typeof import('n8n-workflow');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Appointments } = require('../../nodes/Appointments/Appointments.node');
		const nodeType = NodeHelpers.getVersionedNodeType(new Appointments(), 2);
		const node = { id: 'n', name: 'Node', type: 'test.appointments', typeVersion: 2, position: [0, 0] as [number, number], parameters: parameters as never };
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) } as never,
		});
		return (nodeType.description.hints ?? [])
			.filter((hint) => workflow.expression.getSimpleParameterValue(workflow.getNode('Node')!, hint.displayCondition!, 'internal', {}) === true)
			.map((hint) => hint.message);
	};

	test('Get Many with Return All and no date range warns about large accounts; a Date Range names its time zone', () => {
		const getMany = { resource: 'appointment', operation: 'getAll' };
		expect(shown({ ...getMany, returnAll: true, dateRange: 'all' })).toEqual([expect.stringMatching(/^Return All reads every page/)]);
		expect(shown({ ...getMany, returnAll: false, dateRange: 'today' })).toEqual([expect.stringMatching(/time zone/)]);
		expect(shown({ ...getMany, returnAll: false, dateRange: 'all' })).toEqual([]);
		expect(shown({ resource: 'webhook', operation: 'getAll', returnAll: true })).toEqual([]);
	});
});
