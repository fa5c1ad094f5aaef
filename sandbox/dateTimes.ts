/**
 * Date parsing and formatting for the sandbox. Instants are kept as epoch milliseconds; the API shows them as
 * ISO 8601 with the account time zone's offset.
 */
import { DateTime, IANAZone } from 'luxon';

/** `YYYY-MM-DD`, optionally `THH:mm[:ss[.fff]]`, optionally `Z` or `±HH:mm` / `±HHmm` / `±HH`. */
const ISO_RE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

export interface ParsedDate {
	ms: number;
	hasTime: boolean;
	hasOffset: boolean;
	/** An offset-less time the account zone skips or repeats (a clock change): `ms` is then the chosen reading. */
	unclear: boolean;
}

/**
 * How an offset-less time that the account zone skips or repeats is read (sandbox/README.md, "Wall-clock times on
 * clock-change days"): `zoneinfo` as Python's zoneinfo with fold 0 (Django 4+): a repeated time is its first
 * occurrence, a skipped one is read with the offset before the change (so it moves forward); `earlier`/`later`: the
 * earlier or the later of the two readings; `refuse`: like `zoneinfo`, flagged `unclear` so that the caller answers 400.
 */
export type DstWallClock = 'zoneinfo' | 'earlier' | 'later' | 'refuse';

const DAY_MS = 86_400_000;

/**
 * The instants a wall-clock time (its fields written as a UTC timestamp) can mean in `zone`: the instant of each
 * offset the zone has within a day of it, and whether that instant really shows this wall clock. One that does:
 * clear; two: repeated; none: skipped.
 */
function wallClockReadings(
	local: number,
	zone: string,
): { earlier: number; later: number; kind: 'clear' | 'repeated' | 'skipped' } {
	const z = IANAZone.create(zone);
	const offsets = new Set([z.offset(local - DAY_MS), z.offset(local), z.offset(local + DAY_MS)]);
	const all = [...offsets].map((o) => local - o * 60_000).sort((a, b) => a - b);
	const real = all.filter((t) => t + z.offset(t) * 60_000 === local);
	if (real.length === 1) return { earlier: real[0], later: real[0], kind: 'clear' };
	const pick = real.length > 1 ? real : all;
	return {
		earlier: pick[0],
		later: pick[pick.length - 1],
		kind: real.length > 1 ? 'repeated' : 'skipped',
	};
}

function readWallClock(
	local: number,
	zone: string,
	dst: DstWallClock,
): { ms: number; unclear: boolean } {
	const r = wallClockReadings(local, zone);
	if (r.kind === 'clear') return { ms: r.earlier, unclear: false };
	if (dst === 'earlier') return { ms: r.earlier, unclear: true };
	if (dst === 'later') return { ms: r.later, unclear: true };
	return { ms: r.kind === 'repeated' ? r.earlier : r.later, unclear: true };
}

export function isValidTimeZone(zone: string): boolean {
	return typeof zone === 'string' && zone.length > 0 && IANAZone.isValidZone(zone);
}

/**
 * Parses a datetime as the API accepts it. Without an offset it is wall-clock time in `zone`. In a query string
 * an unencoded `+` of the offset arrives as a space: `...T10:00:00 03:00` is read as `+03:00`.
 * `endOfDay`: a date without time means the last millisecond of that day (for upper bounds). A date alone means
 * the start or the end of that day, never unclear; a time the zone skips or repeats is read as `dst` says.
 */
export function parseDateTime(
	value: string,
	zone: string,
	endOfDay = false,
	dst: DstWallClock = 'zoneinfo',
): ParsedDate | undefined {
	let text = value.trim();
	const spaced =
		/^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?) (\d{2}(?::?\d{2})?)$/.exec(text);
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
	let instant = dt.toMillis();
	let unclear = false;
	if (hasTime && !hasOffset) {
		const local = DateTime.fromObject(parts, { zone: 'UTC' }).toMillis();
		({ ms: instant, unclear } = readWallClock(local, zone, dst));
	}
	// Years 0001-9999 only, as written, in UTC and in the account zone: a record must be expressible in its events.
	for (const year of [
		parts.year,
		DateTime.fromMillis(instant, { zone: 'UTC' }).year,
		DateTime.fromMillis(instant, { zone }).year,
	])
		if (year < 1 || year > 9999) return undefined;
	return { ms: instant, hasTime, hasOffset, unclear };
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
	return DateTime.fromMillis(ms, { zone })
		.setLocale('en-GB')
		.toFormat(seconds ? 'ccc d LLL yyyy, HH:mm:ss' : 'ccc d LLL yyyy, HH:mm');
}
