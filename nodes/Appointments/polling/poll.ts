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
import { changesOf, createdChanges, forgottenChange, toItem, type Change } from './changes.js';
import { unselected, type PollingOptions, type PollPart } from './listing.js';
import { changed, entryOf, readState, wasCancelled, writeState, type Entry } from './pollState.js';

const DAY = 24 * 60 * 60 * 1000;

/** The starts the change events watch: Days Back before now to Days Ahead after it, on the workflow's calendar. */
export function watchedWindow(now: DateTime, options: PollingOptions) {
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
	const c = await comparison(ctx, options, unreadable);
	const { from, to, now } = c;
	const emitted = (change: Change) =>
		options.events.has(change.event) && matches(options.filter, change.data);
	return {
		reader: { from, to, read: (record) => compareListed(c, record) },
		async finish() {
			await readBackUnlisted(ctx, c);
			forgetBeyond(ctx, c);
		},
		commit() {
			writeState(staticData, { from, to, entries: c.entries }, options.filter.calendars.size > 0);
			return c.changes.filter(emitted).map((e) => toItem(e, now.toISO()!, options.simplify));
		},
	};
}

/** One poll's comparison of the service's list with the last successful poll's state: the watched window (epoch
 * ms), the zone `previous.start_date` is written in, and the new state, changes and keys listed as the pages arrive. */
type Comparison = Awaited<ReturnType<typeof comparison>>;

async function comparison(
	ctx: IPollFunctions,
	options: PollingOptions,
	unreadable: Map<string, string>,
) {
	const now = DateTime.now().setZone(ctx.getTimezone());
	const previous = readState(ctx.getWorkflowStaticData('node'));
	return {
		...watchedWindow(now, options),
		now,
		// `previous.start_date` on the account's clock, as the service writes start_date, when the credential names it.
		zone: (await accountTimeZone(ctx)) ?? ctx.getTimezone(),
		previous,
		options,
		unreadable,
		entries: new Map(previous?.entries),
		changes: [] as Change[],
		listed: new Set<string>(),
	};
}

/** NaN (an unreadable start) is never inside. */
const startsInComparison = (c: Comparison, start: number) => start >= c.from && start <= c.to;

function compareListed(c: Comparison, record: IDataObject): void {
	const key = record.appointment_key as string;
	c.listed.add(key);
	const before = c.entries.get(key);
	if (before !== undefined) return observe(c, key, before, record);
	const entry = entryOf(record);
	if (!startsInComparison(c, entry.start)) return;
	c.entries.set(key, entry);
	// New inside the window the last poll listed completely: it did not exist there then. New elsewhere in the
	// window: it entered as the window moved (or its options changed), so it is only remembered.
	if (c.previous && entry.start >= c.previous.from && entry.start <= c.previous.to)
		c.changes.push(...createdChanges(record));
}

/** A known appointment seen again: kept as it is now (its calendar too, for the Filters), with its changes. */
function observe(c: Comparison, key: string, before: Entry, record: IDataObject): void {
	const entry = entryOf(record);
	c.entries.set(key, entry);
	if (changed(before, entry)) c.changes.push(...changesOf(before, entry, record, c.zone));
}

/** Watched and inside the window, yet not listed: moved out of it, hidden by the service, or removed. */
async function readBackUnlisted(ctx: IPollFunctions, c: Comparison): Promise<void> {
	for (const [key, before] of c.previous?.entries ?? []) {
		if (c.listed.has(key) || c.unreadable.has(key)) continue;
		if (!startsInComparison(c, before.start) || wasCancelled(before)) continue;
		const record = await readAppointment(ctx, key, { unreadable: 'return' });
		const why = record && unreadableReason(record);
		if (record === undefined) {
			c.entries.delete(key);
			// Gone: its data is its key, so the Filters check the calendar it was last seen in.
			if (matches(c.options.filter, { calendar: { calendar_key: before.calendar } }))
				c.changes.push(forgottenChange(key));
		} else if (why !== undefined) c.unreadable.set(key, why);
		else observe(c, key, before, record);
	}
}

/**
 * Keeps appointments that left the window for a while (rescheduled far ahead, or past by up to Days Back more), so
 * that one coming back is an update, not a creation; the farthest from the window go first when the state would
 * exceed Max Watched Appointments. A window that alone holds more is an error, never a silent gap.
 */
function forgetBeyond(ctx: IPollFunctions, c: Comparison): void {
	const { entries, from, to, options } = c;
	const keepFrom = from - Math.max(options.daysBack, 1) * DAY;
	for (const [key, { start }] of entries) if (!(start >= keepFrom)) entries.delete(key);
	if (entries.size <= options.maxWatched) return;
	const distance = ({ start }: Entry) => (start > to ? start - to : from - start);
	const outside = [...entries].filter(([, entry]) => distance(entry) > 0);
	outside.sort((a, b) => distance(b[1]) - distance(a[1]));
	for (const [key] of outside.slice(0, entries.size - options.maxWatched)) entries.delete(key);
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
