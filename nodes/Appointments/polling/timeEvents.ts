/**
 * The polling trigger's time events (docs/reminders.md is the builder's version of these rules):
 * - appointment.starting_soon: a poll finds `start - Lead Time <= now < start`;
 * - appointment.started: the first poll at or after the start.
 *
 * Each is emitted once per (appointment, start): the pairs already emitted are kept in the node's static data
 * until they can no longer match, so a reschedule (a new start) re-arms both, and a repeated poll, a restart or a
 * change of the poll interval does not. The rules read instants (epoch ms) only, so a daylight saving change
 * moves nothing. Canceled appointments are never emitted; one canceled after its reminder gets no `started`.
 * Appointments outside the trigger's Filters (calendars, statuses) are never emitted either.
 *
 * A window that opened while n8n was down is still open at the next poll, so the reminder comes late rather than
 * never. `started` is caught up for appointments that started at most CATCH_UP before the poll: a no-show
 * follow-up or "how did it go?" a day late does more harm than good, and each poll's list stays that short.
 *
 * First poll with an event selected: a baseline. Appointments already inside the reminder window are remembered
 * without a reminder, and those that started before it get no `started`; only what enters later is emitted, so
 * publishing never sends a burst. Likewise when Lead Time grows, those that entered the window only because it
 * grew are remembered silently (as the change events treat appointments entering a wider window).
 *
 * State: { v: 1, at, lead?, startedSince?, done: "<key>,<start s base 36>,<flags>;…" } with flags r (starting
 * soon handled) and s (started emitted); `lead` is present while starting_soon is selected, `startedSince` (the
 * baseline's time) while started is. Written only after every request succeeded (commit), like the change state.
 */
import { DateTime } from 'luxon';
import { NodeOperationError, type IDataObject, type INodeExecutionData, type IPollFunctions } from 'n8n-workflow';

import { isCancelled, matches, STARTED, STARTING_SOON, type EventFilter } from '../shared';
import { appointmentPages, serviceWindow, type Reader } from './listing';
import { toItem, type Change } from './changes';
import type { PollingOptions } from './poll';
import { startMs } from './pollState';

/** Lead Time's bounds in minutes: up to 30 days, as far as the change events watch by default. */
export const LEAD_MIN = 1;
export const LEAD_MAX = 43200;
/** How long after its start an appointment can still get `started` (after n8n was down). */
export const CATCH_UP_MS = 24 * 60 * 60 * 1000;

export interface TimeOptions extends PollingOptions {
	/** Lead Time in minutes (read when starting_soon is selected). */
	leadTime: number;
}

interface TimeState {
	at: number;
	lead?: number;
	startedSince?: number;
	/** "<encoded key>,<start s base 36>" -> flags */
	done: Map<string, string>;
}

export interface TimePoll {
	/** The time events' window and what each listed record does; undefined when none is selected. */
	reader?: Reader;
	/** After the listing: forgets the pairs that can no longer match; fails when too many are left. */
	settle(): void;
	/** Writes the new state and returns the items; call after every other request of the poll succeeded. */
	commit(): INodeExecutionData[];
}

function readTimeState(staticData: Record<string, unknown>): TimeState | undefined {
	const saved = staticData.time as Record<string, unknown> | undefined;
	if (!saved || saved.v !== 1 || typeof saved.at !== 'number' || typeof saved.done !== 'string') return undefined;
	const done = new Map<string, string>();
	for (const part of saved.done === '' ? [] : saved.done.split(';')) {
		const last = part.lastIndexOf(',');
		if (last <= 0) return undefined;
		done.set(part.slice(0, last), part.slice(last + 1));
	}
	return {
		at: saved.at,
		lead: typeof saved.lead === 'number' ? saved.lead : undefined,
		startedSince: typeof saved.startedSince === 'number' ? saved.startedSince : undefined,
		done,
	};
}

function writeTimeState(staticData: Record<string, unknown>, state: TimeState): void {
	const parts: string[] = [];
	for (const [id, flags] of state.done) parts.push(`${id},${flags}`);
	const saved: Record<string, unknown> = { v: 1, at: state.at, done: parts.join(';') };
	if (state.lead !== undefined) saved.lead = state.lead;
	if (state.startedSince !== undefined) saved.startedSince = state.startedSince;
	staticData.time = saved;
}

const startOfId = (id: string) => parseInt(id.slice(id.lastIndexOf(',') + 1), 36) * 1000;

/**
 * The window the selected time events need (listed by the caller, once with the change events' window) and what
 * to emit; nothing is written until commit(). With no time event selected it reads nothing and commit() forgets the
 * state, so selecting one later starts from a baseline.
 */
export function startTimeEvents(ctx: IPollFunctions, options: TimeOptions): TimePoll {
	const staticData = ctx.getWorkflowStaticData('node');
	if (!options.events.has(STARTING_SOON) && !options.events.has(STARTED)) {
		return {
			settle() {},
			commit() {
				if (staticData.time !== undefined) delete staticData.time;
				return [];
			},
		};
	}

	const zone = ctx.getTimezone();
	const nowDt = DateTime.now().setZone(zone);
	const r = timeRound(nowDt.toMillis(), options, readTimeState(staticData));
	const timestamp = nowDt.toISO()!;
	return {
		reader: { from: r.from, to: r.to, read: (record) => markRecord(r, record, options.filter) },
		settle() {
			forgetSpent(r);
			if (r.done.size <= options.maxWatched) return;
			throw new NodeOperationError(
				ctx.getNode(),
				`The reminder window holds ${r.done.size} appointments, more than Max Watched Appointments (${options.maxWatched})`,
				{ description: 'Lower Lead Time, or raise Max Watched Appointments (each one costs about 45 bytes of the workflow\'s static data).' },
			);
		},
		commit() {
			writeTimeState(staticData, { at: r.now, lead: r.soon ? options.leadTime : undefined, startedSince: r.startedSince, done: r.done });
			return r.changes.map((change) => toItem(change, timestamp, options.simplify));
		},
	};
}

/** One poll of the time events: the window it reads, the pairs emitted so far and the changes found. */
interface TimeRound {
	soon: boolean;
	started: boolean;
	now: number;
	from: number;
	to: number;
	startedSince?: number;
	/** Starting soon was just selected: whatever is inside Lead Time now is remembered without a reminder. */
	baseline: boolean;
	/** Inside Lead Time only because it grew since the last poll: remembered without a reminder. */
	grewInto: (start: number) => boolean;
	done: Map<string, string>;
	changes: Change[];
}

function timeRound(now: number, options: TimeOptions, previous: TimeState | undefined): TimeRound {
	const soon = options.events.has(STARTING_SOON);
	const started = options.events.has(STARTED);
	const lead = options.leadTime * 60_000;
	return {
		soon,
		started,
		now,
		// Starting soon: now < start <= now + lead. Started: startedSince < start <= now, within the catch-up.
		from: started ? now - CATCH_UP_MS : now,
		to: soon ? now + lead : now,
		startedSince: started ? (previous?.startedSince ?? now) : undefined,
		baseline: soon && previous?.lead === undefined,
		grewInto: (start) =>
			previous?.lead !== undefined && start > previous.at + previous.lead * 60_000 && start <= previous.at + lead,
		done: new Map(previous?.done),
		changes: [],
	};
}

function markRecord(r: TimeRound, record: IDataObject, filter: EventFilter): void {
	const key = record.appointment_key as string;
	const start = startMs(record.start_date);
	if (start < r.from || start > r.to || isCancelled(record) || !matches(filter, record)) return;
	const id = `${encodeURIComponent(key)},${Math.floor(start / 1000).toString(36)}`;
	let flags = r.done.get(id) ?? '';
	if (r.soon && start > r.now && !flags.includes('r')) {
		flags += 'r';
		if (!r.baseline && !r.grewInto(start)) r.changes.push({ event: STARTING_SOON, data: record });
	}
	if (r.started && start <= r.now && start > r.startedSince! && !flags.includes('s')) {
		flags += 's';
		r.changes.push({ event: STARTED, data: record });
	}
	if (flags !== '') r.done.set(id, flags);
}

/** Keeps a pair only while it can still match: before its start for r, within the catch-up for s. */
function forgetSpent(r: TimeRound): void {
	for (const [id, flags] of r.done) {
		const start = startOfId(id);
		const keep = (r.soon && flags.includes('r') && start > r.now) || (r.started && flags.includes('s') && start >= r.from);
		if (!keep) r.done.delete(id);
	}
}

/**
 * "Fetch test event" for a time event: a real appointment that fits it, the next one to start for starting soon
 * (within Lead Time or Days Ahead), the last one started in the past 24 hours for started. Undefined when there is
 * none, so the caller falls back to any appointment of the watched window. Looks at most at 200 records of the window; saves nothing.
 */
export async function sampleTimeEvent(
	ctx: IPollFunctions,
	options: TimeOptions,
	event: string,
): Promise<INodeExecutionData[][] | undefined> {
	const zone = ctx.getTimezone();
	const nowDt = DateTime.now().setZone(zone);
	const now = nowDt.toMillis();
	const soon = event === STARTING_SOON;
	const from = soon ? now + 1 : now - CATCH_UP_MS;
	const to = soon ? now + Math.max(options.leadTime * 60_000, options.daysAhead * 86_400_000) : now;
	let best: { start: number; record: Change['data'] } | undefined;
	const inside = (record: IDataObject) => startMs(record.start_date) >= from && startMs(record.start_date) <= to;
	const query = await serviceWindow(ctx, from, to);
	for await (const records of appointmentPages(ctx, query, { limit: 200, keep: inside })) {
		for (const record of records) {
			const start = startMs(record.start_date);
			if (isCancelled(record) || !matches(options.filter, record)) continue;
			if (best === undefined || (soon ? start < best.start : start > best.start)) best = { start, record };
		}
	}
	return best && [[toItem({ event, data: best.record }, nowDt.toISO()!, options.simplify)]];
}
