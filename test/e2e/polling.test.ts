/**
 * End-to-end: the Appointments Polling Trigger in a real n8n 2.41.1 (example 7), driven from outside as in
 * n8n-trigger.test.ts. Each wait below is for n8n's own next poll: each workflow is published polling every
 * POLL_EVERY seconds (pollTimesEvery: one custom cron per poll, each once a minute, which n8n accepts) instead of its
 * Every Minute, so a wait takes seconds, not up to a minute; the queue suite runs example 7 on Every Minute as
 * shipped. The time events' test publishes a workflow of its own (starting soon with Lead Time 1 minute, and
 * started) on an emptied sandbox; example 10's test reschedules an appointment in the dashboard, through the
 * browser, as a builder would; example 12's marks three appointments No Show through the API.
 */
import { DateTime } from 'luxon';

import { launchBrowser } from '../../scripts/browser';
import {
	createApiKey,
	deleteApiKey,
	loginRest,
	publicApi,
	startN8n,
	type N8n,
} from '../../scripts/n8n';
import type { JsonClient } from '../../scripts/jsonClient';
import { startE2EStack, TZ } from '../helpers/e2e';
import { pollTimesEvery, setPollEvery } from '../helpers/e2eRuns';
import { waitForMail } from '../helpers/sandbox';
import { pollUntil, stopAll } from '../../scripts/proc';
import { activate, deactivate, type Stack } from '../../scripts/stack';

const WORKFLOW = 'apptPollEvents';
const POLL_WAIT = { timeoutMs: 150_000, intervalMs: 1000 };
/** Seconds between two of n8n's polls in this file (a poll and its run take well under that here). */
const POLL_EVERY = 15;

let stack: Stack;
let n8n: N8n;
/** n8n's public API of the n8n running now (a restart closes the clients of the previous process). */
let api: JsonClient;
let restartedKey: { rest: JsonClient; id: string } | undefined;

beforeAll(async () => {
	stack = await startE2EStack('e2e-polling', {
		email: 'e2e@example.com',
		password: 'E2e-Passw0rd',
		firstName: 'E2E',
		lastName: 'Owner',
	});
	n8n = stack.n8n;
	api = stack.api;
}, 20 * 60_000);

afterAll(async () => {
	if (restartedKey) await deleteApiKey(restartedKey.rest, restartedKey.id).catch(() => undefined);
	if (n8n !== stack?.n8n) await n8n?.stop();
	await stack?.stop();
	await stopAll();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function executions(): Promise<Json[]> {
	const b: Json = await api.ok(
		'GET',
		`/api/v1/executions?workflowId=${WORKFLOW}&limit=250&includeData=true`,
	);
	return (b.data ?? []).sort((x: Json, y: Json) => Number(x.id) - Number(y.id));
}

/** The trigger's items of one execution: "<event> <appointment key>". */
function triggerEvents(execution: Json): string[] {
	const run = execution.data?.resultData?.runData?.['Every Minute: Appointment Changes']?.[0];
	return (run?.data?.main?.[0] ?? [])
		.map((i: Json) => `${i.json.event} ${i.json.data.appointment_key}`)
		.sort();
}

async function nextExecution(after: number): Promise<Json> {
	return await pollUntil(
		'the polling workflow to run',
		async () => {
			const list = (await executions()).filter(
				(e) => Number(e.id) > after && e.finished !== undefined && e.status !== 'running',
			);
			return list.length > 0 ? list : undefined;
		},
		POLL_WAIT,
	).then((list: Json[]) => {
		expect(list).toHaveLength(1);
		return list[0];
	});
}

/**
 * Waits until n8n has made one whole poll that started after `since` (ms): the first list request and then every
 * page of its window, as the sandbox's request log shows. The activation poll runs after the API call returns.
 */
async function wholePollSince(since: number): Promise<void> {
	await pollUntil(
		"a whole poll in the sandbox's request log",
		async () => {
			const log: Json = await stack.admin.ok('GET', '/__sandbox/requests/');
			const lists = log.requests.filter(
				(r: Json) => r.path === '/api/v3/appointments/' && Date.parse(r.at) >= since,
			);
			const first = lists.find((r: Json) => r.query.page === undefined);
			if (!first) return undefined;
			const page: Json = await stack.sandboxApi.ok(
				'GET',
				`/api/v3/appointments/?${new URLSearchParams(first.query)}`,
			);
			const pages = Math.ceil(page.count / page.results.length);
			const window = (r: Json) => r.query.start_date === first.query.start_date;
			return lists.some((r: Json) => window(r) && Number(r.query.page ?? 1) === pages)
				? true
				: undefined;
		},
		POLL_WAIT,
	);
}

/**
 * The executions after `after` (an id) until together they emit `count` items: the changes made at once may fall in
 * one poll or, if a poll started between them, in two.
 */
async function executionsWithEvents(after: number, count: number): Promise<Json[]> {
	return await pollUntil(
		`executions emitting ${count} events`,
		async () => {
			const list = (await executions()).filter(
				(e) => Number(e.id) > after && e.finished !== undefined && e.status !== 'running',
			);
			return list.flatMap(triggerEvents).length >= count ? list : undefined;
		},
		POLL_WAIT,
	);
}

async function createAppointment(daysAhead: number): Promise<Json> {
	const start = DateTime.now()
		.setZone('America/Santiago')
		.plus({ days: daysAhead })
		.set({ hour: 11, minute: 0, second: 0, millisecond: 0 });
	return await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { start_date: start.toISO(), status: 'CONFIRMED' },
	});
}

async function serviceState(): Promise<{ webhooks: Json[]; writes: Json[] }> {
	const hooks: Json = await stack.admin.ok('GET', '/__sandbox/webhooks/');
	const log: Json = await stack.admin.ok('GET', '/__sandbox/requests/');
	return {
		webhooks: Array.isArray(hooks) ? hooks : (hooks.webhooks ?? []),
		writes: log.requests.filter((r: Json) => r.method !== 'GET'),
	};
}

describe('polling trigger in a real n8n', () => {
	test(
		'example 7 published: created, status change, cancel and reschedule each run once; a restart or a failing poll loses and repeats nothing; unpublishing leaves nothing behind',
		async () => {
			await setPollEvery(api, WORKFLOW, 'Every Minute: Appointment Changes', POLL_EVERY);
			await stack.admin.ok('DELETE', '/__sandbox/requests/');
			const activatedAt = Date.now();
			await activate(api, WORKFLOW);
			const deactivated = { done: false };
			try {
				// The activation poll took the baseline: nothing old ran.
				await wholePollSince(activatedAt);
				expect(await executions()).toEqual([]);

				const first = await createAppointment(2);
				const run1 = await nextExecution(0);
				expect(run1.status).toBe('success');
				expect(triggerEvents(run1)).toEqual([`appointment.created ${first.appointment_key}`]);
				// Example 7 emails the front desk about it (the sandbox's mail sink).
				expect(run1.data.resultData.runData['Email New Appointment'][0].data.main[0]).toHaveLength(
					1,
				);
				const { results: mails } = await stack.admin.ok('GET', '/__sandbox/mailbox/');
				expect(
					mails.filter(
						(m: Json) =>
							m.subject.startsWith('[Example 7] New appointment:') &&
							m.text.includes(first.search_code),
					),
				).toHaveLength(1);

				// n8n stops; the service changes meanwhile; n8n starts again on the same user folder.
				await n8n.stop();
				const second = await createAppointment(3);
				await stack.sandboxApi.ok('PATCH', `/api/v3/appointments/${first.appointment_key}/`, {
					body: { status: 'PENDING' },
				});
				n8n = await startN8n({ userFolder: n8n.userFolder, port: n8n.port, cert: n8n.cert });
				const rest = await loginRest(n8n, stack.owner);
				const key = await createApiKey(rest, `restarted-${Date.now()}`);
				restartedKey = { rest, id: key.id };
				api = publicApi(n8n, key.key);
				const run2 = await nextExecution(Number(run1.id));
				expect(triggerEvents(run2)).toEqual(
					[
						`appointment.created ${second.appointment_key}`,
						`appointment.updated ${first.appointment_key}`,
					].sort(),
				);

				// Nothing old comes back: the next executions hold these two events once each, and nothing else.
				await stack.sandboxApi.ok(
					'DELETE',
					`/api/v3/appointments/${second.appointment_key}/?send_email=false`,
				);
				const later = DateTime.fromISO(first.start_date).plus({ days: 1 });
				await stack.sandboxApi.ok(
					'PATCH',
					`/api/v3/appointments/${first.appointment_key}/reschedule/`,
					{ body: { start_date: later.toISO() } },
				);
				const runs3 = await executionsWithEvents(Number(run2.id), 2);
				expect(runs3.flatMap(triggerEvents).sort()).toEqual(
					[
						`appointment.canceled ${second.appointment_key}`,
						`appointment.updated ${first.appointment_key}`,
					].sort(),
				);
				const run3 = runs3[runs3.length - 1];
				expect((await executions()).map((e) => e.id)).toEqual([
					run1.id,
					run2.id,
					...runs3.map((e) => e.id),
				]);

				// A failing poll is a failed execution with our message; the next poll reports what it missed, once.
				await stack.admin.ok('POST', '/__sandbox/faults/', {
					body: {
						count: 1,
						status: 401,
						body: { detail: 'Invalid token.' },
						match: { path: '/api/v3/appointments/' },
					},
				});
				const third = await createAppointment(4);
				const failed = await nextExecution(Number(run3.id));
				expect(failed.status).toBe('error');
				expect(JSON.stringify(failed.data.resultData.error)).toContain('Authorization failed');
				const run4 = await nextExecution(Number(failed.id));
				expect(triggerEvents(run4)).toEqual([`appointment.created ${third.appointment_key}`]);

				await deactivate(api, WORKFLOW);
				deactivated.done = true;
				// A polling trigger subscribes to nothing and changes nothing in the service.
				const after = await serviceState();
				expect(after.webhooks).toEqual([]);
				expect(after.writes.map((r: Json) => `${r.method} ${r.path}`)).toEqual([
					`PATCH /api/v3/appointments/${first.appointment_key}/`,
					`DELETE /api/v3/appointments/${second.appointment_key}/`,
					`PATCH /api/v3/appointments/${first.appointment_key}/reschedule/`,
				]);
			} finally {
				if (!deactivated.done) await deactivate(api, WORKFLOW).catch(() => undefined);
			}
		},
		15 * 60_000,
	);

	test(
		'published with starting soon (Lead Time 1 minute) and started: one run within the minute before the start, one more at or after it',
		async () => {
			await stack.admin.ok('POST', '/__sandbox/reset/', { body: { seed: 0 } });
			const trigger = 'Starting Soon or Started';
			const created: Json = await api.ok('POST', '/api/v1/workflows', {
				body: {
					name: 'e2e: starting soon and started',
					nodes: [
						{
							parameters: {
								pollTimes: pollTimesEvery(POLL_EVERY),
								events: ['appointment.starting_soon', 'appointment.started'],
								leadTime: 1,
								options: {},
							},
							name: trigger,
							type: 'n8n-nodes-appointments.appointmentsPollingTrigger',
							typeVersion: 1,
							position: [0, 0],
							credentials: { appointmentsApi: { id: 'apptsApiCred01', name: 'Appointments API' } },
						},
					],
					connections: {},
					settings: { executionOrder: 'v1', timezone: 'America/Santiago' },
				},
			});
			const id: string = created.id;
			const runs = async (): Promise<Json[]> => {
				const b: Json = await api.ok(
					'GET',
					`/api/v1/executions?workflowId=${id}&limit=50&includeData=true`,
				);
				return (b.data ?? [])
					.filter((e: Json) => e.status !== 'running' && e.finished !== undefined)
					.sort((x: Json, y: Json) => Number(x.id) - Number(y.id));
			};
			const items = (e: Json): Json[] =>
				(e.data?.resultData?.runData?.[trigger]?.[0]?.data?.main?.[0] ?? []).map(
					(i: Json) => i.json,
				);
			/** Resolves once `count` polls (list requests for page 1) started after `since` (ms). */
			const pollsSince = async (since: number, count: number) =>
				await pollUntil(
					`${count} polls in the sandbox's request log`,
					async () => {
						const log: Json = await stack.admin.ok('GET', '/__sandbox/requests/');
						const firsts = log.requests.filter(
							(r: Json) =>
								r.path === '/api/v3/appointments/' &&
								r.query.page === undefined &&
								Date.parse(r.at) >= since,
						);
						return firsts.length >= count ? true : undefined;
					},
					{ timeoutMs: 4 * 60_000, intervalMs: 1000 },
				);
			const activatedAt = Date.now();
			await activate(api, id);
			try {
				await pollsSince(activatedAt, 1); // the activation poll: the baseline
				// Not yet starting soon when created; then at least one poll falls in the minute before the start.
				const start = DateTime.now()
					.plus({ seconds: 60 + 2 * POLL_EVERY })
					.set({ millisecond: 0 });
				const a: Json = await stack.admin.ok('POST', '/__sandbox/appointments/', {
					body: { start_date: start.toISO(), status: 'CONFIRMED' },
				});
				const wait = { timeoutMs: 6 * 60_000, intervalMs: 2000 };
				const [soon] = await pollUntil(
					'the starting soon run',
					async () => ((await runs()).length >= 1 ? await runs() : undefined),
					wait,
				);
				expect(soon.status).toBe('success');
				expect(items(soon).map((j) => `${j.event} ${j.data.appointment_key}`)).toEqual([
					`appointment.starting_soon ${a.appointment_key}`,
				]);
				expect(items(soon)[0].data.start_date).toBe(a.start_date);
				// A run of the minute before the start: the window opened at start - 1 min.
				expect(Date.parse(soon.startedAt)).toBeGreaterThanOrEqual(start.toMillis() - 60_000);
				expect(Date.parse(soon.startedAt)).toBeLessThan(start.toMillis());
				const list = await pollUntil(
					'the started run',
					async () => ((await runs()).length >= 2 ? await runs() : undefined),
					wait,
				);
				const started = list[1];
				expect(items(started).map((j) => `${j.event} ${j.data.appointment_key}`)).toEqual([
					`appointment.started ${a.appointment_key}`,
				]);
				expect(Date.parse(started.startedAt)).toBeGreaterThanOrEqual(start.toMillis());
				// Nothing more: two further polls (the first one's run would exist once the second one starts) add none.
				await pollsSince(Date.parse(started.startedAt) + 1000, 2);
				expect((await runs()).map((e) => e.id)).toEqual([soon.id, started.id]);
			} finally {
				await deactivate(api, id).catch(() => undefined);
			}
		},
		15 * 60_000,
	);

	test(
		"example 10 published: an appointment rescheduled in the dashboard runs it once, and the client's email shows both times",
		async () => {
			const MOVED = 'apptTellMoved';
			const runs = async (): Promise<Json[]> => {
				const b: Json = await api.ok(
					'GET',
					`/api/v1/executions?workflowId=${MOVED}&limit=50&includeData=true`,
				);
				return (b.data ?? []).filter(
					(e: Json) => e.status !== 'running' && e.finished !== undefined,
				);
			};
			const firstPollsSince = async (since: number, count: number) =>
				await pollUntil(
					`${count} polls in the sandbox's request log`,
					async () => {
						const log: Json = await stack.admin.ok('GET', '/__sandbox/requests/');
						const firsts = log.requests.filter(
							(r: Json) =>
								r.path === '/api/v3/appointments/' &&
								r.query.page === undefined &&
								Date.parse(r.at) >= since,
						);
						return firsts.length >= count ? true : undefined;
					},
					{ timeoutMs: 4 * 60_000, intervalMs: 1000 },
				);
			await stack.admin.ok('POST', '/__sandbox/reset/', { body: { seed: 0 } });
			const day = (days: number, hour: number) =>
				DateTime.now()
					.setZone(TZ)
					.plus({ days })
					.set({ hour, minute: 0, second: 0, millisecond: 0 });
			const [before, after] = [day(2, 10), day(4, 15)];
			const a: Json = await stack.admin.ok('POST', '/__sandbox/appointments/', {
				body: {
					start_date: before.toISO(),
					status: 'CONFIRMED',
					person: { full_name: 'Rita Moved', email: 'rita.moved@example.com' },
				},
			});
			await setPollEvery(api, MOVED, 'Every Minute: Rescheduled', POLL_EVERY);
			const activatedAt = Date.now();
			await activate(api, MOVED);
			const browser = await launchBrowser();
			try {
				await firstPollsSince(activatedAt, 1); // the activation poll: the baseline, which runs nothing
				const page = await (
					await browser.newContext({ timezoneId: TZ, locale: 'en-US' })
				).newPage();
				await page.goto(`${stack.sandboxUrl}/dashboard/`);
				await page.getByLabel('Admin token').fill(stack.adminToken);
				await page.getByRole('button', { name: 'Sign in' }).click();
				await page.waitForURL(/\/dashboard\/appointments\/$/);
				await page.goto(`${stack.sandboxUrl}/dashboard/appointments/${a.appointment_key}/`);
				await page.getByLabel(`New start (${TZ})`).fill(after.toFormat("yyyy-LL-dd'T'HH:mm"));
				await page.getByRole('button', { name: 'Reschedule' }).click();
				await page.waitForURL(/\?done=/);
				expect(await page.getByRole('status').textContent()).toMatch(
					/reschedule\/ [\s\S]* answered 200/,
				);

				const [run] = await pollUntil(
					'the run for the reschedule',
					async () => ((await runs()).length > 0 ? await runs() : undefined),
					{ timeoutMs: 4 * 60_000, intervalMs: 2000 },
				);
				expect(run.status).toBe('success');
				const items = run.data.resultData.runData['Every Minute: Rescheduled'][0].data.main[0].map(
					(i: Json) => i.json,
				);
				expect(items).toHaveLength(1);
				expect(items[0]).toMatchObject({
					event: 'appointment.rescheduled',
					data: { appointment_key: a.appointment_key },
					previous: { status: 'CONFIRMED' },
				});
				expect(Date.parse(items[0].previous.start_date)).toBe(before.toMillis());
				expect(Date.parse(items[0].data.start_date)).toBe(after.toMillis());

				const when = (t: DateTime) => t.setLocale('en').toFormat('ccc d LLL, HH:mm');
				const mail = await waitForMail(
					stack.sandboxUrl,
					stack.adminToken,
					(m) => m.to.includes('rita.moved@example.com'),
					60_000,
				);
				expect(mail.subject).toBe(`[Example 10] Your appointment has moved to ${when(after)}`);
				expect(mail.text).toContain(`${when(before)} → ${when(after)}`);

				// Once: two more polls run nothing more.
				await firstPollsSince(Date.parse(run.startedAt) + 1000, 2);
				expect((await runs()).map((e) => e.id)).toEqual([run.id]);
			} finally {
				await browser.close();
				await deactivate(api, MOVED).catch(() => undefined);
			}
		},
		15 * 60_000,
	);

	test(
		'example 12 published: two no-shows of one calendar move to its two free times, confirmed, each client emailed; a calendar without one tells the front desk',
		async () => {
			const NEXT_FREE = 'apptMoveNextFree';
			await stack.admin.ok('POST', '/__sandbox/reset/', { body: { seed: 0 } });
			await stack.admin.ok('DELETE', '/__sandbox/mailbox/');
			const [busy, full] = [
				{ calendar_key: '6d1c3f2a-8b4e-4c1d-9f0a-1e2d3c4b5a61', name: 'Dr. Busy' },
				{ calendar_key: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c62', name: 'Dr. Full' },
			];
			const make = async (calendar: Json, start: DateTime, extra: Json = {}) =>
				await stack.admin.ok('POST', '/__sandbox/appointments/', {
					body: { start_date: start.toISO(), status: 'CONFIRMED', calendar, ...extra },
				});
			const now = DateTime.now().setZone(TZ);
			const opening = (d: DateTime) =>
				d.weekday > 5
					? []
					: Array.from({ length: 16 }, (_, i) =>
							d.set({ hour: 9, minute: 0, second: 0, millisecond: 0 }).plus({ minutes: 30 * i }),
						);
			// Dr. Busy: every opening slot (weekdays 09:00-17:00, 30 minutes) taken today and on the next weekday,
			// but that day's 11:30 and 14:00; a canceled appointment at 11:30 and Dr. Full's at 14:00 take nothing.
			const next = [1, 2, 3].map((d) => now.plus({ days: d })).find((d) => d.weekday <= 5)!;
			const holes = [
				[11, 30],
				[14, 0],
			].map(([hour, minute]) => next.set({ hour, minute, second: 0, millisecond: 0 }));
			const isHole = (t: DateTime) => holes.some((h) => h.toMillis() === t.toMillis());
			for (const t of [...opening(now), ...opening(next)].filter((x) => !isHole(x)))
				await make(busy, t);
			await make(busy, holes[0], { status: 'CANCELED' });
			// Dr. Full: no free time in the 14 days the example looks ahead.
			for (let d = 0; d <= 15; d++)
				for (const t of opening(now.plus({ days: d }))) await make(full, t);
			const yesterday = now.minus({ days: 1 }).set({ minute: 0, second: 0, millisecond: 0 });
			const clients = await Promise.all(
				['Ana Missed', 'Bruno Missed', 'Dana Full'].map(
					async (full_name, i) =>
						await make(i < 2 ? busy : full, yesterday.set({ hour: 10 + i }), {
							person: { full_name, email: `${full_name.split(' ')[0].toLowerCase()}@example.com` },
						}),
				),
			);

			await setPollEvery(api, NEXT_FREE, 'Every Minute: Marked No-Show', POLL_EVERY);
			const activatedAt = Date.now();
			await activate(api, NEXT_FREE);
			try {
				await wholePollSince(activatedAt); // the baseline, which runs nothing
				for (const a of clients)
					await stack.sandboxApi.ok('PATCH', `/api/v3/appointments/${a.appointment_key}/`, {
						body: { status: 'NO_SHOW' },
					});
				const mails = async () =>
					((await stack.admin.ok('GET', '/__sandbox/mailbox/')) as Json).results.filter((m: Json) =>
						m.subject.startsWith('[Example 12] '),
					);
				const got: Json[] = await pollUntil(
					"the example's three emails",
					async () => ((await mails()).length >= 3 ? await mails() : undefined),
					POLL_WAIT,
				);

				// Ana and Bruno: each on one of the two free times, nothing of Dr. Busy within 30 minutes of it.
				const when = (t: DateTime) => t.setLocale('en').toFormat('ccc d LLL, HH:mm');
				const { appointments: list }: Json = await stack.admin.ok(
					'GET',
					'/__sandbox/appointments/',
				);
				const record = (key: string) => list.find((r: Json) => r.appointment_key === key);
				const moved = clients.slice(0, 2).map((a) => record(a.appointment_key));
				expect(moved.map((r) => Date.parse(r.start_date)).sort()).toEqual(
					holes.map((h) => h.toMillis()),
				);
				for (const r of moved) {
					expect(r.status).toBe('CONFIRMED');
					const others = list.filter(
						(o: Json) =>
							o.appointment_key !== r.appointment_key &&
							o.calendar.calendar_key === busy.calendar_key &&
							!String(o.status).startsWith('CANCELED') &&
							Math.abs(Date.parse(o.start_date) - Date.parse(r.start_date)) < 30 * 60_000,
					);
					expect(others).toEqual([]);
					const start = DateTime.fromISO(r.start_date).setZone(TZ);
					const [mail] = got.filter((m) => m.to.includes(r.person.email));
					expect(mail.subject).toBe(`[Example 12] Your appointment has moved to ${when(start)}`);
					expect(mail.text).toContain(
						`${when(start)}–${start.plus({ minutes: 30 }).toFormat('HH:mm')}`,
					);
					expect(mail.text).toContain(r.search_code);
				}
				// Dana: not moved, still NO_SHOW; the front desk is told, the client is not.
				const dana = record(clients[2].appointment_key);
				expect(dana).toMatchObject({ status: 'NO_SHOW', start_date: clients[2].start_date });
				const desk = got.filter((m) => m.to.includes('front-desk@example.com'));
				expect(desk.map((m) => m.subject)).toEqual([
					'[Example 12] Could not move the no-show of Dana Full',
				]);
				expect(desk[0].text).toContain('no free time in the next 14 days');
				expect(got.filter((m) => m.to.includes('dana@example.com'))).toEqual([]);
				expect(got).toHaveLength(3);
			} finally {
				await deactivate(api, NEXT_FREE).catch(() => undefined);
			}
		},
		15 * 60_000,
	);
});
