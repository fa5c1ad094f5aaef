/**
 * Version 3 of the Appointments node (and version 4, which keeps its fields): the expert knobs under Advanced with the
 * defaults they had, Options left with Time Zone, Get Many's Calendar picked from the calendars the account's
 * appointments show; and versions 1 and 2 reading their Options exactly as before.
 */
import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { listSearch, runNode } from '../helpers/n8n';
import {
	apiRequests,
	runFail,
	runOk,
	TOKEN,
	useSandbox,
	ZONE,
	type Admin,
	type Sandbox,
} from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useSandbox({ seed: 141, seedValue: 9, pageSize: 20 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	await admin.clearFaults();
	all = await admin.appointments();
	await admin.clearRequests();
});

const rl = (value: string, mode = 'list') => ({ __rl: true, mode, value });
const node = new Appointments();
const properties = (version: number) =>
	(node.nodeVersions[version].description as INodeTypeDescription).properties;
const forOperation = (version: number, resource: string, operation: string, name: string) =>
	properties(version).filter(
		(p) =>
			p.name === name &&
			p.displayOptions?.show?.resource?.includes(resource) !== false &&
			p.displayOptions?.show?.operation?.includes(operation) !== false,
	);
const OPERATIONS: Array<[string, string]> = [
	['appointment', 'getAll'],
	['appointment', 'get'],
	['appointment', 'updateStatus'],
	['appointment', 'reschedule'],
	['appointment', 'cancel'],
	['webhook', 'getAll'],
	['webhook', 'create'],
	['webhook', 'update'],
	['webhook', 'delete'],
];

describe('version 3 defaults', () => {
	test.each(OPERATIONS)(
		'%s %s: the knobs under Advanced with their defaults, one sentence each; Options only for Time Zone',
		(resource, operation) => {
			const [advanced] = forOperation(3, resource, operation, 'advanced');
			const knobs = Object.fromEntries(
				(advanced.options as INodeProperties[]).map((o) => [o.name, o.default]),
			);
			const expected: IDataObject = {
				concurrency: 1,
				maxAttempts: 5,
				maxRetryWaitSeconds: 60,
				timeoutSeconds: 30,
			};
			if (operation === 'getAll' && resource === 'appointment') expected.pageConcurrency = 4;
			expect(knobs).toEqual(expected);
			expect(advanced.displayName).toBe('Advanced');
			expect(advanced.default).toEqual({});
			for (const option of advanced.options as INodeProperties[]) {
				expect(option.description).not.toMatch(/\.\s|\.$/);
				expect(option.description!.length).toBeLessThan(160);
				expect(option.description).not.toMatch(/leave it off/i);
			}
			const options = forOperation(3, resource, operation, 'options');
			const dated =
				resource === 'appointment' && (operation === 'getAll' || operation === 'reschedule');
			expect(options.map((o) => (o.options as INodeProperties[]).map((x) => x.name))).toEqual(
				dated ? [['timeZone']] : [],
			);
		},
	);

	test("Max Attempts says how it composes with n8n's Retry On Fail instead of asking to turn it off", () => {
		const [advanced] = forOperation(3, 'appointment', 'get', 'advanced');
		const maxAttempts = (advanced.options as INodeProperties[]).find(
			(o) => o.name === 'maxAttempts',
		)!;
		expect(maxAttempts.description).toMatch(
			/Retry On Fail setting re-runs the whole node after that/,
		);
	});

	test("Get Many's Calendar is a locator (From List, By Key); the other keys say where to find them", () => {
		const [filters] = forOperation(3, 'appointment', 'getAll', 'filters');
		const byName = Object.fromEntries(
			(filters.options as INodeProperties[]).map((o) => [o.name, o]),
		);
		expect(byName.calendarKey).toMatchObject({
			displayName: 'Calendar',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
		});
		expect(byName.calendarKey.modes!.map((m) => m.displayName)).toEqual(['From List', 'By Key']);
		for (const name of ['clientKey', 'personKey', 'serviceKeys', 'tagKeys'])
			expect(byName[name].description).toMatch(/dashboard/);
	});

	test('the default attempts get through four busy answers (5 attempts); Advanced > Max Attempts 2 does not', async () => {
		const key = String(all[0].appointment_key);
		await admin.fault({ status: 503, count: 4, retryAfter: '0', match: { method: 'GET' } });
		const [out] = await runOk(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(key),
		});
		expect(out.appointment_key).toBe(key);
		expect(await apiRequests(admin, 'GET')).toHaveLength(5);
		await admin.clearRequests();
		await admin.fault({ status: 503, count: 4, retryAfter: '0', match: { method: 'GET' } });
		const error = await runFail(
			sb,
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: rl(key),
				advanced: { maxAttempts: 2 },
			},
			{ version: 3 },
		);
		expect(error.message).toMatch(/503 Service Unavailable\) after 2 attempts/);
		expect(error.description).toMatch(
			/^The service had a problem: run again later, or turn on Retry On Fail/,
		);
	});

	test('Get Many with a calendar picked from the list returns only that calendar', async () => {
		const calendar = (all[0].calendar as IDataObject).calendar_key as string;
		const out = await runOk(sb, {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			filters: { calendarKey: rl(calendar) },
		});
		expect(out.length).toBe(
			all.filter((a) => (a.calendar as IDataObject).calendar_key === calendar).length,
		);
		expect(out.every((a) => (a.calendar as IDataObject).calendar_key === calendar)).toBe(true);
		expect((await apiRequests(admin, 'GET'))[0].query).toMatchObject({ calendar_key: calendar });
	});
});

describe('saved version 1 and 2 workflows keep their Options', () => {
	test.each([1, 2])(
		'version %i: Options > Max Attempts and Concurrency still apply',
		async (version) => {
			const keys = all.slice(0, 3).map((a) => String(a.appointment_key));
			const appointmentKey = version === 1 ? '={{ $json.key }}' : rl('={{ $json.key }}', 'id');
			const parameters = {
				resource: 'appointment',
				operation: 'get',
				appointmentKey,
				options: { maxAttempts: 2, concurrency: 3 },
			};
			await admin.fault({ status: 503, count: 1, retryAfter: '0', match: { method: 'GET' } });
			const out = await runOk(sb, parameters, { version, input: keys.map((key) => ({ key })) });
			expect(out.map((a) => a.appointment_key)).toEqual(keys);
			await admin.clearRequests();
			await admin.fault({ status: 503, count: 2, retryAfter: '0', match: { method: 'GET' } });
			const error = await runFail(
				sb,
				{ ...parameters, options: { maxAttempts: 2 } },
				{ version, input: [{ key: keys[0] }] },
			);
			expect(error.message).toMatch(/after 2 attempts/);
			expect(await apiRequests(admin, 'GET')).toHaveLength(2);
		},
	);

	test.each([1, 2])(
		'version %i: Options > Page Concurrency and the typed Calendar Key still apply to Get Many',
		async (version) => {
			const calendar = (all[0].calendar as IDataObject).calendar_key as string;
			const refused = await runFail(
				sb,
				{
					resource: 'appointment',
					operation: 'getAll',
					returnAll: true,
					filters: { calendarKey: calendar },
					options: { pageConcurrency: 0 },
				},
				{ version },
			);
			expect(refused.message).toMatch(
				/"Page Concurrency" \(item 0\) must be a whole number from 1 to 10 \(got 0\)/,
			);
			const ok = await runOk(
				sb,
				{
					resource: 'appointment',
					operation: 'getAll',
					returnAll: true,
					filters: { calendarKey: calendar },
				},
				{ version },
			);
			expect(ok.every((a) => (a.calendar as IDataObject).calendar_key === calendar)).toBe(true);
			expect(ok.length).toBeGreaterThan(0);
		},
	);

	test('version 2 has no Advanced collection and keeps every knob in Options', () => {
		expect(properties(2).some((p) => p.name === 'advanced')).toBe(false);
		const [options] = forOperation(2, 'appointment', 'getAll', 'options');
		expect((options.options as INodeProperties[]).map((o) => o.name).sort()).toEqual([
			'concurrency',
			'maxAttempts',
			'maxRetryWaitSeconds',
			'pageConcurrency',
			'timeZone',
			'timeoutSeconds',
		]);
	});
});

describe('list search: calendars', () => {
	const search = async (filter?: string) =>
		await listSearch({
			method: 'searchCalendars',
			filter,
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			timezone: ZONE,
		});

	test('the calendars of the appointments, each once, by name; a name part or a key narrows them', async () => {
		const seen = new Map<string, string>();
		for (const a of all)
			seen.set(
				String((a.calendar as IDataObject).calendar_key),
				String((a.calendar as IDataObject).name),
			);
		const { results } = await search();
		expect(results.map((r) => r.value).sort()).toEqual([...seen.keys()].sort());
		expect(results.map((r) => r.name)).toEqual([...results.map((r) => r.name)].sort());
		const [key, name] = [...seen][0];
		const part = name.slice(1, 5).toUpperCase();
		const narrowed = await search(part);
		expect(narrowed.results.length).toBeGreaterThan(0);
		expect(narrowed.results.every((r) => r.name.toUpperCase().includes(part))).toBe(true);
		expect((await search(key)).results).toEqual([{ name, value: key }]);
	});

	test('reads a bounded number of pages however large the account', async () => {
		await admin.config({ pageSize: 2 });
		await search('no calendar is called this');
		expect((await apiRequests(admin, 'GET')).length).toBe(5);
		await admin.config({ pageSize: 20 });
	});
});

describe("Retry On Fail composes with the node's own retries", () => {
	/** Cancels three appointments, e-mailing each client; the third DELETE fails once, so n8n re-runs the node. */
	async function cancelThreeWithRetryOnFail(version: number) {
		await admin.config({ repeatCancel: 'email-again' }); // a service that e-mails again on a repeated cancel
		const targets = all
			.filter((a) => a.is_cancelled !== true)
			.slice(0, 3)
			.map((a) => String(a.appointment_key));
		await admin.fault({
			status: 503,
			count: 1,
			retryAfter: '0',
			match: { method: 'DELETE', path: `/api/v3/appointments/${targets[2]}/` },
		});
		const appointmentKey = version === 1 ? '={{ $json.key }}' : rl('={{ $json.key }}', 'id');
		const knobs = { maxAttempts: 1 };
		const result = await runNode({
			parameters: {
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey,
				sendEmail: true,
				...(version >= 3 ? { advanced: knobs } : { options: knobs }),
			},
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			input: targets.map((key) => ({ key })),
			nodeTypeVersion: version,
			settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		const emails = (await admin.emails()).filter((e) => targets.includes(e.appointment_key));
		await admin.config({ repeatCancel: 'idempotent' });
		return { result, targets, emails };
	}

	// Every version reads before it cancels (a fix, not a new behaviour: version 2 e-mailed the first two clients again).
	test.each([2, 3])(
		'version %i: the re-run cancels only what is left, and every client gets one email',
		async (version) => {
			const { result, targets, emails } = await cancelThreeWithRetryOnFail(version);
			expect(result.error).toBeUndefined();
			expect(result.items[0].map((i) => i.json.appointment_key)).toEqual(targets);
			expect(result.items[0].every((i) => String(i.json.status).startsWith('CANCELED'))).toBe(true);
			expect(emails.map((e) => e.appointment_key).sort()).toEqual([...targets].sort());
			expect((await apiRequests(admin, 'DELETE')).length).toBe(4); // three, and the failed one once more
		},
	);
});
