/**
 * Events in, executions out, through public interfaces only: the sandbox's admin API creates appointments (one
 * appointment.created event each), n8n's public API lists the executions. Shared by the queue tests and the
 * queue benchmark.
 */
import type { JsonClient } from '../jsonClient';
import { nodeOutput } from '../n8nCli';
import { pollUntil } from '../proc';

/** Creates `n` appointments through the sandbox's admin API, `concurrency` at a time; returns their keys in order. */
export async function createAppointments(
	admin: JsonClient,
	n: number,
	concurrency = 8,
): Promise<string[]> {
	const keys: string[] = new Array(n);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(concurrency, n) }, async () => {
			while (next < n) {
				const i = next++;
				keys[i] = (
					await admin.ok('POST', '/__sandbox/appointments/', { body: { status: 'CONFIRMED' } })
				).appointment_key;
			}
		}),
	);
	return keys;
}

/** Every execution of a workflow (public API, all pages), oldest first. */
export async function listExecutions(
	api: JsonClient,
	workflowId: string,
	includeData = false,
): Promise<any[]> {
	const out: any[] = [];
	let cursor: string | undefined;
	do {
		const qs = new URLSearchParams({ workflowId, limit: '250', includeData: String(includeData) });
		if (cursor) qs.set('cursor', cursor);
		const page: any = await api.ok('GET', `/api/v1/executions?${qs}`, { timeoutMs: 120000 });
		out.push(...page.data);
		cursor = page.nextCursor ?? undefined;
	} while (cursor);
	return out.sort((a, b) => Number(a.id) - Number(b.id));
}

const done = (e: any) =>
	e.finished === true || ['success', 'error', 'crashed', 'canceled'].includes(e.status);

/**
 * Waits until the sandbox has nothing left to deliver and every execution of the workflow has ended. n8n stores
 * an execution before it answers the delivery, so once nothing is pending the list is complete.
 */
export async function settle(
	admin: JsonClient,
	api: JsonClient,
	workflowId: string,
	timeoutMs = 15 * 60_000,
): Promise<any[]> {
	await pollUntil(
		'the sandbox to deliver everything',
		async () => {
			const d: any = await admin.ok('GET', '/__sandbox/deliveries/?summary=true');
			if (d.pending === 0) return true;
			throw new Error(`pending ${d.pending}`);
		},
		{ timeoutMs, intervalMs: 500 },
	);
	return pollUntil(
		'every execution to end',
		async () => {
			const list = await listExecutions(api, workflowId);
			const open = list.filter((e) => !done(e)).length;
			if (open === 0) return list;
			throw new Error(`${open} of ${list.length} executions still running`);
		},
		{ timeoutMs, intervalMs: 1000 },
	);
}

export interface HandledEvent {
	executionId: string;
	status: string;
	event: string;
	appointmentKey: string;
	/** The event's own timestamp (when the sandbox emitted it) and when the execution ended, in ms. */
	emittedAt: number;
	stoppedAt: number;
	/** Items that got past `handlerNode` (Remove Duplicates lets a first delivery through, drops the rest). */
	handled: number;
}

/** What each execution of the workflow received from `triggerNode` and passed on to `handlerNode`. */
export async function handledEvents(
	api: JsonClient,
	workflowId: string,
	triggerNode: string,
	handlerNode: string,
): Promise<HandledEvent[]> {
	return (await listExecutions(api, workflowId, true)).map((e) => {
		const [item] = nodeOutput(e, triggerNode);
		return {
			executionId: String(e.id),
			status: e.status,
			event: item?.event,
			appointmentKey: item?.data?.appointment_key,
			emittedAt: item ? Date.parse(item.timestamp) : NaN,
			stoppedAt: Date.parse(e.stoppedAt),
			handled: nodeOutput(e, handlerNode).length,
		};
	});
}
