/**
 * Part 8, Get Many in a real n8n against the route a builder takes without us: n8n's HTTP Request node with
 * "response contains next URL" pagination and a Header Auth credential, then Split Out on `results`. Two
 * workflows started by a Webhook node that answers when the last node is done; the figure is the node time
 * n8n records in the saved execution (Appointments alone / HTTP Request + Split Out), 10,000 appointments at the
 * default page size, on loopback and with 20 ms added to every sandbox response.
 */
import { median, pollUntil, round, type PartContext, type Row } from '../lib/common';
import { runRounds } from '../lib/rounds';
import { chain, node, random, webhookNode } from '../lib/workflows';

type StackModule = typeof import('../../scripts/stack');
type Stack = Awaited<ReturnType<StackModule['startStack']>>;

const TOTAL = 10000;
const PAGE_CONCURRENCY = 4;

interface Timed {
	nodeMs: number;
	items: number;
}

/** The most list requests that reached the sandbox within 10 ms of each other: 1 when pages go one at a time. */
async function mostTogether(stack: Stack): Promise<number> {
	const log = (await stack.admin.ok('GET', '/__sandbox/requests/')) as {
		requests: Array<{ method: string; path: string; at: string }>;
	};
	const times = log.requests
		.filter((r) => r.method === 'GET' && r.path === '/api/v3/appointments/')
		.map((r) => Date.parse(r.at))
		.sort((x, y) => x - y);
	let most = 0;
	for (let i = 0, j = 0; i < times.length; i++) {
		while (times[i] - times[j] > 10) j++;
		most = Math.max(most, i - j + 1);
	}
	return most;
}

export async function runN8nListPart(
	ctx: PartContext,
	stack: Stack,
	stackMod: StackModule,
): Promise<Row[]> {
	const total = ctx.smoke ? 600 : TOTAL;
	await stack.admin.ok('POST', '/__sandbox/reset/', { body: { seed: total } });
	await stack.admin.ok('POST', '/__sandbox/config/', {
		body: { pagination: 'page', nextLinks: 'absolute' },
	});
	const config = (await stack.admin.ok('GET', '/__sandbox/config/')) as { pageSize: number };
	const { ours, oursPath, peer, peerPath } = await publishWorkflows(stack, stackMod);
	const runOnce = executionTimer(stack, total);
	const runs = {
		ours: () => runOnce(ours.id, oursPath, ['Get Many'], 'Get Many'),
		peer: () => runOnce(peer.id, peerPath, ['HTTP Request', 'Split Out'], 'Split Out'),
	};
	const rows: Row[] = [];
	try {
		for (const latencyMs of [0, 20]) {
			await stack.admin.ok('POST', '/__sandbox/faults/', { body: { latencyMs } });
			rows.push(
				...(await latencyRows(ctx, stack, runs, { latencyMs, total, pageSize: config.pageSize })),
			);
		}
	} finally {
		await stack.admin.ok('POST', '/__sandbox/faults/', { body: { latencyMs: 0 } });
		await stackMod.deactivate(stack.api, ours.id).catch(() => undefined);
		await stackMod.deactivate(stack.api, peer.id).catch(() => undefined);
	}
	return rows;
}

/** G: Webhook -> Appointments Get Many; P: Webhook -> HTTP Request following next -> Split Out; both active. */
async function publishWorkflows(stack: Stack, stackMod: StackModule) {
	const webhook = (path: string) =>
		webhookNode({ path, responseMode: 'lastNode', responseData: 'noData' });
	const oursPath = random('bench-getmany');
	const getMany = node(
		'Get Many',
		'n8n-nodes-appointments.appointments',
		220,
		{ resource: 'appointment', operation: 'getAll', returnAll: true, simplify: false, options: {} },
		{
			credentials: {
				appointmentsApi: { id: stackMod.CREDENTIAL_ID, name: stackMod.CREDENTIAL_NAME },
			},
		},
	);
	const ours = await stack.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: Get Many', [webhook(oursPath), getMany]),
	});
	const cred = await stack.api.ok('POST', '/api/v1/credentials', {
		body: {
			name: 'Bench bearer header',
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${stack.apiToken}` },
		},
	});
	const peerPath = random('bench-peer');
	const httpRequest = node(
		'HTTP Request',
		'n8n-nodes-base.httpRequest',
		220,
		{
			url: `${stack.sandboxUrl}/api/v3/appointments/`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			options: {
				pagination: {
					pagination: {
						paginationMode: 'responseContainsNextURL',
						nextURL: '={{ $response.body.next }}',
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.next }}',
					},
				},
			},
		},
		{
			typeVersion: 4.2,
			credentials: { httpHeaderAuth: { id: cred.id, name: 'Bench bearer header' } },
		},
	);
	const splitOut = node('Split Out', 'n8n-nodes-base.splitOut', 440, {
		fieldToSplitOut: 'results',
		options: {},
	});
	const peer = await stack.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: HTTP Request pagination + Split Out', [
			webhook(peerPath),
			httpRequest,
			splitOut,
		]),
	});
	await stackMod.activate(stack.api, ours.id);
	await stackMod.activate(stack.api, peer.id);
	return { ours, oursPath, peer, peerPath };
}

/** Calls a workflow's webhook and reads the node time n8n saved in the execution it started. */
function executionTimer(stack: Stack, total: number) {
	const seen = new Set<string>();
	return async (
		workflowId: string,
		path: string,
		nodes: string[],
		lastNode: string,
	): Promise<Timed> => {
		// n8n registers a production webhook shortly after activation: until then it answers 404.
		const res = await pollUntil(
			`the webhook ${path}`,
			async () => {
				const r = await stack.n8n.http.call('POST', `/webhook/${path}`, {
					body: {},
					timeoutMs: 600000,
				});
				return r.status === 404 ? undefined : r;
			},
			30000,
			250,
		);
		if (res.status !== 200)
			throw new Error(`${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
		const execution = await pollUntil(
			`the saved execution of ${path}`,
			async () => {
				const list = (await stack.api.ok(
					'GET',
					`/api/v1/executions?workflowId=${workflowId}&limit=5`,
				)) as { data: Array<{ id: string; finished: boolean; status: string }> };
				return list.data.find(
					(e) => !seen.has(String(e.id)) && e.status !== 'running' && e.status !== 'new',
				);
			},
			60000,
			100,
		);
		seen.add(String(execution.id));
		const full = (await stack.api.ok(
			'GET',
			`/api/v1/executions/${execution.id}?includeData=true`,
		)) as {
			status: string;
			data: {
				resultData: {
					runData: Record<
						string,
						Array<{ executionTime: number; data?: { main: Array<unknown[] | null> } }>
					>;
					error?: { message: string };
				};
			};
		};
		const runData = full.data.resultData.runData;
		if (full.status !== 'success')
			throw new Error(
				`${path}: execution ${execution.id} ${full.status}: ${full.data.resultData.error?.message}`,
			);
		const nodeMs = nodes.reduce((sum, n) => sum + (runData[n]?.[0]?.executionTime ?? NaN), 0);
		const items = runData[lastNode]?.[0]?.data?.main?.[0]?.length ?? 0;
		if (items !== total)
			throw new Error(`${path}: ${items} items out of ${lastNode}, expected ${total}`);
		return { nodeMs, items };
	};
}

async function latencyRows(
	ctx: PartContext,
	stack: Stack,
	runs: Record<'ours' | 'peer', () => Promise<Timed>>,
	{ latencyMs, total, pageSize }: { latencyMs: number; total: number; pageSize: number },
): Promise<Row[]> {
	const rounds = ctx.smoke ? 1 : latencyMs ? 3 : 5;
	// Warm-up (JIT, sqlite, n8n's caches), then alternating rounds.
	await runs.ours();
	await runs.peer();
	const inFlight: Record<'ours' | 'peer', number[]> = { ours: [], peer: [] };
	const s = await runRounds({
		contestants: ['ours', 'peer'],
		rounds,
		order: 'alternate',
		gc: false,
		before: () => stack.admin.ok('DELETE', '/__sandbox/requests/'),
		run: (which) => runs[which](),
		after: async (which, t) => {
			const together = await mostTogether(stack);
			inFlight[which].push(together);
			ctx.log(
				`part 8: Get Many ${latencyMs ? `${latencyMs} ms latency` : 'loopback'}: ${which} ${t.nodeMs} ms node time, up to ${together} list requests arrived within 10 ms`,
			);
		},
	});
	const [a, b] = [s.results.ours.map((t) => t.nodeMs), s.results.peer.map((t) => t.nodeMs)];
	const [o, p] = [median(a), median(b)];
	const target = latencyMs ? 0.35 : 0.8;
	const where = latencyMs ? `${latencyMs} ms latency per request` : 'loopback';
	const rows: Row[] = [
		{
			part: 8,
			name: `Real n8n: Get Many, Return All, ${total} items, page ${pageSize}, ${where}: node time / HTTP Request pagination + Split Out`,
			value: round(o, 0),
			baseline: round(p, 0),
			unit: 'ms',
			ratio: round(o / p, 3),
			target: `<= ${target}`,
			met: o / p <= target,
			details: { rounds, oursMs: a, peerMs: b, listRequestsArrivingWithin10ms: inFlight },
		},
	];
	if (latencyMs) {
		const pages = Math.ceil(total / pageSize);
		const ideal = Math.ceil(pages / PAGE_CONCURRENCY) * latencyMs;
		rows.push({
			part: 8,
			name: `Real n8n: Get Many, ${where}: node time / ideal ceil(${pages} pages / ${PAGE_CONCURRENCY}) x ${latencyMs} ms`,
			value: round(o, 0),
			baseline: ideal,
			unit: 'ms',
			ratio: round(o / ideal, 3),
			target: '<= 2',
			met: o / ideal <= 2,
		});
	}
	return rows;
}
