/**
 * The trigger's dedupe protocol: one state machine per delivery (claimEvent), in one file. The memory lives in the
 * process only: n8n gives webhook functions no processed-data helper and does not save what webhook() writes to
 * static data (seen in 2.41.1).
 *
 *   claimed ─run─► running ─its answer closes after a 2xx─► answered      (remembered: later copies are duplicates)
 *      │              └──── closes otherwise (an error, the caller hung up) ─► forgotten   (the resend runs it)
 *      ├─drop─► answered                  (remembered by notification only: never makes a later event a duplicate)
 *      ├─run, its caller already gone ─► forgotten          (nothing runs: the service resends what it got no 2xx for)
 *      └─never settled (a failed re-read) ─► forgotten       (nothing was remembered, nobody waits on a claim)
 *
 * The first copy settled wins. A copy settling while another copy's run is still answered waits for that answer
 * (at most MAX_WAITERS per event; more are answered busy) and settles again; every way out of running (close, a
 * close that already happened) wakes them. The answer's state is read, not only its 'close' event, which a caller
 * that hung up before the run has emitted already.
 */
export type DedupeMode = 'eventKeyTimestamp' | 'appointmentKey' | 'off';
export type State = 'claimed' | 'running' | 'answered' | 'forgotten';
/** ran / dropped: settled by this copy; taken: by another copy (a duplicate); hungUp: its caller is gone; busy: too many copies wait. */
export type Settled = 'ran' | 'dropped' | 'taken' | 'hungUp' | 'busy';

export const DEFAULT_WINDOW = 10000;
export const MAX_WINDOW = 1000000;
export const MAX_SCOPES = 1000;
export const MAX_WAITERS = 16;

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
	/** Keys of the runs whose answer is still open, with the copies waiting for it. */
	readonly running = new Map<string, Array<() => void>>();
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

/** The delivery's answer: Node's ServerResponse, which n8n hands the node ('close' last: sent, or connection lost). */
export type Answer = {
	statusCode: number;
	writableFinished: boolean;
	closed?: boolean;
	destroyed?: boolean;
	socket?: { destroyed: boolean } | null;
	once(event: 'close', listener: () => void): unknown;
};

/** No 'close' is coming any more: the caller hung up, or the answer was given. */
const over = (a: Answer) =>
	a.closed === true || a.destroyed === true || a.writableFinished || a.socket?.destroyed === true;

export type Notification = { event: string; appointmentKey: string; timestamp: string };

let claims = 0;

export class Claim {
	state: State = 'claimed';
	// A number, not the claim, marks what this claim remembered: the memory keeps no claim alive.
	private readonly id = ++claims;
	constructor(
		private readonly answer: Answer,
		private readonly store?: RecentKeys,
		private readonly key?: string,
		private readonly byNotification = false,
	) {}

	/** Settles as `how`; while another copy's run is answered, again once that answer is given. */
	async settle(how: 'run' | 'drop'): Promise<Settled> {
		for (;;) {
			const got = how === 'run' ? this.run() : this.drop();
			const waiters = got === 'taken' ? this.store!.running.get(this.key!) : undefined;
			if (waiters === undefined) return got;
			if (waiters.length >= MAX_WAITERS) return 'busy';
			await new Promise<void>((wake) => waiters.push(wake));
		}
	}

	run(): Settled {
		if (over(this.answer)) return this.to('forgotten', 'hungUp');
		if (this.store === undefined || this.key === undefined) return this.to('running', 'ran');
		if (!this.store.remember(this.key, this.id)) return 'taken';
		const waiters: Array<() => void> = [];
		this.store.running.set(this.key, waiters);
		this.answer.once('close', () => this.closed(this.store!, this.key!, waiters));
		return this.to('running', 'ran');
	}

	private closed(store: RecentKeys, key: string, waiters: Array<() => void>): void {
		const { statusCode, writableFinished } = this.answer;
		this.state =
			writableFinished && statusCode >= 200 && statusCode <= 299 ? 'answered' : 'forgotten';
		if (this.state === 'forgotten') store.forget(key, this.id);
		if (store.running.get(key) === waiters) store.running.delete(key);
		for (const wake of waiters) wake();
	}

	drop(): Settled {
		if (this.store === undefined || this.key === undefined) return this.to('answered', 'dropped');
		const free = this.byNotification
			? this.store.remember(this.key, this.id)
			: !this.store.has(this.key);
		return free ? this.to('answered', 'dropped') : 'taken';
	}

	private to(state: State, settled: Settled): Settled {
		this.state = state;
		return settled;
	}
}

/** undefined when a copy was settled already (a duplicate, its run answered); copies claimed meanwhile each get their own. */
export function claimEvent(
	store: RecentKeys | undefined,
	mode: DedupeMode,
	n: Notification,
	answer: Answer,
): Claim | undefined {
	const key = dedupeKey(mode, n.event, n.appointmentKey, n.timestamp);
	if (store === undefined || key === undefined) return new Claim(answer);
	if (store.has(key) && !store.running.has(key)) return undefined;
	return new Claim(answer, store, key, mode === 'eventKeyTimestamp');
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
