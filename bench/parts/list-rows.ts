/** Part 1's shared shape (ListBench) and its rows for the rounds at one page size, from the medians of each contestant's wall and CPU times. */
import type { Agent } from 'undici';
import type { IDataObject } from 'n8n-workflow';
import { round, type Client, type PartContext, type Row, type Sandbox } from '../lib/common';
import type { loadRunNode } from '../lib/node';
import { cpuGuardRow, medians } from '../lib/rounds';

/** What every measurement of part 1 runs against. */
export interface ListBench {
	ctx: PartContext;
	runNode: ReturnType<typeof loadRunNode>['runNode'];
	sb: Sandbox;
	admin: Client;
	bareAgent: Agent;
	credentials: { baseUrl: string; accessToken: string };
	parameters: IDataObject;
	total: number;
	runs: number;
	warmups: number;
}

/** node: Page Concurrency 4 (default); node1: Page Concurrency 1; floor: n8n's helper loop; floorStream: reading streams. */
export type Contestant = 'node' | 'node1' | 'bare' | 'floor' | 'floorStream';

export interface PageSizeRounds {
	total: number;
	label: string;
	pageSize: number;
	pages: number;
	runs: number;
	warmups: number;
	fixedMs: number;
	firstPage: string;
	times: Record<Contestant, number[]>;
	cpu: Record<Contestant, number[]>;
}

export function roundRows(ctx: PartContext, m: PageSizeRounds): Row[] {
	const wall = medians(m.times);
	const cpu = medians(m.cpu);
	const ratio = wall.node / wall.bare;
	ctx.log(
		`part 1: page size ${m.pageSize}: node ${wall.node.toFixed(0)} ms (Page Concurrency 1: ${wall.node1.toFixed(0)} ms), bare ${wall.bare.toFixed(0)} ms, n8n helper loop ${wall.floor.toFixed(0)} ms; node/bare ${ratio.toFixed(3)}, node/helper ${(wall.node / wall.floor).toFixed(3)}`,
	);
	return [...contextRows(m, wall, cpu), ...ourCodeRows(m, wall, cpu)];
}

/** Against the bare undici loop: no n8n node can reach a bare keep-alive loop, every request must pass n8n's HTTP helper. */
function contextRows(
	m: PageSizeRounds,
	wall: Record<Contestant, number>,
	cpu: Record<Contestant, number>,
): Row[] {
	return [
		{
			part: 1,
			name: `Context: Get Many, Return All, ${m.total} items, page ${m.pageSize} (${m.label}): node / bare undici`,
			value: round(wall.node, 1),
			baseline: round(wall.bare, 1),
			unit: 'ms',
			ratio: round(wall.node / wall.bare, 3),
			details: {
				pages: m.pages,
				pageSize: m.pageSize,
				runs: m.runs,
				warmups: m.warmups,
				cpuMsMedian: {
					node: round(cpu.node, 1),
					bare: round(cpu.bare, 1),
					n8nHelperLoop: round(cpu.floor, 1),
				},
				nodeMs: m.times.node.map((v) => round(v, 1)),
				bareMs: m.times.bare.map((v) => round(v, 1)),
				n8nHelperLoopMs: m.times.floor.map((v) => round(v, 1)),
				fixedExecutionMs: round(m.fixedMs, 2),
				nodeMsPerPage: round(wall.node / m.pages, 3),
				bareMsPerPage: round(wall.bare / m.pages, 3),
				n8nHelperLoopMsPerPage: round(wall.floor / m.pages, 3),
				firstPage: m.firstPage,
			},
		},
		{
			part: 1,
			name: `Context: CPU time of the process (client + in-process sandbox), node / bare undici, page ${m.pageSize}`,
			value: round(cpu.node, 1),
			baseline: round(cpu.bare, 1),
			unit: 'ms',
			ratio: round(cpu.node / cpu.bare, 3),
			details: {
				n8nHelperLoopCpuMs: round(cpu.floor, 1),
				nodeOverHelperCpu: round(cpu.node / cpu.floor, 3),
			},
		},
		{
			part: 1,
			name: `Context: n8n's HTTP helper in a plain loop (same pages, same items out) / bare undici, page ${m.pageSize}`,
			value: round(wall.floor, 1),
			baseline: round(wall.bare, 1),
			unit: 'ms',
			ratio: round(wall.floor / wall.bare, 3),
			details: {
				note: 'httpRequestWithAuthentication builds new agents per request (a new TCP connection per page) and goes through axios',
			},
		},
	];
}

/**
 * Two contestants that both go through n8n's stack differ by less than this machine's wall-time noise (0.87-1.25
 * between runs of the same code), so this comparison uses CPU time, as the median of each round's ratio. It is made
 * at Page Concurrency 1, the helper loop's own order of requests: pages in flight together cost n8n's stack and the
 * in-process sandbox a little more CPU (the last row), which any real round trip repays many times. The floor reads
 * answers as streams, as the node must to bound an answer's size and time (issue 10); what that costs inside n8n's
 * helper is the row after it.
 */
function ourCodeRows(
	m: PageSizeRounds,
	wall: Record<Contestant, number>,
	cpu: Record<Contestant, number>,
): Row[] {
	return [
		cpuGuardRow(
			1,
			`Get Many, Return All, page ${m.pageSize}: node (Page Concurrency 1) / n8n's HTTP helper in a plain loop reading answers as streams, CPU time (what our code adds)`,
			m.cpu.node1,
			m.cpu.floorStream,
			{
				overBufferedHelperLoopCpu: round(cpu.node1 / cpu.floor, 3),
				wallNode1Ms: round(wall.node1, 1),
				wallHelperLoopStreamMs: round(wall.floorStream, 1),
				wallRatio: round(wall.node1 / wall.floorStream, 3),
			},
		),
		{
			part: 1,
			name: `Context: reading answers as streams through n8n's helper (axios wraps each in an async generator): helper loop with streams / buffered, CPU time, page ${m.pageSize}`,
			value: round(cpu.floorStream, 1),
			baseline: round(cpu.floor, 1),
			unit: 'ms',
			ratio: round(cpu.floorStream / cpu.floor, 3),
			details: { nodeOverBufferedHelperLoopCpu: round(cpu.node1 / cpu.floor, 3) },
		},
		{
			part: 1,
			name: `Context: Get Many, page ${m.pageSize}, CPU time on loopback: Page Concurrency 4 (default) / 1`,
			value: round(cpu.node, 1),
			baseline: round(cpu.node1, 1),
			unit: 'ms',
			ratio: round(cpu.node / cpu.node1, 3),
			details: {
				wallMs: { pageConcurrency4: round(wall.node, 1), pageConcurrency1: round(wall.node1, 1) },
			},
		},
	];
}
