/**
 * The trigger's dedupe protocol: a delivery claims its event (claimEvent), then settles it with run() or drop().
 * The first copy settled wins; the others' run()/drop() give false, and wait for that run's answer while n8n gives
 * it. A claim never settled (a failed re-read) or a run the service got no 2xx for leaves the event free for the
 * resend. The memory lives in the process only: n8n gives webhook functions no processed-data helper and does not
 * save what webhook() writes to static data (seen in 2.41.1).
 */
export type DedupeMode = 'eventKeyTimestamp' | 'appointmentKey' | 'off';

export const DEFAULT_WINDOW = 10000;
export const MAX_WINDOW = 1000000;
export const MAX_SCOPES = 1000;

/**
 * What a notification is remembered by. The timestamp (validated ISO, no spaces) comes first and the event is
 * length-prefixed, so two triples never give the same string.
 */
export function dedupeKey(
	mode: DedupeMode,
	event: string,
	appointmentKey: string,
	timestamp: string,
): string | undefined {
	if (mode === 'off') return undefined;
	if (mode === 'appointmentKey') return appointmentKey;
	return [timestamp, event.length, event, appointmentKey].join(' ');
}

/**
 * The last `limit` keys (1..MAX_WINDOW, checked by config.ts), oldest first in the Map's insertion order. Each key
 * holds who remembered it, so forget() undoes only that remembering.
 */
export class RecentKeys {
	private readonly keys = new Map<string, unknown>();
	// One iterator across evictions: a fresh one would step over every deleted slot at the Map's front each time.
	private readonly oldest = this.keys.keys();
	/** Keys of the runs n8n is still answering, with who waits for that answer. */
	readonly answering = new Map<string, Array<() => void>>();
	constructor(private limit: number) {}

	get size(): number {
		return this.keys.size;
	}

	has(key: string): boolean {
		return this.keys.has(key);
	}

	/** Adds `key` unless it is held, forgetting the oldest when full; true when it was new. */
	remember(key: string, by: unknown = true): boolean {
		if (this.keys.has(key)) return false;
		this.keys.set(key, by);
		this.trim();
		return true;
	}

	forget(key: string, by: unknown = true): void {
		if (this.keys.get(key) === by) this.keys.delete(key);
	}

	/** A new window keeps the newest keys that fit. */
	resize(limit: number): void {
		this.limit = limit;
		this.trim();
	}

	private trim(): void {
		while (this.keys.size > this.limit) this.keys.delete(this.oldest.next().value as string);
	}
}

/** n8n's answer to the delivery, after webhook() returned: Node's ServerResponse, 'close' last (sent, or connection lost). */
export type Answer = {
	statusCode: number;
	writableFinished: boolean;
	once(event: 'close', listener: () => void): unknown;
};

export interface Claim {
	/** Remembered, and forgotten again unless the service got a 2xx: n8n could not start the run, or it gave up waiting. */
	run(answer: Answer): boolean;
	/** Settled without a run: remembered only by notification, so it never makes a later event a duplicate. */
	drop(): boolean;
	/** After run() or drop() gave false: settles again once each run of the event n8n is answering has its answer. */
	retryAfterAnswer(settle: () => boolean): Promise<boolean>;
}

export type Notification = { event: string; appointmentKey: string; timestamp: string };

const UNREMEMBERED: Claim = {
	run: () => true,
	drop: () => true,
	retryAfterAnswer: async () => false,
};
let claims = 0;

/** undefined when a copy was settled already (a duplicate, its run answered); copies claimed meanwhile each get their own. */
export function claimEvent(
	store: RecentKeys | undefined,
	mode: DedupeMode,
	n: Notification,
): Claim | undefined {
	const key = dedupeKey(mode, n.event, n.appointmentKey, n.timestamp);
	if (store === undefined || key === undefined) return UNREMEMBERED;
	if (store.has(key) && !store.answering.has(key)) return undefined;
	// A number, not the claim, marks what this claim remembered: the memory keeps no claim alive.
	const id = ++claims;
	return {
		run(answer) {
			if (!store.remember(key, id)) return false;
			const waiting: Array<() => void> = [];
			store.answering.set(key, waiting);
			answer.once('close', () => {
				if (!answer.writableFinished || answer.statusCode < 200 || answer.statusCode > 299)
					store.forget(key, id);
				if (store.answering.get(key) === waiting) store.answering.delete(key);
				for (const wake of waiting) wake();
			});
			return true;
		},
		drop: () => (mode === 'eventKeyTimestamp' ? store.remember(key, id) : !store.has(key)),
		async retryAfterAnswer(settle) {
			for (
				let waiting = store.answering.get(key);
				waiting !== undefined;
				waiting = store.answering.get(key)
			) {
				await new Promise<void>((wake) => waiting!.push(wake));
				if (settle()) return true;
			}
			return false;
		},
	};
}

// One memory per (workflow, node, mode, dedupe key); the Map's order is recency, the first scope the oldest.
const stores = new Map<string, RecentKeys>();

/** The memory of `scope`, created on first use and resized when the node's window option changed. */
export function recentKeysFor(scope: string, limit: number): RecentKeys {
	let store = stores.get(scope);
	if (store === undefined) {
		store = new RecentKeys(limit);
		if (stores.size >= MAX_SCOPES) stores.delete(stores.keys().next().value as string);
	} else {
		store.resize(limit);
		stores.delete(scope);
	}
	stores.set(scope, store);
	return store;
}

export const forgetScope = (scope: string) => stores.delete(scope);
export const scopeCount = () => stores.size;
