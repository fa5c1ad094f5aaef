/**
 * The polls of one workflow's trigger, one at a time in this process. n8n may start a poll before the last one ended
 * (a slow poll, two Poll Times at once) or run one twice (the durable scheduler), each with the static data it had
 * when it started: both would compare the service with the same state and emit the same changes. So each poll waits
 * for the one before, and one that waited reads what that one committed instead of the copy it was given; once none
 * waits, nothing is kept. Module state, not timers: the package may not touch timers or globals.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

const FIELDS = ['state', 'time'];

interface Queue {
	waiting: number;
	tail: Promise<unknown>;
	committed?: IDataObject;
}

const queues = new Map<string, Queue>();
/** Per workflow and node, the unreadable records the last poll logged ("<key>: <why>"): each is logged once. */
const logged = new Map<string, Set<string>>();

const idOf = (ctx: IPollFunctions) => `${ctx.getWorkflow().id} ${ctx.getNode().name}`;

export async function oneAtATime<T>(ctx: IPollFunctions, poll: () => Promise<T>): Promise<T> {
	const id = idOf(ctx);
	const queue = queues.get(id) ?? { waiting: 0, tail: Promise.resolve() };
	queues.set(id, queue);
	queue.waiting++;
	const run = queue.tail.then(async () => {
		const staticData = ctx.getWorkflowStaticData('node');
		for (const field of queue.committed === undefined ? [] : FIELDS) {
			const value = queue.committed![field];
			if (staticData[field] === value) continue;
			if (value === undefined) delete staticData[field];
			else staticData[field] = value;
		}
		const result = await poll();
		queue.committed = Object.fromEntries(FIELDS.map((field) => [field, staticData[field]]));
		return result;
	});
	queue.tail = run.catch(() => undefined).finally(() => --queue.waiting === 0 && queues.delete(id));
	return await run;
}

/** Logs each record the poll skipped (key → why) unless the last poll logged it too. */
export function logUnreadable(ctx: IPollFunctions, unreadable: Map<string, string>): void {
	const id = idOf(ctx);
	const before = logged.get(id);
	const now = new Set(Array.from(unreadable, ([key, why]) => `${key}: ${why}`));
	for (const line of now) {
		if (before?.has(line)) continue;
		ctx.logger.warn(
			`Appointments Polling Trigger: skipped appointment ${line}. The others are watched as usual; this one is read again each poll.`,
			{ workflowId: ctx.getWorkflow().id, node: ctx.getNode().name },
		);
	}
	if (now.size > 0) logged.set(id, now);
	else logged.delete(id);
}
