/**
 * What a builder types or picks, read in the chosen zone (the node's Time Zone, else the workflow's) as instants.
 * Day bounds are built from calendar dates, not by adding hours, so a day is its own date from its first instant to
 * 23:59:59 also when its zone changes its clocks (on 2026-09-06 Santiago's day starts at 01:00).
 */
import { DateTime, IANAZone } from 'luxon';

import { wallClockReadings } from './dateWindow.js';
import { shown } from './format.js';

export type DateRangePreset = 'all' | 'custom' | keyof typeof PRESET_DAYS;

/** What was wrong with a value; callers add the field and the item. */
export class DateInputError extends Error {}

export function isValidTimeZone(zone: unknown): boolean {
	return typeof zone === 'string' && zone.trim() !== '' && IANAZone.isValidZone(zone.trim());
}

/** The first instant of a calendar date in `zone`: its midnight, or where the clocks land when they skip it. */
function dayStart(date: DateTime, zone: string): number {
	const midnight = wallClockReadings(date.toMillis(), zone);
	return midnight.kind === 'skipped' ? midnight.later : midnight.earlier;
}

/** From the first instant of `first` to 23:59:59 of `last` (the second before the next day starts). */
function days(first: DateTime, last: DateTime, zone: string): { from: number; to: number } {
	return { from: dayStart(first, zone), to: dayStart(last.plus({ days: 1 }), zone) - 1000 };
}

/** Each preset's first and last day, counted from today; weeks run Monday to Sunday (ISO). */
const PRESET_DAYS = {
	today: () => [0, 0],
	yesterday: () => [-1, -1],
	tomorrow: () => [1, 1],
	thisWeek: (weekday: number) => [1 - weekday, 7 - weekday],
	next7Days: () => [0, 6],
} satisfies Record<string, (weekday: number) => [number, number]>;

/** The instants of a preset's days in `zone`; undefined for 'all' ('custom' is not a preset: use toInstant). */
export function presetRange(
	preset: DateRangePreset | string,
	zone: string,
	now: () => DateTime = DateTime.now,
): { from: number; to: number } | undefined {
	checkZone(zone);
	if (preset === 'all') return undefined;
	if (!Object.prototype.hasOwnProperty.call(PRESET_DAYS, preset))
		throw new DateInputError(`"${preset}" is not a date range preset`);
	const local = now().setZone(zone);
	// A calendar date as a UTC midnight: day arithmetic on it never meets a clock change.
	const today = DateTime.utc(local.year, local.month, local.day);
	const [first, last] = PRESET_DAYS[preset as keyof typeof PRESET_DAYS](today.weekday);
	return days(today.plus({ days: first }), today.plus({ days: last }), zone);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_OFFSET = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

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

const notADate = (value: unknown) =>
	new DateInputError(`${shown(value)} is not a date: expected ${EXPECTED}`);

function checkZone(zone: string): void {
	if (!isValidTimeZone(zone)) throw new DateInputError(`"${zone}" is not a known IANA time zone`);
}

/** A typed date-time: with an offset as written, without one as wall clock in `zone` (refused where the clocks skip it). */
function fromText(value: string, zone: string): DateTime {
	const text = value.trim();
	const offset = HAS_OFFSET.test(text) && !DATE_ONLY.test(text);
	const problem = offset ? offsetProblem(text) : undefined;
	if (problem !== undefined) throw new DateInputError(problem);
	// Luxon reads a time alone ("07", "07:30") as that time today: ISO and SQL text must begin with its date.
	let dt = /^[+-]?\d{4}/.test(text)
		? DateTime.fromISO(text, { zone, setZone: offset })
		: DateTime.invalid('no date');
	if (!dt.isValid && /^\d{4}-\d{2}-\d{2}/.test(text))
		dt = DateTime.fromSQL(text, { zone, setZone: offset });
	if (!dt.isValid) dt = DateTime.fromRFC2822(text, { zone, setZone: true });
	if (!dt.isValid || offset) return dt;
	// Luxon moves a time inside a spring-forward gap; detect it by comparing the wall clock back.
	const iso = DateTime.fromISO(text, { zone: 'UTC' });
	const parsed = iso.isValid ? iso : DateTime.fromSQL(text, { zone: 'UTC' });
	if (
		parsed.isValid &&
		(parsed.hour !== dt.hour || parsed.minute !== dt.minute || parsed.day !== dt.day)
	) {
		throw new DateInputError(
			`${shown(value)} does not exist in ${zone} (the clocks skip it); give a time with an offset or another time`,
		);
	}
	return dt;
}

/**
 * The instant a user meant: a date picker's text, ISO with or without an offset, SQL-like text, a Luxon DateTime, a
 * JS Date or epoch ms. Values without an offset are wall clock in `zone`.
 */
export function toDateTime(value: unknown, zone: string): DateTime {
	checkZone(zone);
	let dt: DateTime | undefined;
	if (DateTime.isDateTime(value) && typeof value.toISO === 'function') {
		// isDateTime reads a flag, so this is also a DateTime of another luxon copy (an expression's): via its ISO text.
		const iso = value.toISO();
		if (iso) dt = DateTime.fromISO(iso, { setZone: true });
	} else if (value instanceof Date) {
		dt = DateTime.fromJSDate(value);
	} else if (typeof value === 'number' && Number.isFinite(value)) {
		dt = DateTime.fromMillis(value);
	} else if (typeof value === 'string' && value.trim() !== '') {
		dt = fromText(value, zone);
	}
	if (!dt || !dt.isValid) throw notADate(value);
	return dt;
}

/**
 * A bound of a window as an instant. A date alone is its day in `zone`: from its first instant ('start') to 23:59:59
 * ('end'). A time without offset that `zone` repeats means two instants: 'start' takes the first, 'end' the second,
 * so the window holds both.
 */
export function toInstant(value: unknown, zone: string, bound: 'start' | 'end' = 'start'): number {
	if (typeof value === 'string' && DATE_ONLY.test(value.trim())) {
		const date = DateTime.fromISO(value.trim(), { zone: 'UTC' });
		if (!date.isValid) throw notADate(value);
		checkZone(zone);
		return bound === 'end' ? days(date, date, zone).to : dayStart(date, zone);
	}
	const dt = toDateTime(value, zone);
	// Only text read as wall clock in `zone` can mean two instants (text with an offset is in a fixed zone).
	if (typeof value !== 'string' || dt.zoneName !== zone) return dt.toMillis();
	const readings = wallClockReadings(dt.toMillis() + dt.offset * 60_000, zone);
	return bound === 'end' ? readings.later : readings.earlier;
}

/** ISO 8601 with the offset `zone` has at that instant, without milliseconds when they are zero. */
export function toOffsetIso(value: unknown, zone: string): string {
	const iso = toDateTime(value, zone).setZone(zone).toISO({ suppressMilliseconds: true });
	if (!iso) throw notADate(value);
	return iso;
}
