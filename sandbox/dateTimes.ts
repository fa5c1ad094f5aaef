/**
 * Date parsing and formatting for the sandbox. Instants are kept as epoch milliseconds; the API shows them as
 * ISO 8601 with the account time zone's offset.
 */
import { DateTime, IANAZone } from 'luxon';

/** `YYYY-MM-DD`, optionally `THH:mm[:ss[.fff]]`, optionally `Z` or `±HH:mm` / `±HHmm` / `±HH`. */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

export interface ParsedDate {
	ms: number;
	hasTime: boolean;
	hasOffset: boolean;
}

export function isValidTimeZone(zone: string): boolean {
	return typeof zone === 'string' && zone.length > 0 && IANAZone.isValidZone(zone);
}

/**
 * Parses a datetime as the API accepts it. Without an offset it is wall-clock time in `zone`. In a query string
 * an unencoded `+` of the offset arrives as a space: `...T10:00:00 03:00` is read as `+03:00`.
 * `endOfDay`: a date without time means the last millisecond of that day (for upper bounds).
 */
export function parseDateTime(value: string, zone: string, endOfDay = false): ParsedDate | undefined {
	let text = value.trim();
	const spaced = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/.exec(text);
	if (spaced) text = `${spaced[1]}+${spaced[2]}`;
	const m = ISO_RE.exec(text);
	if (!m) return undefined;
	const [, y, mo, d, h, mi, s, frac, off] = m;
	const hasTime = h !== undefined;
	const hasOffset = off !== undefined;
	let zoneArg: string = zone;
	if (hasOffset) {
		if (off === 'Z' || off === 'z') zoneArg = 'UTC';
		else {
			const sign = off[0];
			const digits = off.slice(1).replace(':', '');
			const oh = Number(digits.slice(0, 2));
			const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
			if (oh > 18 || om > 59 || (oh === 18 && om > 0)) return undefined; // ISO 8601 / RFC 9557 bound: ±18:00
			zoneArg = `UTC${sign}${oh}${om ? `:${String(om).padStart(2, '0')}` : ''}`;
		}
	}
	const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
	const parts = {
		year: Number(y),
		month: Number(mo),
		day: Number(d),
		hour: hasTime ? Number(h) : 0,
		minute: hasTime ? Number(mi) : 0,
		second: s !== undefined ? Number(s) : 0,
		millisecond: Math.min(ms, 999),
	};
	let dt = DateTime.fromObject(parts, { zone: zoneArg });
	if (!dt.isValid) return undefined;
	// luxon normalises out-of-range values (Feb 30, 25:00); refuse them instead.
	if (dt.year !== parts.year || dt.month !== parts.month || dt.day !== parts.day) return undefined;
	if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return undefined;
	if (!hasTime && endOfDay) dt = dt.endOf('day');
	// Years 0001-9999 only, as written, in UTC and in the account zone: a record must be expressible in its events.
	const instant = dt.toMillis();
	for (const year of [parts.year, dt.toUTC().year, DateTime.fromMillis(instant, { zone }).year]) if (year < 1 || year > 9999) return undefined;
	return { ms: instant, hasTime, hasOffset };
}

/** ISO 8601 in the zone, seconds precision unless the instant has milliseconds: `2026-11-23T10:15:00-03:00`. */
export function formatInstant(ms: number, zone: string): string {
	return DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) as string;
}

/** ISO 8601 with milliseconds, for event timestamps and log entries. */
export function formatInstantMs(ms: number, zone: string): string {
	return DateTime.fromMillis(ms, { zone }).toISO() as string;
}

/** [start, end] (inclusive, ms) of the calendar day containing `ms` in `zone`. */
export function dayBounds(ms: number, zone: string): [number, number] {
	const dt = DateTime.fromMillis(ms, { zone });
	return [dt.startOf('day').toMillis(), dt.endOf('day').toMillis()];
}

/** How the dashboard and the service's e-mails show a time: `Tue 24 Nov 2026, 10:00` (`…, 10:00:05` with seconds). */
export function formatHuman(ms: number, zone: string, seconds = false): string {
	return DateTime.fromMillis(ms, { zone }).setLocale('en-GB').toFormat(seconds ? 'ccc d LLL yyyy, HH:mm:ss' : 'ccc d LLL yyyy, HH:mm');
}
