/**
 * The package in n8n's queue mode (`npm run test:queue`): Postgres, Redis, a main, two webhook processes behind
 * nginx (https) and two workers, against the sandbox. Driven from outside only: the sandbox's admin API, n8n's
 * public and REST APIs, nginx's access log (which process got a delivery) and the workers' logs (which worker ran
 * an execution). QUEUE_EVENTS sets the size of the load tests (default 1000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { nodeOutput } from '../../scripts/n8nCli';
import { DEV_DIR } from '../../scripts/paths';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import {
	createAppointments,
	handledEvents,
	listExecutions,
	settle,
	type HandledEvent,
} from '../../scripts/queue/events';
import { startQueueStack, type QueueStack } from '../../scripts/queue/queueStack';
import { runManually } from '../helpers/e2eRuns';

const EVENTS = Number(process.env.QUEUE_EVENTS ?? 1000);
const TZ = 'America/Santiago';
const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';
const DEDUPE_WF = 'apptTriggerDedupe'; // example 6: trigger -> Remove Duplicates -> Email the Event
const TRIGGER_NODE = 'On Any Appointment Event';
let stack: QueueStack;

beforeAll(async () => {
	killAllOnSignals();
	const root = path.join(DEV_DIR, 'queue-test');
	fs.rmSync(root, { recursive: true, force: true }); // a fresh database every run
	try {
		stack = await startQueueStack({
			dir: root,
			owner: {
				email: 'queue@example.com',
				password: 'Queue-Passw0rd',
				firstName: 'Queue',
				lastName: 'Owner',
			},
			// Under a burst n8n may answer 503 for a while (its database health ping times out): retries for longer
			// than the sandbox's default 15 s, so that no event is given up; and a loaded machine may take longer than
			// 10 s to answer, which would add redeliveries.
			sandbox: {
				deliveryTimeoutMs: 30000,
				retrySchedule: [500, 1000, 2000, 4000, 8000, 16000, 32000, 60000],
			},
			log: (m) => process.stderr.write(`[queue] ${m}\n`),
		});
	} catch (e) {
		process.stderr.write(
			`\n[queue] ERROR: could not set up the queue-mode stack:\n${(e as Error).message}\n\n`,
		);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

async function subscriptions(): Promise<any[]> {
	return (await stack.admin.ok('GET', '/__sandbox/webhooks/')).webhooks;
}

function webhookIdOf(workflow: any): string {
	return workflow.nodes.find((n: any) => n.type === TRIGGER_TYPE).webhookId;
}

const exampleJson = (id: string) => stack.examples.find((e) => e.id === id)!.json;

async function publish(workflowId: string, webhookId: string): Promise<any> {
	await stack.api.ok('POST', `/api/v1/workflows/${workflowId}/activate`);
	const prefix = `${stack.url}/webhook/${webhookId}/`;
	const [sub] = await pollUntil('the subscription', async () => {
		const s = (await subscriptions()).filter((w) => String(w.url).startsWith(prefix));
		return s.length ? s : undefined;
	});
	return sub;
}

async function unpublish(workflowId: string) {
	await stack.api.ok('POST', `/api/v1/workflows/${workflowId}/deactivate`);
	await pollUntil('no subscription left', async () =>
		(await subscriptions()).length === 0 ? true : undefined,
	);
}

/** One new appointment gives exactly one new execution of the workflow, carrying that appointment. */
async function probe(workflowId: string) {
	const before = (await settle(stack.admin, stack.api, workflowId)).length;
	const [key] = await createAppointments(stack.admin, 1);
	const after = await settle(stack.admin, stack.api, workflowId);
	expect(after).toHaveLength(before + 1);
	const ex: any = await stack.api.ok(
		'GET',
		`/api/v1/executions/${after[after.length - 1].id}?includeData=true`,
	);
	expect(nodeOutput(ex, TRIGGER_NODE)[0].data.appointment_key).toBe(key);
}

/** Since the request log was last cleared: no subscription created, changed or deleted; still exactly `sub`. */
async function subscriptionUntouched(sub: any) {
	const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
	expect(
		requests.filter(
			(r: any) => String(r.path).startsWith('/api/v3/webhooks/') && r.method !== 'GET',
		),
	).toEqual([]);
	expect(await subscriptions()).toEqual([sub]);
}

describe('subscriptions in queue mode', () => {
	test(
		'publishing creates one subscription; three restarts of the main and of the webhook processes keep exactly one; unpublishing removes it',
		async () => {
			const webhookId = webhookIdOf(exampleJson(DEDUPE_WF));
			const sub = await publish(DEDUPE_WF, webhookId);
			// The balancer's URL, not a process's own: every webhook process can take the deliveries.
			expect(sub.url).toBe(`${stack.url}/webhook/${webhookId}/webhook`);
			expect(await subscriptions()).toHaveLength(1);
			try {
				// n8n 2.41 keeps webhook registrations in its database: a process that starts does not subscribe again.
				for (let round = 1; round <= 3; round++) {
					await stack.admin.ok('DELETE', '/__sandbox/requests/');
					await stack.restartMain();
					await probe(DEDUPE_WF);
					await subscriptionUntouched(sub);
					if (round < 3) {
						await stack.restartWebhooks();
						await probe(DEDUPE_WF);
						await subscriptionUntouched(sub);
					}
				}
			} finally {
				await unpublish(DEDUPE_WF);
			}
			expect(await subscriptions()).toEqual([]);
		},
		20 * 60_000,
	);
});

/**
 * `n` new appointments, every event delivered twice, 10% of the first answers dropped; waits until the sandbox
 * has delivered everything and the workflow's executions have ended. Returns the appointments' keys.
 */
async function deliverUnderFaults(n: number, workflowId: string): Promise<string[]> {
	await stack.admin.ok('DELETE', '/__sandbox/deliveries/');
	// duplicateDelivery applies when an event is queued, deliveryFailRate when it is attempted: both stay on until
	// everything is delivered.
	await stack.admin.ok('POST', '/__sandbox/config/', {
		body: { duplicateDelivery: true, deliveryFailRate: 0.1 },
	});
	try {
		const keys = await createAppointments(stack.admin, n);
		await settle(stack.admin, stack.api, workflowId);
		return keys;
	} finally {
		await stack.admin.ok('POST', '/__sandbox/config/', {
			body: { duplicateDelivery: false, deliveryFailRate: 0 },
		});
	}
}

interface LoadResult {
	events: HandledEvent[];
	/** Deliveries n8n answered 200 (the ones whose answer the sandbox then dropped included). */
	received: number;
	lostAnswers: number;
	/** Executions started beyond one per event: duplicates the trigger's per-process memory let through. */
	pastTrigger: number;
	/** Executions whose item got past Remove Duplicates, beyond one per event. */
	pastRemoveDuplicates: number;
	perKey: Map<string, number>;
	byProcess: Map<string, number>;
	/** Requests nginx sent to another webhook process after the first one it tried failed. */
	failedOver: number;
	byWorker: Map<string, number>;
}

/** Example 6 published; EVENTS new appointments under duplicates and lost answers; what n8n made of them. */
async function load(label: string): Promise<LoadResult> {
	await publish(DEDUPE_WF, webhookIdOf(exampleJson(DEDUPE_WF)));
	try {
		const skipped = new Set(
			(await settle(stack.admin, stack.api, DEDUPE_WF)).map((e) => String(e.id)),
		);
		const since = Date.now() / 1000;
		const keys = await deliverUnderFaults(EVENTS, DEDUPE_WF);
		const events = (
			await handledEvents(stack.api, DEDUPE_WF, TRIGGER_NODE, 'Email the Event')
		).filter((e) => !skipped.has(e.executionId));
		const log = await stack.admin.ok('GET', '/__sandbox/deliveries/');
		expect(log.gave_up).toBe(0);
		const perKey = new Map(keys.map((k) => [k, 0]));
		for (const e of events)
			if (e.handled > 0)
				perKey.set(e.appointmentKey, (perKey.get(e.appointmentKey) ?? 0) + e.handled);
		const byProcess = new Map<string, number>();
		const requests = stack.webhookRequests().filter((r) => r.at >= since);
		for (const r of requests) byProcess.set(r.process, (byProcess.get(r.process) ?? 0) + 1);
		const ran = stack.executionsByWorker();
		const byWorker = new Map(
			stack.workers.map((w) => [
				w.name,
				events.filter((e) => ran.get(w.name)!.has(e.executionId)).length,
			]),
		);
		const r: LoadResult = {
			events,
			received: log.deliveries.filter((d: any) => d.status === 200).length,
			lostAnswers: log.deliveries.filter((d: any) =>
				String(d.error ?? '').includes('answer dropped'),
			).length,
			pastTrigger: events.length - EVENTS,
			pastRemoveDuplicates: events.filter((e) => e.handled > 0).length - EVENTS,
			perKey,
			byProcess,
			byWorker,
			failedOver: requests.filter((q) => q.failedOver).length,
		};
		process.stdout.write(
			`[queue] ${label}: ${EVENTS} events, ${r.received} deliveries answered by n8n ` +
				`(${r.lostAnswers} answers then dropped), ${events.length} executions started (${r.pastTrigger} duplicates past the ` +
				`trigger's per-process memory), ${EVENTS + r.pastRemoveDuplicates} past Remove Duplicates (${r.pastRemoveDuplicates} duplicates); ` +
				`deliveries per webhook process ${JSON.stringify(Object.fromEntries(byProcess))} (${r.failedOver} failed over), executions per worker ${JSON.stringify(Object.fromEntries(byWorker))}; ` +
				`${events.filter((e) => e.status !== 'success').length} executions did not succeed\n`,
		);
		// Nothing lost, whatever the balancing; an execution that failed never got its event past the trigger.
		expect([...perKey.entries()].filter(([, c]) => c < 1)).toEqual([]);
		expect(events.filter((e) => e.status !== 'success' && e.handled > 0)).toEqual([]);
		expect(r.lostAnswers).toBeGreaterThan(0);
		return r;
	} finally {
		await unpublish(DEDUPE_WF);
	}
}

describe(`${EVENTS} events, every one delivered twice and 10% of the answers lost once, across two webhook processes and two workers`, () => {
	test(
		'balanced by event (nginx hash of the body): every event exactly once past the trigger and past Remove Duplicates; both webhook processes and both workers take part',
		async () => {
			await stack.setBalance('event');
			const r = await load('balanced by event');
			// Every copy and redelivery of an event reaches the process that saw the first, whose memory drops it: one
			// execution per event, so n8n's Remove Duplicates (whose history update has no lock) never sees two at once.
			expect(r.pastTrigger).toBe(0);
			expect(r.pastRemoveDuplicates).toBe(0);
			expect([...r.perKey.entries()].filter(([, c]) => c !== 1)).toEqual([]);
			for (const w of stack.webhooks) expect(r.byProcess.get(w.name) ?? 0).toBeGreaterThan(0);
			for (const w of stack.workers) expect(r.byWorker.get(w.name) ?? 0).toBeGreaterThan(0);
			// Every execution was run by a worker (none by the main or a webhook process).
			expect([...r.byWorker.values()].reduce((a, b) => a + b, 0)).toBe(r.events.length);
		},
		30 * 60_000,
	);

	test(
		"round robin (n8n's docs): every event runs at least once; the duplicates the per-process memory and Remove Duplicates let through are counted",
		async () => {
			await stack.setBalance('round-robin');
			try {
				const r = await load('round robin');
				// The memory is per process: a copy that reaches the other webhook process is not recognised there...
				expect(r.pastTrigger).toBeGreaterThan(EVENTS * 0.25);
				// ...but each process still drops the copies that reach it again.
				expect(r.events.length).toBeLessThan(r.received);
			} finally {
				await stack.setBalance('event');
			}
		},
		30 * 60_000,
	);
});

describe('a webhook process down', () => {
	test(
		'nginx sends its share of the deliveries to the other process: nothing lost, every event exactly once past the trigger',
		async () => {
			const n = Math.min(EVENTS, 50);
			const [up, down] = stack.webhooks;
			await publish(DEDUPE_WF, webhookIdOf(exampleJson(DEDUPE_WF)));
			try {
				const skipped = new Set(
					(await settle(stack.admin, stack.api, DEDUPE_WF)).map((e) => String(e.id)),
				);
				await down.stop();
				const since = Date.now() / 1000;
				const keys = await deliverUnderFaults(n, DEDUPE_WF);
				const events = (
					await handledEvents(stack.api, DEDUPE_WF, TRIGGER_NODE, 'Email the Event')
				).filter((e) => !skipped.has(e.executionId));
				expect(events.map((e) => e.appointmentKey).sort()).toEqual([...keys].sort());
				expect(events.filter((e) => e.handled !== 1)).toEqual([]);
				expect((await stack.admin.ok('GET', '/__sandbox/deliveries/')).gave_up).toBe(0);
				// The stopped process refuses connections: nginx sends the same request to the other one. (A request nginx
				// sent on a kept-alive connection just as the process exited is answered 502 and resent by the service.)
				const requests = stack.webhookRequests().filter((r) => r.at >= since);
				expect(new Set(requests.filter((r) => r.status === 200).map((r) => r.process))).toEqual(
					new Set([up.name]),
				);
				expect(requests.filter((r) => r.failedOver).length).toBeGreaterThan(0);
				process.stdout.write(
					`[queue] ${down.name} down: ${n} events, ${requests.length} requests, ${requests.filter((r) => r.failedOver).length} failed over to ${up.name}, ` +
						`${requests.filter((r) => r.status !== 200).length} answered ${[...new Set(requests.filter((r) => r.status !== 200).map((r) => r.status))].join('/') || '-'}\n`,
				);
			} finally {
				if (!down.running()) await down.start();
				await unpublish(DEDUPE_WF);
			}
		},
		10 * 60_000,
	);
});

describe('action node examples run on a worker', () => {
	const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm:ss");
	const dayRange = (d: DateTime) => ({
		start_date: wall(d.startOf('day')),
		end_date: wall(d.endOf('day').set({ millisecond: 0 })),
	});

	async function list(query: Record<string, string>): Promise<any[]> {
		const qs = new URLSearchParams({ ...query, page_size: '500' }).toString();
		const page: any = await stack.sandboxApi.ok('GET', `/api/v3/appointments/?${qs}`);
		expect(page.next).toBeFalsy();
		return page.results;
	}

	/** What the editor's "Execute workflow" does; with OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS a worker runs it. */
	async function runOnWorker(workflowId: string, triggerName: string): Promise<any> {
		const ex = await runManually(stack, workflowId, triggerName);
		const id = String(ex.id);
		expect(ex.status).toBe('success');
		const byWorker = stack.executionsByWorker();
		expect(stack.workers.filter((w) => byWorker.get(w.name)!.has(id))).toHaveLength(1);
		return ex;
	}

	const keys = (items: any[]) => items.map((i) => i.appointment_key).sort();

	test("1 morning agenda: the email lists today's appointments that are not canceled", async () => {
		const now = DateTime.now().setZone(TZ);
		await stack.admin.ok('POST', '/__sandbox/appointments/', {
			body: {
				status: 'CONFIRMED',
				start_date: DateTime.min(now.plus({ minutes: 30 }), now.endOf('day').minus({ minutes: 1 }))
					.set({ millisecond: 0 })
					.toISO(),
			},
		});
		const expected = await list({ is_cancelled: 'false', ...dayRange(now) });
		expect(expected.length).toBeGreaterThan(0);
		await stack.admin.ok('DELETE', '/__sandbox/mailbox/');
		const ex = await runOnWorker('apptDailyReport', 'Every Day at 07:00');
		expect(keys(nodeOutput(ex, "Today's Appointments"))).toEqual(keys(expected));
		expect(nodeOutput(ex, 'Email the Agenda')).toHaveLength(1);
		const { results: mails } = await stack.admin.ok('GET', '/__sandbox/mailbox/');
		expect(mails.map((m: any) => m.subject)).toEqual([
			`[Example 1] Today's appointments: ${expected.length} (${now.toFormat('cccc d LLLL')})`,
		]);
		for (const a of expected) expect(mails[0].text).toContain(a.search_code);
	});

	test('2 mark no-shows: every CONFIRMED appointment of yesterday becomes NO_SHOW', async () => {
		const yesterday = DateTime.now().setZone(TZ).minus({ days: 1 });
		await stack.admin.ok('POST', '/__sandbox/appointments/', {
			body: {
				status: 'CONFIRMED',
				start_date: yesterday.set({ hour: 10, minute: 0, second: 0, millisecond: 0 }).toISO(),
			},
		});
		const query = { status: 'CONFIRMED', ...dayRange(yesterday) };
		const before = await list(query);
		expect(before.length).toBeGreaterThan(0);
		const ex = await runOnWorker('apptMarkNoShows', 'Every Day at 06:00');
		const out = nodeOutput(ex, 'Mark as No-Show');
		expect(keys(out)).toEqual(keys(before));
		for (const item of out) expect(item.status).toBe('NO_SHOW');
		for (const a of before)
			expect(
				(await stack.admin.ok('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status,
			).toBe('NO_SHOW');
		expect(await list(query)).toHaveLength(0);
	});
});

describe('polling trigger in queue mode', () => {
	const WORKFLOW = 'apptPollEvents'; // example 7: Appointments Polling Trigger, every minute
	const POLL_NODE = 'Every Minute: Appointment Changes';

	/** When each poll began: the sandbox's first-page list requests (a poll reads its window page by page). */
	async function pollStarts(since: number): Promise<number[]> {
		const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
		return requests
			.filter(
				(r: any) =>
					r.method === 'GET' &&
					r.path === '/api/v3/appointments/' &&
					r.query.page === undefined &&
					Date.parse(r.at) >= since,
			)
			.map((r: any) => Date.parse(r.at));
	}

	test(
		'one poll per interval for the whole cluster (not one per process), its executions run on workers, one per change',
		async () => {
			const since = Date.now();
			await stack.api.ok('POST', `/api/v1/workflows/${WORKFLOW}/activate`);
			try {
				// Activation polls once, then n8n polls every minute: the change is made once the first minute's poll has
				// listed the window, so the poll after it is the one that must emit it (whichever of the two took the
				// baseline in queue mode).
				await pollUntil(
					'the first scheduled poll',
					async () => ((await pollStarts(since)).length >= 2 ? true : undefined),
					{
						timeoutMs: 3 * 60_000,
						intervalMs: 1000,
					},
				);
				const before = new Set(
					(await listExecutions(stack.api, WORKFLOW)).map((e) => String(e.id)),
				);
				const [key] = await createAppointments(stack.admin, 1);
				const run = await pollUntil(
					'the poll that sees the new appointment to run the workflow',
					async () => {
						const l = (await listExecutions(stack.api, WORKFLOW, true)).filter(
							(e) => !before.has(String(e.id)),
						);
						const withKey = l.filter((e) =>
							nodeOutput(e, POLL_NODE).some((i) => i.data?.appointment_key === key),
						);
						return withKey.length &&
							l.every((e) => e.finished || ['success', 'error'].includes(e.status))
							? withKey
							: undefined;
					},
					{ timeoutMs: 3 * 60_000, intervalMs: 2000 },
				);
				expect(run).toHaveLength(1);
				expect(run[0].status).toBe('success');
				const ran = stack.executionsByWorker();
				expect(stack.workers.filter((w) => ran.get(w.name)!.has(String(run[0].id)))).toHaveLength(
					1,
				);

				// Every Minute fires at a second of the minute each process draws at random: if the five processes each
				// polled, the minute after the first scheduled poll would hold four more. The run's poll came a full
				// interval after it: count the polls in between.
				const starts = await pollUntil(
					'a poll an interval after the first scheduled one',
					async () => {
						const s = await pollStarts(since);
						return s.length >= 3 && s[s.length - 1] - s[1] >= 50_000 ? s : undefined;
					},
					{ timeoutMs: 2 * 60_000, intervalMs: 2000 },
				);
				process.stdout.write(
					`[queue] polling: poll starts ${starts.map((t) => new Date(t).toISOString()).join(', ')}\n`,
				);
				const gaps = starts.slice(1).map((t, i) => t - starts[i]);
				for (const g of gaps.slice(1)) expect(g).toBeGreaterThan(30_000);
			} finally {
				await stack.api.ok('POST', `/api/v1/workflows/${WORKFLOW}/deactivate`);
			}
		},
		12 * 60_000,
	);
});
