/**
 * The polling trigger's state in static data, one string so n8n's change-tracking proxy sees one assignment per poll:
 * { v: 1, from, to, entries: "<key>,<status>:<start>[:<calendar>];…", calendars?: "<calendar_key>;…" }, from/to the
 * window the last successful poll listed completely; status a base-36 digit for the known ones (`~<text>` else),
 * after an `x` when `is_cancelled` was true; start in seconds, base 36; calendar an index into `calendars` (what the
 * Filters check when the appointment disappears; kept only while they pick calendars); keys and texts URI-encoded,
 * so they never hold a separator.
 */
import type { IDataObject } from 'n8n-workflow';

import { isCancelled } from '../shared/appointmentRecord.js';
import { STATUS_VALUES } from '../shared/constants.js';
import { canonicalUuid } from '../shared/validation.js';

/** What the state keeps of an appointment; `start` in whole seconds (NaN in a state an older version wrote). */
export type Entry = { status: string; start: number; flagged: boolean; calendar?: string };

type PollState = { from: number; to: number; entries: Map<string, Entry> };

/** The start as epoch ms (NaN when unreadable). Date.parse reads ISO 8601 with an offset natively, much faster
 * than Luxon, which matters at the size of a poll's list. */
export function startMs(startDate: unknown): number {
	return typeof startDate === 'string' ? Date.parse(startDate) : NaN;
}

/** The entry of a usable record (shared/appointmentRecord.ts). */
export const entryOf = (record: IDataObject): Entry => ({
	status: String(record.status),
	start: Math.floor(startMs(record.start_date) / 1000) * 1000,
	flagged: record.is_cancelled === true,
	calendar: canonicalUuid((record.calendar as IDataObject)?.calendar_key)?.toLowerCase(),
});

/** Whether the appointment was cancelled when its entry was written. */
export const wasCancelled = (entry: Entry) =>
	isCancelled({ status: entry.status, is_cancelled: entry.flagged });

/** Whether anything an event is about changed (the calendar is not). */
export const changed = (a: Entry, b: Entry) =>
	a.status !== b.status || a.start !== b.start || a.flagged !== b.flagged;

const decoded = (text: string) => {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
};

/** "<key>,<value>;…" (both states' form) as a Map split at each part's last comma; undefined when a part has none. */
export function readPairs(text: string): Map<string, string> | undefined {
	const pairs = new Map<string, string>();
	for (const part of text === '' ? [] : text.split(';')) {
		const comma = part.lastIndexOf(',');
		if (comma <= 0) return undefined;
		pairs.set(part.slice(0, comma), part.slice(comma + 1));
	}
	return pairs;
}

export const writePairs = (pairs: Iterable<[string, string]>) =>
	Array.from(pairs, ([key, value]) => `${key},${value}`).join(';');

function readEntry(value: string, calendars: string[]): Entry | undefined {
	const [code, start, calendar] = value.split(':');
	const bare = code.replace(/^x/, '');
	const status = bare.startsWith('~') ? decoded(bare.slice(1)) : STATUS_VALUES[parseInt(bare, 36)];
	if (status === undefined || start === undefined) return undefined;
	return {
		status,
		start: parseInt(start, 36) * 1000,
		flagged: code !== bare,
		calendar: calendars[+calendar],
	};
}

/** The saved state, or undefined when there is none (first activation) or it cannot be read (then a new baseline). */
export function readState(staticData: Record<string, unknown>): PollState | undefined {
	const saved = staticData.state as IDataObject | undefined;
	if (!saved || saved.v !== 1 || typeof saved.from !== 'number' || typeof saved.to !== 'number')
		return undefined;
	const pairs = typeof saved.entries === 'string' ? readPairs(saved.entries) : undefined;
	if (pairs === undefined) return undefined;
	const calendars = typeof saved.calendars === 'string' ? saved.calendars.split(';') : [];
	const entries = new Map<string, Entry>();
	for (const [encoded, value] of pairs) {
		const [key, entry] = [decoded(encoded), readEntry(value, calendars)];
		if (key === undefined || entry === undefined) return undefined;
		entries.set(key, entry);
	}
	return { from: saved.from, to: saved.to, entries };
}

/** `withCalendars`: the Filters pick calendars, so one that disappears is matched on its last seen calendar. */
export function writeState(
	staticData: Record<string, unknown>,
	state: PollState,
	withCalendars: boolean,
): void {
	const calendars = new Map<string, number>();
	const value = ({ status, start, flagged, calendar }: Entry) => {
		const index = STATUS_VALUES.indexOf(status);
		const code = index >= 0 ? index.toString(36) : `~${encodeURIComponent(status)}`;
		const text = `${flagged ? 'x' : ''}${code}:${(start / 1000).toString(36)}`;
		if (!withCalendars || calendar === undefined) return text;
		if (!calendars.has(calendar)) calendars.set(calendar, calendars.size);
		return `${text}:${calendars.get(calendar)}`;
	};
	const pairs = Array.from(state.entries, ([key, e]): [string, string] => [
		encodeURIComponent(key),
		value(e),
	]);
	const saved: IDataObject = { v: 1, from: state.from, to: state.to, entries: writePairs(pairs) };
	if (calendars.size > 0) saved.calendars = [...calendars.keys()].join(';');
	staticData.state = saved;
}
