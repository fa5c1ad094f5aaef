/**
 * The polls of one workflow's trigger, one at a time in this process. n8n may start a poll before the last one ended
 * (a slow poll, two Poll Times at once) or run one twice (the durable scheduler), each with the static data it had
 * when it started: both would compare with the same state and emit the same changes. So a poll waits for the one
 * before and then reads what that one committed, not the copy it was given; nothing is kept once none waits.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

type Queue = { waiting: number; tail: Promise<unknown>; committed?: IDataObject };
const queues = new Map<string, Queue>();
/** Per workflow and node, the unusable records the last poll logged ("<key>: <why>"): each is logged once. */
const logged = new Map<string, Set<string>>();
const idOf = (ctx: IPollFunctions) => `${ctx.getWorkflow().id} ${ctx.getNode().name}`;

export async function oneAtATime<T>(ctx: IPollFunctions, poll: () => Promise<T>): Promise<T> {
	const id = idOf(ctx);
	const queue = queues.get(id) ?? { waiting: 0, tail: Promise.resolve() };
	queues.set(id, queue);
	queue.waiting++;
	const run = queue.tail.then(async () => {
		const staticData = ctx.getWorkflowStaticData('node');
		for (const [field, value] of Object.entries(queue.committed ?? {})) {
			if (staticData[field] === value) continue;
			if (value === undefined) delete staticData[field];
			else staticData[field] = value;
		}
		const result = await poll();
		queue.committed = { state: staticData.state, time: staticData.time };
		return result;
	});
	queue.tail = run.catch(() => {}).finally(() => --queue.waiting === 0 && queues.delete(id));
	return await run;
}

/** Logs each record the poll skipped (key → why) that the last poll did not. */
export function logUnreadable(ctx: IPollFunctions, unreadable: Map<string, string>): void {
	const id = idOf(ctx);
	const now = new Set(Array.from(unreadable, ([key, why]) => `${key}: ${why}`));
	for (const line of now)
		if (!logged.get(id)?.has(line))
			ctx.logger.warn(
				`Appointments Polling Trigger: skipped appointment ${line}. The others are watched as usual; this one is read again each poll.`,
			);
	if (now.size > 0) logged.set(id, now);
	else logged.delete(id);
}
