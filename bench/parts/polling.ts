/**
 * Part 7: the Appointments Polling Trigger watching 10,000 appointments (the sandbox's seed spreads them over
 * now - 14 days .. now + 14 days; Days Back 14 and Days Ahead 14 watch all of them), run by test/helpers/polling.ts
 * (n8n-core's real PollContext and PollTriggerExecutor). Measured from the sandbox's request log and the saved
 * static data:
 * - requests of one poll / list pages needed for the window (ceil(records the window query returns / page size)),
 *   with nothing changed and with 50 changes (10 each: created, cancelled, rescheduled, status changed, and
 *   rescheduled beyond the window, which is read back by key);
 * - static data bytes per watched appointment;
 * - CPU time of one poll / CPU time of a poll that only reads the same window through the same transport (what
 *   the comparison and the state add), the median of alternating rounds' ratios. The sandbox runs in a process of
 *   its own, so this process's CPU time is the poll's (our code and n8n's), not the service's.
 */
import { DateTime } from 'luxon';
import type { IDataObject, INodeType, IPollFunctions } from 'n8n-workflow';

import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	clearSandboxRequests,
	requireProjectFile,
	round,
	sandboxRequests,
	startSandboxProcess,
	type PartContext,
	type Row,
} from '../lib/common';
import { configurePageSize } from '../lib/node';
import { cpuGuardRow, medians, runRounds } from '../lib/rounds';

type Harness = typeof import('../../test/helpers/polling');
type Transport = typeof import('../../nodes/Appointments/transport/list/paginate');

const ZONE = 'America/Santiago';
const LIST_PATH = '/api/v3/appointments/';
const OPTIONS = { daysBack: 14, daysAhead: 14, maxWatched: 20000 };
const ALL_EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];

/** The baseline: a polling node that reads the trigger's window through the same transport and keeps nothing. */
function readOnlyNode(transport: Transport, trigger: INodeType): INodeType {
	return {
		description: { ...trigger.description, name: 'readOnlyPoll' },
		async poll(this: IPollFunctions) {
			const now = DateTime.now().setZone(ZONE);
			const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm:ss");
			// The trigger's window with its 27 h padding on each side: the same pages.
			const qs = {
				start_date: wall(now.minus({ days: OPTIONS.daysBack, hours: 27 })),
				end_date: wall(now.plus({ days: OPTIONS.daysAhead, hours: 27 })),
			};
			await transport.paginateAll(this, 'appointments/', qs, { keyField: 'appointment_key' });
			return null;
		},
	};
}

type PollingHarness = ReturnType<Harness['startPollingHarness']>;
type PollCounted = (h: PollingHarness) => Promise<{
	result: Awaited<ReturnType<PollingHarness['poll']>>;
	requests: number;
	needed: { pages: number; records: number };
}>;
const TIME_PARAMETERS = {
	events: ['appointment.starting_soon', 'appointment.started'],
	leadTime: 1440,
	options: {},
};

/** A row comparing the requests of one poll with the list pages it needed (plus read-backs by key). */
function requestsRow(
	name: string,
	requests: number,
	needed: number,
	target: string,
	met = requests === needed,
): Row {
	return {
		part: 7,
		name,
		value: requests,
		baseline: needed,
		unit: 'req.',
		ratio: round(requests / needed, 3),
		target,
		met,
	};
}

/** Polls once and counts its requests in the sandbox's log, and the list pages its window needs. */
function pollCounter(admin: Client, api: Client): PollCounted {
	const pagesNeeded = async () => {
		const logged = (await sandboxRequests(admin)).filter((r) => r.path === LIST_PATH);
		const query = new URLSearchParams(logged[0].query as Record<string, string>);
		const first = (await api.ok('GET', `${LIST_PATH}?${query}`)) as {
			count: number;
			results: unknown[];
		};
		return { pages: Math.ceil(first.count / first.results.length), records: first.count };
	};
	return async (h) => {
		await clearSandboxRequests(admin);
		const result = await h.poll();
		if (result.error) throw result.error;
		const requests = await sandboxRequests(admin);
		return { result, requests: requests.length, needed: await pagesNeeded() };
	};
}

/** The change events: a quiet poll, a poll after changes (exactly their events), and the state's bytes. */
async function changeEventRows(
	harness: PollingHarness,
	pollCounted: PollCounted,
	clients: { admin: Client; api: Client },
	smoke: boolean,
) {
	const quiet = await pollCounted(harness);
	if (quiet.result.items)
		throw new Error(`a poll without changes emitted ${quiet.result.items.length} items`);
	const rows: Row[] = [
		requestsRow(
			`Polling trigger, ${quiet.needed.records} watched, page 50, nothing changed: requests of one poll / list pages needed`,
			quiet.requests,
			quiet.needed.pages,
			'= 1',
		),
	];
	const expected = await makeChanges(clients.admin, clients.api, smoke ? 2 : 10);
	const busy = await pollCounted(harness);
	const emitted = (busy.result.items ?? [])
		.map((i) => `${i.json.event} ${(i.json.data as { appointment_key: string }).appointment_key}`)
		.sort();
	const right = JSON.stringify(emitted) === JSON.stringify([...expected.events].sort());
	const needed = busy.needed.pages + expected.outside;
	rows.push({
		...requestsRow(
			`Polling trigger, ${expected.events.length} changes (${expected.outside} moved beyond the window): requests / pages needed + read-backs`,
			busy.requests,
			needed,
			`= 1, and exactly the ${expected.events.length} events`,
			busy.requests === needed && right,
		),
		details: right ? undefined : { emitted, expected: expected.events },
	});
	const state = (
		harness.saved()['node:Appointments Polling Trigger'] as { state: { entries: string } }
	).state;
	const watched = state.entries.split(';').length;
	const bytes = harness.savedBytes();
	rows.push({
		part: 7,
		name: `Polling trigger: static data bytes per watched appointment (${watched} watched, ${Math.round(bytes / 1024)} kB)`,
		value: round(bytes / watched, 1),
		unit: 'B',
		target: '<= 48',
		met: bytes / watched <= 48,
	});
	return { rows, accountPages: quiet.needed.pages };
}

export async function runPollingPart(ctx: PartContext): Promise<Row[]> {
	const total = ctx.smoke ? 600 : 10000;
	const runs = ctx.smoke ? 3 : 11;
	const { startPollingHarness } = requireProjectFile<Harness>(
		'test/helpers/polling',
		'The poll harness',
	);
	const transport = requireProjectFile<Transport>(
		'nodes/Appointments/transport/list/paginate',
		'The transport',
	);
	const { AppointmentsPollingTrigger } = requireProjectFile<{
		AppointmentsPollingTrigger: new () => INodeType;
	}>('nodes/Appointments/AppointmentsPollingTrigger.node', 'The polling trigger');
	const trigger = new AppointmentsPollingTrigger();

	ctx.log(`part 7: sandbox with ${total} appointments`);
	// The service in a process of its own: its CPU time would otherwise count on both sides of the time row.
	const sb = await startSandboxProcess({ seed: total, timeZone: ZONE });
	const admin = new Client(sb.url, ADMIN_TOKEN);
	const api = new Client(sb.url, API_TOKEN);
	try {
		await configurePageSize(admin, sb.url, 50);
		const credentials = { baseUrl: sb.url, accessToken: API_TOKEN };
		const start = (parameters: IDataObject, nodeType = trigger) =>
			startPollingHarness({ credentials, parameters, timezone: ZONE, nodeType });
		const harness = start({ events: ALL_EVENTS, options: OPTIONS });
		await harness.activate();
		const pollCounted = pollCounter(admin, api);
		const { rows, accountPages } = await changeEventRows(
			harness,
			pollCounted,
			{ admin, api },
			ctx.smoke,
		);
		rows.push(...(await timeEventRows(pollCounted, () => start(TIME_PARAMETERS), accountPages)));
		// CPU time: the trigger's poll against a poll that only reads the same pages.
		const reader = start(
			{ events: ALL_EVENTS, options: OPTIONS },
			readOnlyNode(transport, trigger),
		);
		await reader.activate();
		rows.push(await pollTimeRow({ poll: harness, read: reader }, runs, accountPages));
		return rows;
	} finally {
		await admin.close();
		await api.close();
		await sb.close();
	}
}

/**
 * The time events (Starting Soon with Lead Time 1440, and Started) on the same account: one poll lists only their
 * window (now - 24 h .. now + 24 h, padded 27 h each side), whatever the account holds beyond it.
 */
async function timeEventRows(
	pollCounted: PollCounted,
	start: () => PollingHarness,
	accountPages: number,
): Promise<Row[]> {
	const h = start();
	await h.activate();
	const quiet = await pollCounted(h);
	const saved = h.saved() as { 'node:Appointments Polling Trigger': { time: { done: string } } };
	const state = saved['node:Appointments Polling Trigger'].time;
	const pairs = state.done === '' ? 0 : state.done.split(';').length;
	// Per pair, without the state's fixed fields (about 100 bytes, which would weigh on a small account only).
	state.done = '';
	const bytes = h.savedBytes() - JSON.stringify(saved).length;
	return [
		requestsRow(
			`Polling trigger, time events (Starting Soon 1440 min + Started), ${quiet.needed.records} in their padded window: requests of one poll / list pages of that window`,
			quiet.requests,
			quiet.needed.pages,
			'= 1 (no read by key)',
		),
		{
			part: 7,
			name: "Context: time events poll / the change events' poll of the whole account (Days Back 14, Days Ahead 14), requests",
			value: quiet.requests,
			baseline: accountPages,
			unit: 'req.',
			ratio: round(quiet.requests / accountPages, 3),
			target: '(context)',
		},
		{
			part: 7,
			name: `Polling trigger, time events: static data bytes per remembered appointment, fixed fields aside (${pairs} remembered after the baseline)`,
			value: round(bytes / Math.max(pairs, 1), 1),
			unit: 'B',
			target: '<= 48',
			met: pairs > 0 && bytes / pairs <= 48,
		},
	];
}

/** n of each change between two polls; returns the events the trigger must emit. */
async function makeChanges(
	admin: Client,
	api: Client,
	n: number,
): Promise<{ events: string[]; outside: number }> {
	const now = DateTime.now().setZone(ZONE);
	const all = (
		(await admin.ok('GET', '/__sandbox/appointments/')) as {
			appointments: Array<{ appointment_key: string; start_date: string; status: string }>;
		}
	).appointments;
	// CONFIRMED ones: each change below is then a real change (a PATCH to the current status changes nothing).
	const open = all.filter(
		(a) =>
			a.status === 'CONFIRMED' && Math.abs(Date.parse(a.start_date) - Date.now()) < 10 * 86_400_000,
	);
	const pick = (i: number) => open[i].appointment_key;
	const events: string[] = [];
	for (let i = 0; i < n; i++) {
		const created = (await admin.ok('POST', '/__sandbox/appointments/', {
			start_date: now.plus({ days: 1 + (i % 5), hours: i }).toISO(),
			status: 'CONFIRMED',
		})) as { appointment_key: string };
		events.push(`appointment.created ${created.appointment_key}`);
		await api.ok('DELETE', `${LIST_PATH}${pick(i)}/?send_email=false`);
		events.push(`appointment.canceled ${pick(i)}`);
		await api.ok('PATCH', `${LIST_PATH}${pick(n + i)}/reschedule/`, {
			start_date: now.plus({ days: 2, minutes: 15 * i }).toISO(),
		});
		events.push(`appointment.updated ${pick(n + i)}`);
		await api.ok('PATCH', `${LIST_PATH}${pick(2 * n + i)}/`, { status: 'NO_SHOW' });
		events.push(`appointment.updated ${pick(2 * n + i)}`);
		await api.ok('PATCH', `${LIST_PATH}${pick(3 * n + i)}/reschedule/`, {
			start_date: now.plus({ days: 60 }).toISO(),
		});
		events.push(`appointment.updated ${pick(3 * n + i)}`);
	}
	return { events, outside: n };
}

/**
 * One poll of the trigger against a poll that only reads the same pages: alternating pairs after a warm-up pair,
 * the median of each pair's CPU-time ratio (wall time moves with whatever else the machine runs).
 */
async function pollTimeRow(
	harnesses: Record<'read' | 'poll', { poll(): Promise<{ error?: Error }> }>,
	runs: number,
	pages: number,
): Promise<Row> {
	const samples = await runRounds({
		contestants: ['read', 'poll'] as const,
		rounds: runs,
		warmups: 1,
		order: 'alternate',
		run: (which) => harnesses[which].poll(),
		after: (_, result) => {
			if (result.error) throw result.error;
		},
	});
	const wall = medians(samples.wallMs);
	const ms = (values: number[]) => values.map((v) => round(v, 1));
	return cpuGuardRow(
		7,
		`Polling trigger: one poll / reading the same pages only (${pages} pages), CPU time (what the comparison and the state add)`,
		samples.cpuMs.poll,
		samples.cpuMs.read,
		{
			pollMs: ms(samples.wallMs.poll),
			readMs: ms(samples.wallMs.read),
			wallRatio: round(wall.poll / wall.read, 3),
		},
	);
}
