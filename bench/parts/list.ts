/**
 * Part 1: Get Many with Return All over 10,000 appointments, at the sandbox's default page size and at its
 * maximum, through test/helpers/n8n.ts (n8n-core's real WorkflowExecute, n8n's own HTTP helper). Targets: what our
 * code adds over n8n's HTTP helper in a plain loop fetching the same pages and reading each answer as a stream,
 * as bounding an answer's size and time requires (CPU time; the buffered loop is context), cursor paging likewise,
 * Limit 100 making only the requests it needs, and with 20 ms per request the node at its default Page
 * Concurrency (4) against the ideal ceil(pages / 4) x 20 ms and against the helper loop following `next`. A bare
 * undici loop over the same pages is context: no n8n node can reach it. Contestants run warm and alternate, a GC
 * runs before every timed run, medians are taken; n8n's fixed cost of one execution is reported beside them.
 */
import { Agent } from 'undici';
import type { IDataObject, INodeType } from 'n8n-workflow';
import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	clearSandboxRequests,
	median,
	round,
	sandboxRequests,
	startBenchSandbox,
	type PartContext,
	type Row,
	type Sandbox,
} from '../lib/common';
import {
	bareLoop,
	helperLoopNode,
	listRequests,
	pageSizes,
	passThroughNode,
	samePages,
} from '../lib/list-loops';
import { configurePageSize, loadRunNode } from '../lib/node';
import { runRounds } from '../lib/rounds';
import { latencyRows } from './list-latency';
import { cursorRow, limitRow } from './list-paging';
import { roundRows, type Contestant, type ListBench } from './list-rows';

export async function runListPart(ctx: PartContext): Promise<Row[]> {
	const total = ctx.smoke ? 600 : 10000;
	const { runNode } = loadRunNode(ctx);
	ctx.log(`part 1: sandbox with ${total} appointments`);
	const sb = await startBenchSandbox({ seed: total });
	const admin = new Client(sb.url, ADMIN_TOKEN);
	const bareAgent = new Agent({ keepAliveTimeout: 30000 });
	try {
		const parameters = {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'all',
			filters: {},
			// Full records, as the bare loop and the helper loop keep them: the same output from all three (version 4
			// reads Output, whose default is Simplified; earlier versions read Simplify).
			simplify: false,
			output: 'raw',
			options: {},
		};
		const credentials = { baseUrl: sb.url, accessToken: API_TOKEN };
		const b: ListBench = {
			ctx,
			runNode,
			sb,
			admin,
			bareAgent,
			credentials,
			parameters,
			total,
			runs: ctx.smoke ? 1 : 11,
			warmups: ctx.smoke ? 1 : 2,
		};
		const fixed = await fixedCost(b);
		const fixedMs = median(fixed);
		const rows: Row[] = [];
		const sizes = await pageSizes(admin);
		rows.push(...(await pageSizeRows(b, 'default', sizes.defaultSize, fixedMs)));
		rows.push(...(await pageSizeRows(b, 'max', sizes.maxSize, fixedMs)));
		rows.push(await cursorRow(b, sizes.defaultSize));
		rows.push(
			...(await latencyRows(ctx, {
				runNode,
				parameters,
				total,
				pageSize: sizes.defaultSize,
				bareAgent,
			})),
		);
		rows.push({
			part: 1,
			name: 'n8n fixed cost of one execution in the harness (pass-through node; included in the node times above)',
			value: round(fixedMs, 2),
			unit: 'ms',
			details: { samples: fixed.map((v) => round(v, 2)) },
		});
		return rows;
	} finally {
		await bareAgent.close();
		await admin.close();
		await sb.close();
	}
}

/** n8n's fixed cost of one execution in this harness: a node that only passes its input through. */
async function fixedCost(b: ListBench): Promise<number[]> {
	const s = await runRounds({
		contestants: ['passThrough'],
		rounds: b.runs,
		warmups: b.warmups,
		run: () =>
			b.runNode({ parameters: {}, credentials: b.credentials, nodeType: passThroughNode() }),
		after: (_, r) => {
			if (r.error) throw r.error;
		},
	});
	return s.wallMs.passThrough;
}

async function pageSizeRows(
	b: ListBench,
	label: 'default' | 'max',
	pageSize: number,
	fixedMs: number,
): Promise<Row[]> {
	try {
		await configurePageSize(b.admin, b.sb.url, pageSize);
	} catch (error) {
		if (label === 'default') throw error;
		// The node never sends page_size: without a configurable default the sandbox's maximum cannot be reached.
		b.ctx.log(`part 1: page size ${pageSize} not measurable: ${(error as Error).message}`);
		return [
			{
				part: 1,
				name: `Get Many, Return All, ${b.total} items, page ${pageSize} (${label}): node / bare undici`,
				value: 'n/a',
				unit: 'ms',
				note: `not measured: ${(error as Error).message.split('\n')[0]}`,
			},
		];
	}
	const pages = Math.ceil(b.total / pageSize);
	const nodePages = await warmUpNode(b, pageSize, pages);
	const firstUrl = b.sb.url + nodePages[0];
	// The same pages through n8n's own HTTP helper in the plainest node possible: what any n8n node pays.
	const floorType = helperLoopNode(firstUrl);
	const streamType = helperLoopNode(firstUrl, true);
	await warmUpOthers(b, firstUrl, nodePages, floorType, streamType);

	const runsHere = label === 'max' ? b.runs * 2 : b.runs;
	const s = await runRounds({
		contestants: ['node', 'bare', 'floor', 'node1', 'floorStream'] as Contestant[],
		rounds: runsHere,
		before: () => clearSandboxRequests(b.admin),
		run: async (which, i) => {
			if (which === 'bare') return await bareLoop(firstUrl, b.bareAgent);
			const r = await b.runNode(
				which === 'node'
					? { parameters: b.parameters, credentials: b.credentials }
					: which === 'node1'
						? {
								parameters: { ...b.parameters, advanced: { pageConcurrency: 1 } },
								credentials: b.credentials,
							}
						: {
								parameters: {},
								credentials: b.credentials,
								nodeType: which === 'floor' ? floorType : streamType,
							},
			);
			if (r.error) throw new Error(`${which} failed in run ${i}: ${r.error.message}`);
			return r.items[0]?.length ?? 0;
		},
		after: (which, got, _, i) => {
			if (got !== b.total)
				throw new Error(`${which} got ${got} records in run ${i}, expected ${b.total}`);
		},
	});
	const rows = roundRows(b.ctx, {
		total: b.total,
		label,
		pageSize,
		pages,
		runs: runsHere,
		warmups: b.warmups,
		fixedMs,
		firstPage: nodePages[0],
		times: s.wallMs,
		cpu: s.cpuMs,
	});
	rows.push(await limitRow(b, pageSize));
	return rows;
}

/** Warm-up runs of the node; returns the pages it fetched (the pages every other contestant must fetch). */
async function warmUpNode(b: ListBench, pageSize: number, pages: number): Promise<string[]> {
	let nodePages: string[] = [];
	for (let i = 0; i < b.warmups; i++) {
		await clearSandboxRequests(b.admin);
		const r = await b.runNode({ parameters: b.parameters, credentials: b.credentials });
		if (r.error) throw new Error(`Get Many failed: ${r.error.message}`);
		const count = r.items[0]?.length ?? 0;
		if (count !== b.total) throw new Error(`Get Many returned ${count} items, expected ${b.total}`);
		nodePages = listRequests(await sandboxRequests(b.admin));
	}
	if (nodePages.length !== pages) {
		throw new Error(
			`the node fetched ${nodePages.length} pages at page size ${pageSize}, expected ${pages}`,
		);
	}
	return nodePages;
}

/** Warm-up runs of the bare loop and the helper loops, each checked to fetch the node's pages. */
async function warmUpOthers(
	b: ListBench,
	firstUrl: string,
	nodePages: string[],
	floorType: INodeType,
	streamType: INodeType,
): Promise<void> {
	for (let i = 0; i < b.warmups; i++) {
		await clearSandboxRequests(b.admin);
		const got = await bareLoop(firstUrl, b.bareAgent);
		if (got !== b.total) throw new Error(`the bare loop got ${got} records, expected ${b.total}`);
		const barePages = listRequests(await sandboxRequests(b.admin));
		if (samePages(barePages, nodePages) === false) {
			throw new Error(
				`the bare loop fetched other pages than the node:\nnode: ${nodePages.slice(0, 3).join(' ')}...\nbare: ${barePages.slice(0, 3).join(' ')}...`,
			);
		}
	}
	for (let i = 0; i < b.warmups; i++) {
		await clearSandboxRequests(b.admin);
		const r = await b.runNode({ parameters: {}, credentials: b.credentials, nodeType: floorType });
		if (r.error || r.items[0]?.length !== b.total)
			throw new Error(`n8n helper loop failed: ${r.error?.message ?? r.items[0]?.length}`);
		const floorPages = listRequests(await sandboxRequests(b.admin));
		if (!samePages(floorPages, nodePages))
			throw new Error('the n8n helper loop fetched other pages than the node');
		const s = await b.runNode({ parameters: {}, credentials: b.credentials, nodeType: streamType });
		if (s.error || s.items[0]?.length !== b.total)
			throw new Error(
				`n8n helper loop (streams) failed: ${s.error?.message ?? s.items[0]?.length}`,
			);
	}
}
