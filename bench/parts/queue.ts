/**
 * Part 9 (--queue): n8n's queue mode (scripts/queue/queueStack.ts) against n8n's regular mode (scripts/stack.ts), in
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
import { runRounds } from '../lib/rounds';
import { chain, node, TRIGGER_TYPE } from '../lib/workflows';
import { DEV_DIR } from '../../scripts/paths';
import type { JsonClient } from '../../scripts/jsonClient';

const OWNER = {
	email: 'bench@example.com',
	password: 'Bench-Passw0rd',
	firstName: 'Bench',
	lastName: 'Owner',
};
const CREDENTIALS = { appointmentsApi: { id: 'apptsApiCred01', name: 'Appointments API' } };

interface Target {
	api: JsonClient;
	rest: JsonClient;
	admin: JsonClient;
}

async function triggerWorkflow(t: Target): Promise<string> {
	const trigger = node(
		'On Created',
		TRIGGER_TYPE,
		0,
		{ events: ['appointment.created'], options: {} },
		{ webhookId: crypto.randomUUID(), credentials: CREDENTIALS },
	);
	const wf: any = await t.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: trigger to No Operation', [
			trigger,
			node('Handle Event', 'n8n-nodes-base.noOp', 220),
		]),
	});
	await t.api.ok('POST', `/api/v1/workflows/${wf.id}/activate`);
	const { pollUntil } = await import('../../scripts/proc');
	// Events emitted before the subscription exists go nowhere.
	const hookId = wf.nodes.find((n: any) => n.type === TRIGGER_TYPE).webhookId;
	await pollUntil('the trigger to subscribe', async () =>
		(await t.admin.ok('GET', '/__sandbox/webhooks/')).webhooks.some((w: any) =>
			String(w.url).includes(`/webhook/${hookId}/`),
		)
			? true
			: undefined,
	);
	return wf.id;
}

async function getManyWorkflow(t: Target): Promise<string> {
	const getMany = node(
		'Get Many',
		'n8n-nodes-appointments.appointments',
		220,
		{ resource: 'appointment', operation: 'getAll', dateRange: 'all', returnAll: true },
		{ credentials: CREDENTIALS },
	);
	const body = chain(
		'Bench: Get Many, Return All',
		[node('Start', 'n8n-nodes-base.manualTrigger', 0), getMany],
		{ saveDataSuccessExecution: 'none' },
	);
	const wf: any = await t.api.ok('POST', '/api/v1/workflows', { body });
	return wf.id;
}

const pct = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function endToEnd(t: Target, workflowId: string, n: number) {
	const ev = await import('../../scripts/queue/events');
	const before = new Set(
		(await ev.settle(t.admin, t.api, workflowId)).map((e: any) => String(e.id)),
	);
	await ev.createAppointments(t.admin, n);
	await ev.settle(t.admin, t.api, workflowId);
	const all = (await ev.handledEvents(t.api, workflowId, 'On Created', 'Handle Event')).filter(
		(e) => !before.has(e.executionId),
	);
	// The first execution of each event (a redelivery after a time-out may start a second one elsewhere).
	const first = new Map<string, (typeof all)[number]>();
	for (const r of all)
		if (r.status === 'success' && !first.has(r.appointmentKey)) first.set(r.appointmentKey, r);
	const runs = [...first.values()];
	const deliveries: any = await t.admin.ok('GET', '/__sandbox/deliveries/?summary=true');
	const latencies = runs.map((r) => r.stoppedAt - r.emittedAt).sort((a, b) => a - b);
	const span =
		Math.max(...runs.map((r) => r.stoppedAt)) - Math.min(...runs.map((r) => r.emittedAt));
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
	const s = await runRounds({
		contestants: ['getMany'],
		rounds: runs,
		gc: false,
		run: async () => {
			const r: any = await t.rest.ok('POST', `/rest/workflows/${workflowId}/run`, {
				body: { triggerToStartFrom: { name: 'Start' } },
			});
			const id = r.data.executionId;
			const ex: any = await pollUntil(
				`Get Many execution ${id}`,
				async () => {
					const e: any = await t.api.ok('GET', `/api/v1/executions/${id}`);
					return e.finished || ['success', 'error', 'crashed'].includes(e.status) ? e : undefined;
				},
				{ timeoutMs: 300000, intervalMs: 100 },
			);
			if (ex.status !== 'success')
				throw new Error(`Get Many execution ${id} ended with ${ex.status}`);
			return Date.parse(ex.stoppedAt) - Date.parse(ex.startedAt);
		},
	});
	return median(s.results.getMany);
}

// Under a burst n8n (either mode) may answer 503 for a while (its database health ping times out): a longer
// retry schedule than the sandbox's default, so that no event is given up; a generous time-out, so that a slow
// answer does not add redeliveries; 16 deliveries in flight.
const sandboxOptions = (seed: number) => ({
	seed,
	deliveryTimeoutMs: 60000,
	deliveryConcurrency: 16,
	retrySchedule: [1000, 2000, 4000, 8000, 16000, 32000, 60000],
});

export async function runQueuePart(ctx: PartContext): Promise<Row[]> {
	const proc = (await import('../../scripts/proc')) as typeof import('../../scripts/proc');
	proc.killAllOnSignals();
	const n = ctx.smoke ? 50 : Number(process.env.QUEUE_BENCH_EVENTS ?? 300);
	const seed = ctx.smoke ? 1000 : 10000;
	const root = path.join(DEV_DIR, 'bench-queue');
	fs.rmSync(root, { recursive: true, force: true });
	const base = await regularMode(ctx, root, seed, n);
	return await queueRows(ctx, root, seed, n, base);
}

type EndToEnd = Awaited<ReturnType<typeof endToEnd>>;

/** The baseline: end to end and Get Many in n8n's regular mode (one process, SQLite). */
async function regularMode(
	ctx: PartContext,
	root: string,
	seed: number,
	n: number,
): Promise<{ e2e: EndToEnd; getManyMs: number }> {
	ctx.log('part 9: regular mode (one n8n process, SQLite)...');
	const { startStack } = await import('../../scripts/stack');
	const regular = await startStack({
		userFolder: path.join(root, 'regular'),
		owner: OWNER,
		sandbox: sandboxOptions(seed),
		log: (m) => ctx.log(`part 9: ${m}`),
	});
	let e2e: EndToEnd;
	let getManyMs: number;
	try {
		e2e = await endToEnd(regular, await triggerWorkflow(regular), n);
		getManyMs = await getMany(regular, await getManyWorkflow(regular), 3);
	} finally {
		await regular.stop();
	}
	ctx.log(`part 9: regular: ${JSON.stringify(e2e)}; Get Many ${getManyMs} ms`);
	return { e2e, getManyMs };
}

async function queueRows(
	ctx: PartContext,
	root: string,
	seed: number,
	n: number,
	base: { e2e: EndToEnd; getManyMs: number },
): Promise<Row[]> {
	ctx.log('part 9: queue mode (Postgres, Redis, nginx, main, 2 webhook processes, 2 workers)...');
	const { startQueueStack } = await import('../../scripts/queue/queueStack');
	const q = await startQueueStack({
		dir: path.join(root, 'queue'),
		owner: OWNER,
		sandbox: sandboxOptions(seed),
		log: (m) => ctx.log(`part 9: ${m}`),
	});
	const rows: Row[] = [];
	try {
		const target = () => ({ api: q.api, rest: q.rest, admin: q.admin });
		const wf = await triggerWorkflow(target());
		const w2 = q.webhooks[1];
		const k2 = q.workers[1];
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
					baseline: base.e2e.perSecond,
					unit: 'events/s',
					ratio: round(m.perSecond / base.e2e.perSecond, 3),
					details: { events: n, queue: m, regular: base.e2e },
				},
				{
					part: 9,
					name: `Queue mode, ${shape}: latency p50 / p95`,
					value: `${m.p50} / ${m.p95}`,
					baseline: `${base.e2e.p50} / ${base.e2e.p95}`,
					unit: 'ms',
					ratio: round(m.p50 / base.e2e.p50, 3),
				},
			);
		}
		await k2.start();
		const getManyMs = await getMany(target(), await getManyWorkflow(target()), 3);
		ctx.log(`part 9: Get Many of ${seed} on a worker: ${getManyMs} ms`);
		rows.push({
			part: 9,
			name: `Get Many, Return All of ${seed} appointments: on a worker / regular mode`,
			value: getManyMs,
			baseline: base.getManyMs,
			unit: 'ms',
			ratio: round(getManyMs / base.getManyMs, 3),
		});
	} finally {
		await q.stop();
	}
	return rows;
}
