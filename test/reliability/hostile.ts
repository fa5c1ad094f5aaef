/**
 * What the hostile-service test files share: a small fake service (reset before each test to answer 404), a runner of
 * the action node against it, and the records and operations the cases use.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, type RunNodeResult } from '../helpers/n8n';
import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { TOKEN } from './common';

export const KEY = '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e';
export const APPOINTMENT = {
	appointment_key: KEY,
	search_code: 'AB12',
	status: 'CONFIRMED',
	start_date: '2026-03-10T10:00:00-03:00',
};
export const HOOK_URL = 'https://hooks.test/n8n';
export const EVENTS = ['appointment.created'];

// a live binding: set in beforeAll, read by the tests of the file that called useFakeService
export let fake: FakeService;

/** Starts the fake service for the calling test file and resets its handler and log before each test. */
export function useFakeService(): void {
	beforeAll(async () => {
		fake = await startFakeService();
	});
	afterAll(async () => {
		await fake?.close();
	});
	beforeEach(() => {
		fake.requests.length = 0;
		fake.handle = (_req, res) => sendJson(res, 404, { detail: 'Not found.' });
	});
}

export async function run(
	parameters: IDataObject,
	opts: {
		baseUrl?: string;
		token?: string;
		continueOnFail?: boolean;
		input?: IDataObject[];
		settings?: { retryOnFail?: boolean; maxTries?: number; waitBetweenTries?: number };
		nodeTypeVersion?: number;
	} = {},
): Promise<RunNodeResult> {
	return await runNode({
		parameters: { advanced: { maxRetryWaitSeconds: 1 }, ...parameters },
		credentials: { baseUrl: opts.baseUrl ?? fake.url, accessToken: opts.token ?? TOKEN },
		continueOnFail: opts.continueOnFail,
		input: opts.input,
		settings: opts.settings,
		nodeTypeVersion: opts.nodeTypeVersion,
	});
}

export const OPERATIONS_WITH_ONE_RECORD: Array<[string, IDataObject]> = [
	['Get', { resource: 'appointment', operation: 'get', appointmentKey: KEY }],
	[
		'Update Status',
		{ resource: 'appointment', operation: 'updateStatus', appointmentKey: KEY, status: 'ATTENDED' },
	],
	[
		'Reschedule',
		{
			resource: 'appointment',
			operation: 'reschedule',
			appointmentKey: KEY,
			startDate: '2026-03-10T11:00:00-03:00',
		},
	],
	[
		'Cancel',
		{ resource: 'appointment', operation: 'cancel', appointmentKey: KEY, sendEmail: false },
	],
	[
		'Webhook Create',
		{ resource: 'webhook', operation: 'create', url: HOOK_URL, events: EVENTS, otherEvents: '' },
	],
	[
		'Webhook Update',
		{
			resource: 'webhook',
			operation: 'update',
			webhookKey: 'w1',
			url: HOOK_URL,
			events: EVENTS,
			otherEvents: '',
		},
	],
];
