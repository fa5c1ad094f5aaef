/**
 * The polling trigger's state in static data, one string so n8n's change-tracking proxy sees one assignment per poll:
 * { v: 1, from, to, entries: "<key>,<status>:<start>;…" }, from/to the window the last successful poll listed
 * completely; status a base-36 digit for the known ones (`~<text>` else), start in seconds, base 36 (`!<text>`
 * when unreadable); keys and texts URI-encoded, so they never hold a separator.
 */
import { STATUS_VALUES } from '../shared/constants.js';

export interface Entry {
	/** status + start, compared to detect a change */
	fp: string;
	/** start in ms (NaN when unreadable), for the window bookkeeping */
	start: number;
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

export function fingerprint(status: unknown, startDate: unknown): string {
	const text = typeof status === 'string' ? status : '';
	const index = STATUS_VALUES.indexOf(text);
	const encodedStatus = index >= 0 ? index.toString(36) : `~${encodeURIComponent(text)}`;
	const ms = startMs(startDate);
	const encodedStart = Number.isNaN(ms)
		? `!${encodeURIComponent(typeof startDate === 'string' ? startDate : '')}`
		: Math.floor(ms / 1000).toString(36);
	return `${encodedStatus}:${encodedStart}`;
}

/** A fingerprint's two parts as written, compared to tell a reschedule from a status change. */
export const statusPart = (fp: string) => fp.slice(0, fp.indexOf(':'));
export const startPart = (fp: string) => fp.slice(fp.indexOf(':') + 1);

const decoded = (text: string) => {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
};

/** The status a fingerprint holds (the inverse of its status part). */
export function statusOf(fp: string): string {
	const part = statusPart(fp);
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
	const saved = staticData.state as
		| { v?: unknown; from?: unknown; to?: unknown; entries?: unknown }
		| undefined;
	if (!saved || saved.v !== 1 || typeof saved.from !== 'number' || typeof saved.to !== 'number')
		return undefined;
	const pairs = typeof saved.entries === 'string' ? readPairs(saved.entries) : undefined;
	if (pairs === undefined) return undefined;
	const entries = new Map<string, Entry>();
	for (const [encoded, fp] of pairs) {
		const key = decoded(encoded);
		if (key === undefined || !fp.includes(':')) return undefined;
		entries.set(key, { fp, start: startOfFingerprint(fp) });
	}
	return { from: saved.from, to: saved.to, entries };
}

export function writeState(staticData: Record<string, unknown>, state: PollState): void {
	const entries = writePairs(
		Array.from(state.entries, ([key, entry]): [string, string] => [
			encodeURIComponent(key),
			entry.fp,
		]),
	);
	staticData.state = { v: 1, from: state.from, to: state.to, entries };
}
