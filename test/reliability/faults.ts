/* eslint-disable @typescript-eslint/no-explicit-any -- records from the sandbox and run data are arbitrary JSON */
/**
 * What the fault test files share: the sandbox (with a check, after each file, that no run showed the token), a
 * runner of the action node that keeps what each run shows, and every operation of the node with the fixture it runs
 * on and the check of its result.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, type RunNodeOptions, type RunNodeResult } from '../helpers/n8n';
import { TestSandbox, TOKEN, visibleTexts } from './common';

// live bindings: set in beforeAll, read by the tests of the file that called useFaultSandbox
export let sb: TestSandbox;
export const seen: string[] = [];
const more: TestSandbox[] = [];

/** Starts the sandbox for the calling test file; when the file is done, no text a run showed holds the token. */
export function useFaultSandbox(): void {
	beforeAll(async () => {
		sb = await TestSandbox.start({ seed: 60, seedValue: 11 });
	});

	afterAll(async () => {
		await Promise.all([sb, ...more.splice(0)].map((box) => box?.close()));
		expect(seen.length).toBeGreaterThan(0);
		for (const text of seen) expect(text).not.toContain(TOKEN);
	});
}

/** A sandbox of the case's own (closed with the file's), so that cases whose faults and fixtures would meet can run at the same time. */
export async function ownSandbox(): Promise<TestSandbox> {
	const box = await TestSandbox.start({ seed: 60, seedValue: 11 });
	more.push(box);
	return box;
}

export async function run(
	parameters: Record<string, unknown>,
	continueOnFail = false,
	nodeTypeVersion?: number,
	box: TestSandbox = sb,
	settings?: RunNodeOptions['settings'],
): Promise<RunNodeResult> {
	const result = await runNode({
		parameters: parameters as IDataObject,
		credentials: { baseUrl: box.url, accessToken: TOKEN },
		continueOnFail,
		nodeTypeVersion,
		settings,
	});
	seen.push(...visibleTexts(result));
	return result;
}

export const out = (r: RunNodeResult) =>
	(r.items[0] ?? []).map((i) => i.json as Record<string, any>);

export const CANCELED = ['CANCELED', 'CANCELED_CLIENT', 'CANCELED_GOOGLE'];
export const RESCHEDULE_TO = '2031-03-04T15:30:00-03:00';

export interface Fixture {
	/** The sandbox it was made on. */
	sb: TestSandbox;
	keys: { get: string; update: string; reschedule: string; cancel: string };
	webhooks: { update: string; del: string; listed: string[] };
	createUrl: string;
}

/** Fresh seed, two webhooks, and one appointment per mutating operation (not cancelled, so every move is allowed). */
export async function prepare(tag: string, box: TestSandbox = sb): Promise<Fixture> {
	await box.reset(60, 11);
	const all = await box.allAppointments();
	const open = all.filter(
		(a) => !CANCELED.includes(a.status) && !['ATTENDED', 'NO_SHOW'].includes(a.status),
	);
	expect(open.length).toBeGreaterThan(4);
	const w1 = await box.api('POST', 'webhooks/', {
		url: `https://hooks.test/${tag}/one`,
		events: ['appointment.created'],
	});
	const w2 = await box.api('POST', 'webhooks/', {
		url: `https://hooks.test/${tag}/two`,
		events: ['appointment.updated'],
	});
	expect([w1.status, w2.status]).toEqual([201, 201]);
	await box.clearRequests();
	return {
		sb: box,
		keys: {
			get: open[0].appointment_key,
			update: open[1].appointment_key,
			reschedule: open[2].appointment_key,
			cancel: open[3].appointment_key,
		},
		webhooks: {
			update: w1.body.webhook_key,
			del: w2.body.webhook_key,
			listed: [w1.body.webhook_key, w2.body.webhook_key],
		},
		createUrl: `https://hooks.test/${tag}/created`,
	};
}

export interface Operation {
	name: string;
	method: string;
	/** Path of the request the fault is aimed at. */
	path: (f: Fixture) => string;
	parameters: (f: Fixture) => Record<string, unknown>;
	/** What a user sees when it worked: the output items and the state of the service. */
	verify: (f: Fixture, items: Array<Record<string, any>>) => Promise<void>;
}

export const OPERATIONS: Operation[] = [
	{
		name: 'appointment getAll',
		method: 'GET',
		path: () => '/api/v3/appointments/',
		parameters: () => ({
			resource: 'appointment',
			operation: 'getAll',
			returnAll: false,
			limit: 7,
			dateRange: 'all',
			filters: {},
			output: 'raw',
		}),
		verify: async (f, items) => {
			const page = await f.sb.api<{ results: Array<{ appointment_key: string }> }>(
				'GET',
				'appointments/?page_size=7',
			);
			expect(items.map((i) => i.appointment_key)).toEqual(
				page.body.results.map((a) => a.appointment_key),
			);
		},
	},
	{
		name: 'appointment get',
		method: 'GET',
		path: (f) => `/api/v3/appointments/${f.keys.get}/`,
		parameters: (f) => ({ resource: 'appointment', operation: 'get', appointmentKey: f.keys.get }),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.get);
		},
	},
	{
		name: 'appointment updateStatus',
		method: 'PATCH',
		path: (f) => `/api/v3/appointments/${f.keys.update}/`,
		parameters: (f) => ({
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: f.keys.update,
			status: 'ATTENDED',
		}),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0]).toMatchObject({ appointment_key: f.keys.update, status: 'ATTENDED' });
			expect((await f.sb.appointment(f.keys.update)).status).toBe('ATTENDED');
		},
	},
	{
		name: 'appointment reschedule',
		method: 'PATCH',
		path: (f) => `/api/v3/appointments/${f.keys.reschedule}/reschedule/`,
		parameters: (f) => ({
			resource: 'appointment',
			operation: 'reschedule',
			appointmentKey: f.keys.reschedule,
			startDate: RESCHEDULE_TO,
		}),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.reschedule);
			expect(Date.parse(items[0].start_date)).toBe(Date.parse(RESCHEDULE_TO));
			expect(Date.parse((await f.sb.appointment(f.keys.reschedule)).start_date)).toBe(
				Date.parse(RESCHEDULE_TO),
			);
		},
	},
	{
		name: 'appointment cancel',
		method: 'DELETE',
		path: (f) => `/api/v3/appointments/${f.keys.cancel}/`,
		parameters: (f) => ({
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: f.keys.cancel,
			sendEmail: true,
		}),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			expect(items[0].appointment_key).toBe(f.keys.cancel);
			expect(CANCELED).toContain((await f.sb.appointment(f.keys.cancel)).status);
			// one cancellation e-mail, not one per attempt
			expect((await f.sb.emails()).filter((e) => e.appointment_key === f.keys.cancel)).toHaveLength(
				1,
			);
		},
	},
	{
		name: 'webhook getAll',
		method: 'GET',
		path: () => '/api/v3/webhooks/',
		parameters: () => ({ resource: 'webhook', operation: 'getAll', returnAll: true }),
		verify: async (f, items) =>
			expect(items.map((w) => w.webhook_key).sort()).toEqual(
				(await f.sb.webhooks()).map((w) => w.webhook_key).sort(),
			),
	},
	{
		name: 'webhook create',
		method: 'POST',
		path: () => '/api/v3/webhooks/',
		parameters: (f) => ({
			resource: 'webhook',
			operation: 'create',
			url: f.createUrl,
			events: ['appointment.created', 'appointment.canceled'],
			otherEvents: '',
		}),
		verify: async (f, items) => {
			const stored = (await f.sb.webhooks()).filter((w) => w.url === f.createUrl);
			expect(stored).toHaveLength(1);
			expect(items).toHaveLength(1);
			expect(items[0].webhook_key).toBe(stored[0].webhook_key);
			expect([...stored[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		},
	},
	{
		name: 'webhook update',
		method: 'PUT',
		path: (f) => `/api/v3/webhooks/${f.webhooks.update}/`,
		parameters: (f) => ({
			resource: 'webhook',
			operation: 'update',
			webhookKey: f.webhooks.update,
			url: `${f.createUrl}-moved`,
			events: ['appointment.updated'],
			otherEvents: '',
		}),
		verify: async (f, items) => {
			expect(items).toHaveLength(1);
			const stored = (await f.sb.webhooks()).find((w) => w.webhook_key === f.webhooks.update);
			expect(stored).toMatchObject({
				url: `${f.createUrl}-moved`,
				events: ['appointment.updated'],
			});
		},
	},
	{
		name: 'webhook delete',
		method: 'DELETE',
		path: (f) => `/api/v3/webhooks/${f.webhooks.del}/`,
		parameters: (f) => ({ resource: 'webhook', operation: 'delete', webhookKey: f.webhooks.del }),
		verify: async (f, items) => {
			expect(items).toEqual([expect.objectContaining({ deleted: true })]);
			expect((await f.sb.webhooks()).map((w) => w.webhook_key)).not.toContain(f.webhooks.del);
		},
	},
];
