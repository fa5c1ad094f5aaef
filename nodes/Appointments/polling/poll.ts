/**
 * One poll's change events: the appointments whose start lies in the watched window (listed by listing.ts, once
 * with the time events' window), compared with the state of the last successful poll (pollState.ts), the
 * differences turned into the webhook trigger's items. The state is written only after every request succeeded,
 * so a failing poll leaves it as it was and the next one catches up.
 *
 * Why it is correct whatever the service does with its filters: the window is written in the account's zone (the
 * credential's Account Time Zone; padded when that is empty, as the account's zone is then a guess) with edges every
 * parser reads alike, and cut exactly here on the records' own start_date (a service that ignores end_date costs
 * requests, never events); created_at is not used, since nothing could check what it matched;
 * a watched appointment missing from the list is read by key, so a service that hides cancelled appointments or
 * a page that shifted under the paging still yields the right event.
 */
import { DateTime } from 'luxon';
import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { CHANGE_EVENTS, CREATED, matches, wallClock, type EventFilter } from '../shared';
import { accountTimeZone, readAppointment } from '../transport';
import {
	changesOf,
	createdChanges,
	forgottenChange,
	toItem,
	wasCancelled,
	WITH_PREVIOUS,
	type Change,
} from './changes';
import { appointmentPages, serviceWindow, type Reader } from './listing';
import { fingerprint, readState, startMs, writeState, type Entry, type PollState } from './pollState';

export interface PollingOptions {
	events: ReadonlySet<string>;
	/** Changes whose appointment does not match are dropped; a poll left with none starts no execution. */
	filter: EventFilter;
	daysBack: number;
	daysAhead: number;
	simplify: boolean;
	maxWatched: number;
}

const DAY = 24 * 60 * 60 * 1000;

/** How many appointments "Fetch test event" looks through for one that matches the Filters. */
const SAMPLE_LIMIT = 200;

/** "Fetch test event": one real appointment of the window that matches the Filters, as a sample of the first selected event. */
export async function sampleEvent(ctx: IPollFunctions, options: PollingOptions): Promise<INodeExecutionData[][]> {
	const zone = ctx.getTimezone();
	const now = DateTime.now().setZone(zone);
	const from = now.minus({ days: options.daysBack }).toMillis();
	const to = now.plus({ days: options.daysAhead }).toMillis();
	const inside = (record: IDataObject) => startMs(record.start_date) >= from && startMs(record.start_date) <= to;
	const query = await serviceWindow(ctx, from, to);
	for await (const records of appointmentPages(ctx, query, { limit: SAMPLE_LIMIT, keep: inside })) {
		const record = records.find((r) => matches(options.filter, r));
		if (record === undefined) continue;
		const event = [...options.events][0] ?? CREATED;
		// A sample has no earlier values: `previous` holds the current ones, so its fields can be mapped.
		const previous = WITH_PREVIOUS.has(event) ? { start_date: record.start_date, status: record.status } : undefined;
		return [[toItem({ event, data: record, previous }, now.toISO()!, options.simplify)]];
	}
	throw new NodeOperationError(ctx.getNode(), 'No appointment found to show as a test event', {
		description: `The service has no appointment starting between ${wallClock(from, zone)} and ${wallClock(to, zone)} (${zone}) that matches the Filters. Create one, widen Days Back or Days Ahead, or loosen the Filters.`,
	});
}

export interface ChangePoll {
	/** The change events' window and what each listed record does; undefined when none is selected. */
	reader?: Reader;
	/** After the listing: reads back the unlisted watched appointments, writes the state, gives the items. */
	finish(): Promise<INodeExecutionData[]>;
}

export async function startChanges(ctx: IPollFunctions, options: PollingOptions): Promise<ChangePoll> {
	const staticData = ctx.getWorkflowStaticData('node');
	if (!CHANGE_EVENTS.some((e) => options.events.has(e.value))) {
		// Only time events (timeEvents.ts): no request, and no stale state to compare with once one is selected.
		return {
			async finish() {
				if (staticData.state !== undefined) delete staticData.state;
				return [];
			},
		};
	}
	const zone = ctx.getTimezone();
	const now = DateTime.now().setZone(zone);
	const timestamp = now.toISO()!;
	const from = now.minus({ days: options.daysBack }).toMillis();
	const to = now.plus({ days: options.daysAhead }).toMillis();
	const previous = readState(staticData);
	// `previous.start_date` on the account's clock, as the service writes start_date, when the credential names it.
	const shownZone = (await accountTimeZone(ctx)) ?? zone;
	const c: Comparison = { from, to, zone: shownZone, previous, entries: new Map(previous?.entries), changes: [], listed: new Set() };
	return {
		reader: { from, to, read: (record) => compareListed(c, record) },
		async finish() {
			await readBackUnlisted(ctx, c);
			forgetBeyond(ctx, c.entries, from, to, options);
			writeState(staticData, { from, to, entries: c.entries });
			return c.changes
				.filter((change) => options.events.has(change.event) && matches(options.filter, change.data))
				.map((change) => toItem(change, timestamp, options.simplify));
		},
	};
}

/** One poll's comparison of the service's list with the state of the last successful poll. */
interface Comparison {
	/** The watched window of start times (epoch ms). */
	from: number;
	to: number;
	/** The zone `previous.start_date` is written in. */
	zone: string;
	previous: PollState | undefined;
	/** The new state, filled in as the pages arrive. */
	entries: Map<string, Entry>;
	changes: Change[];
	listed: Set<string>;
}

/** NaN (an unreadable start) is never inside. */
const inWindow = (c: Comparison, start: number) => start >= c.from && start <= c.to;

const entryOf = (record: IDataObject): Entry => ({
	fp: fingerprint(record.status, record.start_date),
	start: startMs(record.start_date),
});

function compareListed(c: Comparison, record: IDataObject): void {
	const key = record.appointment_key as string;
	c.listed.add(key);
	const entry = entryOf(record);
	const before = c.entries.get(key);
	if (before === undefined) {
		if (!inWindow(c, entry.start)) return;
		c.entries.set(key, entry);
		// New inside the window the last poll listed completely: it did not exist there then. New elsewhere in the
		// window: it entered as the window moved (or its options changed), so it is only remembered.
		const previous = c.previous;
		if (previous !== undefined && entry.start >= previous.from && entry.start <= previous.to) {
			c.changes.push(...createdChanges(record));
		}
	} else if (before.fp !== entry.fp) {
		c.entries.set(key, entry);
		c.changes.push(...changesOf(before, entry, record, c.zone));
	}
}

/** Watched and inside the window, yet not listed: moved out of it, hidden by the service, or removed. */
async function readBackUnlisted(ctx: IPollFunctions, c: Comparison): Promise<void> {
	for (const [key, before] of c.previous?.entries ?? []) {
		if (c.listed.has(key) || !inWindow(c, before.start) || wasCancelled(before)) continue;
		const record = await readAppointment(ctx, key);
		if (record === undefined) {
			c.entries.delete(key);
			c.changes.push(forgottenChange(key));
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
function forgetBeyond(ctx: IPollFunctions, entries: Map<string, Entry>, from: number, to: number, options: PollingOptions): void {
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
	if (entries.size > options.maxWatched) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The watched window holds ${entries.size} appointments, more than Max Watched Appointments (${options.maxWatched})`,
			{ description: 'Lower Days Ahead or Days Back, or raise Max Watched Appointments (each one costs about 47 bytes of the workflow\'s static data).' },
		);
	}
}
