/**
 * Part 1 with a real network round trip per page (20 ms added by the sandbox), at the default page size: pages in
 * parallel (the node's default Page Concurrency, 4) against the ideal and the do-it-yourself route. The service
 * runs in a process of its own here, as across a network: in the bench's process its work and its 20 ms timers
 * would queue behind the client's on one event loop.
 */
import type { Agent } from 'undici';
import type { IDataObject } from 'n8n-workflow';
import { API_TOKEN, round, startSandboxProcess, type PartContext, type Row } from '../lib/common';
import { bareLoop, helperLoopNode } from '../lib/list-loops';
import type { loadRunNode } from '../lib/node';
import { medians, runRounds, spreadOf } from '../lib/rounds';

interface LatencyInput {
	runNode: ReturnType<typeof loadRunNode>['runNode'];
	parameters: IDataObject;
	total: number;
	pageSize: number;
	bareAgent: Agent;
}

const LATENCY_MS = 20;
const PAGE_CONCURRENCY = 4;

export async function latencyRows(
	ctx: PartContext,
	{ runNode, parameters, total, pageSize, bareAgent }: LatencyInput,
): Promise<Row[]> {
	const remote = await startSandboxProcess({ seed: total, latencyMs: LATENCY_MS, pageSize });
	try {
		const credentials = { baseUrl: remote.url, accessToken: API_TOKEN };
		const firstUrl = `${remote.url}/api/v3/appointments/`;
		const floorType = helperLoopNode(firstUrl);
		const sequential = { ...parameters, advanced: { pageConcurrency: 1 } };
		const latencyRuns = ctx.smoke ? 1 : 2;
		const s = await runRounds({
			contestants: ['floor', 'node', 'bare', 'sequential'],
			rounds: latencyRuns,
			order: 'fixed',
			run: async (which) => {
				if (which === 'bare') return await bareLoop(firstUrl, bareAgent);
				const r = await runNode(
					which === 'floor'
						? { parameters: {}, credentials, nodeType: floorType }
						: { parameters: which === 'node' ? parameters : sequential, credentials },
				);
				if (r.error) throw new Error(`${which} with latency failed: ${r.error.message}`);
				return r.items[0]?.length ?? 0;
			},
			after: (which, got) => {
				if (got !== total)
					throw new Error(`${which} with latency got ${got} records, expected ${total}`);
			},
		});
		return rowsOf(ctx, s.wallMs, { total, pageSize, latencyRuns });
	} finally {
		await remote.close();
	}
}

function rowsOf(
	ctx: PartContext,
	times: Record<'node' | 'sequential' | 'floor' | 'bare', number[]>,
	m: { total: number; pageSize: number; latencyRuns: number },
): Row[] {
	const pages = Math.ceil(m.total / m.pageSize);
	const ideal = Math.ceil(pages / PAGE_CONCURRENCY) * LATENCY_MS;
	const { node: n, floor: f, bare: b, sequential: q } = medians(times);
	const all = Object.fromEntries(
		Object.entries(times).map(([k, v]) => [k, v.map((x) => round(x, 0))]),
	);
	ctx.log(
		`part 1: with ${LATENCY_MS} ms latency: node ${n.toFixed(0)} ms (ideal ${ideal} ms), one page at a time ${q.toFixed(0)} ms, helper loop ${f.toFixed(0)} ms, bare ${b.toFixed(0)} ms`,
	);
	return [
		{
			part: 1,
			name: `Get Many, Return All, ${m.total} items, page ${m.pageSize}, ${LATENCY_MS} ms latency per request: node / ideal ceil(${pages} pages / ${PAGE_CONCURRENCY}) x ${LATENCY_MS} ms`,
			value: round(n, 0),
			baseline: ideal,
			unit: 'ms',
			ratio: round(n / ideal, 3),
			spread: spreadOf(times.node.map((x) => x / ideal)),
			target: '<= 2',
			met: n / ideal <= 2,
			details: { runs: m.latencyRuns, pageConcurrency: PAGE_CONCURRENCY, ms: all },
		},
		{
			part: 1,
			name: `Get Many, ${LATENCY_MS} ms latency: node / n8n's HTTP helper following next in a plain loop (the do-it-yourself route's floor, in-process)`,
			value: round(n, 0),
			baseline: round(f, 0),
			unit: 'ms',
			ratio: round(n / f, 3),
			spread: spreadOf(times.node.map((x, i) => x / times.floor[i])),
			target: '<= 0.35',
			met: n / f <= 0.35,
		},
		{
			part: 1,
			name: `Context: the same with ${LATENCY_MS} ms latency, Page Concurrency 1 (one page after the other, as before) / ideal ${pages} x ${LATENCY_MS} ms`,
			value: round(q, 0),
			baseline: pages * LATENCY_MS,
			unit: 'ms',
			ratio: round(q / (pages * LATENCY_MS), 3),
		},
		{
			part: 1,
			name: `Context: the same with ${LATENCY_MS} ms latency, bare undici loop (one page after the other) / ideal ${pages} x ${LATENCY_MS} ms`,
			value: round(b, 0),
			baseline: pages * LATENCY_MS,
			unit: 'ms',
			ratio: round(b / (pages * LATENCY_MS), 3),
		},
	];
}
