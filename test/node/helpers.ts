/**
 * Shared set-up of the node's integration tests: a sandbox on loopback, its admin API, and runNode with the
 * sandbox's credential. Each test file starts its own sandbox (port 0) and closes it.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode, type RunNodeResult } from '../helpers/n8n';
import {
	adminRequest,
	startTestSandbox,
	type LoggedRequest,
	type Sandbox,
} from '../helpers/sandbox';

export const TOKEN = 'node-test-token';
export const LIMITED = 'node-limited-token';
export const ADMIN = 'node-admin-token';
export const ZONE = 'America/Santiago';

export type { LoggedRequest, Sandbox };

export async function start(options: Record<string, unknown> = {}): Promise<Sandbox> {
	return await startTestSandbox(
		{ token: TOKEN, limited: LIMITED, admin: ADMIN },
		{ seed: 40, seedValue: 7, timeZone: ZONE, ...options },
	);
}

export function adminClient(sb: Sandbox) {
	const call = async <T = IDataObject>(method: string, path: string, body?: unknown): Promise<T> =>
		await adminRequest<T>(sb.url, ADMIN, method, path, body);
	return {
		call,
		reset: async (body: IDataObject = {}) => await call('POST', '/__sandbox/reset/', body),
		config: async (patch: IDataObject) => await call('POST', '/__sandbox/config/', patch),
		fault: async (spec: IDataObject) => await call('POST', '/__sandbox/faults/', spec),
		clearFaults: async () => await call('DELETE', '/__sandbox/faults/'),
		requests: async () =>
			(await call<{ requests: LoggedRequest[] }>('GET', '/__sandbox/requests/')).requests,
		clearRequests: async () => await call('DELETE', '/__sandbox/requests/'),
		emails: async () =>
			(
				await call<{ emails: Array<{ appointment_key: string; to: string; type: string }> }>(
					'GET',
					'/__sandbox/emails/',
				)
			).emails,
		appointments: async () =>
			(await call<{ appointments: IDataObject[] }>('GET', '/__sandbox/appointments/')).appointments,
		appointment: async (key: string) => await call('GET', `/__sandbox/appointments/${key}/`),
		create: async (record: IDataObject) => await call('POST', '/__sandbox/appointments/', record),
		webhooks: async () =>
			(await call<{ webhooks: IDataObject[] }>('GET', '/__sandbox/webhooks/')).webhooks,
	};
}

export type Admin = ReturnType<typeof adminClient>;

/**
 * One sandbox for a test file: started before its tests with `options` (on top of start()'s), handed with its
 * admin client to `ready` (which keeps them), and closed after the file's tests.
 */
export function useSandbox(
	options: Record<string, unknown>,
	ready: (started: { sb: Sandbox; admin: Admin }) => void,
): void {
	let sb: Sandbox | undefined;
	beforeAll(async () => {
		sb = await start(options);
		ready({ sb, admin: adminClient(sb) });
	});
	afterAll(async () => {
		await sb?.close();
	});
}

export interface RunOptions {
	input?: IDataObject[];
	continueOnFail?: boolean;
	timezone?: string;
	token?: string;
	/** The credential's Account Time Zone (default: none, as a credential saved before the field existed). */
	accountTimeZone?: string;
	/** The node's typeVersion (default: the version n8n gives a new node). */
	version?: number;
}

export async function run(
	sb: Sandbox,
	parameters: IDataObject,
	opts: RunOptions = {},
): Promise<RunNodeResult> {
	return await runNode({
		parameters,
		credentials: {
			baseUrl: sb.url,
			accessToken: opts.token ?? TOKEN,
			...(opts.accountTimeZone === undefined ? {} : { accountTimeZone: opts.accountTimeZone }),
		},
		input: opts.input,
		continueOnFail: opts.continueOnFail,
		timezone: opts.timezone ?? ZONE,
		nodeTypeVersion: opts.version,
	});
}

/** Runs and expects success: the JSON of the first output. */
export async function runOk(
	sb: Sandbox,
	parameters: IDataObject,
	opts: RunOptions = {},
): Promise<IDataObject[]> {
	const result = await run(sb, parameters, opts);
	if (result.error) throw result.error;
	return (result.items[0] ?? []).map((item) => item.json);
}

/** Runs and expects the node to fail: its error. */
export async function runFail(
	sb: Sandbox,
	parameters: IDataObject,
	opts: RunOptions = {},
): Promise<Error & IDataObject> {
	const result = await run(sb, parameters, opts);
	if (!result.error)
		throw new Error(`expected the node to fail, got ${JSON.stringify(result.items)}`);
	return result.error as Error & IDataObject;
}

export function pairing(items: INodeExecutionData[]): number[] {
	return items.map((item) => {
		const paired = item.pairedItem;
		if (Array.isArray(paired)) return paired[0].item;
		if (typeof paired === 'number') return paired;
		return paired?.item ?? -1;
	});
}

export const sortKeys = (list: IDataObject[]) => list.map((a) => String(a.appointment_key)).sort();

/** API requests in the log (admin requests are never logged). */
export async function apiRequests(admin: Admin, method?: string): Promise<LoggedRequest[]> {
	const all = await admin.requests();
	return method ? all.filter((r) => r.method === method) : all;
}
