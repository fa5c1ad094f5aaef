/**
 * Errors in the builder's words: each names the field as the editor labels it (per version), the value as the
 * editor shows it, the item (n8n's itemIndex), and carries a description that says how to fix it; the service's
 * refusals keep their message and start their description with the fix.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, run, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let keys: string[];

useSandbox({ seed: 142, seedValue: 4 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
	keys = (await admin.appointments()).map((a) => String(a.appointment_key));
	await admin.clearRequests();
});

type NodeError = Error & { description?: string; context?: { itemIndex?: number } };

async function failure(
	parameters: IDataObject,
	opts: Parameters<typeof run>[2] = {},
): Promise<NodeError> {
	const result = await run(sb, parameters, opts);
	if (!result.error) throw new Error(`expected a failure, got ${JSON.stringify(result.items)}`);
	return result.error as NodeError;
}

describe('bad input names the field, the shown value and the item, and says how to fix it', () => {
	test('the second item of three: its index, nothing sent for any item', async () => {
		const error = await failure(
			{
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: { __rl: true, mode: 'id', value: '={{ $json.key }}' },
				status: '={{ $json.status }}',
			},
			{
				input: [
					{ key: keys[0], status: 'ATTENDED' },
					{ key: keys[1], status: 'Done' },
					{ key: keys[2], status: 'NO_SHOW' },
				],
			},
		);
		expect(error.name).toBe('NodeOperationError');
		expect(error.context?.itemIndex).toBe(1);
		expect(error.message).toMatch(
			/^The field "Status" \(item 1\) must be one of Attended, Canceled, Canceled by Client, .*No Show, .* \(got "Done"\)$/,
		);
		expect(error.description).toMatch(
			/^Pick "Status" from the list; an expression must give the status's value: ATTENDED \(Attended\), /,
		);
		expect(await apiRequests(admin)).toHaveLength(0);
	});

	test('Date Range from an expression: the choices as the editor shows them, the values in the description', async () => {
		const error = await failure({
			resource: 'appointment',
			operation: 'getAll',
			dateRange: '={{ "next7days" }}',
		});
		expect(error.message).toBe(
			'The field "Date Range" (item 0) must be one of All Dates, Custom, Next 7 Days, This Week, Today, Tomorrow, Yesterday (got "next7days")',
		);
		expect(error.message).not.toMatch(/thisWeek|next7Days/);
		expect(error.description).toMatch(/next7Days \(Next 7 Days\)/);
	});

	test('Time Zone: how to fix it', async () => {
		const error = await failure({
			resource: 'appointment',
			operation: 'getAll',
			dateRange: 'today',
			options: { timeZone: 'Santiago' },
		});
		expect(error.message).toMatch(/^The field "Time Zone" \(item 0\) must be an IANA time zone/);
		expect(error.description).toBe(
			"Leave Time Zone empty to use the workflow's time zone, or type a name from the IANA list such as Europe/Berlin.",
		);
	});

	test('an Advanced setting out of range names its label; the description says what to set', async () => {
		const error = await failure({
			resource: 'appointment',
			operation: 'getAll',
			advanced: { pageConcurrency: 50 },
		});
		expect(error.message).toBe(
			'The field "Page Concurrency" (item 0) must be a whole number from 1 to 10 (got 50)',
		);
		expect(error.description).toMatch(
			/^Change "Page Concurrency" in the node, or the expression that fills it for item 0, so that it is a whole number from 1 to 10\.$/,
		);
	});

	test('version 1 names its own label, Appointment Key', async () => {
		const error = await failure(
			{ resource: 'appointment', operation: 'get', appointmentKey: 'nope' },
			{ version: 1 },
		);
		expect(error.message).toMatch(/^The field "Appointment Key" \(item 0\)/);
		expect(error.description).toContain('"Appointment Key"');
	});
});

describe("the service's refusals say how to fix them", () => {
	test('a wrong token: where to find the right one', async () => {
		const error = await failure(
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: { __rl: true, mode: 'id', value: keys[0] },
			},
			{ token: 'not-the-token-0000' },
		);
		expect(error.message).toBe('Authorization failed - check the access token');
		expect(error.description).toMatch(
			/^Open the Appointments API credential and paste the access token again from the service dashboard \(Settings › API access\)\. GET /,
		);
		expect(error.description).not.toContain('not-the-token');
	});

	test('an unknown appointment: pick it from the list', async () => {
		const error = await failure({
			resource: 'appointment',
			operation: 'get',
			appointmentKey: { __rl: true, mode: 'id', value: '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e' },
		});
		expect(error.message).toMatch(/not found/);
		expect(error.description).toMatch(/^Pick the record from the list, or check the key/);
	});
});
