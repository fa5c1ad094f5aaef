/**
 * Version 4 of the Appointments node (the default for a new node): Get and Get Many offer Output (Simplified,
 * Raw, Selected Fields) where versions 2 and 3 have Simplify; keys are typed *By ID*, as n8n's editor labels that
 * mode; the node stays an AI tool with its operations' descriptions. Versions 1 to 3 keep their Simplify.
 */
import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { apiRequests, runFail, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useSandbox({ seed: 144, seedValue: 11, pageSize: 20 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	all = await admin.appointments();
	await admin.clearRequests();
});

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const node = new Appointments();
const description = (version: number) =>
	node.nodeVersions[version].description as INodeTypeDescription;
const shownFor = (version: number, operation: string, name: string) =>
	description(version).properties.filter(
		(p) =>
			p.name === name &&
			p.displayOptions?.show?.resource?.includes('appointment') &&
			p.displayOptions?.show?.operation?.includes(operation),
	);
/** The record as the service's API gives it (the admin view may hold more). */
const apiRecord = async (key: string) =>
	(await (
		await fetch(`${sb.url}/api/v3/appointments/${key}/`, {
			headers: { authorization: 'Bearer node-test-token' },
		})
	).json()) as IDataObject;
const simplified = (a: IDataObject) => ({
	appointment_key: a.appointment_key,
	search_code: a.search_code,
	status: a.status,
	start_date: a.start_date,
	calendar: {
		calendar_key: (a.calendar as IDataObject).calendar_key,
		name: (a.calendar as IDataObject).name,
	},
	person: {
		full_name: (a.person as IDataObject).full_name,
		email: (a.person as IDataObject).email,
	},
});

describe('version 4 is what a new node gets', () => {
	test('the default version, on top of versions 1 to 3', () => {
		expect(node.description.defaultVersion).toBe(4);
		expect(Object.keys(node.nodeVersions).map(Number)).toEqual([1, 2, 3, 4]);
	});

	test.each(['get', 'getAll'])(
		'%s: Output (Simplified by default, Raw, Selected Fields) in place of Simplify',
		(operation) => {
			expect(shownFor(4, operation, 'simplify')).toEqual([]);
			const [output] = shownFor(4, operation, 'output');
			expect(output).toMatchObject({ displayName: 'Output', type: 'options', default: 'simple' });
			expect(output.options!.map((o) => (o as { name: string }).name)).toEqual([
				'Simplified',
				'Raw',
				'Selected Fields',
			]);
			const [fields] = shownFor(4, operation, 'fields');
			expect(fields).toMatchObject({
				displayName: 'Fields',
				type: 'multiOptions',
				displayOptions: { show: { output: ['selectedFields'] } },
			});
			for (const version of [2, 3])
				expect(shownFor(version, operation, 'simplify')).toHaveLength(1);
		},
	);

	test('keys are typed By ID, as the editor labels that mode', () => {
		const locators = description(4)
			.properties.flatMap((p) => (p.type === 'collection' ? (p.options as INodeProperties[]) : [p]))
			.filter((p) => p.type === 'resourceLocator');
		expect(locators.map((p) => p.name).sort()).toEqual([
			'appointmentKey',
			'appointmentKey',
			'appointmentKey',
			'appointmentKey',
			'calendar',
			'calendarKey',
			'webhookKey',
			'webhookKey',
		]);
		for (const locator of locators)
			expect(locator.modes!.map((m) => m.displayName)).toEqual(['From List', 'By ID']);
	});

	test("no Max Attempts or Max Retry Wait: n8n's Retry On Fail is the retry setting; version 3 keeps both", () => {
		const advanced = (version: number) =>
			description(version).properties.filter((p) => p.name === 'advanced');
		for (const collection of advanced(4)) {
			expect((collection.options as INodeProperties[]).map((o) => o.name)).not.toEqual(
				expect.arrayContaining(['maxAttempts']),
			);
			expect((collection.options as INodeProperties[]).map((o) => o.name)).not.toEqual(
				expect.arrayContaining(['maxRetryWaitSeconds']),
			);
			expect(collection.description).toMatch(/Retry On Fail/);
		}
		for (const collection of advanced(3)) {
			expect((collection.options as INodeProperties[]).map((o) => o.name)).toEqual(
				expect.arrayContaining(['maxAttempts', 'maxRetryWaitSeconds']),
			);
		}
		expect(advanced(4)).toHaveLength(advanced(3).length);
	});
});

describe('Output', () => {
	test('Get: Simplified by default; Raw is the record as the API gives it', async () => {
		const key = String(all[0].appointment_key);
		const [simple] = await runOk(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(key),
		});
		const record = await apiRecord(key);
		expect(simple).toEqual(simplified(record));
		const [raw] = await runOk(sb, {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(key),
			output: 'raw',
		});
		expect(raw).toEqual(record);
	});

	test('Get Many: Selected Fields keeps only those, nested as in the record; a field the record lacks is left out', async () => {
		const getMany = { resource: 'appointment', operation: 'getAll', limit: 3 };
		const raw = await runOk(sb, { ...getMany, output: 'raw' });
		const out = await runOk(sb, {
			...getMany,
			output: 'selectedFields',
			fields: ['status', 'person.email', 'calendar.name', 'no_such_field'],
		});
		expect(raw).toHaveLength(3);
		expect(out).toEqual(
			raw.map((a) => ({
				status: a.status,
				person: { email: (a.person as IDataObject).email },
				calendar: { name: (a.calendar as IDataObject).name },
			})),
		);
	});

	test('an expression may give the fields as text, with any dot path of the record', async () => {
		const key = String(all[1].appointment_key);
		const [picked] = await runOk(
			sb,
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: rl('={{ $json.key }}'),
				output: 'selectedFields',
				fields: '={{ $json.fields }}',
			},
			{ input: [{ key, fields: 'appointment_key, calendar.calendar_key' }] },
		);
		expect(picked).toEqual({
			appointment_key: key,
			calendar: { calendar_key: (all[1].calendar as IDataObject).calendar_key },
		});
	});

	test('bad Output or Fields fail before anything is sent, naming the field and the item', async () => {
		const get = {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: rl(String(all[0].appointment_key)),
		};
		const noFields = await runFail(sb, { ...get, output: 'selectedFields', fields: [] });
		expect(noFields.message).toBe(
			'The field "Fields" (item 0) must be one or more fields of the appointment, such as status or person.email (got [])',
		);
		const unsafe = await runFail(sb, {
			...get,
			output: 'selectedFields',
			fields: '__proto__.polluted',
		});
		expect(unsafe.message).toMatch(
			/^The field "Fields" \(item 0\) must be .* \(got "__proto__.polluted"\)$/,
		);
		const output = await runFail(sb, { ...get, output: 'everything' });
		expect(output.message).toBe(
			'The field "Output" (item 0) must be one of Simplified (simple), Raw (raw), Selected Fields (selectedFields) (got "everything")',
		);
		expect(await apiRequests(admin)).toEqual([]);
	});

	test('saved version 2 and 3 nodes keep their Simplify', async () => {
		const key = String(all[0].appointment_key);
		for (const version of [2, 3]) {
			const [full] = await runOk(
				sb,
				{
					resource: 'appointment',
					operation: 'get',
					appointmentKey: rl(key),
					simplify: false,
					output: 'selectedFields',
				},
				{ version },
			);
			expect(full).toEqual(await apiRecord(key));
		}
	});
});

describe('as an AI tool', () => {
	test('still usable as a tool, each operation with its description for the agent; Output is the builder’s to set', () => {
		const v4 = description(4);
		expect(v4.usableAsTool).toBe(true);
		const tools = v4.properties.filter((p) => p.name === 'toolDescription');
		expect(
			tools.map((p) => `${p.displayOptions!.show!.resource} ${p.displayOptions!.show!.operation}`),
		).toEqual(
			description(3)
				.properties.filter((p) => p.name === 'toolDescription')
				.map((p) => `${p.displayOptions!.show!.resource} ${p.displayOptions!.show!.operation}`),
		);
		for (const operation of ['get', 'getAll']) {
			const [output] = shownFor(4, operation, 'output');
			expect(output.displayOptions?.show?.['@tool']).toBeUndefined();
			expect(output.displayOptions?.hide).toBeUndefined();
		}
	});
});
