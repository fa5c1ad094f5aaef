/**
 * Bounded memory of recently seen event keys, in process memory, one per (workflow, node, mode).
 *
 *   class RecentKeys(limit)       (key[, event, timestamp]) in arrival order, as 64-bit fingerprints in typed
 *                                 arrays (about 50 bytes per key); adding beyond `limit` forgets the oldest
 *                                 (FIFO), O(1)
 *     .has(key, event?, timestamp?) / .add(...) / .remember(...): boolean (true when new) / .delete(...)
 *     .size / .limit / .resize(limit) / .clear()
 *   recentKeysFor(scope, limit): RecentKeys    the module-level store of a scope, created on first use and
 *                                              resized when the node's window option changes
 *   forgetScope(scope) / scopeCount()          housekeeping (tests)
 *   rememberEvent(store, mode, event, appointmentKey, timestamp): boolean    false for a duplicate
 *   forgetEvent(store, mode, event, appointmentKey, timestamp)              undo (event to be redelivered)
 *   MAX_SCOPES                                 stores kept at most (least recently used scope dropped first)
 *
 * Why module level: n8n does not offer its processed-data helpers to webhook functions, and what webhook()
 * writes to static data is not saved (seen in n8n 2.41.1). The memory therefore lasts as long as the process:
 * it is empty after a restart and not shared between several webhook processes (queue mode). n8n's Remove
 * Duplicates node after the trigger is the restart-proof complement (examples/6-trigger-remove-duplicates.json).
 */
export type DedupeMode = 'eventKeyTimestamp' | 'appointmentKey' | 'off';

export const DEFAULT_WINDOW = 10000;
export const MAX_WINDOW = 1000000;
export const MAX_SCOPES = 1000;

// A per-process random seed: fingerprints cannot be predicted from outside, so nobody can craft a notification
// whose fingerprint matches another's.
const SEED = (Math.random() * 0x100000000) >>> 0;

/**
 * 64-bit fingerprint of (key, event, timestamp) as two 32-bit halves (multiply-xorshift per character, each
 * part followed by its length so that part boundaries count). The chance that two different events collide is
 * about n / 2^64 per event with n keys remembered (10,000 keys: 5e-16), far below any other cause of loss.
 */
function fingerprint(key: string, event: string, timestamp: string, out: Int32Array): void {
	out[0] = 0xdeadbeef ^ SEED;
	out[1] = 0x41c6ce57 ^ SEED;
	absorb(key, out);
	absorb(event, out);
	absorb(timestamp, out);
	const h1 = out[0];
	const h2 = out[1];
	const f1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	out[0] = f1;
	out[1] = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(f1 ^ (f1 >>> 13), 3266489909);
}

/** Mixes one part into the running halves out[0], out[1]: every character, then the part's length. */
function absorb(text: string, out: Int32Array): void {
	let h1 = out[0];
	let h2 = out[1];
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ c, 2654435761);
		h2 = Math.imul(h2 ^ c, 1597334677);
	}
	out[0] = Math.imul(h1 ^ (text.length + 1), 2654435761);
	out[1] = Math.imul(h2 ^ (text.length + 1), 1597334677);
}

const MIN_CAPACITY = 64;

export class RecentKeys {
	// Fingerprints only, in typed arrays: no object is kept per event, so a full window costs the garbage
	// collector nothing (keeping 10,000 strings and entries cost more than validating the envelope).
	//   table: open addressing with linear probing, 3 ints per cell: fingerprint hi, lo, ring slot + 1 (0 = empty);
	//          at most half full; deletion shifts the following cells back (no tombstones).
	//   ring:  fingerprints in arrival order (2 ints per slot); when full, the slot at `head` (the oldest) is
	//          reused and its fingerprint removed from the table, unless the table cell now belongs to another
	//          slot (the key was deleted and remembered again).
	private table: Int32Array;
	private mask: number;
	private ring: Int32Array;
	private filled = 0;
	private head = 0;
	private count = 0;
	private max: number;
	private readonly fp = new Int32Array(2);

	constructor(limit: number) {
		this.max = clampWindow(limit);
		const cells = MIN_CAPACITY;
		this.table = new Int32Array(cells * 3);
		this.mask = cells - 1;
		this.ring = new Int32Array(Math.min(this.max, cells) * 2);
	}

	get size(): number {
		return this.count;
	}

	get limit(): number {
		return this.max;
	}

	has(key: string, event = '', timestamp = ''): boolean {
		fingerprint(key, event, timestamp, this.fp);
		return this.find(this.fp[0], this.fp[1]) >= 0;
	}

	add(key: string, event = '', timestamp = ''): void {
		this.remember(key, event, timestamp);
	}

	/** Adds (key, event, timestamp) unless it is held; true when it was new. */
	remember(key: string, event = '', timestamp = ''): boolean {
		fingerprint(key, event, timestamp, this.fp);
		const hi = this.fp[0];
		const lo = this.fp[1];
		if (this.find(hi, lo) >= 0) return false;
		this.insert(hi, lo);
		return true;
	}

	delete(key: string, event = '', timestamp = ''): void {
		fingerprint(key, event, timestamp, this.fp);
		const cell = this.find(this.fp[0], this.fp[1]);
		if (cell >= 0) this.removeCell(cell);
	}

	clear(): void {
		this.table = new Int32Array(MIN_CAPACITY * 3);
		this.mask = MIN_CAPACITY - 1;
		this.ring = new Int32Array(Math.min(this.max, MIN_CAPACITY) * 2);
		this.filled = 0;
		this.head = 0;
		this.count = 0;
	}

	resize(limit: number): void {
		const max = clampWindow(limit);
		if (max === this.max) return;
		const live = this.liveInOrder();
		this.max = max;
		this.clear();
		const keep = live.length - Math.min(live.length, 2 * max);
		for (let i = keep; i < live.length; i += 2) this.insert(live[i], live[i + 1]);
	}

	/** Fingerprints still held, oldest first (hi, lo pairs). */
	private liveInOrder(): number[] {
		const out: number[] = [];
		const n = this.filled;
		for (let i = 0; i < n; i++) {
			const slot = n < this.max ? i : (this.head + i) % n;
			const hi = this.ring[slot * 2];
			const lo = this.ring[slot * 2 + 1];
			const cell = this.find(hi, lo);
			if (cell >= 0 && this.table[cell * 3 + 2] === slot + 1) out.push(hi, lo);
		}
		return out;
	}

	private find(hi: number, lo: number): number {
		const t = this.table;
		const mask = this.mask;
		for (let i = lo & mask; ; i = (i + 1) & mask) {
			const b = i * 3;
			if (t[b + 2] === 0) return -1;
			if (t[b + 1] === lo && t[b] === hi) return i;
		}
	}

	private insert(hi: number, lo: number): void {
		let slot: number;
		if (this.filled < this.max) {
			slot = this.filled++;
			if (slot * 2 >= this.ring.length) {
				const grown = new Int32Array(Math.min(this.max, (this.ring.length / 2) * 2) * 2);
				grown.set(this.ring);
				this.ring = grown;
			}
		} else {
			slot = this.head;
			this.head = (slot + 1) % this.max;
			const cell = this.find(this.ring[slot * 2], this.ring[slot * 2 + 1]);
			if (cell >= 0 && this.table[cell * 3 + 2] === slot + 1) this.removeCell(cell);
		}
		this.ring[slot * 2] = hi;
		this.ring[slot * 2 + 1] = lo;
		if ((this.count + 1) * 2 > this.mask + 1) this.grow();
		this.place(hi, lo, slot + 1);
		this.count++;
	}

	private place(hi: number, lo: number, owner: number): void {
		const t = this.table;
		const mask = this.mask;
		let i = lo & mask;
		while (t[i * 3 + 2] !== 0) i = (i + 1) & mask;
		t[i * 3] = hi;
		t[i * 3 + 1] = lo;
		t[i * 3 + 2] = owner;
	}

	private grow(): void {
		const old = this.table;
		const cells = (this.mask + 1) * 2;
		this.table = new Int32Array(cells * 3);
		this.mask = cells - 1;
		for (let b = 0; b < old.length; b += 3) {
			if (old[b + 2] !== 0) this.place(old[b], old[b + 1], old[b + 2]);
		}
	}

	/** Linear-probing deletion: later cells of the same run move back into the gap when their home allows. */
	private removeCell(cell: number): void {
		const t = this.table;
		const mask = this.mask;
		let gap = cell;
		for (let j = (cell + 1) & mask; t[j * 3 + 2] !== 0; j = (j + 1) & mask) {
			const home = t[j * 3 + 1] & mask;
			// The cell at j stays if its home lies cyclically in (gap, j].
			const stays = gap <= j ? gap < home && home <= j : gap < home || home <= j;
			if (stays) continue;
			t[gap * 3] = t[j * 3];
			t[gap * 3 + 1] = t[j * 3 + 1];
			t[gap * 3 + 2] = t[j * 3 + 2];
			gap = j;
		}
		t[gap * 3] = 0;
		t[gap * 3 + 1] = 0;
		t[gap * 3 + 2] = 0;
		this.count--;
	}
}

export function clampWindow(value: unknown): number {
	const n = typeof value === 'number' ? value : Number(value);
	if (!Number.isFinite(n) || n < 1) return DEFAULT_WINDOW;
	return Math.min(Math.floor(n), MAX_WINDOW);
}

// Map iteration order doubles as recency: a scope is re-inserted when used, so the first one is the oldest.
const stores = new Map<string, RecentKeys>();

export function recentKeysFor(scope: string, limit: number): RecentKeys {
	let store = stores.get(scope);
	if (store === undefined) {
		store = new RecentKeys(limit);
		stores.set(scope, store);
		if (stores.size > MAX_SCOPES) {
			for (const oldest of stores.keys()) {
				stores.delete(oldest);
				break;
			}
		}
		return store;
	}
	if (store.limit !== clampWindow(limit)) store.resize(limit);
	// Re-inserted: most recently used last.
	stores.delete(scope);
	stores.set(scope, store);
	return store;
}

export function forgetScope(scope: string): void {
	stores.delete(scope);
}

export function scopeCount(): number {
	return stores.size;
}

/**
 * Remembers an event in `store` according to the mode; true when it was not seen before (or dedupe is off).
 * eventKeyTimestamp: a redelivery (same event, key and timestamp) is a duplicate, a later event of the same
 * appointment is not. appointmentKey: any second event of an appointment within the window is a duplicate.
 */
export function rememberEvent(
	store: RecentKeys | undefined,
	mode: DedupeMode,
	event: string,
	appointmentKey: string,
	timestamp: string,
): boolean {
	if (store === undefined || mode === 'off') return true;
	return mode === 'appointmentKey' ? store.remember(appointmentKey) : store.remember(appointmentKey, event, timestamp);
}

/** Undoes rememberEvent (the event could not be handled and will be delivered again). */
export function forgetEvent(
	store: RecentKeys | undefined,
	mode: DedupeMode,
	event: string,
	appointmentKey: string,
	timestamp: string,
): void {
	if (store === undefined || mode === 'off') return;
	if (mode === 'appointmentKey') store.delete(appointmentKey);
	else store.delete(appointmentKey, event, timestamp);
}
