/**
 * Part 2: Bulk Update Status of 1,000 items with the sandbox adding 20 ms to every API response (a real network
 * round trip). The node runs through the n8n-core harness with Options > Concurrency 1 and 10; the target is the
 * node against n8n's HTTP helper in a plain loop doing the same PATCHes (what our code adds); the ideal
 * N x 20 ms / concurrency is context. The output must keep the input's order and pairing: item i of the output is
 * the appointment of input item i, paired to item i. Then the requests 1,000 updates cost against a service that
 * answers with the record and one that answers 204 (read back with GET), counted in the sandbox's log.
 *
 * Context row: a bare undici loop of the same PATCH requests at concurrency 1 shows the floor the sandbox and
 * the timer resolution give (how far above 20 ms one request is before any node code runs).
 */
import { Agent, request } from 'undici';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	clearSandboxRequests,
	median,
	round,
	sandboxRequests,
	startSandboxProcess,
	type PartContext,
	type Row,
} from '../lib/common';
import { gc, loadRunNode } from '../lib/node';

const LATENCY_MS = 20;
const STATUSES = ['ATTENDED', 'NO_SHOW'];

export async function runBulkPart(ctx: PartContext): Promise<Row[]> {
	const n = ctx.smoke ? 40 : 1000;
	const bareN = ctx.smoke ? 20 : 200;
	const { runNode } = loadRunNode();
	const rows: Row[] = [];

	// The service in a process of its own: at concurrency 10 it must not take the node's core.
	const sb = await startSandboxProcess({ seed: Math.max(300, Math.ceil(n * 1.5)), latencyMs: 0 });
	const admin = new Client(sb.url, ADMIN_TOKEN);
	const api = new Client(sb.url, API_TOKEN);
	const agent = new Agent({ keepAliveTimeout: 30000 });
	try {
		const keys = await updatableKeys(api, n);
		const credentials = { baseUrl: sb.url, accessToken: API_TOKEN };
		const params = (status: string, concurrency: number) => ({
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: '={{ $json.appointment_key }}',
			status,
			advanced: { concurrency },
		});
		const input = keys.map((appointment_key, position) => ({ appointment_key, position }));

		const floorType = helperLoopNode();
		// Warm-up without latency: the code paths, the expression engine, the connections.
		for (const concurrency of [1, 10]) {
			for (const nodeType of [undefined, floorType]) {
				const r = await runNode({ parameters: params(STATUSES[1], concurrency), credentials, input: input.slice(0, 50), ...(nodeType ? { nodeType } : {}) });
				if (r.error) throw new Error(`Update Status failed in the warm-up: ${r.error.message}`);
			}
		}

		await setLatency(admin, LATENCY_MS);

		let runNo = 0;
		for (const [concurrency, target] of [
			[1, 1.1],
			[10, 1.3],
		] as const) {
			const ideal = (n * LATENCY_MS) / concurrency;
			const ms: Record<'node' | 'floor', number> = { node: 0, floor: 0 };
			for (const which of ['node', 'floor'] as const) {
				const status = STATUSES[runNo++ % 2];
				gc();
				const t0 = performance.now();
				const r = await runNode({ parameters: params(status, concurrency), credentials, input, ...(which === 'floor' ? { nodeType: floorType } : {}) });
				ms[which] = performance.now() - t0;
				if (r.error) throw new Error(`Update Status (${which}, concurrency ${concurrency}) failed: ${r.error.message}`);
				const check = orderAndPairing(r.items[0] ?? [], keys, status);
				ctx.log(`part 2: ${which} concurrency ${concurrency}: ${ms[which].toFixed(0)} ms, ideal ${ideal} ms, ratio ${(ms[which] / ideal).toFixed(3)}; ${check.summary}`);
				if (which === 'floor') {
					if (check.good !== n) throw new Error(`the n8n helper loop is wrong: ${check.summary}`);
					continue;
				}
				rows.push({
					part: 2,
					// Context, not a target: every request must pass n8n's HTTP helper, which alone is this far above the
					// ideal (the next rows); the target is what our code adds to that.
					name: `Context: Update Status, ${n} items, ${LATENCY_MS} ms latency, concurrency ${concurrency}: node / ideal`,
					value: round(ms.node, 0),
					baseline: ideal,
					unit: 'ms',
					ratio: round(ms.node / ideal, 3),
					details: { msPerItemAboveLatency: round((ms.node * concurrency) / n - LATENCY_MS, 3), formerTarget: `<= ${target}` },
				});
				rows.push({
					part: 2,
					name: `Update Status, concurrency ${concurrency}: output items in input order, paired, with the new status`,
					value: check.good,
					baseline: n,
					unit: 'items',
					target: `all ${n}`,
					met: check.good === n && check.total === n,
					details: { firstProblem: check.firstProblem, outputItems: check.total },
				});
			}
			rows.push({
				part: 2,
				name: `Context: n8n's HTTP helper in a plain loop (same expression, same PATCHes, concurrency ${concurrency}) / ideal`,
				value: round(ms.floor, 0),
				baseline: ideal,
				unit: 'ms',
				ratio: round(ms.floor / ideal, 3),
			});
			rows.push({
				part: 2,
				name: `Update Status, concurrency ${concurrency}: node / n8n's HTTP helper in a plain loop (what our code adds)`,
				value: round(ms.node, 0),
				baseline: round(ms.floor, 0),
				unit: 'ms',
				ratio: round(ms.node / ms.floor, 3),
				target: '<= 1.1',
				met: ms.node / ms.floor <= 1.1,
			});
		}

		// Requests per update: a read-back GET only when the service answers without the record.
		await setLatency(admin, 0);
		for (const [mutationResponse, perItem, what] of [
			['body', 1, 'one PATCH each, no read-back'],
			['empty', 2, 'PATCH + read-back GET each'],
		] as const) {
			await admin.ok('POST', '/__sandbox/config/', { mutationResponse });
			await clearSandboxRequests(admin);
			const status = STATUSES[runNo++ % 2];
			const r = await runNode({ parameters: params(status, 10), credentials, input });
			if (r.error) throw new Error(`Update Status against a service answering ${mutationResponse} failed: ${r.error.message}`);
			const check = orderAndPairing(r.items[0] ?? [], keys, status);
			const log = (await sandboxRequests(admin)).filter((q) => q.path.startsWith('/api/v3/appointments/'));
			const patches = log.filter((q) => q.method === 'PATCH').length;
			const gets = log.filter((q) => q.method === 'GET').length;
			ctx.log(`part 2: ${n} updates, service answers ${mutationResponse}: ${patches} PATCH + ${gets} GET; ${check.summary}`);
			rows.push({
				part: 2,
				name: `Update Status, ${n} items, service answering ${mutationResponse === 'body' ? 'with the record' : '204 without a body'}: requests / items`,
				value: log.length,
				baseline: n,
				unit: 'req.',
				ratio: round(log.length / n, 3),
				target: `= ${perItem} (${what})`,
				met: patches === n && gets === (perItem - 1) * n && check.good === n,
				details: { patches, gets, firstProblem: check.firstProblem },
			});
		}
		await admin.ok('POST', '/__sandbox/config/', { mutationResponse: 'body' });
		await setLatency(admin, LATENCY_MS);

		// Context: a bare undici loop of the same PATCH requests, one at a time.
		const samples: number[] = [];
		const t0 = performance.now();
		for (let i = 0; i < bareN; i++) {
			const s = performance.now();
			const res = await request(`${sb.url}/api/v3/appointments/${encodeURIComponent(keys[i])}/`, {
				method: 'PATCH',
				dispatcher: agent,
				headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
				body: JSON.stringify({ status: STATUSES[0] }),
			});
			await res.body.text();
			if (res.statusCode >= 300) throw new Error(`bare PATCH answered ${res.statusCode}`);
			samples.push(performance.now() - s);
		}
		const bareMs = performance.now() - t0;
		const bareIdeal = bareN * LATENCY_MS;
		rows.push({
			part: 2,
			name: `Context: bare undici PATCH loop, ${bareN} requests, concurrency 1 / ideal`,
			value: round(bareMs, 0),
			baseline: bareIdeal,
			unit: 'ms',
			ratio: round(bareMs / bareIdeal, 3),
			details: { medianRequestMs: round(median(samples), 3) },
		});
	} finally {
		await setLatency(admin, 0).catch(() => undefined);
		await agent.close();
		await api.close();
		await admin.close();
		await sb.close();
	}
	return rows;
}

/**
 * The floor for any n8n node doing this job: per item, read the same two parameters (the key through the same
 * expression) and PATCH through this.helpers.httpRequestWithAuthentication, `concurrency` at a time, output in
 * input order, paired. No validation, no retries, no read-back.
 */
function helperLoopNode(): INodeType {
	return {
		description: {
			displayName: 'n8n Helper Loop',
			name: 'benchHelperPatch',
			group: ['transform'],
			version: 1,
			description: 'PATCHes through n8n helpers',
			defaults: { name: 'n8n Helper Loop' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties: [
				{ displayName: 'Key', name: 'appointmentKey', type: 'string', default: '' },
				{ displayName: 'Status', name: 'status', type: 'string', default: '' },
				{ displayName: 'Advanced', name: 'advanced', type: 'json', default: {} },
			],
		},
		async execute(this: IExecuteFunctions) {
			const items = this.getInputData();
			const { baseUrl } = (await this.getCredentials('appointmentsApi')) as { baseUrl: string };
			const concurrency = Number((this.getNodeParameter('advanced', 0, {}) as IDataObject).concurrency ?? 1);
			const jobs = items.map((_, i) => ({
				key: String(this.getNodeParameter('appointmentKey', i)),
				status: String(this.getNodeParameter('status', i)),
			}));
			const out: INodeExecutionData[] = new Array(items.length);
			let nextIndex = 0;
			await Promise.all(
				Array.from({ length: Math.min(concurrency, items.length) }, async () => {
					while (nextIndex < jobs.length) {
						const i = nextIndex++;
						const json = (await this.helpers.httpRequestWithAuthentication.call(this, 'appointmentsApi', {
							method: 'PATCH',
							url: `${baseUrl}/api/v3/appointments/${jobs[i].key}/`,
							headers: { Accept: 'application/json' },
							body: { status: jobs[i].status },
							json: true,
						})) as IDataObject;
						out[i] = { json, pairedItem: { item: i } };
					}
				}),
			);
			return [out];
		},
	} as unknown as INodeType;
}

async function setLatency(admin: Client, latencyMs: number): Promise<void> {
	await admin.ok('POST', '/__sandbox/faults/', { latencyMs });
}

/** Keys of appointments whose status can be changed (not cancelled), `n` of them. */
async function updatableKeys(api: Client, n: number): Promise<string[]> {
	const keys: string[] = [];
	let next: string | undefined = '/api/v3/appointments/?page_size=500';
	while (next && keys.length < n) {
		const page = await api.ok('GET', next);
		const results = (Array.isArray(page) ? page : page.results) as Array<{ appointment_key: string; status: string }>;
		for (const r of results) if (!r.status.startsWith('CANCELED')) keys.push(r.appointment_key);
		next = !Array.isArray(page) && page.next ? page.next : undefined;
	}
	if (keys.length < n) throw new Error(`the sandbox has only ${keys.length} appointments that are not cancelled, need ${n}`);
	return keys.slice(0, n);
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const p = item.pairedItem as unknown;
	if (typeof p === 'number') return p;
	if (Array.isArray(p)) return p.length === 1 ? pairedIndexOf(p[0]) : undefined;
	return pairedIndexOf(p);
}

function pairedIndexOf(p: unknown): number | undefined {
	if (typeof p === 'number') return p;
	if (p && typeof p === 'object' && typeof (p as { item?: unknown }).item === 'number') return (p as { item: number }).item;
	return undefined;
}

function orderAndPairing(items: INodeExecutionData[], keys: string[], status: string) {
	let good = 0;
	let firstProblem: string | undefined;
	items.forEach((item, i) => {
		const json = item.json as { appointment_key?: string; status?: string };
		const problems: string[] = [];
		if (json.appointment_key !== keys[i]) problems.push(`appointment_key ${json.appointment_key} instead of ${keys[i]}`);
		if (pairedIndex(item) !== i) problems.push(`pairedItem ${JSON.stringify(item.pairedItem)}`);
		if (json.status !== status) problems.push(`status ${json.status} instead of ${status}`);
		if (problems.length === 0) good++;
		else firstProblem ??= `output item ${i}: ${problems.join(', ')}`;
	});
	return {
		good,
		total: items.length,
		firstProblem,
		summary: `${good}/${keys.length} output items in order and paired${firstProblem ? ` (first problem: ${firstProblem})` : ''}`,
	};
}
