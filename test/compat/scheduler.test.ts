/**
 * The durable scheduler (runs recorded in the database, late rather than lost after downtime), which n8n 2.45
 * turns on by default, with the examples that start on a schedule and the polling trigger: n8n started with
 * N8N_SCHEDULER_ENABLED=true and N8N_USE_WORKFLOW_PUBLICATION_SERVICE=true, the examples imported and published.
 * Examples 1 (morning agenda) and 2 (mark no-shows) keep their daily rule, set to the next minute instead of
 * 07:00 / 06:00, and must each run once and email once, and the durable scheduler (not the in-memory one) must be
 * what started them (n8n's debug log says which). Example 7 (polling trigger, set to poll every 15 s with one custom
 * cron per poll, e2eRuns.ts pollTimesEvery, so its waits take seconds) must emit each of two appointments once, in
 * its own execution. Every count is read after the last of these, so a second run of a schedule would show.
 * With N8N_SCHEDULER_POLL_TRIGGERS_ENABLED=true in the environment of the test (by hand, see docs/compatibility.md)
 * the polling trigger runs on the durable scheduler too, and the test checks that it did.
 * An n8n that does not read these variables (1.x) skips the file, saying so.
 */
import fs from 'node:fs';
import { DateTime } from 'luxon';

import { ensureN8nInstalled, n8nReadsVariable } from '../../scripts/install';
import { N8N_VERSION } from '../../scripts/paths';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import { activate, startStack, type Stack } from '../../scripts/stack';
import { e2eUserFolder, TZ } from '../helpers/e2e';
import {
	createAppointment,
	emptyMailbox,
	executions,
	mailbox,
	setPollEvery,
} from '../helpers/e2eRuns';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const log = (m: string) => process.stderr.write(`[scheduler ${N8N_VERSION}] ${m}\n`);
const VARIABLES = ['N8N_SCHEDULER_ENABLED', 'N8N_USE_WORKFLOW_PUBLICATION_SERVICE'];
ensureN8nInstalled(log);
const missing = VARIABLES.filter((v) => !n8nReadsVariable(v));
if (missing.length)
	log(
		`SKIPPED: n8n ${N8N_VERSION} does not read ${missing.join(', ')} (no such variable in its code): docs/compatibility.md`,
	);
const DURABLE_POLLS = process.env.N8N_SCHEDULER_POLL_TRIGGERS_ENABLED === 'true';

const AGENDA = 'apptDailyReport';
const NO_SHOWS = 'apptMarkNoShows';
const POLLING = 'apptPollEvents';
const POLL_WAIT = { timeoutMs: 180_000, intervalMs: 1000 };

let stack: Stack;

beforeAll(async () => {
	if (missing.length) return;
	killAllOnSignals();
	try {
		stack = await startStack({
			userFolder: e2eUserFolder(`scheduler-${N8N_VERSION}`),
			owner: {
				email: 'scheduler@example.com',
				password: 'Scheduler-Passw0rd',
				firstName: 'Sched',
				lastName: 'Uler',
			},
			reimport: 'always',
			log,
			env: {
				N8N_SCHEDULER_ENABLED: 'true',
				N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
				...(DURABLE_POLLS ? { N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' } : {}),
				// The scheduler says at debug level which workflows it took over and which executions it started.
				N8N_LOG_LEVEL: 'debug',
			},
		});
	} catch (e) {
		log(`ERROR: could not set up n8n ${N8N_VERSION} with the package:\n${(e as Error).message}`);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

/** The metadata of n8n's log entries with this message. */
function logged(message: string): Json[] {
	return fs
		.readFileSync(stack.n8n.logFile, 'utf8')
		.split('\n')
		.filter((l) => l.includes(message))
		.map((l) => JSON.parse(l))
		.filter((e) => e.message === message)
		.map((e) => e.metadata);
}

/** The example with its Schedule Trigger's daily rule moved to `at` (in the workflow's zone), saved and published. */
async function publishScheduledAt(id: string, at: DateTime): Promise<void> {
	const wf: Json = await stack.api.ok('GET', `/api/v1/workflows/${id}`);
	const trigger = wf.nodes.find((n: Json) => n.type === 'n8n-nodes-base.scheduleTrigger');
	expect(trigger.parameters.rule.interval).toHaveLength(1);
	trigger.parameters.rule.interval[0] = {
		...trigger.parameters.rule.interval[0],
		triggerAtHour: at.hour,
		triggerAtMinute: at.minute,
	};
	await stack.api.ok('PUT', `/api/v1/workflows/${id}`, {
		body: {
			name: wf.name,
			nodes: wf.nodes,
			connections: wf.connections,
			settings: { executionOrder: 'v1' },
		},
	});
	await activate(stack.api, id);
}

async function finished(id: string): Promise<Json[]> {
	return (await executions(stack, id)).filter(
		(e: Json) => e.finished !== undefined && e.status !== 'running' && e.status !== 'new',
	);
}

/** The executions of the polling example whose trigger output holds `key`. */
async function pollRunsWith(key: string): Promise<Json[]> {
	const b: Json = await stack.api.ok(
		'GET',
		`/api/v1/executions?workflowId=${POLLING}&limit=250&includeData=true`,
	);
	return (b.data as Json[]).filter(
		(e) =>
			e.status !== 'running' && JSON.stringify(e.data?.resultData?.runData ?? {}).includes(key),
	);
}

const appointmentAt = (start: DateTime) =>
	createAppointment(stack, {
		status: 'CONFIRMED',
		start_date: start.set({ second: 0, millisecond: 0 }).toISO(),
	});

/** Publishes the polling example and examples 1 and 2 set to `at`, with a no-show and an agenda entry to report. */
async function publishAll(at: DateTime): Promise<void> {
	// "Yesterday" and "today" as the runs at `at` will see them, even across midnight.
	await appointmentAt(at.minus({ days: 1 }).set({ hour: 10, minute: 0 }));
	await appointmentAt(
		DateTime.min(at.plus({ minutes: 30 }), at.endOf('day').minus({ minutes: 1 })),
	);
	await emptyMailbox(stack);
	await setPollEvery(stack.api, POLLING, 'Every Minute: Appointment Changes', 15);
	await activate(stack.api, POLLING);
	for (const id of [AGENDA, NO_SHOWS]) await publishScheduledAt(id, at);
	log(`examples 1 and 2 scheduled at ${at.toFormat('HH:mm')} ${TZ}`);
}

/** The polling example's execution that emits a new appointment (the first one that holds it). */
async function pollRunOf(start: DateTime): Promise<{ key: string; run: Json }> {
	const { appointment_key: key } = await appointmentAt(start);
	const [run] = await pollUntil(
		`the poll that finds ${key}`,
		async () => ((await pollRunsWith(key)).length ? await pollRunsWith(key) : undefined),
		POLL_WAIT,
	);
	return { key, run };
}

/** n8n's debug log: the durable scheduler provisioned both examples and handed off exactly their one execution each. */
function startedByTheDurableScheduler(runs: Record<string, Json[]>): void {
	const provisioned = logged('Provisioned durable schedules for trigger node').map(
		(m) => m.workflowId,
	);
	expect(provisioned).toEqual(expect.arrayContaining(Object.keys(runs)));
	const handedOff = logged('Handed off scheduled occurrence to a new execution');
	for (const [id, list] of Object.entries(runs)) {
		expect(handedOff.filter((m) => m.workflowId === id).map((m) => String(m.executionId))).toEqual(
			list.map((e) => String(e.id)),
		);
	}
	const pollJobs = logged('Provisioned scheduler jobs for poll trigger node').map(
		(m) => m.workflowId,
	);
	expect(pollJobs.includes(POLLING)).toBe(DURABLE_POLLS);
}

(missing.length ? describe.skip : describe)(
	`durable scheduler on n8n ${N8N_VERSION} (N8N_SCHEDULER_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE)`,
	() => {
		test('the scheduled examples run once and email once; the polling trigger emits each event once', async () => {
			const now = DateTime.now().setZone(TZ);
			// The next minute at least 40 s away: time to publish, and for the scheduler to record the run first.
			await publishAll(now.plus({ seconds: 100 }).startOf('minute'));
			const scheduled = await pollUntil(
				'both scheduled examples to run',
				async () => {
					const runs = await Promise.all([AGENDA, NO_SHOWS].map(finished));
					return runs.every((r) => r.length > 0) ? runs : undefined;
				},
				POLL_WAIT,
			);
			for (const runs of scheduled) expect(runs.map((e: Json) => e.status)).toEqual(['success']);

			// Two appointments, the second after the first's execution: each is emitted once, in an execution of its own.
			const first = await pollRunOf(now.plus({ days: 2 }).set({ hour: 11, minute: 0 }));
			const second = await pollRunOf(now.plus({ days: 3 }).set({ hour: 11, minute: 0 }));
			expect(Number(second.run.id)).toBeGreaterThan(Number(first.run.id));
			expect(await pollRunsWith(first.key)).toHaveLength(1);
			expect(JSON.stringify(second.run.data.resultData.runData)).not.toContain(first.key);
			for (const { run } of [first, second]) expect(run.status).toBe('success');

			// Read last, after the two polls that followed the scheduled runs: still one run and one email each.
			const [agenda, noShows] = await Promise.all([AGENDA, NO_SHOWS].map(finished));
			expect([agenda.length, noShows.length]).toEqual([1, 1]);
			const subjects = (await mailbox(stack)).map((m) => m.subject);
			expect(
				subjects.filter((s) => s.startsWith("[Example 1] Today's appointments:")),
			).toHaveLength(1);
			expect(subjects.filter((s) => s.startsWith('[Example 2] No-shows yesterday:'))).toHaveLength(
				1,
			);
			expect(subjects.filter((s) => s.startsWith('[Example 7] New appointment:'))).toHaveLength(2);
			startedByTheDurableScheduler({ [AGENDA]: agenda, [NO_SHOWS]: noShows });
		});
	},
);
