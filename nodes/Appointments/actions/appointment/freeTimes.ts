/**
 * Free start times, shared by Find Free Times and Reschedule › Only If Free: opening hours are wall clock in the
 * account's zone, stepped on a grid from each range's start; a start the clocks skip is none, one they repeat
 * counts once (its first occurrence). A start is free when no active appointment of the calendar (its start plus
 * how long existing ones last, Buffer kept on both sides) overlaps it. The appointments are read once, page by page.
 */
import { DateTime } from 'luxon';
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { isCancelled, notAppointmentReason } from '../../shared/appointmentRecord.js';
import { inWindow, startInstant, wallClockReadings, windowQuery } from '../../shared/dateWindow.js';
import { inputError } from '../../shared/validation.js';
import { paginateAll } from '../../transport/list/paginate.js';
import type { ItemContext } from '../types.js';

export const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/** Luxon weekdays (1 Monday … 7 Sunday) to their ranges, in minutes from midnight (`to` up to 24:00). */
export type OpeningHours = Map<number, Array<{ from: number; to: number }>>;
/** In minutes: the length of the one to place, the gap kept, the grid, how long existing ones last. */
export type SlotRules = { duration: number; buffer: number; grid: number; existing: number };
export type Window = { from: number; to: number };

/** A day's start as its calendar date (a UTC midnight: adding days never meets a clock change). */
export const dateOf = (ms: number, zone: string) => {
	const local = DateTime.fromMillis(ms, { zone });
	return Date.UTC(local.year, local.month - 1, local.day);
};

/** Minute `m` of `date` in `zone`: as a start its first occurrence (none when skipped), as an end its last. */
function wallInstant(date: number, m: number, zone: string, end: boolean): number | undefined {
	const readings = wallClockReadings(date + m * MINUTE, zone);
	if (end) return readings.later;
	return readings.kind === 'skipped' ? undefined : readings.earlier;
}

/** Whether [start, end) keeps Buffer from every existing appointment; `busy` holds their starts, sorted. */
function isFree(busy: number[], start: number, end: number, rules: SlotRules): boolean {
	const pad = rules.buffer * MINUTE;
	const after = start - rules.existing * MINUTE - pad;
	let [lo, hi] = [0, busy.length];
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (busy[mid] > after) hi = mid;
		else lo = mid + 1;
	}
	return lo === busy.length || busy[lo] >= end + pad;
}

/** The free starts in `window` (starts inside it, each slot inside its opening range), in order, at most `limit`. */
export function freeStarts(
	window: Window,
	zone: string,
	hours: OpeningHours,
	rules: SlotRules,
	busy: number[],
	limit = Infinity,
): number[] {
	const out: number[] = [];
	for (let date = dateOf(window.from, zone); date <= dateOf(window.to, zone); date += DAY) {
		const day = new Set<number>();
		for (const range of hours.get(new Date(date).getUTCDay() || 7) ?? []) {
			const close = wallInstant(date, range.to, zone, true) as number;
			for (let m = range.from; m < range.to; m += rules.grid) {
				const start = wallInstant(date, m, zone, false);
				if (start === undefined || start < window.from || start > window.to) continue;
				const end = start + rules.duration * MINUTE;
				if (end <= close && isFree(busy, start, end, rules)) day.add(start);
			}
		}
		for (const start of [...day].sort((a, b) => a - b)) {
			if (out.length >= limit) return out;
			out.push(start);
		}
	}
	return out;
}

/** `Thu 26 Nov, 15:00–15:30`, from a start and a length in minutes. */
export function whenLine(start: number, minutes: number, zone: string): string {
	const from = DateTime.fromMillis(start, { zone, locale: 'en' });
	return `${from.toFormat('ccc d LLL, HH:mm')}–${from.plus({ minutes }).toFormat('HH:mm')}`;
}

export function slotItem(start: number, minutes: number, zone: string): IDataObject {
	const iso = (ms: number) =>
		DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true });
	return {
		start: iso(start),
		end: iso(start + minutes * MINUTE),
		when: whenLine(start, minutes, zone),
	};
}

const calendarKeyOf = (record: IDataObject) =>
	String((record.calendar as IDataObject | undefined)?.calendar_key ?? '').toLowerCase();

/**
 * The active appointments of `calendar` starting in `window`, but `except`, with Get Many's list reader (one
 * request per page). A record that is no appointment fails the item: a free time must never hide a booking.
 */
export async function readBusy(
	ctx: IExecuteFunctions,
	item: ItemContext,
	calendar: string | undefined,
	window: Window,
	zone: string,
	except?: string,
): Promise<IDataObject[]> {
	const keep = (record: IDataObject) => {
		const why = notAppointmentReason(record);
		if (why === undefined) return inWindow(window, record.start_date, zone);
		const message = `A record of the service's list is not an appointment (${why}): free times cannot be known`;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: item.itemIndex });
	};
	const qs = { ...(calendar && { calendar_key: calendar }), ...windowQuery(window, zone) };
	const records = await paginateAll<IDataObject>(ctx, 'appointments/', qs, {
		keep,
		itemIndex: item.itemIndex,
		policy: item.policy,
		keyField: 'appointment_key',
		resource: 'appointments',
		pageConcurrency: 4, // Get Many's default
	});
	const other = (key: unknown) => String(key).toLowerCase() !== except?.toLowerCase();
	// A service that ignored calendar_key must not make another calendar's appointments conflicts.
	return records.filter(
		(r) =>
			!isCancelled(r) &&
			other(r.appointment_key) &&
			(!calendar || !calendarKeyOf(r) || calendarKeyOf(r) === calendar.toLowerCase()),
	);
}

export const startsOf = (records: IDataObject[], zone: string) =>
	records.map((r) => startInstant(r.start_date, zone)).sort((a, b) => a - b);

const DAYS: Record<string, number[]> = {
	everyDay: [1, 2, 3, 4, 5, 6, 7],
	weekdays: [1, 2, 3, 4, 5],
	weekend: [6, 7],
	...Object.fromEntries(
		['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d, i) => [
			d,
			[i + 1],
		]),
	),
};
export const DAY_NAMES = Object.keys(DAYS);

function minutesOf(text: unknown): number | undefined {
	const match = /^\s*(\d{1,2}):([0-5]\d)\s*$/.exec(String(text));
	const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
	return minutes <= 1440 ? minutes : undefined;
}

/** Opening Hours as the editor holds them ({ ranges: [{ day, from, to }] }), checked before anything is sent. */
export function readOpeningHours(ctx: IExecuteFunctions, i: number): OpeningHours {
	const node = ctx.getNode();
	const value = ctx.getNodeParameter('openingHours', i, {}) as IDataObject;
	const ranges = Array.isArray(value?.ranges) ? (value.ranges as IDataObject[]) : [];
	if (ranges.length === 0)
		throw inputError(node, 'Opening Hours', i, 'at least one range (a day, From and To)');
	const hours: OpeningHours = new Map();
	for (const range of ranges) {
		const [from, to] = [minutesOf(range.from), minutesOf(range.to)];
		if (from === undefined || from >= 1440)
			throw inputError(node, 'Opening Hours › From', i, 'a time such as 09:00', range.from);
		if (to === undefined || to <= from)
			throw inputError(node, 'Opening Hours › To', i, `a time after ${range.from}`, range.to);
		const days = Object.prototype.hasOwnProperty.call(DAYS, String(range.day))
			? DAYS[String(range.day)]
			: undefined;
		if (!days)
			throw inputError(node, 'Opening Hours › Day', i, `one of ${DAY_NAMES.join(', ')}`, range.day);
		for (const d of days) hours.set(d, [...(hours.get(d) ?? []), { from, to }]);
	}
	return hours;
}
