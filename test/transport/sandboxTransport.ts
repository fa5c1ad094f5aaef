/**
 * Set-up shared by the sandbox.*.test.ts files: the transport test node run inside n8n-core's WorkflowExecute
 * against one sandbox per file, reset before each test with its request log emptied; the sandbox's admin routes
 * (faults, config, request log); and, after the file's tests, the check that the token appears in none of the run
 * data, errors, descriptions or log lines the file captured.
 */
import { runNode, type RunNodeResult } from '../helpers/n8n';
import { adminRequest, startTestSandbox, type Sandbox } from '../helpers/sandbox';
import { TransportTestNode } from './transportTestNode';

export const TOKEN = 'sbx-secret-token-9f3a7c';
export const LIMITED = 'sbx-limited-token-2b8e1d';
const ADMIN = 'sbx-admin-token-77aa';

let sb: Sandbox;
const leaks: string[] = [];

export async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
	return await adminRequest<T>(sb.url, ADMIN, method, path, body);
}

export const fault = (spec: Record<string, unknown>) => admin('POST', '/__sandbox/faults/', spec);
export const config = (spec: Record<string, unknown>) => admin('POST', '/__sandbox/config/', spec);
export const requests = async () =>
	(
		await admin<{ requests: Array<{ method: string; path: string; query: any; status: number }> }>(
			'GET',
			'/__sandbox/requests/',
		)
	).requests;

export async function run(
	parameters: Record<string, unknown>,
	extra: { baseUrl?: string; token?: string; input?: any[] } = {},
): Promise<RunNodeResult> {
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			...parameters,
			policy: JSON.stringify(parameters.policy ?? { baseDelayMs: 50 }),
		} as never,
		credentials: { baseUrl: extra.baseUrl ?? sb.url, accessToken: extra.token ?? TOKEN },
		input: extra.input,
	});
	leaks.push(JSON.stringify(result.run), ...result.logs);
	if (result.error) {
		leaks.push(
			result.error.message,
			String((result.error as any).description ?? ''),
			JSON.stringify(result.error),
			String(result.error.stack),
		);
	}
	return result;
}

export const records = (r: RunNodeResult) =>
	(r.items[0] ?? []).map((i) => i.json as Record<string, any>);

/** Starts the file's sandbox before its tests and hands it to `ready`; closes it and checks for leaks after. */
export function useTransportSandbox(ready?: (started: Sandbox) => void): void {
	beforeAll(async () => {
		sb = await startTestSandbox(
			{ token: TOKEN, limited: LIMITED, admin: ADMIN },
			{ seed: 120, seedValue: 7 },
		);
		ready?.(sb);
	});

	afterAll(async () => {
		await sb?.close();
		// The token must never appear in any run data, error, description or log line captured in this file.
		expect(leaks.length).toBeGreaterThan(10);
		for (const text of leaks) expect(text).not.toContain(TOKEN);
	});

	beforeEach(async () => {
		await admin('POST', '/__sandbox/reset/', { seed: 120, seedValue: 7 });
		await admin('DELETE', '/__sandbox/requests/');
	});
}
