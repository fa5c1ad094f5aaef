/**
 * Free start times (Find Free Times, Reschedule › Only If Free): opening hours are wall clock in the account's zone,
 * stepped on a grid from each range's start; a start the clocks skip is none, one they repeat counts once (its first
 * occurrence). A start is free when no active appointment (lasting `existing`, Buffer on both sides) overlaps it.
 */
import { DateTime, IANAZone } from 'luxon';
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { isCancelled, notAppointmentReason } from '../../shared/appointmentRecord.js';
import {
	inWindow,
	startInstant,
	startWindowQuery,
	wallClockReadings,
} from '../../shared/dateWindow.js';
import { inputError } from '../../shared/validation.js';
import { paginateAll } from '../../transport/list/paginate.js';
import type { ItemContext } from '../types.js';

export const MINUTE = 60_000;
/** Luxon weekdays (1 Monday … 7 Sunday) to their ranges, in minutes from midnight (`to` up to 24:00). */
export type OpeningHours = Map<number, Array<{ from: number; to: number }>>;
/** In minutes: the one to place, the gap kept, the grid, how long existing ones last. */
export type SlotRules = { duration: number; buffer: number; grid: number; existing: number };
export type Window = { from: number; to: number };

/**
 * Minute `m` of a date (its UTC midnight) in `zone`: as a start its first occurrence (none when skipped), as an end
 * its last. `steady`: the day's one offset when its clocks do not change (reading each time is 20 times slower).
 */
function wallInstant(date: number, m: number, zone: string, end: boolean, steady?: number) {
	if (steady !== undefined) return date + (m - steady) * MINUTE;
	const readings = wallClockReadings(date + m * MINUTE, zone);
	return end || readings.kind !== 'skipped' ? readings[end ? 'later' : 'earlier'] : undefined;
}

/** Whether [start, end) keeps Buffer from every existing appointment; `busy` holds their starts, sorted. */
function isFree(busy: number[], start: number, end: number, rules: SlotRules): boolean {
	const after = start - (rules.existing + rules.buffer) * MINUTE;
	let [lo, hi] = [0, busy.length];
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (busy[mid] > after) hi = mid;
		else lo = mid + 1;
	}
	return lo === busy.length || busy[lo] >= end + rules.buffer * MINUTE;
}

export type FreeQuery = { window: Window; zone: string; hours: OpeningHours; rules: SlotRules };

/** A day's free starts (`date`: its UTC midnight), each slot inside its opening range and the window. */
function dayStarts({ window, zone, hours, rules }: FreeQuery, busy: number[], date: number) {
	const day = new Set<number>();
	// Offsets 14 hours before and 38 after the date's UTC midnight bracket its whole day in any zone.
	const [before, after] = [date - 840 * MINUTE, date + 2280 * MINUTE].map((t) =>
		IANAZone.create(zone).offset(t),
	);
	const steady = before === after ? before : undefined;
	for (const range of hours.get(new Date(date).getUTCDay() || 7) ?? []) {
		const close = wallInstant(date, range.to, zone, true, steady) as number;
		for (let m = range.from; m < range.to; m += rules.grid) {
			const start = wallInstant(date, m, zone, false, steady) ?? NaN;
			const end = start + rules.duration * MINUTE;
			if (!(start >= window.from && start <= window.to && end <= close)) continue;
			if (isFree(busy, start, end, rules)) day.add(start);
		}
	}
	return [...day].sort((a, b) => a - b);
}

/** The free starts of the query's window, day by day in its zone, at most `limit`. */
export function freeStarts(query: FreeQuery, busy: number[], limit = Infinity): number[] {
	const dateOf = (ms: number) =>
		DateTime.fromMillis(ms, { zone: query.zone })
			.setZone('UTC', { keepLocalTime: true })
			.startOf('day');
	const out: number[] = [];
	const last = dateOf(query.window.to).toMillis();
	for (let date = dateOf(query.window.from).toMillis(); date <= last; date += 1440 * MINUTE) {
		out.push(...dayStarts(query, busy, date).slice(0, limit - out.length));
		if (out.length >= limit) break;
	}
	return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The zone's offset at an instant, read once per quarter hour (clocks change on one; each read costs 50 µs). */
export function offsetsOf(zone: string): (ms: number) => number {
	const seen = new Map<number, number>();
	return (ms) => {
		const quarter = Math.floor(ms / (15 * MINUTE));
		const known = seen.get(quarter) ?? IANAZone.create(zone).offset(ms);
		seen.set(quarter, known);
		return known;
	};
}

/** An instant's wall clock (a Date read in UTC) and its ISO text with the zone's offset. */
function wallOf(ms: number, offsetOf: (ms: number) => number): { wall: Date; iso: string } {
	const offset = offsetOf(ms);
	const wall = new Date(ms + offset * MINUTE);
	const sign = offset < 0 ? '-' : '+';
	const iso = `${wall.toISOString().slice(0, 19)}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
	return { wall, iso };
}

const [WEEKDAYS, MONTHS] = [
	'Sun Mon Tue Wed Thu Fri Sat',
	'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec',
].map((names) => names.split(' '));

/** `{ start, end, when }`: ISO with the zone's offset and a line such as `Thu 26 Nov, 15:00–15:30`. */
export function slotItem(start: number, minutes: number, offsetOf: (ms: number) => number) {
	const [from, to] = [wallOf(start, offsetOf), wallOf(start + minutes * MINUTE, offsetOf)];
	const [day, hhmm] = [from.wall, (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`];
	const date = `${WEEKDAYS[day.getUTCDay()]} ${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]}`;
	return { start: from.iso, end: to.iso, when: `${date}, ${hhmm(from.wall)}–${hhmm(to.wall)}` };
}

const calendarOf = (r: IDataObject) =>
	String((r.calendar as IDataObject)?.calendar_key ?? '').toLowerCase();

/**
 * The active appointments of `calendar` starting in `window`, `except` left out, read with Get Many's list reader
 * (a request per page). A record that is no appointment fails the item: a free time must never hide a booking.
 */
export async function readBusy(
	ctx: IExecuteFunctions,
	item: ItemContext,
	{
		calendar,
		window,
		zone,
		account,
		except = '',
	}: { calendar?: string; window: Window; zone: string; account?: string; except?: string },
) {
	const keep = (record: IDataObject) => {
		const why = notAppointmentReason(record);
		if (why === undefined) return inWindow(window, record.start_date, zone);
		const message = `A record of the service's list is not an appointment (${why}): free times cannot be known`;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: item.itemIndex });
	};
	const qs = {
		...(calendar && { calendar_key: calendar }),
		...startWindowQuery(window, account, zone),
	};
	const { itemIndex, policy } = item;
	const records = await paginateAll<IDataObject>(ctx, 'appointments/', qs, {
		keep,
		itemIndex,
		policy,
		keyField: 'appointment_key',
		resource: 'appointments',
		pageConcurrency: 4, // Get Many's default
	});
	// A service that ignored calendar_key must not make another calendar's appointments conflicts.
	const mine = (r: IDataObject) => !calendarOf(r) || calendarOf(r) === calendar?.toLowerCase();
	const other = (r: IDataObject) =>
		String(r.appointment_key).toLowerCase() !== except.toLowerCase();
	return records.filter((r) => !isCancelled(r) && (!calendar || mine(r)) && other(r));
}

export const startsOf = (records: IDataObject[], zone: string) =>
	records.map((r) => startInstant(r.start_date, zone)).sort((a, b) => a - b);

const WEEK = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const DAYS: Array<[string, string, number[]]> = [
	['Every Day', 'everyDay', [1, 2, 3, 4, 5, 6, 7]],
	['Monday to Friday', 'weekdays', [1, 2, 3, 4, 5]],
	['Weekend', 'weekend', [6, 7]],
	...WEEK.map((name, i): [string, string, number[]] => [name, name.toLowerCase(), [i + 1]]),
];
export const DAY_OPTIONS = DAYS.map(([name, value]) => ({ name, value }));
const DAY_VALUES = DAYS.map(([, value]) => value).join(', ');
const minutesOf = (text: unknown) => {
	const match = /^\s*(\d{1,2}):([0-5]\d)\s*$/.exec(String(text));
	const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
	return minutes <= 1440 ? minutes : undefined;
};

/** Opening Hours as the editor holds them ({ ranges: [{ day, from, to }] }), checked before anything is sent. */
export function readOpeningHours(ctx: IExecuteFunctions, i: number): OpeningHours {
	const [node, hours]: [ReturnType<typeof ctx.getNode>, OpeningHours] = [ctx.getNode(), new Map()];
	const ranges = (ctx.getNodeParameter('openingHours', i, {}) as IDataObject)?.ranges;
	if (!Array.isArray(ranges) || ranges.length === 0)
		throw inputError(node, 'Opening Hours', i, 'at least one range');
	for (const { day, from: f, to: t } of ranges as IDataObject[]) {
		const [from, to, days] = [minutesOf(f), minutesOf(t), DAYS.find(([, v]) => v === day)?.[2]];
		if (from === undefined || from >= 1440)
			throw inputError(node, 'Opening Hours › From', i, 'a time such as 09:00', f);
		if (to === undefined || to <= from)
			throw inputError(node, 'Opening Hours › To', i, `a time after ${f}`, t);
		if (!days) throw inputError(node, 'Opening Hours › Day', i, `one of ${DAY_VALUES}`, day);
		for (const d of days) hours.set(d, [...(hours.get(d) ?? []), { from, to }]);
	}
	return hours;
}
