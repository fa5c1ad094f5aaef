/**
 * The trigger's dedupe protocol, one state machine per delivery (claimEvent). The memory lives in the process only:
 * n8n gives webhook functions no processed-data helper and does not save what webhook() writes to static data.
 *
 *   claimed ─run─► running ─its answer closes after a 2xx─► answered  (remembered: later copies are duplicates)
 *      │              └─ closes otherwise (an error, the caller hung up) ─► forgotten  (the resend runs it)
 *      ├─drop─► answered      (remembered by notification only: never makes a later event a duplicate)
 *      ├─run, its caller gone already ─► forgotten   (nothing runs: the service resends what got no 2xx)
 *      └─never settled (a failed re-read) ─► forgotten   (nothing was remembered, nobody waits on a claim)
 *
 * The first copy settled wins; one settling while another's run is answered waits for that answer (at most
 * MAX_WAITERS an event), woken on every way out of running. The answer's state is read, not only its 'close'.
 */
export type DedupeMode = 'eventKeyTimestamp' | 'appointmentKey' | 'off';
/** ran, dropped: by this copy; taken: by another (a duplicate); hungUp: the caller is gone; busy: too many wait. */
export type Settled = 'ran' | 'dropped' | 'taken' | 'hungUp' | 'busy';

export const DEFAULT_WINDOW = 10000;
export const MAX_WINDOW = 1000000;
export const MAX_SCOPES = 1000;
export const MAX_WAITERS = 16;

/**
 * What a notification is remembered by. The timestamp (validated ISO, no spaces) comes first and the event is
 * length-prefixed, so two triples never give the same string.
 */
export function dedupeKey(mode: DedupeMode, n: Notification): string | undefined {
	if (mode === 'off') return undefined;
	if (mode === 'appointmentKey') return n.appointmentKey;
	return [n.timestamp, n.event.length, n.event, n.appointmentKey].join(' ');
}

/**
 * The last `limit` keys (1..MAX_WINDOW, checked by config.ts), oldest first in the Map's insertion order. Each key
 * holds who remembered it, so forget() undoes only that remembering.
 */
export class RecentKeys extends Map<string, unknown> {
	// One iterator across evictions: a fresh one would step over every deleted slot at the Map's front each time.
	private readonly oldest = this.keys();
	/** Keys of the runs whose answer is still open, with the copies waiting for it. */
	readonly running = new Map<string, Array<() => void>>();
	constructor(private limit: number) {
		super();
	}

	/** Adds `key` unless it is held, forgetting the oldest when full; true when it was new. */
	remember(key: string, by: unknown = true): boolean {
		if (this.has(key)) return false;
		this.set(key, by);
		this.trim();
		return true;
	}

	forget(key: string, by: unknown = true): void {
		if (this.get(key) === by) this.delete(key);
	}

	/** A new window keeps the newest keys that fit. */
	resize(limit: number): void {
		this.limit = limit;
		this.trim();
	}

	private trim(): void {
		while (this.size > this.limit) this.delete(this.oldest.next().value as string);
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
	state: 'claimed' | 'running' | 'answered' | 'forgotten' = 'claimed';
	// A number, not the claim, marks what this claim remembered: the memory keeps no claim alive.
	private readonly id = ++claims;
	constructor(
		private readonly answer: Answer,
		private readonly store?: RecentKeys,
		private readonly key = '',
		private readonly byNotification = false,
	) {}

	/** Settles as `how`; while another copy's run is answered, again once that answer is given. */
	async settle(how: 'run' | 'drop'): Promise<Settled> {
		for (;;) {
			const got = how === 'run' ? this.run() : this.drop();
			const waiters = got === 'taken' ? this.store?.running.get(this.key) : undefined;
			if (waiters === undefined) return got;
			if (waiters.length >= MAX_WAITERS) return 'busy';
			await new Promise<void>((wake) => waiters.push(wake));
		}
	}

	run(): Settled {
		if (over(this.answer)) return this.to('forgotten', 'hungUp');
		if (this.store !== undefined && !this.store.remember(this.key, this.id)) return 'taken';
		const waiters: Array<() => void> = [];
		this.store?.running.set(this.key, waiters);
		this.answer.once('close', () => this.closed(waiters));
		return this.to('running', 'ran');
	}

	private closed(waiters: Array<() => void>): void {
		const { statusCode, writableFinished } = this.answer;
		const acknowledged = writableFinished && statusCode >= 200 && statusCode <= 299;
		this.state = acknowledged ? 'answered' : 'forgotten';
		if (!acknowledged) this.store?.forget(this.key, this.id);
		if (this.store?.running.get(this.key) === waiters) this.store.running.delete(this.key);
		for (const wake of waiters) wake();
	}

	drop(): Settled {
		const { store, key } = this;
		const byNotification = () =>
			this.byNotification ? store!.remember(key, this.id) : !store!.has(key);
		return store === undefined || byNotification() ? this.to('answered', 'dropped') : 'taken';
	}

	private to(state: Claim['state'], settled: Settled): Settled {
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
	const key = dedupeKey(mode, n);
	if (store === undefined || key === undefined) return new Claim(answer);
	if (store.has(key) && !store.running.has(key)) return undefined;
	return new Claim(answer, store, key, mode === 'eventKeyTimestamp');
}

// One memory per (workflow, node, mode, dedupe key); the Map's order is recency, the first scope the oldest.
const stores = new Map<string, RecentKeys>();

/** The memory of `scope`, created on first use and resized when the node's window option changed. */
export function recentKeysFor(scope: string, limit: number): RecentKeys {
	const store = stores.get(scope) ?? new RecentKeys(limit);
	store.resize(limit);
	stores.delete(scope);
	if (stores.size >= MAX_SCOPES) stores.delete(stores.keys().next().value as string);
	stores.set(scope, store);
	return store;
}

export const forgetScope = (scope: string) => stores.delete(scope);
export const scopeCount = () => stores.size;
