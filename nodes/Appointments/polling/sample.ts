/**
 * "Fetch test event": a real appointment shown as the first selected event so its fields can be mapped, each item
 * saying it is a sample and when the appointment starts. Looks at most at SAMPLE_LIMIT records; saves nothing.
 */
import { DateTime } from 'luxon';
import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { CREATED, STARTED, STARTING_SOON } from '../shared/constants.js';
import { isCancelled } from '../shared/appointmentRecord.js';
import { matches } from '../shared/eventFilter.js';
import { wallClock } from '../shared/dateWindow.js';
import { toItem, WITH_PREVIOUS } from './changes.js';
import { appointmentPages, type PollingOptions } from './listing.js';
import { watchedWindow } from './poll.js';
import { startMs } from './pollState.js';
import { CATCH_UP_MS } from './timeEvents.js';

const SAMPLE_LIMIT = 200;

async function* windowPages(ctx: IPollFunctions, from: number, to: number) {
	const inside = (r: IDataObject) => startMs(r.start_date) >= from && startMs(r.start_date) <= to;
	yield* appointmentPages(ctx, from, to, new Map(), { limit: SAMPLE_LIMIT, keep: inside });
}

/** Starting soon: the next to start within Lead Time or Days Ahead; started: the last started within the catch-up. */
async function timeSample(
	ctx: IPollFunctions,
	options: PollingOptions,
	soon: boolean,
	now: number,
) {
	const from = soon ? now + 1 : now - CATCH_UP_MS;
	const to = soon ? now + Math.max(options.leadTime * 60_000, options.daysAhead * 86_400_000) : now;
	const found: IDataObject[] = [];
	for await (const records of windowPages(ctx, from, to))
		found.push(...records.filter((r) => !isCancelled(r) && matches(options.filter, r)));
	// Nearest to now first; a stable sort keeps the first listed of equal starts.
	const fromNow = (r: IDataObject) => Math.abs(startMs(r.start_date) - now);
	return found.sort((a, b) => fromNow(a) - fromNow(b))[0] as IDataObject | undefined;
}

/** Any appointment of the watched window that matches the Filters. */
async function windowSample(ctx: IPollFunctions, options: PollingOptions, now: DateTime) {
	const { from, to } = watchedWindow(now, options);
	for await (const records of windowPages(ctx, from, to)) {
		const record = records.find((r) => matches(options.filter, r));
		if (record !== undefined) return record;
	}
	const zone = ctx.getTimezone();
	throw new NodeOperationError(ctx.getNode(), 'No appointment found to show as a test event', {
		description: `The service has no appointment starting between ${wallClock(from, zone)} and ${wallClock(to, zone)} (${zone}) that matches the Filters. Create one, widen Days Back or Days Ahead, or loosen the Filters.`,
	});
}

/** When an appointment starts, from now, in the unit a person would say: "starts in 19 hours". */
function startsWhen(startDate: unknown, now: number): string {
	const minutes = Math.round((Date.parse(String(startDate)) - now) / 60_000);
	const size = Math.abs(minutes);
	const amount =
		size < 120
			? `${size} minutes`
			: size < 2880
				? `${Math.round(size / 60)} hours`
				: `${Math.round(size / 1440)} days`;
	return minutes >= 0 ? `starts in ${amount}` : `started ${amount} ago`;
}

export async function sampleItems(ctx: IPollFunctions, options: PollingOptions) {
	const now = DateTime.now().setZone(ctx.getTimezone());
	const event = [...options.events][0] ?? CREATED;
	const timed =
		event === STARTING_SOON || event === STARTED
			? await timeSample(ctx, options, event === STARTING_SOON, now.toMillis())
			: undefined;
	const record = timed ?? (await windowSample(ctx, options, now));
	// A sample has no earlier values: `previous` holds the current ones, so its fields can be mapped.
	const previous = WITH_PREVIOUS.has(event)
		? { start_date: record.start_date, status: record.status }
		: undefined;
	const { json } = toItem({ event, data: record, previous }, now.toISO()!, options.simplify);
	// Says when it starts, so a starting soon 19 hours away with a Lead Time of 1 minute is not taken for an early reminder.
	const when =
		event === STARTING_SOON
			? `Lead Time (${options.leadTime} min) before each start`
			: 'for each real event';
	const sample = `A sample, not an event: an appointment that ${startsWhen(record.start_date, now.toMillis())}, shown so you can map its fields. Published, the workflow runs ${when}.`;
	return [[{ json: { ...json, sample } }]];
}
