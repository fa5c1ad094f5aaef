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
import { request, Agent } from 'undici';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
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
	startSandboxProcess,
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
			// Full records, as the bare loop and the helper loop keep them: the same output from all three.
			simplify: false,
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
			try {
				await configurePageSize(admin, sb.url, pageSize);
			} catch (error) {
				if (label === 'default') throw error;
				// The node never sends page_size: without a configurable default the sandbox's maximum cannot be reached.
				ctx.log(`part 1: page size ${pageSize} not measurable: ${(error as Error).message}`);
				rows.push({
					part: 1,
					name: `Get Many, Return All, ${total} items, page ${pageSize} (${label}): node / bare undici`,
					value: 'n/a',
					unit: 'ms',
					note: `not measured: ${(error as Error).message.split('\n')[0]}`,
				});
				continue;
			}
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
				if (samePages(barePages, nodePages) === false) {
					throw new Error(
						`the bare loop fetched other pages than the node:\nnode: ${nodePages.slice(0, 3).join(' ')}...\nbare: ${barePages.slice(0, 3).join(' ')}...`,
					);
				}
			}

			// The same pages through n8n's own HTTP helper in the plainest node possible: what any n8n node pays.
			const floorType = helperLoopNode(firstUrl);
			const streamType = helperLoopNode(firstUrl, true);
			for (let i = 0; i < warmups; i++) {
				await clearSandboxRequests(admin);
				const r = await runNode({ parameters: {}, credentials, nodeType: floorType });
				if (r.error || r.items[0]?.length !== total) throw new Error(`n8n helper loop failed: ${r.error?.message ?? r.items[0]?.length}`);
				const floorPages = listRequests(await sandboxRequests(admin));
				if (!samePages(floorPages, nodePages)) throw new Error('the n8n helper loop fetched other pages than the node');
				const s = await runNode({ parameters: {}, credentials, nodeType: streamType });
				if (s.error || s.items[0]?.length !== total) throw new Error(`n8n helper loop (streams) failed: ${s.error?.message ?? s.items[0]?.length}`);
			}

			const times: Record<Contestant, number[]> = { node: [], node1: [], bare: [], floor: [], floorStream: [] };
			// CPU time of this process (client + in-process sandbox) per run: far less sensitive than wall time to
			// other processes on a busy machine.
			const cpu: Record<Contestant, number[]> = { node: [], node1: [], bare: [], floor: [], floorStream: [] };
			const runsHere = label === 'max' ? runs * 2 : runs;
			const contestants: Contestant[] = ['node', 'bare', 'floor', 'node1', 'floorStream'];
			for (let i = 0; i < runsHere; i++) {
				// Rotate the order so none always runs right after another's garbage.
				for (let k = 0; k < contestants.length; k++) {
					const which = contestants[(i + k) % contestants.length];
					await clearSandboxRequests(admin);
					gc();
					const t0 = performance.now();
					const c0 = process.cpuUsage();
					let got: number;
					if (which === 'bare') got = await bareLoop(firstUrl, bareAgent);
					else {
						const r = await runNode(
							which === 'node'
								? { parameters, credentials }
								: which === 'node1'
									? { parameters: { ...parameters, options: { pageConcurrency: 1 } }, credentials }
									: { parameters: {}, credentials, nodeType: which === 'floor' ? floorType : streamType },
						);
						if (r.error) throw new Error(`${which} failed in run ${i}: ${r.error.message}`);
						got = r.items[0]?.length ?? 0;
					}
					const ms = performance.now() - t0;
					const c = process.cpuUsage(c0);
					if (got !== total) throw new Error(`${which} got ${got} records in run ${i}, expected ${total}`);
					times[which].push(ms);
					cpu[which].push((c.user + c.system) / 1000);
				}
			}
			const node = median(times.node);
			const bare = median(times.bare);
			const floor = median(times.floor);
			const ratio = node / bare;
			ctx.log(
				`part 1: page size ${pageSize}: node ${node.toFixed(0)} ms (Page Concurrency 1: ${median(times.node1).toFixed(0)} ms), bare ${bare.toFixed(0)} ms, n8n helper loop ${floor.toFixed(0)} ms; node/bare ${ratio.toFixed(3)}, node/helper ${(node / floor).toFixed(3)}`,
			);
			// No n8n node can reach a bare keep-alive loop: every request must pass n8n's HTTP helper.
			rows.push({
				part: 1,
				name: `Context: Get Many, Return All, ${total} items, page ${pageSize} (${label}): node / bare undici`,
				value: round(node, 1),
				baseline: round(bare, 1),
				unit: 'ms',
				ratio: round(ratio, 3),
				details: {
					pages,
					pageSize,
					runs: runsHere,
					warmups,
					cpuMsMedian: { node: round(median(cpu.node), 1), bare: round(median(cpu.bare), 1), n8nHelperLoop: round(median(cpu.floor), 1) },
					nodeMs: times.node.map((v) => round(v, 1)),
					bareMs: times.bare.map((v) => round(v, 1)),
					n8nHelperLoopMs: times.floor.map((v) => round(v, 1)),
					fixedExecutionMs: round(fixedMs, 2),
					nodeMsPerPage: round(node / pages, 3),
					bareMsPerPage: round(bare / pages, 3),
					n8nHelperLoopMsPerPage: round(floor / pages, 3),
					firstPage: nodePages[0],
				},
			});
			rows.push({
				part: 1,
				name: `Context: CPU time of the process (client + in-process sandbox), node / bare undici, page ${pageSize}`,
				value: round(median(cpu.node), 1),
				baseline: round(median(cpu.bare), 1),
				unit: 'ms',
				ratio: round(median(cpu.node) / median(cpu.bare), 3),
				details: { n8nHelperLoopCpuMs: round(median(cpu.floor), 1), nodeOverHelperCpu: round(median(cpu.node) / median(cpu.floor), 3) },
			});
			rows.push({
				part: 1,
				name: `Context: n8n's HTTP helper in a plain loop (same pages, same items out) / bare undici, page ${pageSize}`,
				value: round(floor, 1),
				baseline: round(bare, 1),
				unit: 'ms',
				ratio: round(floor / bare, 3),
				details: { note: 'httpRequestWithAuthentication builds new agents per request (a new TCP connection per page) and goes through axios' },
			});
			// Two contestants that both go through n8n's stack differ by less than this machine's wall-time noise
			// (0.87-1.25 between runs of the same code), so this comparison uses CPU time. It is made at Page
			// Concurrency 1, the helper loop's own order of requests: pages in flight together cost n8n's stack and
			// the in-process sandbox a little more CPU (next row), which any real round trip repays many times.
			// The floor reads answers as streams, as the node must to bound an answer's size and time (issue 10);
			// what that costs inside n8n's helper is the context row after it.
			const node1Cpu = median(cpu.node1);
			const floorCpu = median(cpu.floor);
			const streamCpu = median(cpu.floorStream);
			rows.push({
				part: 1,
				name: `Get Many, Return All, page ${pageSize}: node (Page Concurrency 1) / n8n's HTTP helper in a plain loop reading answers as streams, CPU time (what our code adds)`,
				value: round(node1Cpu, 1),
				baseline: round(streamCpu, 1),
				unit: 'ms',
				ratio: round(node1Cpu / streamCpu, 3),
				target: '<= 1.1',
				met: node1Cpu / streamCpu <= 1.1,
				details: {
					overBufferedHelperLoopCpu: round(node1Cpu / floorCpu, 3),
					wallNode1Ms: round(median(times.node1), 1),
					wallHelperLoopStreamMs: round(median(times.floorStream), 1),
					wallRatio: round(median(times.node1) / median(times.floorStream), 3),
				},
			});
			rows.push({
				part: 1,
				name: `Context: reading answers as streams through n8n's helper (axios wraps each in an async generator): helper loop with streams / buffered, CPU time, page ${pageSize}`,
				value: round(streamCpu, 1),
				baseline: round(floorCpu, 1),
				unit: 'ms',
				ratio: round(streamCpu / floorCpu, 3),
				details: { nodeOverBufferedHelperLoopCpu: round(node1Cpu / floorCpu, 3) },
			});
			rows.push({
				part: 1,
				name: `Context: Get Many, page ${pageSize}, CPU time on loopback: Page Concurrency 4 (default) / 1`,
				value: round(median(cpu.node), 1),
				baseline: round(node1Cpu, 1),
				unit: 'ms',
				ratio: round(median(cpu.node) / node1Cpu, 3),
				details: { wallMs: { pageConcurrency4: round(node, 1), pageConcurrency1: round(median(times.node1), 1) } },
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
				unit: 'req.',
				ratio: round(fetched.length / needed, 3),
				target: `= 1 (${needed} request${needed === 1 ? '' : 's'}, ${limit} items)`,
				met: fetched.length === needed && got === limit,
				details: { items: got, requests: fetched },
			});
		}
		// Cursor paging (no page numbers to plan): read one page after the other as before; what our code adds.
		{
			await configurePageSize(admin, sb.url, sizes.defaultSize);
			await admin.ok('POST', '/__sandbox/config/', { pagination: 'cursor' });
			try {
				const firstUrl = `${sb.url}/api/v3/appointments/`;
				const floorType = helperLoopNode(firstUrl, true);
				const cpu: Record<'node' | 'floor', number[]> = { node: [], floor: [] };
				const cursorRuns = ctx.smoke ? 1 : runs;
				for (let i = 0; i < warmups + cursorRuns; i++) {
					for (const which of (i % 2 ? ['floor', 'node'] : ['node', 'floor']) as Array<'node' | 'floor'>) {
						gc();
						const c0 = process.cpuUsage();
						const r = await runNode(which === 'node' ? { parameters, credentials } : { parameters: {}, credentials, nodeType: floorType });
						const c = process.cpuUsage(c0);
						if (r.error || r.items[0]?.length !== total) throw new Error(`${which} with cursor paging failed: ${r.error?.message ?? r.items[0]?.length}`);
						if (i >= warmups) cpu[which].push((c.user + c.system) / 1000);
					}
				}
				const n = median(cpu.node);
				const f = median(cpu.floor);
				ctx.log(`part 1: cursor paging, CPU: node ${n.toFixed(0)} ms, helper loop ${f.toFixed(0)} ms, ratio ${(n / f).toFixed(3)}`);
				rows.push({
					part: 1,
					name: `Get Many, Return All, cursor paging, page ${sizes.defaultSize}: node / n8n's HTTP helper in a plain loop reading answers as streams, CPU time (what our code adds)`,
					value: round(n, 1),
					baseline: round(f, 1),
					unit: 'ms',
					ratio: round(n / f, 3),
					target: '<= 1.1',
					met: n / f <= 1.1,
					details: { runs: cursorRuns, nodeCpuMs: cpu.node.map((v) => round(v, 1)), helperLoopCpuMs: cpu.floor.map((v) => round(v, 1)) },
				});
			} finally {
				await admin.ok('POST', '/__sandbox/config/', { pagination: 'page' });
			}
		}
		// With a real network round trip per page (20 ms added by the sandbox), at the default page size: pages
		// in parallel (the node's default Page Concurrency, 4) against the ideal and the do-it-yourself route. The
		// service runs in a process of its own here, as across a network: in this process its work and its
		// 20 ms timers would queue behind the client's on one event loop.
		{
			const latencyMs = 20;
			const pageConcurrency = 4;
			const remote = await startSandboxProcess({ seed: total, latencyMs, pageSize: sizes.defaultSize });
			try {
				const credentials = { baseUrl: remote.url, accessToken: API_TOKEN };
				const firstUrl = `${remote.url}/api/v3/appointments/`;
				const pages = Math.ceil(total / sizes.defaultSize);
				const ideal = Math.ceil(pages / pageConcurrency) * latencyMs;
				const latencyRuns = ctx.smoke ? 1 : 2;
				const times: Record<'node' | 'sequential' | 'floor' | 'bare', number[]> = { node: [], sequential: [], floor: [], bare: [] };
				const floorType = helperLoopNode(firstUrl);
				const sequential = { ...parameters, options: { pageConcurrency: 1 } };
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
					name: `Get Many, Return All, ${total} items, page ${sizes.defaultSize}, ${latencyMs} ms latency per request: node / ideal ceil(${pages} pages / ${pageConcurrency}) x ${latencyMs} ms`,
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

/** Whether two runs fetched the same pages (the node fetches several at a time, so in another order). */
function samePages(a: string[], b: string[]): boolean {
	return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
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

type Contestant = 'node' | 'node1' | 'bare' | 'floor' | 'floorStream';

/**
 * The floor for any n8n node: GET the first page and every `next` through this.helpers.httpRequestWithAuthentication
 * (n8n's HTTP stack, our credential), keep every record, and output them as items with n8n's helpers.
 * `stream`: each answer read as a stream with a byte count, the least a node must do to bound an answer's size
 * (n8n's helper sets no limit and its time-out stops at the headers; issue 10 asks for both): in n8n 2.41 that
 * is axios's `responseType: 'stream'`, which wraps every answer in an async generator.
 */
function helperLoopNode(firstUrl: string, stream = false): INodeType {
	return {
		description: {
			displayName: 'n8n Helper Loop',
			name: 'benchHelperLoop',
			group: ['transform'],
			version: 1,
			description: 'Fetches pages through n8n helpers',
			defaults: { name: 'n8n Helper Loop' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			const records: IDataObject[] = [];
			let next: string | undefined = firstUrl;
			while (next) {
				let body: { results: IDataObject[]; next?: string | null };
				if (stream) {
					const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'appointmentsApi', {
						method: 'GET',
						url: next,
						headers: { Accept: 'application/json' },
						encoding: 'stream',
						returnFullResponse: true,
					})) as { body: NodeJS.ReadableStream };
					body = JSON.parse(await readCapped(response.body)) as typeof body;
				} else {
					body = (await this.helpers.httpRequestWithAuthentication.call(this, 'appointmentsApi', {
						method: 'GET',
						url: next,
						headers: { Accept: 'application/json' },
						json: true,
					})) as typeof body;
				}
				for (const record of body.results) records.push(record);
				next = body.next ? new URL(body.next, next).href : undefined;
			}
			return [this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(records), { itemData: { item: 0 } })];
		},
	} as unknown as INodeType;
}

async function readCapped(body: NodeJS.ReadableStream, limit = 64 * 1024 * 1024): Promise<string> {
	return await new Promise<string>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		body.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) reject(new Error('too large'));
			else chunks.push(chunk);
		});
		body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		body.on('error', reject);
	});
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
