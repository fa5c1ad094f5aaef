/**
 * One poll's change events: the watched window's appointments compared with the last successful poll's state
 * (pollState.ts). A watched appointment missing from the list is read by key, so a service that hides cancelled
 * appointments, or a page that shifted under the paging, still yields the right event. created_at is not used:
 * nothing could check what it matched.
 */
import { DateTime } from 'luxon';
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { unreadableReason } from '../shared/appointmentRecord.js';
import { CHANGE_EVENTS } from '../shared/constants.js';
import { matches } from '../shared/eventFilter.js';
import { accountTimeZone } from '../transport/http/credentialInfo.js';
import { readAppointment } from '../transport/resources/appointmentCalls.js';
import {
	changesOf,
	createdChanges,
	forgottenChange,
	toItem,
	wasCancelled,
	type Change,
} from './changes.js';
import { unselected, type PollingOptions, type PollPart } from './listing.js';
import { entryOf, readState, writeState, type Entry, type PollState } from './pollState.js';

const DAY = 24 * 60 * 60 * 1000;

/** The starts the change events watch: Days Back before now to Days Ahead after it, on the workflow's calendar. */
export function watchedWindow(
	now: DateTime,
	options: PollingOptions,
): { from: number; to: number } {
	return {
		from: now.minus({ days: options.daysBack }).toMillis(),
		to: now.plus({ days: options.daysAhead }).toMillis(),
	};
}

/** `unreadable`: the poll's records that cannot be used (key → why), listed or read back here: skipped, kept as seen. */
export async function startChanges(
	ctx: IPollFunctions,
	options: PollingOptions,
	unreadable: Map<string, string>,
): Promise<PollPart> {
	const staticData = ctx.getWorkflowStaticData('node');
	if (!CHANGE_EVENTS.some((e) => options.events.has(e.value)))
		return unselected(staticData, 'state');
	const zone = ctx.getTimezone();
	const now = DateTime.now().setZone(zone);
	const { from, to } = watchedWindow(now, options);
	const previous = readState(staticData);
	// `previous.start_date` on the account's clock, as the service writes start_date, when the credential names it.
	const shownZone = (await accountTimeZone(ctx)) ?? zone;
	const c: Comparison = {
		from,
		to,
		zone: shownZone,
		previous,
		entries: new Map(previous?.entries),
		changes: [],
		listed: new Set(),
		unreadable,
	};
	return {
		reader: { from, to, read: (record) => compareListed(c, record) },
		async finish() {
			await readBackUnlisted(ctx, c);
			forgetBeyond(ctx, c.entries, from, to, options);
		},
		commit() {
			writeState(staticData, { from, to, entries: c.entries });
			return c.changes
				.filter((change) => options.events.has(change.event))
				.filter((change) => matches(options.filter, change.known ?? change.data))
				.map((change) => toItem(change, now.toISO()!, options.simplify));
		},
	};
}

/** One poll's comparison of the service's list with the last successful poll's state: the watched window (epoch
 * ms), the zone `previous.start_date` is written in, and the new state, changes and keys listed as the pages arrive. */
interface Comparison {
	from: number;
	to: number;
	zone: string;
	previous: PollState | undefined;
	entries: Map<string, Entry>;
	changes: Change[];
	listed: Set<string>;
	unreadable: Map<string, string>;
}

/** NaN (an unreadable start) is never inside. */
const startsInComparison = (c: Comparison, start: number) => start >= c.from && start <= c.to;

function compareListed(c: Comparison, record: IDataObject): void {
	const key = record.appointment_key as string;
	c.listed.add(key);
	const entry = entryOf(record);
	const before = c.entries.get(key);
	if (before === undefined) {
		if (!startsInComparison(c, entry.start)) return;
		c.entries.set(key, entry);
		// New inside the window the last poll listed completely: it did not exist there then. New elsewhere in the
		// window: it entered as the window moved (or its options changed), so it is only remembered.
		const previous = c.previous;
		if (previous !== undefined && entry.start >= previous.from && entry.start <= previous.to) {
			c.changes.push(...createdChanges(record));
		}
	} else {
		c.entries.set(key, entry); // the same, or its calendar moved: kept for the Filters
		if (before.fp !== entry.fp) c.changes.push(...changesOf(before, entry, record, c.zone));
	}
}

/** Watched and inside the window, yet not listed: moved out of it, hidden by the service, or removed. */
async function readBackUnlisted(ctx: IPollFunctions, c: Comparison): Promise<void> {
	for (const [key, before] of c.previous?.entries ?? []) {
		if (c.listed.has(key) || c.unreadable.has(key)) continue;
		if (!startsInComparison(c, before.start) || wasCancelled(before)) continue;
		const record = await readAppointment(ctx, key, { unreadable: 'return' });
		if (record === undefined) {
			c.entries.delete(key);
			c.changes.push(forgottenChange(key, before));
			continue;
		}
		const why = unreadableReason(record);
		if (why !== undefined) {
			c.unreadable.set(key, why);
			continue;
		}
		const entry = entryOf(record);
		c.entries.set(key, entry);
		if (entry.fp !== before.fp) c.changes.push(...changesOf(before, entry, record, c.zone));
	}
}

/**
 * Keeps appointments that left the window for a while (rescheduled far ahead, or past by up to Days Back more), so
 * that one coming back is an update, not a creation; the farthest from the window go first when the state would
 * exceed Max Watched Appointments. A window that alone holds more is an error, never a silent gap.
 */
function forgetBeyond(
	ctx: IPollFunctions,
	entries: Map<string, Entry>,
	from: number,
	to: number,
	options: PollingOptions,
): void {
	const keepFrom = from - Math.max(options.daysBack, 1) * DAY;
	const outside: Array<[string, number]> = [];
	for (const [key, entry] of entries) {
		if (Number.isNaN(entry.start) || entry.start < keepFrom) entries.delete(key);
		else if (entry.start > to) outside.push([key, entry.start - to]);
		else if (entry.start < from) outside.push([key, from - entry.start]);
	}
	if (entries.size <= options.maxWatched) return;
	outside.sort((a, b) => b[1] - a[1]);
	for (const [key] of outside) {
		if (entries.size <= options.maxWatched) return;
		entries.delete(key);
	}
	if (entries.size <= options.maxWatched) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`The watched window holds ${entries.size} appointments, more than Max Watched Appointments (${options.maxWatched})`,
		{
			description:
				"Lower Days Ahead or Days Back, or raise Max Watched Appointments (each one costs about 47 bytes of the workflow's static data).",
		},
	);
}
