/**
 * What every user expects of the node on bad input: refused before any request, naming the field as the editor
 * labels it, the item and what was expected; and keys and statuses in other spellings accepted in canonical form.
 */
import type { IDataObject } from 'n8n-workflow';

import { useBehaviourSandbox } from './behaviourSandbox';
import { apiRequests, run, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let keys: string[];

useBehaviourSandbox((started) => ({ sb, admin, keys } = started));

describe('bad input: the item fails with a NodeOperationError before any request', () => {
	const cases: Array<[string, IDataObject, RegExp]> = [
		[
			'malformed appointment key',
			{ resource: 'appointment', operation: 'get', appointmentKey: 'abc/../x' },
			/^The field "Appointment" \(item 0\) must be a UUID such as .* \(got "abc\/\.\.\/x"\)$/,
		],
		[
			'empty appointment key',
			{ resource: 'appointment', operation: 'cancel', appointmentKey: '={{ "" }}' },
			/"Appointment" \(item 0\) must be a UUID/,
		],
		[
			'unknown status from an expression',
			{
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: '={{ $json.key }}',
				status: '={{ "DONE" }}',
			},
			/"Status" \(item 0\) must be one of Attended, Canceled, .*, Pending Payment \(got "DONE"\)/,
		],
		[
			'unparsable reschedule date',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: 'next tuesday',
			},
			/"New Start" \(item 0\): "next tuesday" is not a date: expected a date such as 2026-03-10/,
		],
		[
			'a wall-clock time skipped by the clock change',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: '2026-09-06T00:30:00',
			},
			/"New Start" \(item 0\): "2026-09-06T00:30:00" does not exist in America\/Santiago/,
		],
		[
			'unknown time zone',
			{
				resource: 'appointment',
				operation: 'reschedule',
				appointmentKey: '={{ $json.key }}',
				startDate: '2026-10-01T10:00:00',
				options: { timeZone: 'Mars/Base' },
			},
			/"Time Zone" \(item 0\) must be an IANA time zone/,
		],
		[
			'bad UUID in Calendar (By Key)',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { calendarKey: { __rl: true, mode: 'id', value: 'calendar-1' } },
			},
			/"Calendar" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID in Client Key',
			{ resource: 'appointment', operation: 'getAll', filters: { clientKey: '123' } },
			/"Client Key" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID in Person Key',
			{ resource: 'appointment', operation: 'getAll', filters: { personKey: 'x' } },
			/"Person Key" \(item 0\) must be a UUID/,
		],
		[
			'bad UUID among Service Keys',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { serviceKeys: '={{ $json.key }}, nope' },
			},
			/"Service Keys" \(item 0\) must be a list of UUIDs .*"nope" is not a UUID/,
		],
		[
			'bad UUID among Tag Keys (array)',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { tagKeys: '={{ [$json.key, 42] }}' },
			},
			/"Tag Keys" \(item 0\) must be a list of UUIDs .*42 is not a UUID/,
		],
		[
			'bad email',
			{ resource: 'appointment', operation: 'getAll', filters: { email: 'not an email' } },
			/"Email" \(item 0\) must be an email address/,
		],
		[
			'unknown status filter',
			{
				resource: 'appointment',
				operation: 'getAll',
				filters: { status: '={{ "confirmed-ish" }}' },
			},
			/"Status" \(item 0\) must be one of/,
		],
		[
			'unparsable Created At',
			{ resource: 'appointment', operation: 'getAll', filters: { createdAt: 'last week' } },
			/"Created At" \(item 0\): "last week" is not a date/,
		],
		[
			'unknown date range from an expression',
			{ resource: 'appointment', operation: 'getAll', dateRange: '={{ "lastMonth" }}' },
			/"Date Range" \(item 0\) must be one of All Dates, Custom, Next 7 Days, This Week, Today, Tomorrow, Yesterday \(got "lastMonth"\)/,
		],
		[
			'custom range without dates',
			{ resource: 'appointment', operation: 'getAll', dateRange: 'custom' },
			/"Start Date" \(item 0\) must be a date \(or an End Date\) when Date Range is Custom/,
		],
		[
			'custom range ending before it starts',
			{
				resource: 'appointment',
				operation: 'getAll',
				dateRange: 'custom',
				startDate: '2026-05-02',
				endDate: '2026-05-01',
			},
			/"End Date" \(item 0\) must be on or after the Start Date 2026-05-02T00:00:00/,
		],
		[
			'unparsable custom start',
			{
				resource: 'appointment',
				operation: 'getAll',
				dateRange: 'custom',
				startDate: '31/12/2026',
			},
			/"Start Date" \(item 0\): "31\/12\/2026" is not a date/,
		],
		[
			'is canceled not a boolean',
			{ resource: 'appointment', operation: 'getAll', filters: { isCancelled: '={{ "maybe" }}' } },
			/"Is Canceled" \(item 0\) must be true or false/,
		],
		[
			'limit 0',
			{ resource: 'appointment', operation: 'getAll', limit: 0 },
			/"Limit" \(item 0\) must be a whole number of at least 1/,
		],
		[
			'concurrency out of range',
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: '={{ $json.key }}',
				advanced: { concurrency: 50 },
			},
			/"Concurrency" \(item 0\) must be a whole number from 1 to 20 \(got 50\)/,
		],
		[
			'max attempts below 1 (version 3; version 4 has no Max Attempts)',
			{
				resource: 'appointment',
				operation: 'get',
				appointmentKey: '={{ $json.key }}',
				advanced: { maxAttempts: 0 },
			},
			/"Max Attempts" \(item 0\) must be a whole number from 1 to 20 \(got 0\)/,
		],
		[
			'send email not a boolean',
			{
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: '={{ $json.key }}',
				sendEmail: '={{ "yes please" }}',
			},
			/"Send Email to Client" \(item 0\) must be true or false/,
		],
		[
			'a webhook key that would change the path',
			{ resource: 'webhook', operation: 'delete', webhookKey: '../appointments' },
			/"Webhook" \(item 0\) must be a key without "\/" that is not "\." or "\.\."/,
		],
		[
			'http:// URL and bad events: the URL is named first',
			{
				resource: 'webhook',
				operation: 'create',
				url: 'http://example.com/h',
				events: [],
				otherEvents: 'a..b',
			},
			/"URL" \(item 0\) must use https/,
		],
		[
			'empty webhook key',
			{ resource: 'webhook', operation: 'delete', webhookKey: ' ' },
			/"Webhook" \(item 0\) must be a non-empty text/,
		],
	];

	test.each(cases)('%s', async (_name, parameters, message) => {
		const version =
			'maxAttempts' in ((parameters.advanced as IDataObject | undefined) ?? {}) ? 3 : undefined;
		const result = await run(sb, parameters, { input: [{ key: keys[0] }], version });
		expect(result.error?.message).toMatch(message);
		expect(result.error?.name).toBe('NodeOperationError');
		// the fix-it description names the field as the editor labels it
		const label = /"([^"]+)"/.exec(result.error!.message)![1];
		expect((result.error as Error & { description?: string }).description).toContain(label);
		expect(
			(result.error as unknown as { context?: { itemIndex?: number } }).context?.itemIndex ?? 0,
		).toBe(0);
		expect(await apiRequests(admin)).toHaveLength(0);
	});

	test('the item index is the failing item; with concurrency > 1 nothing is sent for the valid ones', async () => {
		for (const concurrency of [1, 4]) {
			const result = await run(
				sb,
				{
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: '={{ $json.key }}',
					status: 'ATTENDED',
					advanced: { concurrency },
				},
				{ input: [{ key: keys[0] }, { key: keys[1] }, { key: 'bad-key' }, { key: keys[3] }] },
			);
			expect(result.error?.message).toMatch(/^The field "Appointment" \(item 2\) must be a UUID/);
			expect(await apiRequests(admin)).toHaveLength(0);
		}
		const stored = await admin.appointments();
		expect(
			stored.filter((a) => a.status === 'ATTENDED').map((a) => a.appointment_key),
		).not.toContain(keys[0]);
	});
});

test('keys without hyphens or in upper case and statuses in lower case are accepted in canonical form', async () => {
	const bare = keys[1].replace(/-/g, '').toUpperCase();
	const result = await run(sb, {
		resource: 'appointment',
		operation: 'updateStatus',
		appointmentKey: ` ${bare} `,
		status: '={{ " no_show " }}',
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0][0].json.status).toBe('NO_SHOW');
	const [patch] = await apiRequests(admin, 'PATCH');
	expect(patch.path.toLowerCase()).toBe(`/api/v3/appointments/${keys[1]}/`);
});
