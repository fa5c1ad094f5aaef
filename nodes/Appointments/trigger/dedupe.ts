/**
 * The trigger's dedupe protocol: one delivery claims its event, then settles it.
 *
 *   claimEvent(store, mode, notification): Claim | undefined
 *       undefined when a copy of the event was settled already (a duplicate: start nothing); a claim otherwise.
 *       With dedupe off (no store, mode off) every delivery gets a claim that remembers nothing.
 *   claim.run(answer): boolean      settles it as run: remembered, so a later copy is a duplicate; forgotten
 *       again when n8n answers the delivery (`answer`, its response) with an error: it could not store or queue
 *       the execution, so the service resends and that resend must run
 *   claim.drop(): boolean           settles it as handled without a run (unknown appointment, no longer matching
 *       the Filters). An event that did not run never makes another one a duplicate: its key is remembered only
 *       when it names this one notification (Event + Appointment Key + Timestamp: a resend would end the same
 *       way); with Appointment Key it is not, or the appointment's later events would be dropped
 *   Both give false and change nothing when another copy was settled while this one waited (its re-read with
 *   Verify With API): this copy is then the duplicate and starts nothing. A claim never settled (the re-read
 *   failed: n8n answers 500) leaves the event forgotten, so the service's resend runs it.
 *
 * A copy arriving while another is claimed but not settled gets a claim of its own: claims do not lock, so each
 * copy makes its own short re-read and the first one settled wins.
 *
 * The memory: recently handled notifications, one per (workflow, node, mode, dedupe key), kept in process
 * memory. n8n does not offer its processed-data helpers to webhook functions, and what webhook() writes to static
 * data is not saved (seen in n8n 2.41.1), so the memory lasts as long as the process: it is empty after a restart
 * and not shared between several webhook processes (queue mode). n8n's Remove Duplicates node after the trigger is
 * the restart-proof complement (examples/6-trigger-remove-duplicates.json).
 */
export type DedupeMode = 'eventKeyTimestamp' | 'appointmentKey' | 'off';

export const DEFAULT_WINDOW = 10000;
export const MAX_WINDOW = 1000000;
export const MAX_SCOPES = 1000;

export function clampWindow(value: unknown): number {
	const n = typeof value === 'number' ? value : Number(value);
	if (!Number.isFinite(n) || n < 1) return DEFAULT_WINDOW;
	return Math.min(Math.floor(n), MAX_WINDOW);
}

/**
 * What a notification is remembered by; undefined when dedupe is off. eventKeyTimestamp: a redelivery (same
 * event, key and timestamp) is a duplicate, a later event of the same appointment is not. appointmentKey: any
 * second event of an appointment is a duplicate. The timestamp (validated ISO, so without spaces) comes first and
 * the event is length-prefixed, so two different triples never give the same string. join() makes one flat
 * string: a template literal keeps its parts and joins alive, about twice the memory per remembered key.
 */
export function dedupeKey(mode: DedupeMode, event: string, appointmentKey: string, timestamp: string): string | undefined {
	if (mode === 'off') return undefined;
	if (mode === 'appointmentKey') return appointmentKey;
	return [timestamp, event.length, event, appointmentKey].join(' ');
}

/**
 * The last `limit` keys remembered, oldest first (a Map keeps insertion order). Each key holds who remembered it,
 * so forgetting undoes only that remembering: a key evicted meanwhile and remembered again by another copy stays.
 */
export class RecentKeys {
	private readonly keys = new Map<string, unknown>();
	/**
	 * Walks the keys oldest first across evictions. Everything before it was evicted or forgotten, so it always
	 * has a key to give while the memory is over its limit; a fresh iterator per eviction would step over every
	 * deleted slot at the front of the Map each time.
	 */
	private readonly oldest = this.keys.keys();
	private max: number;
	constructor(limit: number) {
		this.max = clampWindow(limit);
	}

	get size(): number {
		return this.keys.size;
	}

	get limit(): number {
		return this.max;
	}

	has(key: string): boolean {
		return this.keys.has(key);
	}

	/** Adds `key` unless it is held, forgetting the oldest key when full; true when it was new. */
	remember(key: string, by: unknown = true): boolean {
		if (this.keys.has(key)) return false;
		this.keys.set(key, by);
		this.trim();
		return true;
	}

	/** Forgets `key` if `by` remembered it. */
	forget(key: string, by: unknown = true): void {
		if (this.keys.get(key) === by) this.keys.delete(key);
	}

	/** A new window keeps the newest keys that fit. */
	resize(limit: number): void {
		this.max = clampWindow(limit);
		this.trim();
	}

	private trim(): void {
		while (this.keys.size > this.max) this.keys.delete(this.oldest.next().value as string);
	}
}

/** The delivery's response as n8n finishes it after webhook() returned (express's Response has this shape). */
export interface Answer {
	statusCode: number;
	once(event: 'finish', listener: () => void): unknown;
}

export interface Claim {
	run(answer: Answer): boolean;
	drop(): boolean;
}

const UNREMEMBERED: Claim = { run: () => true, drop: () => true };
let claims = 0;

/** The parts of a valid notification that identify it. */
export interface Notification {
	event: string;
	appointmentKey: string;
	timestamp: string;
}

export function claimEvent(store: RecentKeys | undefined, mode: DedupeMode, n: Notification): Claim | undefined {
	const key = dedupeKey(mode, n.event, n.appointmentKey, n.timestamp);
	if (store === undefined || key === undefined) return UNREMEMBERED;
	if (store.has(key)) return undefined;
	// A number, not the claim itself, marks what this claim remembered: the memory keeps no claim alive.
	const id = ++claims;
	return {
		run(answer) {
			if (!store.remember(key, id)) return false;
			answer.once('finish', () => {
				if (answer.statusCode < 200 || answer.statusCode > 299) store.forget(key, id);
			});
			return true;
		},
		drop: () => (mode === 'eventKeyTimestamp' ? store.remember(key, id) : !store.has(key)),
	};
}

// Map iteration order doubles as recency: a scope is re-inserted when used, so the first one is the oldest.
const stores = new Map<string, RecentKeys>();
// The scope used last is the newest already: a run of notifications for one workflow re-inserts nothing.
let newest: string | undefined;

/** The memory of `scope`, created on first use and resized when the node's window option changed. */
export function recentKeysFor(scope: string, limit: number): RecentKeys {
	let store = stores.get(scope);
	if (store === undefined) {
		store = new RecentKeys(limit);
		if (stores.size >= MAX_SCOPES) stores.delete(stores.keys().next().value as string);
	} else {
		store.resize(limit);
		if (scope === newest) return store;
		stores.delete(scope);
	}
	stores.set(scope, store);
	newest = scope;
	return store;
}

export function forgetScope(scope: string): void {
	stores.delete(scope);
	if (scope === newest) newest = undefined;
}

export function scopeCount(): number {
	return stores.size;
}
