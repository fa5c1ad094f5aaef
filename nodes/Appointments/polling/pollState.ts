/**
 * The polling trigger's state in static data, one string so n8n's change-tracking proxy sees one assignment per poll:
 * { v: 1, from, to, entries: "<key>,<status>:<start>[:<calendar>];…", calendars?: "<calendar_key>;…" }, from/to the
 * window the last successful poll listed completely; status a base-36 digit for the known ones (`~<text>` else),
 * after an `x` when `is_cancelled` is true; start in seconds, base 36 (`!<text>` when unreadable); calendar an index
 * into `calendars` (what the Filters check when the appointment disappears); keys and texts URI-encoded, so they
 * never hold a separator.
 */
import type { IDataObject } from 'n8n-workflow';

import { STATUS_VALUES } from '../shared/constants.js';
import { canonicalUuid } from '../shared/validation.js';

export interface Entry {
	/** status (with is_cancelled) + start, compared to detect a change */
	fp: string;
	/** start in ms (NaN when unreadable), for the window bookkeeping */
	start: number;
	/** calendar_key (lower case) when the record had one */
	calendar?: string;
}

export interface PollState {
	from: number;
	to: number;
	entries: Map<string, Entry>;
}

/** The start as epoch ms (NaN when unreadable). Date.parse reads ISO 8601 with an offset natively, much faster
 * than Luxon, which matters at the size of a poll's list. */
export function startMs(startDate: unknown): number {
	return typeof startDate === 'string' ? Date.parse(startDate) : NaN;
}

export function entryOf(record: IDataObject): Entry {
	const status = typeof record.status === 'string' ? record.status : '';
	const index = STATUS_VALUES.indexOf(status);
	const code = index >= 0 ? index.toString(36) : `~${encodeURIComponent(status)}`;
	const start = startMs(record.start_date);
	const startCode = Number.isNaN(start)
		? `!${encodeURIComponent(String(record.start_date ?? ''))}`
		: Math.floor(start / 1000).toString(36);
	const fp = `${record.is_cancelled === true ? 'x' : ''}${code}:${startCode}`;
	const calendar = canonicalUuid((record.calendar as IDataObject | undefined)?.calendar_key);
	return { fp, start, calendar: calendar?.toLowerCase() };
}

/** A fingerprint's two parts as written, compared to tell a reschedule from a status change. */
export const statusPart = (fp: string) => fp.slice(0, fp.indexOf(':'));
export const startPart = (fp: string) => fp.slice(fp.indexOf(':') + 1);
export const flaggedCancelled = (fp: string) => fp.startsWith('x');

const decoded = (text: string) => {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
};

/** The status a fingerprint holds (the inverse of its status part). */
export function statusOf(fp: string): string {
	const part = statusPart(fp).replace(/^x/, '');
	return part.startsWith('~')
		? (decoded(part.slice(1)) ?? '')
		: (STATUS_VALUES[parseInt(part, 36)] ?? '');
}

function startOfFingerprint(fp: string): number {
	const part = startPart(fp);
	return part.startsWith('!') ? NaN : parseInt(part, 36) * 1000;
}

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
		const key = decoded(encoded);
		const [status, start, calendar] = value.split(':');
		if (key === undefined || start === undefined) return undefined;
		const fp = `${status}:${start}`;
		entries.set(key, {
			fp,
			start: startOfFingerprint(fp),
			calendar: calendars[parseInt(calendar, 36)],
		});
	}
	return { from: saved.from, to: saved.to, entries };
}

export function writeState(staticData: Record<string, unknown>, state: PollState): void {
	const calendars = new Map<string, string>();
	const value = ({ fp, calendar }: Entry) => {
		if (calendar === undefined) return fp;
		if (!calendars.has(calendar)) calendars.set(calendar, calendars.size.toString(36));
		return `${fp}:${calendars.get(calendar)}`;
	};
	const pairs = Array.from(state.entries, ([key, e]): [string, string] => [
		encodeURIComponent(key),
		value(e),
	]);
	const saved: IDataObject = { v: 1, from: state.from, to: state.to, entries: writePairs(pairs) };
	if (calendars.size > 0) saved.calendars = [...calendars.keys()].join(';');
	staticData.state = saved;
}
