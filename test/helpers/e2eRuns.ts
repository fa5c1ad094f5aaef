/**
 * What the e2e suites read back from a running stack (test/helpers/e2e.ts): the sandbox's appointments and
 * subscriptions, n8n's executions, the mail sink's emails. Each takes the suite's Stack.
 */
import { DateTime } from 'luxon';

import { pollUntil } from '../../scripts/proc';
import type { Stack } from '../../scripts/stack';
import type { StackCore } from '../../scripts/stackCore';
import { TZ } from './e2e';

export const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';
export const FRONT_DESK = 'front-desk@example.com';
export const SENDER = 'bookings@example.com';

/** A time of the service as the examples' emails write it: in the account's zone, in a Luxon format. */
export const fmt = (iso: string, f: string) =>
	DateTime.fromISO(iso, { setZone: true }).setZone(TZ).toFormat(f);

/** Every appointment the service's API lists for the query, through all its pages. */
export async function listAppointments(
	stack: Stack,
	query: Record<string, string>,
): Promise<any[]> {
	const qs = new URLSearchParams({ ...query, page_size: '500' }).toString();
	const out: any[] = [];
	let next: string | null = `/api/v3/appointments/?${qs}`;
	while (next) {
		const page: any = await stack.sandboxApi.ok('GET', next);
		const results = Array.isArray(page) ? page : page.results;
		out.push(...results);
		next =
			!Array.isArray(page) && page.next
				? new URL(page.next, stack.sandboxUrl).pathname +
					new URL(page.next, stack.sandboxUrl).search
				: null;
	}
	return out;
}

/**
 * What the editor's "Execute workflow" does: a manual run from the given trigger (a Schedule Trigger works too),
 * read back once it finished, whatever its status. In queue mode a worker runs it.
 */
export async function runManually(
	stack: StackCore,
	workflowId: string,
	triggerName: string,
): Promise<any> {
	const r: any = await stack.rest.ok('POST', `/rest/workflows/${workflowId}/run`, {
		body: { triggerToStartFrom: { name: triggerName } },
	});
	const id = String(r.data.executionId);
	return await pollUntil(
		`execution ${id} of ${workflowId}`,
		async () => {
			const e: any = await stack.api.ok('GET', `/api/v1/executions/${id}?includeData=true`);
			return e.finished || ['success', 'error', 'crashed'].includes(e.status) ? e : undefined;
		},
		{ timeoutMs: 120000 },
	);
}

export async function createAppointment(stack: Stack, body: Record<string, unknown>): Promise<any> {
	return stack.admin.ok('POST', '/__sandbox/appointments/', { body });
}

export async function subscriptions(stack: Stack): Promise<any[]> {
	const b: any = await stack.admin.ok('GET', '/__sandbox/webhooks/');
	return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
}

/** The webhookId of an example workflow's trigger node (n8n's webhook URLs carry it). */
export function webhookIdOf(stack: Stack, workflowId: string): string {
	const ex = stack.examples.find((e) => e.id === workflowId);
	const trigger = ex?.json.nodes.find((n: any) => n.type === TRIGGER_TYPE);
	if (!trigger?.webhookId)
		throw new Error(`example ${workflowId} has no trigger node with a webhookId`);
	return trigger.webhookId;
}

/** The production subscriptions of one of our example workflows. */
export function ours(stack: Stack, subs: any[], workflowId: string): any[] {
	return subs.filter((s) =>
		String(s.url).startsWith(`${stack.n8n.url}/webhook/${webhookIdOf(stack, workflowId)}/`),
	);
}

export async function executions(stack: Stack, workflowId: string): Promise<any[]> {
	const b: any = await stack.api.ok('GET', `/api/v1/executions?workflowId=${workflowId}&limit=250`);
	return b.data;
}

export interface Mail {
	from: string;
	to: string[];
	subject: string;
	text: string;
}

/** The emails the sandbox's mail sink received, oldest first. */
export async function mailbox(stack: Stack): Promise<Mail[]> {
	const { results } = await stack.admin.ok('GET', '/__sandbox/mailbox/');
	return [...results].reverse();
}

export const emptyMailbox = (stack: Stack) => stack.admin.ok('DELETE', '/__sandbox/mailbox/');

/** Waits until the mailbox holds `count` emails that `match`, and returns them. */
export async function mailsMatching(
	stack: Stack,
	count: number,
	match: (m: Mail) => boolean,
	what: string,
): Promise<Mail[]> {
	return await pollUntil(
		what,
		async () => {
			const got = (await mailbox(stack)).filter(match);
			if (got.length >= count) return got;
			throw new Error(
				`${got.length} so far; mailbox: ${JSON.stringify((await mailbox(stack)).map((m) => m.subject))}`,
			);
		},
		{ timeoutMs: 30000 },
	);
}

/**
 * Poll Times that make n8n poll every `seconds` seconds at known seconds of the minute: one custom cron per poll,
 * each firing once a minute at a fixed second (n8n refuses a sub-minute cron, isSubMinuteCron, but judges each
 * expression alone). A test then waits seconds, not up to a minute, for n8n's next poll. Our node never reads
 * Poll Times (n8n-core schedules the polls), so what the poll does is the same as on Every Minute.
 */
export function pollTimesEvery(seconds: number): {
	item: Array<{ mode: 'custom'; cronExpression: string }>;
} {
	const item = [];
	for (let s = 0; s < 60; s += seconds)
		item.push({ mode: 'custom' as const, cronExpression: `${s} * * * * *` });
	return { item };
}

/** Saves a workflow with its polling trigger `node` set to poll every `seconds` seconds (before publishing it). */
export async function setPollEvery(
	api: StackCore['api'],
	workflowId: string,
	node: string,
	seconds: number,
): Promise<void> {
	const wf: any = await api.ok('GET', `/api/v1/workflows/${workflowId}`);
	const trigger = wf.nodes.find((n: any) => n.name === node);
	if (!trigger?.parameters?.pollTimes)
		throw new Error(`workflow ${workflowId} has no polling trigger named ${node}`);
	trigger.parameters.pollTimes = pollTimesEvery(seconds);
	const body = {
		name: wf.name,
		nodes: wf.nodes,
		connections: wf.connections,
		settings: { executionOrder: 'v1' },
	};
	await api.ok('PUT', `/api/v1/workflows/${workflowId}`, { body });
}
