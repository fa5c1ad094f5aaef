/**
 * Get Many's filter table (nodes/…/getAll.filters.ts) and the sandbox's list filter table (sandbox/listFilter.ts)
 * describe the same query parameters: every parameter the node can send is one the sandbox reads, as the same
 * kind; and over real HTTP, one appointment's own values in every filter at once find that appointment.
 */
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { GET_MANY_FILTERS } from '../../nodes/Appointments/actions/appointment/getAll.filters';
import { LIST_FILTER_RULES } from '../../sandbox/listFilter';
import { apiRequests, runOk, useSandbox, ZONE, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;

useSandbox({ seed: 60, seedValue: 11 }, (started) => ({ sb, admin } = started));

describe('the node and the sandbox read the same filter table', () => {
	test('every parameter the node can send is one the sandbox reads, as the same kind', () => {
		expect(GET_MANY_FILTERS.length).toBeGreaterThan(0);
		const sent = GET_MANY_FILTERS.map((row) => ({ param: row.param, kind: row.kind }));
		const read = GET_MANY_FILTERS.map((row) => ({
			param: row.param,
			kind: LIST_FILTER_RULES[row.param]?.kind,
		}));
		expect(read).toEqual(sent);
	});

	test('each query parameter and each editor field comes once', () => {
		const params = GET_MANY_FILTERS.map((row) => row.param);
		const names = GET_MANY_FILTERS.map((row) => row.name);
		const labels = GET_MANY_FILTERS.map((row) => row.label);
		expect(new Set(params).size).toBe(params.length);
		expect(new Set(names).size).toBe(names.length);
		expect(new Set(labels).size).toBe(labels.length);
	});
});

/** The value an appointment (as the sandbox's admin API shows it) has for a list query parameter. */
function recordValue(a: IDataObject, param: string): IDataObject[string] {
	if (param === 'calendar_key') return (a.calendar as IDataObject).calendar_key;
	if (param === 'email') return (a.person as IDataObject).email;
	if (param === 'name') return (a.person as IDataObject).full_name;
	return a[param];
}

test('one appointment found by its own values in every filter at once, all sent and accepted', async () => {
	const all = await admin.appointments();
	// one with a value for every parameter (some have no external ID, no tags or no services)
	const isSet = (v: unknown) =>
		v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
	const a = all.find((r) =>
		GET_MANY_FILTERS.every((row) => row.in !== undefined || isSet(recordValue(r, row.param))),
	)!;
	expect(a).toBeDefined();
	const start = DateTime.fromISO(String(a.start_date), { setZone: true }).setZone(ZONE);
	const filters: IDataObject = {};
	for (const row of GET_MANY_FILTERS)
		if (row.in === undefined) filters[row.name] = recordValue(a, row.param);
	filters.calendarKey = { __rl: true, mode: 'id', value: filters.calendarKey };
	await admin.clearRequests();
	const out = await runOk(sb, {
		resource: 'appointment',
		operation: 'getAll',
		returnAll: true,
		output: 'raw',
		dateRange: 'custom',
		startDate: start.minus({ hours: 1 }).toISO(),
		endDate: start.plus({ hours: 1 }).toISO(),
		filters,
	});
	const [request] = (await apiRequests(admin, 'GET')).filter(
		(r) => r.path === '/api/v3/appointments/',
	);
	expect(request.status).toBe(200);
	expect(Object.keys(request.query).sort()).toEqual(
		GET_MANY_FILTERS.map((row) => row.param).sort(),
	);
	expect(out.map((r) => r.appointment_key)).toContain(a.appointment_key);
});
