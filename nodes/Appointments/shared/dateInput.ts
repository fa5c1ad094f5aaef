/**
 * Date helpers (pure, luxon only). Unit-tested in test/node/dateInput.test.ts.
 *
 * The service reads offset-less datetime filters as wall clock of its account, so filters go out as local
 * wall clock `YYYY-MM-DDTHH:mm:ss` in the chosen time zone; reschedule goes out as ISO 8601 with the offset of the
 * chosen zone. Day bounds are built from calendar dates (not by adding hours to instants), so a day is always
 * 00:00:00..23:59:59 on its own date, also on the days a zone changes its clocks.
 *
 *   type DateRangePreset = 'all' | 'today' | 'yesterday' | 'tomorrow' | 'thisWeek' | 'next7Days' | 'custom'
 *   type Clock = () => DateTime | Date | number          injectable "now" (default: DateTime.now())
 *   class DateInputError extends Error                    what was wrong with a value; callers add field and item
 *   isValidTimeZone(zone: unknown): boolean
 *   presetRange(preset, zone, now?: Clock): { start: string; end: string } | undefined   (undefined for 'all')
 *   toDateTime(value: unknown, zone: string): DateTime    date picker string, ISO with/without offset, SQL-like
 *                                                          'YYYY-MM-DD HH:mm[:ss]', Luxon DateTime, JS Date, epoch ms
 *   toWallClock(value: unknown, zone: string, bound?: 'start' | 'end'): string
 *                                                          a date-only value becomes 00:00:00 ('start') or 23:59:59 ('end')
 *   toOffsetIso(value: unknown, zone: string): string      e.g. '2026-03-10T10:00:00-03:00'
 */
import { DateTime, IANAZone } from 'luxon';

import { shown } from './format';

export type DateRangePreset =
	| 'all'
	| 'today'
	| 'yesterday'
	| 'tomorrow'
	| 'thisWeek'
	| 'next7Days'
	| 'custom';

const DATE_RANGE_PRESETS: readonly DateRangePreset[] = [
	'all',
	'today',
	'yesterday',
	'tomorrow',
	'thisWeek',
	'next7Days',
	'custom',
];

export type Clock = () => DateTime | Date | number;

export const WALL_CLOCK_FORMAT = "yyyy-MM-dd'T'HH:mm:ss";

export class DateInputError extends Error {}

export function isValidTimeZone(zone: unknown): boolean {
	return typeof zone === 'string' && zone.trim() !== '' && IANAZone.isValidZone(zone.trim());
}

function clockNow(now?: Clock): DateTime {
	if (!now) return DateTime.now();
	const value = now();
	if (DateTime.isDateTime(value)) return value;
	if (value instanceof Date) return DateTime.fromJSDate(value);
	return DateTime.fromMillis(value);
}

/** A calendar date as a UTC midnight DateTime: day arithmetic on it never meets a clock change. */
function calendarDate(instant: DateTime, zone: string): DateTime {
	const local = instant.setZone(zone);
	return DateTime.utc(local.year, local.month, local.day);
}

function dayStart(date: DateTime): string {
	return `${date.toFormat('yyyy-MM-dd')}T00:00:00`;
}

function dayEnd(date: DateTime): string {
	return `${date.toFormat('yyyy-MM-dd')}T23:59:59`;
}

/**
 * Wall-clock bounds of a preset in `zone`. Weeks run Monday to Sunday (ISO). "Next 7 days" is today and the six
 * days after it. 'all' yields undefined; 'custom' is not a preset (use toWallClock on the user's dates).
 */
export function presetRange(
	preset: DateRangePreset | string,
	zone: string,
	now?: Clock,
): { start: string; end: string } | undefined {
	if (!isValidTimeZone(zone)) throw new DateInputError(`"${zone}" is not a known IANA time zone`);
	if (preset === 'all') return undefined;
	const today = calendarDate(clockNow(now), zone);
	switch (preset) {
		case 'today':
			return { start: dayStart(today), end: dayEnd(today) };
		case 'yesterday': {
			const day = today.minus({ days: 1 });
			return { start: dayStart(day), end: dayEnd(day) };
		}
		case 'tomorrow': {
			const day = today.plus({ days: 1 });
			return { start: dayStart(day), end: dayEnd(day) };
		}
		case 'thisWeek': {
			const monday = today.minus({ days: today.weekday - 1 });
			return { start: dayStart(monday), end: dayEnd(monday.plus({ days: 6 })) };
		}
		case 'next7Days':
			return { start: dayStart(today), end: dayEnd(today.plus({ days: 6 })) };
		default:
			throw new DateInputError(
				`"${preset}" is not a date range preset (expected one of ${DATE_RANGE_PRESETS.filter((p) => p !== 'custom').join(', ')})`,
			);
	}
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_OFFSET = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

interface LuxonLike {
	isLuxonDateTime?: boolean;
	toISO: () => string | null;
}

function isLuxonLike(value: unknown): value is LuxonLike {
	return (
		value !== null &&
		typeof value === 'object' &&
		(value as LuxonLike).isLuxonDateTime === true &&
		typeof (value as LuxonLike).toISO === 'function'
	);
}

const TIME_OFFSET = /\d{2}(?::\d{2}(?::\d{2}(?:[.,]\d+)?)?)?\s*([+-])(\d{2}):?(\d{2})?$/;

/** Why the UTC offset written at the end of a date-time does not exist, or undefined (none written, or a real one). */
function offsetProblem(text: string): string | undefined {
	const match = TIME_OFFSET.exec(text);
	if (!match || !/[T\s]\d/.test(text)) return undefined;
	const hours = Number(match[2]);
	const minutes = Number(match[3] ?? 0);
	if (minutes < 60 && hours * 60 + minutes <= 18 * 60) return undefined;
	return `${shown(text)} has a UTC offset that does not exist (${match[1]}${match[2]}${match[3] !== undefined ? ':' + match[3] : ''}): offsets run from -18:00 to +18:00, with minutes below 60`;
}

const EXPECTED =
	'a date such as 2026-03-10, 2026-03-10T10:00:00 or 2026-03-10T10:00:00-03:00 (ISO 8601), or a Luxon DateTime';

/**
 * The instant a user meant. Values without an offset are wall clock in `zone`; a wall-clock time that does not
 * exist in `zone` (skipped by a clock change) is refused rather than silently moved.
 */
export function toDateTime(value: unknown, zone: string): DateTime {
	if (!isValidTimeZone(zone)) throw new DateInputError(`"${zone}" is not a known IANA time zone`);
	let dt: DateTime | undefined;
	if (value instanceof DateTime) {
		dt = value;
	} else if (isLuxonLike(value)) {
		// A DateTime from another copy of luxon (an expression's): go through its ISO text, offset included.
		const iso = value.toISO();
		if (iso) dt = DateTime.fromISO(iso, { setZone: true });
	} else if (value instanceof Date) {
		dt = DateTime.fromJSDate(value);
	} else if (typeof value === 'number' && Number.isFinite(value)) {
		dt = DateTime.fromMillis(value);
	} else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		const offset = HAS_OFFSET.test(text) && !DATE_ONLY.test(text);
		const problem = offset ? offsetProblem(text) : undefined;
		if (problem !== undefined) throw new DateInputError(problem);
		dt = DateTime.fromISO(text, { zone, setZone: offset });
		if (!dt.isValid) dt = DateTime.fromSQL(text, { zone, setZone: offset });
		if (!dt.isValid) dt = DateTime.fromRFC2822(text, { zone, setZone: true });
		if (dt.isValid && !offset) {
			// Luxon moves a time inside a spring-forward gap; detect it by comparing the wall clock back.
			const parsed = DateTime.fromISO(text, { zone: 'UTC' }).isValid
				? DateTime.fromISO(text, { zone: 'UTC' })
				: DateTime.fromSQL(text, { zone: 'UTC' });
			if (
				parsed.isValid &&
				(parsed.hour !== dt.hour || parsed.minute !== dt.minute || parsed.day !== dt.day)
			) {
				throw new DateInputError(
					`${shown(value)} does not exist in ${zone} (the clocks skip it); give a time with an offset or another time`,
				);
			}
		}
	}
	if (!dt || !dt.isValid)
		throw new DateInputError(`${shown(value)} is not a date: expected ${EXPECTED}`);
	return dt;
}

/** Local wall clock `YYYY-MM-DDTHH:mm:ss` in `zone`; a date-only string gives the start or end of that day. */
export function toWallClock(
	value: unknown,
	zone: string,
	bound: 'start' | 'end' = 'start',
): string {
	if (typeof value === 'string' && DATE_ONLY.test(value.trim())) {
		const date = DateTime.fromISO(value.trim(), { zone: 'UTC' });
		if (!date.isValid)
			throw new DateInputError(`${shown(value)} is not a date: expected ${EXPECTED}`);
		return bound === 'end' ? dayEnd(date) : dayStart(date);
	}
	return toDateTime(value, zone).setZone(zone).toFormat(WALL_CLOCK_FORMAT);
}

/** ISO 8601 with the offset `zone` has at that instant, without milliseconds when they are zero. */
export function toOffsetIso(value: unknown, zone: string): string {
	const iso = toDateTime(value, zone).setZone(zone).toISO({ suppressMilliseconds: true });
	if (!iso) throw new DateInputError(`${shown(value)} is not a date: expected ${EXPECTED}`);
	return iso;
}
