/**
 * Bounded memory of recently seen event keys, in process memory, one per (workflow, node, mode).
 *
 *   class RecentKeys(limit)       insertion-ordered Set; adding beyond `limit` forgets the oldest keys (FIFO)
 *     .has(key) / .add(key) / .delete(key) / .size / .limit / .resize(limit) / .clear()
 *   recentKeysFor(scope, limit): RecentKeys    the module-level store of a scope, created on first use and
 *                                              resized when the node's window option changes
 *   forgetScope(scope) / scopeCount()          housekeeping (tests)
 *   dedupeKey(mode, event, appointmentKey, timestamp): string | undefined
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

export class RecentKeys {
	private readonly keys = new Set<string>();

	constructor(private max: number) {
		this.max = clampWindow(max);
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

	add(key: string): void {
		this.keys.add(key);
		if (this.keys.size > this.max) this.trim();
	}

	delete(key: string): void {
		this.keys.delete(key);
	}

	clear(): void {
		this.keys.clear();
	}

	resize(limit: number): void {
		this.max = clampWindow(limit);
		this.trim();
	}

	private trim(): void {
		let excess = this.keys.size - this.max;
		if (excess <= 0) return;
		for (const oldest of this.keys) {
			this.keys.delete(oldest);
			if (--excess === 0) break;
		}
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

/** The key an event is remembered by, or undefined when dedupe is off. */
export function dedupeKey(
	mode: DedupeMode,
	event: string,
	appointmentKey: string,
	timestamp: string,
): string | undefined {
	if (mode === 'off') return undefined;
	if (mode === 'appointmentKey') return appointmentKey;
	return `${event}\n${appointmentKey}\n${timestamp}`;
}
