/**
 * Part 1 with a real network round trip per page (20 ms added by the sandbox), at the default page size: pages in
 * parallel (the node's default Page Concurrency, 4) against the ideal and the do-it-yourself route. The service
 * runs in a process of its own here, as across a network: in the bench's process its work and its 20 ms timers
 * would queue behind the client's on one event loop.
 */
import type { Agent } from 'undici';
import type { IDataObject } from 'n8n-workflow';
import { API_TOKEN, median, round, startSandboxProcess, type PartContext, type Row } from '../lib/common';
import { bareLoop, helperLoopNode } from '../lib/list-loops';
import { gc, type loadRunNode } from '../lib/node';

interface LatencyInput {
	runNode: ReturnType<typeof loadRunNode>['runNode'];
	parameters: IDataObject;
	total: number;
	pageSize: number;
	bareAgent: Agent;
}

export async function latencyRows(ctx: PartContext, { runNode, parameters, total, pageSize, bareAgent }: LatencyInput): Promise<Row[]> {
	const rows: Row[] = [];
		const latencyMs = 20;
		const pageConcurrency = 4;
		const remote = await startSandboxProcess({ seed: total, latencyMs, pageSize });
		try {
			const credentials = { baseUrl: remote.url, accessToken: API_TOKEN };
			const firstUrl = `${remote.url}/api/v3/appointments/`;
			const pages = Math.ceil(total / pageSize);
			const ideal = Math.ceil(pages / pageConcurrency) * latencyMs;
			const latencyRuns = ctx.smoke ? 1 : 2;
			const times: Record<'node' | 'sequential' | 'floor' | 'bare', number[]> = { node: [], sequential: [], floor: [], bare: [] };
			const floorType = helperLoopNode(firstUrl);
			const sequential = { ...parameters, advanced: { pageConcurrency: 1 } };
			for (let i = 0; i < latencyRuns; i++) {
				for (const which of ['floor', 'node', 'bare', 'sequential'] as const) {
					gc();
					const t0 = performance.now();
					let got: number;
					if (which === 'bare') got = await bareLoop(firstUrl, bareAgent);
					else {
						const r = await runNode(
							which === 'floor'
								? { parameters: {}, credentials, nodeType: floorType }
								: { parameters: which === 'node' ? parameters : sequential, credentials },
						);
						if (r.error) throw new Error(`${which} with latency failed: ${r.error.message}`);
						got = r.items[0]?.length ?? 0;
					}
					times[which].push(performance.now() - t0);
					if (got !== total) throw new Error(`${which} with latency got ${got} records, expected ${total}`);
				}
			}
			const n = median(times.node);
			const f = median(times.floor);
			const b = median(times.bare);
			const q = median(times.sequential);
			const all = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.map((x) => round(x, 0))]));
			ctx.log(
				`part 1: with ${latencyMs} ms latency: node ${n.toFixed(0)} ms (ideal ${ideal} ms), one page at a time ${q.toFixed(0)} ms, helper loop ${f.toFixed(0)} ms, bare ${b.toFixed(0)} ms`,
			);
			rows.push({
				part: 1,
				name: `Get Many, Return All, ${total} items, page ${pageSize}, ${latencyMs} ms latency per request: node / ideal ceil(${pages} pages / ${pageConcurrency}) x ${latencyMs} ms`,
				value: round(n, 0),
				baseline: ideal,
				unit: 'ms',
				ratio: round(n / ideal, 3),
				target: '<= 2',
				met: n / ideal <= 2,
				details: { runs: latencyRuns, pageConcurrency, ms: all },
			});
			rows.push({
				part: 1,
				name: `Get Many, ${latencyMs} ms latency: node / n8n's HTTP helper following next in a plain loop (the do-it-yourself route's floor, in-process)`,
				value: round(n, 0),
				baseline: round(f, 0),
				unit: 'ms',
				ratio: round(n / f, 3),
				target: '<= 0.35',
				met: n / f <= 0.35,
			});
			rows.push({
				part: 1,
				name: `Context: the same with ${latencyMs} ms latency, Page Concurrency 1 (one page after the other, as before) / ideal ${pages} x ${latencyMs} ms`,
				value: round(q, 0),
				baseline: pages * latencyMs,
				unit: 'ms',
				ratio: round(q / (pages * latencyMs), 3),
			});
			rows.push({
				part: 1,
				name: `Context: the same with ${latencyMs} ms latency, bare undici loop (one page after the other) / ideal ${pages} x ${latencyMs} ms`,
				value: round(b, 0),
				baseline: pages * latencyMs,
				unit: 'ms',
				ratio: round(b / (pages * latencyMs), 3),
			});
		} finally {
			await remote.close();
		}
	return rows;
}
