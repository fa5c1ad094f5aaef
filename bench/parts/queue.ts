/**
 * Part 9 (--queue): n8n's queue mode (scripts/queue/stack.ts) against n8n's regular mode (scripts/stack.ts), in
 * the same run, on the same sandbox data.
 *   - End to end: the sandbox emits `appointment.created` for N new appointments (admin API, 8 at a time) to an
 *     active workflow "Appointments Trigger -> No Operation"; per event, latency = the execution's stoppedAt minus
 *     the event's own timestamp; throughput = N / (last stoppedAt - first timestamp). Queue mode with 1 and 2
 *     webhook processes and 1 and 2 workers (processes stopped and started within one stack); the baseline is
 *     regular mode (one process, SQLite).
 *   - Get Many, Return All of 10,000 appointments, run from the editor's "Execute workflow" (a worker runs it in
 *     queue mode, the main in regular mode): the median execution time (startedAt -> stoppedAt) of 3 runs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { median, round, type PartContext, type Row } from '../lib/common';
import { DEV_DIR } from '../../scripts/paths';
import type { JsonClient } from '../../scripts/http';

const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';
const OWNER = { email: 'bench@example.com', password: 'Bench-Passw0rd', firstName: 'Bench', lastName: 'Owner' };
const CREDENTIALS = { appointmentsApi: { id: 'apptsApiCred01', name: 'Appointments API' } };
const node = (name: string, type: string, x: number, parameters: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
	parameters,
	id: crypto.randomUUID(),
	name,
	type,
	typeVersion: 1,
	position: [x, 0],
	...extra,
});

interface Target {
	api: JsonClient;
	rest: JsonClient;
	admin: JsonClient;
}

async function triggerWorkflow(t: Target): Promise<string> {
	const wf: any = await t.api.ok('POST', '/api/v1/workflows', {
		body: {
			name: 'Bench: trigger to No Operation',
			nodes: [
				node('On Created', TRIGGER_TYPE, 0, { events: ['appointment.created'], options: {} }, { webhookId: crypto.randomUUID(), credentials: CREDENTIALS }),
				node('Handle Event', 'n8n-nodes-base.noOp', 220),
			],
			connections: { 'On Created': { main: [[{ node: 'Handle Event', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		},
	});
	await t.api.ok('POST', `/api/v1/workflows/${wf.id}/activate`);
	const { pollUntil } = await import('../../scripts/proc');
	// Events emitted before the subscription exists go nowhere.
	const hookId = wf.nodes.find((n: any) => n.type === TRIGGER_TYPE).webhookId;
	await pollUntil('the trigger to subscribe', async () =>
		(await t.admin.ok('GET', '/__sandbox/webhooks/')).webhooks.some((w: any) => String(w.url).includes(`/webhook/${hookId}/`)) ? true : undefined,
	);
	return wf.id;
}

async function getManyWorkflow(t: Target): Promise<string> {
	const wf: any = await t.api.ok('POST', '/api/v1/workflows', {
		body: {
			name: 'Bench: Get Many, Return All',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 0),
				node('Get Many', 'n8n-nodes-appointments.appointments', 220, { resource: 'appointment', operation: 'getAll', dateRange: 'all', returnAll: true }, { credentials: CREDENTIALS }),
			],
			connections: { Start: { main: [[{ node: 'Get Many', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none' },
		},
	});
	return wf.id;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function endToEnd(t: Target, workflowId: string, n: number) {
	const ev = await import('../../scripts/queue/events');
	const before = new Set((await ev.settle(t.admin, t.api, workflowId)).map((e: any) => String(e.id)));
	await ev.createAppointments(t.admin, n);
	await ev.settle(t.admin, t.api, workflowId);
	const all = (await ev.handledEvents(t.api, workflowId, 'On Created', 'Handle Event')).filter((e) => !before.has(e.executionId));
	// The first execution of each event (a redelivery after a time-out may start a second one elsewhere).
	const first = new Map<string, (typeof all)[number]>();
	for (const r of all) if (r.status === 'success' && !first.has(r.appointmentKey)) first.set(r.appointmentKey, r);
	const runs = [...first.values()];
	const deliveries: any = await t.admin.ok('GET', '/__sandbox/deliveries/?summary=true');
	const latencies = runs.map((r) => r.stoppedAt - r.emittedAt).sort((a, b) => a - b);
	const span = Math.max(...runs.map((r) => r.stoppedAt)) - Math.min(...runs.map((r) => r.emittedAt));
	return {
		perSecond: round((runs.length * 1000) / span, 1),
		p50: latencies[Math.floor(latencies.length / 2)],
		p95: pct(latencies, 95),
		duplicates: all.length - runs.length,
		missing: n - runs.length,
		deliveries,
	};
}

async function getMany(t: Target, workflowId: string, runs: number): Promise<number> {
	const { pollUntil } = await import('../../scripts/proc');
	const ms: number[] = [];
	for (let i = 0; i < runs; i++) {
		const r: any = await t.rest.ok('POST', `/rest/workflows/${workflowId}/run`, { body: { triggerToStartFrom: { name: 'Start' } } });
		const id = r.data.executionId;
		const ex: any = await pollUntil(`Get Many execution ${id}`, async () => {
			const e: any = await t.api.ok('GET', `/api/v1/executions/${id}`);
			return e.finished || ['success', 'error', 'crashed'].includes(e.status) ? e : undefined;
		}, { timeoutMs: 300000, intervalMs: 100 });
		if (ex.status !== 'success') throw new Error(`Get Many execution ${id} ended with ${ex.status}`);
		ms.push(Date.parse(ex.stoppedAt) - Date.parse(ex.startedAt));
	}
	return median(ms);
}

export async function runQueuePart(ctx: PartContext): Promise<Row[]> {
	const proc = (await import('../../scripts/proc')) as typeof import('../../scripts/proc');
	proc.killAllOnSignals();
	const n = ctx.smoke ? 50 : Number(process.env.QUEUE_BENCH_EVENTS ?? 300);
	const seed = ctx.smoke ? 1000 : 10000;
	const root = path.join(DEV_DIR, 'bench-queue');
	fs.rmSync(root, { recursive: true, force: true });
	const rows: Row[] = [];

	ctx.log('part 9: regular mode (one n8n process, SQLite)...');
	const { startStack } = await import('../../scripts/stack');
	// Under a burst n8n (either mode) may answer 503 for a while (its database health ping times out): a longer
	// retry schedule than the sandbox's default, so that no event is given up; a generous time-out, so that a slow
	// answer does not add redeliveries; 16 deliveries in flight.
	const sandbox = { seed, deliveryTimeoutMs: 60000, deliveryConcurrency: 16, retrySchedule: [1000, 2000, 4000, 8000, 16000, 32000, 60000] };
	const regular = await startStack({ userFolder: path.join(root, 'regular'), owner: OWNER, sandbox, log: (m) => ctx.log(`part 9: ${m}`) });
	let base: Awaited<ReturnType<typeof endToEnd>>;
	let baseGetMany: number;
	try {
		base = await endToEnd(regular, await triggerWorkflow(regular), n);
		baseGetMany = await getMany(regular, await getManyWorkflow(regular), 3);
	} finally {
		await regular.stop();
	}
	ctx.log(`part 9: regular: ${JSON.stringify(base)}; Get Many ${baseGetMany} ms`);

	ctx.log('part 9: queue mode (Postgres, Redis, nginx, main, 2 webhook processes, 2 workers)...');
	const { startQueueStack } = await import('../../scripts/queue/stack');
	const q = await startQueueStack({ dir: path.join(root, 'queue'), owner: OWNER, sandbox, log: (m) => ctx.log(`part 9: ${m}`) });
	try {
		const target = () => ({ api: q.api, rest: q.rest, admin: q.admin });
		const wf = await triggerWorkflow(target());
		const [w1, w2] = q.webhooks;
		const [k1, k2] = q.workers;
		// From 2 x 2 down to 1 x 1 and back up to 2 x 1, stopping and starting processes of the one stack.
		const shapes: Array<[string, () => Promise<void>]> = [
			['2 webhook processes, 2 workers', async () => undefined],
			['1 webhook process, 2 workers', () => w2.stop()],
			['1 webhook process, 1 worker', () => k2.stop()],
			['2 webhook processes, 1 worker', () => w2.start()],
		];
		for (const [shape, change] of shapes) {
			await change();
			const m = await endToEnd(target(), wf, n);
			ctx.log(`part 9: ${shape}: ${JSON.stringify(m)}`);
			rows.push(
				{
					part: 9,
					name: `Queue mode, ${shape}: events/s end to end`,
					value: m.perSecond,
					baseline: base.perSecond,
					unit: 'events/s',
					ratio: round(m.perSecond / base.perSecond, 3),
					details: { events: n, queue: m, regular: base },
				},
				{ part: 9, name: `Queue mode, ${shape}: latency p50 / p95`, value: `${m.p50} / ${m.p95}`, baseline: `${base.p50} / ${base.p95}`, unit: 'ms', ratio: round(m.p50 / base.p50, 3) },
			);
		}
		await k2.start();
		const getManyMs = await getMany(target(), await getManyWorkflow(target()), 3);
		ctx.log(`part 9: Get Many of ${seed} on a worker: ${getManyMs} ms`);
		rows.push({
			part: 9,
			name: `Get Many, Return All of ${seed} appointments: on a worker / regular mode`,
			value: getManyMs,
			baseline: baseGetMany,
			unit: 'ms',
			ratio: round(getManyMs / baseGetMany, 3),
		});
	} finally {
		await q.stop();
	}
	return rows;
}
