/**
 * The polling trigger's listing of the appointments, shared by its change and time events: each asks for a window
 * of starts, and a poll that needs both lists the appointments once, over the two windows together.
 *
 * The window is written in the account's zone (the credential's Account Time Zone; padded when that is empty, as
 * the account's zone is then a guess) with edges every parser reads alike, and cut by each reader on the records'
 * own start_date: a service that ignores end_date costs requests, never events.
 */
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { notAppointmentReason, startInstant, windowQuery } from '../shared';
import { accountTimeZone, paginate, type PaginateOptions } from '../transport';
import { startMs } from './pollState';

/** More than the largest difference between two time zones' offsets (26 h): with no Account Time Zone the window
 * goes out in the workflow's zone this much wider, so the service's reading in its own zone still covers it. */
const PAD = 27 * 60 * 60 * 1000;

/** The list query of the window of starts [from, to], as the service reads it; the caller cuts the answer to it. */
export async function serviceWindow(ctx: IPollFunctions, from: number, to: number): Promise<IDataObject> {
	const account = await accountTimeZone(ctx);
	if (account !== undefined) return windowQuery({ from, to }, account);
	return windowQuery({ from: from - PAD, to: to + PAD }, ctx.getTimezone());
}

/**
 * The window's appointments, page by page. An entry that is not an appointment fails the poll like a failed
 * request (nothing is emitted from it, the state is kept, the next poll reads again).
 */
export async function* appointmentPages(
	ctx: IPollFunctions,
	query: IDataObject,
	options: PaginateOptions = {},
): AsyncGenerator<IDataObject[]> {
	for await (const records of paginate(ctx, 'appointments/', query, { keyField: 'appointment_key', ...options })) {
		for (const record of records) {
			const why = notAppointmentReason(record);
			if (why === undefined) continue;
			throw new NodeOperationError(ctx.getNode(), `The service's list of appointments held an entry that is not an appointment (${why})`, {
				description: 'Nothing was emitted from this poll; the next poll reads the list again. Check that the credential\'s Base URL is the service\'s API address.',
			});
		}
		yield records;
	}
}

/** One reader of a poll's listing: the window of starts it needs (epoch ms) and what it does with each record. */
export interface Reader {
	from: number;
	to: number;
	read(record: IDataObject): void;
}

/** The instants a window's list query asks for: its wall-clock edges read back in the zone they were written in. */
async function askedSpan(ctx: IPollFunctions, reader: Reader): Promise<{ from: number; to: number }> {
	const zone = (await accountTimeZone(ctx)) ?? ctx.getTimezone();
	const query = await serviceWindow(ctx, reader.from, reader.to);
	return { from: startInstant(query.start_date, zone), to: startInstant(query.end_date, zone) };
}

/**
 * Lists the readers' windows once, as one query over both (both hold the poll's now, so the two make one window
 * without a gap). Each reader gets the records its own query would have
 * asked for (a record whose start cannot be read goes to every reader, as a list of its own window could hold it),
 * so listing once changes no event; a single reader gets the whole answer, as before.
 */
export async function listOnce(ctx: IPollFunctions, readers: Reader[]): Promise<void> {
	if (readers.length === 0) return;
	const from = Math.min(...readers.map((r) => r.from));
	const to = Math.max(...readers.map((r) => r.to));
	const spans = readers.length === 1 ? undefined : await Promise.all(readers.map((r) => askedSpan(ctx, r)));
	for await (const records of appointmentPages(ctx, await serviceWindow(ctx, from, to))) {
		for (const record of records) {
			const start = startMs(record.start_date);
			readers.forEach((reader, i) => {
				const span = spans?.[i];
				if (span === undefined || Number.isNaN(start) || (start >= span.from && start <= span.to)) reader.read(record);
			});
		}
	}
}
