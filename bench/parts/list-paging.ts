/**
 * Part 1's paging figures besides Return All by page numbers: Limit 100 fetching only the pages it needs, and
 * cursor paging (nothing to plan, pages one after the other) against n8n's helper loop reading streams.
 */
import { clearSandboxRequests, round, sandboxRequests, type Row } from '../lib/common';
import { helperLoopNode, listRequests } from '../lib/list-loops';
import { configurePageSize } from '../lib/node';
import { cpuGuardRow, runRounds } from '../lib/rounds';
import type { ListBench } from './list-rows';

/** Limit 100: the list requests at the sandbox must be exactly the pages needed, page concurrency or not. */
export async function limitRow(b: ListBench, pageSize: number): Promise<Row> {
	const limit = 100;
	const needed = Math.ceil(Math.min(limit, b.total) / pageSize);
	await clearSandboxRequests(b.admin);
	const r = await b.runNode({
		parameters: { ...b.parameters, returnAll: false, limit },
		credentials: b.credentials,
	});
	if (r.error) throw new Error(`Get Many with Limit ${limit} failed: ${r.error.message}`);
	const got = r.items[0]?.length ?? 0;
	const fetched = listRequests(await sandboxRequests(b.admin));
	return {
		part: 1,
		name: `Get Many, Limit ${limit}, page ${pageSize}: list requests at the sandbox / pages needed`,
		value: fetched.length,
		baseline: needed,
		unit: 'req.',
		ratio: round(fetched.length / needed, 3),
		target: `= 1 (${needed} request${needed === 1 ? '' : 's'}, ${limit} items)`,
		met: fetched.length === needed && got === limit,
		details: { items: got, requests: fetched },
	};
}

/** Cursor paging (no page numbers to plan): read one page after the other as before; what our code adds, CPU time. */
export async function cursorRow(b: ListBench, pageSize: number): Promise<Row> {
	await configurePageSize(b.admin, b.sb.url, pageSize);
	await b.admin.ok('POST', '/__sandbox/config/', { pagination: 'cursor' });
	try {
		const floorType = helperLoopNode(`${b.sb.url}/api/v3/appointments/`, true);
		const cursorRuns = b.ctx.smoke ? 1 : b.runs;
		const s = await runRounds({
			contestants: ['node', 'floor'],
			rounds: cursorRuns,
			warmups: b.warmups,
			order: 'alternate',
			run: (which) =>
				b.runNode(
					which === 'node'
						? { parameters: b.parameters, credentials: b.credentials }
						: { parameters: {}, credentials: b.credentials, nodeType: floorType },
				),
			after: (which, r) => {
				if (r.error || r.items[0]?.length !== b.total)
					throw new Error(
						`${which} with cursor paging failed: ${r.error?.message ?? r.items[0]?.length}`,
					);
			},
		});
		const row = cpuGuardRow(
			1,
			`Get Many, Return All, cursor paging, page ${pageSize}: node / n8n's HTTP helper in a plain loop reading answers as streams, CPU time (what our code adds)`,
			s.cpuMs.node,
			s.cpuMs.floor,
			{ runs: cursorRuns },
		);
		b.ctx.log(
			`part 1: cursor paging, CPU: node ${row.value} ms, helper loop ${row.baseline} ms, ratio ${row.ratio}`,
		);
		return row;
	} finally {
		await b.admin.ok('POST', '/__sandbox/config/', { pagination: 'page' });
	}
}
