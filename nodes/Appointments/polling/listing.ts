/**
 * The polling trigger's options and listing, shared by its change and time events (each a PollPart). Each reader
 * cuts the listing on the records' own start_date: a service that ignores end_date costs requests, never events.
 */
import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { eventList, numberValue } from '../shared/validation.js';
import { notAppointmentReason, unreadableReason } from '../shared/appointmentRecord.js';
import { readEventFilter } from '../shared/eventFilter.js';
import { startInstant, startWindowQuery } from '../shared/dateWindow.js';
import { STARTING_SOON } from '../shared/constants.js';
import { withoutItem } from '../shared/triggerError.js';
import { accountTimeZone } from '../transport/http/credentialInfo.js';
import { paginate, type PaginateOptions } from '../transport/list/paginate.js';
import { startMs } from './pollState.js';

/** Lead Time's rule in minutes: up to 30 days, as far as the change events watch by default. */
export const LEAD = { min: 1, max: 43200, whole: true };

/** The whole-number options: the node's description and readPollingOptions take their bounds from here. */
export const WHOLE_OPTIONS = {
	daysAhead: { label: 'Days Ahead', fallback: 30, min: 1, max: 366 },
	daysBack: { label: 'Days Back', fallback: 1, min: 0, max: 31 },
	maxWatched: { label: 'Max Watched Appointments', fallback: 20000, min: 100, max: 200000 },
};

/** Lead Time is read only when starting soon is selected; events outside the Filters are dropped. */
export type PollingOptions = ReturnType<typeof readPollingOptions>;

export function readPollingOptions(ctx: IPollFunctions) {
	const node = ctx.getNode();
	const events = withoutItem(node, () =>
		eventList(node, ctx.getNodeParameter('events', []), undefined, 0),
	);
	const options = (ctx.getNodeParameter('options', {}) ?? {}) as IDataObject;
	const whole = (name: keyof typeof WHOLE_OPTIONS) => {
		const { label, fallback, min, max } = WHOLE_OPTIONS[name];
		const value = options[name] ?? fallback;
		if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
			return value;
		throw new NodeOperationError(
			node,
			`The option "${label}" must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`,
			{
				description: `Set "${label}" under Options to a whole number from ${min} to ${max}, or remove it to use ${fallback}.`,
			},
		);
	};
	const lead = () =>
		numberValue(node, ctx.getNodeParameter('leadTime', 1440), 'Lead Time (Minutes)', 0, LEAD);
	const leadTime = events.includes(STARTING_SOON) ? (withoutItem(node, lead) ?? 1440) : 1440;
	return {
		events: new Set(events),
		leadTime,
		filter: readEventFilter(node, ctx.getNodeParameter('filters', {})),
		daysBack: whole('daysBack'),
		daysAhead: whole('daysAhead'),
		maxWatched: whole('maxWatched'),
		simplify: options.simplify === true,
	};
}

/** One reader of a poll's listing: the window of starts it needs (epoch ms) and what it does with each record. */
export type Reader = { from: number; to: number; read(record: IDataObject): void };

/**
 * The change or the time events of one poll: its reader (none when none of its events is selected), finish() (the
 * requests and checks left after the listing) and commit() (writes its state, gives its items). Every part
 * finishes before any commits: a failed poll writes nothing.
 */
export interface PollPart {
	reader?: Reader;
	finish(): Promise<void> | void;
	commit(): INodeExecutionData[];
}

/** None of the part's events selected: nothing read, and its state forgotten so that selecting one starts anew. */
export function unselected(staticData: IDataObject, field: string): PollPart {
	return {
		finish() {},
		commit() {
			if (staticData[field] !== undefined) delete staticData[field];
			return [];
		},
	};
}

/**
 * The usable appointments starting in [from, to] as the service reads it (the caller cuts them to it), page by page.
 * An entry that is not an appointment fails the poll like a failed request (nothing emitted, the state kept, the next
 * poll reads again); one without a usable status or start is left out and put in `unreadable` (key → why).
 */
export async function* appointmentPages(
	ctx: IPollFunctions,
	from: number,
	to: number,
	unreadable: Map<string, string>,
	options: PaginateOptions = {},
): AsyncGenerator<IDataObject[]> {
	const query = startWindowQuery({ from, to }, await accountTimeZone(ctx), ctx.getTimezone());
	const pages = paginate(ctx, 'appointments/', query, { keyField: 'appointment_key', ...options });
	for await (const records of pages) {
		const why = records.map((record) => notAppointmentReason(record)).find((r) => r !== undefined);
		if (why !== undefined)
			throw new NodeOperationError(
				ctx.getNode(),
				`The service's list of appointments held an entry that is not an appointment (${why})`,
				{
					description:
						"Nothing was emitted from this poll; the next poll reads the list again. Check that the credential's Base URL is the service's API address.",
				},
			);
		yield records.filter((record) => {
			const why = unreadableReason(record);
			if (why !== undefined) unreadable.set(record.appointment_key as string, why);
			return why === undefined;
		});
	}
}

/** The instants a window's list query asks for: its wall-clock edges read back in the zone they were written in. */
async function askedSpan(ctx: IPollFunctions, { from, to }: Reader) {
	const account = await accountTimeZone(ctx);
	const query = startWindowQuery({ from, to }, account, ctx.getTimezone());
	const zone = account ?? ctx.getTimezone();
	return { from: startInstant(query.start_date, zone), to: startInstant(query.end_date, zone) };
}

/**
 * Lists the parts' windows once, as one query over both (both hold the poll's now: no gap). Each reader gets what
 * its own query would have asked for, so listing once changes no event.
 */
export async function listOnce(
	ctx: IPollFunctions,
	parts: PollPart[],
	unreadable: Map<string, string>,
): Promise<void> {
	const readers = parts.flatMap((part) => (part.reader === undefined ? [] : [part.reader]));
	if (readers.length === 0) return;
	const from = Math.min(...readers.map((r) => r.from));
	const to = Math.max(...readers.map((r) => r.to));
	const spans =
		readers.length === 1 ? undefined : await Promise.all(readers.map((r) => askedSpan(ctx, r)));
	for await (const records of appointmentPages(ctx, from, to, unreadable)) {
		for (const record of records) {
			const start = startMs(record.start_date);
			readers.forEach((reader, i) => {
				const span = spans?.[i];
				if (span === undefined || (start >= span.from && start <= span.to)) reader.read(record);
			});
		}
	}
}
