/**
 * Windows of start times (pairs of instants, both inclusive, either open) as the service is asked for them, and the
 * cut of its answer. The service reads offset-less filters as wall clock of its account's zone, and services differ
 * on a wall-clock time the zone repeats (the first, the second, or a refusal): so each edge is written as a time
 * that exists once, moved outward past a repeated stretch and to whole seconds, and the answer is cut here on each
 * record's own start_date. (An instant's wall clock is never one the zone skips, so only repeats need moving.)
 */
import { DateTime, IANAZone } from 'luxon';

const WALL_CLOCK_FORMAT = "yyyy-MM-dd'T'HH:mm:ss";

export interface StartWindow {
	from?: number;
	to?: number;
}

const DAY_MS = 86_400_000;

/**
 * The instants a wall-clock time can mean in `zone`, `local` being its fields read as UTC: one (clear), two
 * (repeated: `earlier` is its first occurrence) or none (skipped: `earlier`/`later` are its readings with the offset
 * after and before the change). Offsets are those the zone has within a day of it.
 */
export function wallClockReadings(
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

/** An instant as wall clock in `zone`, the form the service's filters take. */
export function wallClock(ms: number, zone: string): string {
	return DateTime.fromMillis(ms, { zone }).toFormat(WALL_CLOCK_FORMAT);
}

/** An instant's wall-clock fields as a UTC timestamp. */
const localOf = (ms: number, zone: string) => ms + IANAZone.create(zone).offset(ms) * 60_000;

/**
 * Edge `ms` as a wall-clock time in `zone` that every parser reads alike, at or beyond the edge: to whole seconds,
 * then out of a repeated stretch by the size of the change (back from its first occurrence, on from its second).
 */
export function edgeWallClock(ms: number, zone: string, side: 'lower' | 'upper'): string {
	let t = side === 'lower' ? Math.floor(ms / 1000) * 1000 : Math.ceil(ms / 1000) * 1000;
	// Two changes within hours of each other do not happen; the bound only keeps a broken zone table from looping.
	for (let tries = 0; tries < 4; tries++) {
		const readings = wallClockReadings(localOf(t, zone), zone);
		if (readings.kind === 'clear') break;
		const change = readings.later - readings.earlier;
		t = side === 'lower' ? readings.earlier - change : readings.later + change;
	}
	return wallClock(t, zone);
}

/** More than the largest difference between two zones' offsets (26 h), and half a day to move on to a noon. */
const PAD = (27 + 12) * 60 * 60 * 1000;
const NOON = { hour: 12, minute: 0, second: 0, millisecond: 0 };

/**
 * The list query that asks the service for at least the starts of `window` (an open edge left out): its edges on the
 * account's clock, or, when the credential names no zone (`account` undefined), in `zone` 27 h wider and on to a noon
 * (a wall-clock time no zone skips or repeats), so that the service's reading in its own zone still holds the window.
 * The caller cuts the answer to `window` with inWindow.
 */
export function startWindowQuery(window: StartWindow, account: string | undefined, zone: string) {
	const query: { start_date?: string; end_date?: string } = {};
	const edge = (ms: number, side: 'lower' | 'upper', pad: number) =>
		account !== undefined
			? edgeWallClock(ms, account, side)
			: DateTime.fromMillis(ms + pad, { zone })
					.set(NOON)
					.toFormat(WALL_CLOCK_FORMAT);
	if (window.from !== undefined) query.start_date = edge(window.from, 'lower', -PAD);
	if (window.to !== undefined) query.end_date = edge(window.to, 'upper', PAD);
	return query;
}

/** A time followed by an offset (a date alone ends in "-10" too). */
const TIME_WITH_OFFSET = /\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * A record's start_date as epoch ms, NaN when unreadable. The spec gives it an offset, which Date.parse reads much
 * faster than luxon (it reads a missing offset as the machine's zone, so only then); other ISO forms go through
 * luxon, where a value without an offset is wall clock in the account zone, as the service writes its filters.
 */
export function startInstant(startDate: unknown, zone: string): number {
	if (typeof startDate !== 'string') return NaN;
	const fast = TIME_WITH_OFFSET.test(startDate) ? Date.parse(startDate) : NaN;
	if (!Number.isNaN(fast)) return fast;
	const parsed = DateTime.fromISO(startDate.trim(), { zone });
	return parsed.isValid ? parsed.toMillis() : NaN;
}

/** Whether a record's start lies in the window (an unreadable start never does). */
export function inWindow(window: StartWindow, startDate: unknown, zone: string): boolean {
	const start = startInstant(startDate, zone); // NaN (unreadable) compares false
	return start >= (window.from ?? -Infinity) && start <= (window.to ?? Infinity);
}
