/**
 * The polling trigger's time events (docs/reminders.md): starting soon when a poll finds `start - Lead Time <= now <
 * start`, started at the first poll at or after the start; each once per (appointment, start), so a reschedule
 * re-arms both and a repeated poll or a restart does not. Instants only: a DST change moves nothing. `started` is
 * caught up for CATCH_UP_MS only (a no-show follow-up a day late does more harm than good). The first poll with an
 * event selected, and a Lead Time that grew, remember without emitting: no burst on publishing.
 * State: { v: 1, at, lead?, startedSince?, done: "<key>,<start s base 36>,<flags>;…" }, flags r (starting soon
 * handled) and s (started emitted).
 */
import { DateTime } from 'luxon';
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { isCancelled } from '../shared/appointmentRecord.js';
import { matches, type EventFilter } from '../shared/eventFilter.js';
import { STARTED, STARTING_SOON } from '../shared/constants.js';
import { toItem, type Change } from './changes.js';
import { unselected, type PollingOptions, type PollPart } from './listing.js';
import { readPairs, startMs, writePairs } from './pollState.js';

/** How long after its start an appointment can still get `started` (after n8n was down). */
export const CATCH_UP_MS = 24 * 60 * 60 * 1000;

type TimeState = NonNullable<ReturnType<typeof readTimeState>>;

function readTimeState(staticData: Record<string, unknown>) {
	const saved = staticData.time as Record<string, unknown> | undefined;
	const done = typeof saved?.done === 'string' ? readPairs(saved.done) : undefined;
	if (!saved || saved.v !== 1 || typeof saved.at !== 'number' || done === undefined)
		return undefined;
	const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
	return { at: saved.at, lead: number(saved.lead), startedSince: number(saved.startedSince), done };
}

/** The time events' part of a poll: its window in the listing, and nothing written until commit(). */
export function startTimeEvents(ctx: IPollFunctions, options: PollingOptions): PollPart {
	const staticData = ctx.getWorkflowStaticData('node');
	if (!options.events.has(STARTING_SOON) && !options.events.has(STARTED))
		return unselected(staticData, 'time');
	const now = DateTime.now().setZone(ctx.getTimezone());
	const r = timeRound(now.toMillis(), options, readTimeState(staticData));
	return {
		reader: { from: r.from, to: r.to, read: (record) => markRecord(r, record, options.filter) },
		finish() {
			forgetSpent(r);
			if (r.done.size <= options.maxWatched) return;
			throw new NodeOperationError(
				ctx.getNode(),
				`The reminder window holds ${r.done.size} appointments, more than Max Watched Appointments (${options.maxWatched})`,
				{
					description:
						"Lower Lead Time, or raise Max Watched Appointments (each one costs about 45 bytes of the workflow's static data).",
				},
			);
		},
		commit() {
			const { now: at, startedSince } = r;
			const lead = r.soon ? options.leadTime : undefined; // an undefined field is not saved
			staticData.time = { v: 1, at, lead, startedSince, done: writePairs(r.done) };
			return r.changes.map((change) => toItem(change, now.toISO()!, options.simplify));
		},
	};
}

/** One poll of the time events: the window it reads, the pairs emitted so far and the changes found. */
type TimeRound = ReturnType<typeof timeRound>;

function timeRound(now: number, options: PollingOptions, previous: TimeState | undefined) {
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
		grewInto: (start: number) =>
			previous?.lead !== undefined &&
			start > previous.at + previous.lead * 60_000 &&
			start <= previous.at + lead,
		done: new Map(previous?.done),
		changes: [] as Change[],
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
		const start = parseInt(id.slice(id.lastIndexOf(',') + 1), 36) * 1000;
		const keep =
			(r.soon && flags.includes('r') && start > r.now) ||
			(r.started && flags.includes('s') && start >= r.from);
		if (!keep) r.done.delete(id);
	}
}
