/**
 * Part 1: Get Many with Return All over 10,000 appointments, at the sandbox's default page size and at its
 * maximum. The node runs through test/helpers/n8n.ts (n8n-core's real WorkflowExecute, n8n's own HTTP helper);
 * the baseline is a bare undici loop in the same process that fetches the very same pages (it starts at the URL
 * the node requested first and follows `next`, and the sandbox's request log is compared to prove the pages are
 * the same). Both run warm (warm-up runs first), alternate, and the median of several runs is taken; a GC runs
 * before every timed run. The node's time includes n8n's fixed cost of one workflow execution, which is also
 * measured on its own (a no-op node in the same harness) and reported beside it.
 *
 * With Limit 100 the sandbox's request log must show only the pages needed (ceil(100 / page size)).
 */
import { request, Agent } from 'undici';
import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	clearSandboxRequests,
	median,
	queryString,
	round,
	sandboxRequests,
	startBenchSandbox,
	type PartContext,
	type Row,
} from '../lib/common';
import { configurePageSize, gc, loadRunNode } from '../lib/node';

const LIST_PATH = '/api/v3/appointments/';

export async function runListPart(ctx: PartContext): Promise<Row[]> {
	const total = ctx.smoke ? 600 : 10000;
	const runs = ctx.smoke ? 1 : 7;
	const warmups = ctx.smoke ? 1 : 2;
	const { runNode } = loadRunNode();
	const rows: Row[] = [];

	ctx.log(`part 1: sandbox with ${total} appointments`);
	const sb = await startBenchSandbox({ seed: total });
	const admin = new Client(sb.url, ADMIN_TOKEN);
	const bareAgent = new Agent({ keepAliveTimeout: 30000 });
	try {
		const credentials = { baseUrl: sb.url, accessToken: API_TOKEN };
		const parameters = {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'all',
			filters: {},
			options: {},
		};

		// n8n's fixed cost of one execution in this harness: a node that only passes its input through.
		const fixed: number[] = [];
		for (let i = 0; i < warmups + runs; i++) {
			gc();
			const t0 = performance.now();
			const r = await runNode({ parameters: {}, credentials, nodeType: passThroughNode() });
			const ms = performance.now() - t0;
			if (r.error) throw r.error;
			if (i >= warmups) fixed.push(ms);
		}
		const fixedMs = median(fixed);

		const sizes = await pageSizes(admin);
		for (const [label, pageSize] of [
			['default', sizes.defaultSize],
			['max', sizes.maxSize],
		] as const) {
			await configurePageSize(admin, sb.url, pageSize);
			const pages = Math.ceil(total / pageSize);

			// Warm-up, and the pages the node fetches.
			let nodePages: string[] = [];
			for (let i = 0; i < warmups; i++) {
				await clearSandboxRequests(admin);
				const r = await runNode({ parameters, credentials });
				if (r.error) throw new Error(`Get Many failed: ${r.error.message}`);
				const count = r.items[0]?.length ?? 0;
				if (count !== total) throw new Error(`Get Many returned ${count} items, expected ${total}`);
				nodePages = listRequests(await sandboxRequests(admin));
			}
			if (nodePages.length !== pages) {
				throw new Error(`the node fetched ${nodePages.length} pages at page size ${pageSize}, expected ${pages}`);
			}
			const firstUrl = sb.url + nodePages[0];
			for (let i = 0; i < warmups; i++) {
				await clearSandboxRequests(admin);
				const got = await bareLoop(firstUrl, bareAgent);
				if (got !== total) throw new Error(`the bare loop got ${got} records, expected ${total}`);
				const barePages = listRequests(await sandboxRequests(admin));
				if (barePages.join('\n') !== nodePages.join('\n')) {
					throw new Error(
						`the bare loop fetched other pages than the node:\nnode: ${nodePages.slice(0, 3).join(' ')}...\nbare: ${barePages.slice(0, 3).join(' ')}...`,
					);
				}
			}

			const nodeMs: number[] = [];
			const bareMs: number[] = [];
			for (let i = 0; i < runs; i++) {
				// Alternate which goes first so neither always runs right after the other's garbage.
				const order = i % 2 === 0 ? ['node', 'bare'] : ['bare', 'node'];
				for (const which of order) {
					await clearSandboxRequests(admin);
					gc();
					if (which === 'node') {
						const t0 = performance.now();
						const r = await runNode({ parameters, credentials });
						const ms = performance.now() - t0;
						if (r.error || r.items[0]?.length !== total) throw new Error(`Get Many failed in run ${i}`);
						nodeMs.push(ms);
					} else {
						const t0 = performance.now();
						const got = await bareLoop(firstUrl, bareAgent);
						const ms = performance.now() - t0;
						if (got !== total) throw new Error(`bare loop failed in run ${i}`);
						bareMs.push(ms);
					}
				}
			}
			const node = median(nodeMs);
			const bare = median(bareMs);
			const ratio = node / bare;
			ctx.log(`part 1: page size ${pageSize}: node ${node.toFixed(0)} ms, bare ${bare.toFixed(0)} ms, ratio ${ratio.toFixed(3)}`);
			rows.push({
				part: 1,
				name: `Get Many, Return All, ${total} items, page ${pageSize} (${label}): node / bare undici`,
				value: round(node, 1),
				baseline: round(bare, 1),
				unit: 'ms',
				ratio: round(ratio, 3),
				target: '<= 1.15',
				met: ratio <= 1.15,
				details: {
					pages,
					pageSize,
					runs,
					warmups,
					nodeMs: nodeMs.map((v) => round(v, 1)),
					bareMs: bareMs.map((v) => round(v, 1)),
					fixedExecutionMs: round(fixedMs, 2),
					ratioWithoutFixedCost: round((node - fixedMs) / bare, 3),
					nodeMsPerPage: round(node / pages, 3),
					bareMsPerPage: round(bare / pages, 3),
					firstPage: nodePages[0],
				},
			});

			// Limit 100: only the pages needed.
			const limit = 100;
			const needed = Math.ceil(Math.min(limit, total) / pageSize);
			await clearSandboxRequests(admin);
			const r = await runNode({ parameters: { ...parameters, returnAll: false, limit }, credentials });
			if (r.error) throw new Error(`Get Many with Limit ${limit} failed: ${r.error.message}`);
			const got = r.items[0]?.length ?? 0;
			const fetched = listRequests(await sandboxRequests(admin));
			rows.push({
				part: 1,
				name: `Get Many, Limit ${limit}, page ${pageSize}: list requests at the sandbox / pages needed`,
				value: fetched.length,
				baseline: needed,
				unit: 'requests',
				ratio: round(fetched.length / needed, 3),
				target: `= 1 (${needed} request${needed === 1 ? '' : 's'}, ${limit} items)`,
				met: fetched.length === needed && got === limit,
				details: { items: got, requests: fetched },
			});
		}
		rows.push({
			part: 1,
			name: 'n8n fixed cost of one execution in the harness (pass-through node; included in the node times above)',
			value: round(fixedMs, 2),
			unit: 'ms',
			details: { samples: fixed.map((v) => round(v, 2)) },
		});
	} finally {
		await bareAgent.close();
		await admin.close();
		await sb.close();
	}
	return rows;
}

/** The bare baseline: GET the first page, then every `next`, parse each body, keep every record. */
async function bareLoop(firstUrl: string, dispatcher: Agent): Promise<number> {
	const records: unknown[] = [];
	let next: string | undefined = firstUrl;
	while (next) {
		const res = await request(next, {
			dispatcher,
			headers: { authorization: `Bearer ${API_TOKEN}`, accept: 'application/json' },
		});
		if (res.statusCode !== 200) throw new Error(`GET ${next} answered ${res.statusCode}`);
		const body = (await res.body.json()) as { results: unknown[]; next?: string | null };
		for (const record of body.results) records.push(record);
		next = body.next ? new URL(body.next, next).href : undefined;
	}
	return records.length;
}

/** The list requests in the sandbox's log, as path?query strings. */
function listRequests(requests: Array<{ method: string; path: string; query?: unknown }>): string[] {
	return requests
		.filter((r) => r.method === 'GET' && r.path.replace(/\?.*$/, '') === LIST_PATH)
		.map((r) => {
			const inPath = r.path.includes('?') ? r.path.slice(r.path.indexOf('?') + 1) : '';
			const q = inPath || queryString(r.query);
			return q ? `${LIST_PATH}?${q}` : LIST_PATH;
		});
}

async function pageSizes(admin: Client): Promise<{ defaultSize: number; maxSize: number }> {
	const config = (await admin.ok('GET', '/__sandbox/config/')) as IDataObject;
	const find = (re: RegExp): number | undefined => {
		for (const [k, v] of Object.entries(config)) if (re.test(k) && typeof v === 'number') return v;
		return undefined;
	};
	return {
		defaultSize: find(/^(default)?page_?size$/i) ?? 50,
		maxSize: find(/^max_?page_?size$/i) ?? 500,
	};
}

function passThroughNode(): INodeType {
	return {
		description: {
			displayName: 'Pass Through',
			name: 'benchPassThrough',
			group: ['transform'],
			version: 1,
			description: 'Returns its input',
			defaults: { name: 'Pass Through' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: { getInputData(): INodeExecutionData[] }) {
			return [this.getInputData()];
		},
	} as unknown as INodeType;
}
