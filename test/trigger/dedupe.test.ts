/** The trigger's dedupe memory: bounded, oldest forgotten first, one per scope, keys per mode. */
import {
	clampWindow,
	DEFAULT_WINDOW,
	forgetEvent,
	forgetScope,
	MAX_SCOPES,
	MAX_WINDOW,
	RecentKeys,
	recentKeysFor,
	rememberEvent,
	scopeCount,
} from '../../nodes/Appointments/trigger/dedupe';

describe('RecentKeys', () => {
	it('never holds more than its window and forgets the oldest keys first', () => {
		const keys = new RecentKeys(1000);
		for (let i = 0; i < 25000; i++) {
			keys.add(`k${i}`);
			if (keys.size > 1000) throw new Error(`size ${keys.size} after ${i}`);
		}
		expect(keys.size).toBe(1000);
		expect(keys.has('k24999')).toBe(true);
		expect(keys.has('k24000')).toBe(true);
		expect(keys.has('k23999')).toBe(false);
		expect(keys.has('k0')).toBe(false);
	});

	it('adding a key it already holds does not grow it', () => {
		const keys = new RecentKeys(3);
		keys.add('a');
		keys.add('a');
		keys.add('b');
		expect(keys.size).toBe(2);
	});

	it('shrinks at once when the window is made smaller, keeping the newest', () => {
		const keys = new RecentKeys(10);
		for (let i = 0; i < 10; i++) keys.add(String(i));
		keys.resize(3);
		expect(keys.size).toBe(3);
		expect(['7', '8', '9'].every((k) => keys.has(k))).toBe(true);
		expect(keys.has('6')).toBe(false);
	});

	it('clamps nonsense windows', () => {
		expect(clampWindow(undefined)).toBe(DEFAULT_WINDOW);
		expect(clampWindow(0)).toBe(DEFAULT_WINDOW);
		expect(clampWindow(-5)).toBe(DEFAULT_WINDOW);
		expect(clampWindow('abc')).toBe(DEFAULT_WINDOW);
		expect(clampWindow(12.7)).toBe(12);
		expect(clampWindow(1e12)).toBe(MAX_WINDOW);
	});
});

describe('module-level stores', () => {
	it('gives each scope its own memory and follows a changed window', () => {
		const a = recentKeysFor('wf-a\nnode\nproduction', 5);
		const b = recentKeysFor('wf-b\nnode\nproduction', 5);
		a.add('x');
		expect(b.has('x')).toBe(false);
		expect(recentKeysFor('wf-a\nnode\nproduction', 5)).toBe(a);
		for (let i = 0; i < 5; i++) a.add(String(i));
		expect(recentKeysFor('wf-a\nnode\nproduction', 2).size).toBe(2);
		forgetScope('wf-a\nnode\nproduction');
		forgetScope('wf-b\nnode\nproduction');
	});

	it('keeps at most MAX_SCOPES stores, dropping the least recently used', () => {
		const first = recentKeysFor('scope-0', 10);
		recentKeysFor('scope-1', 10).add('early');
		for (let i = 2; i < MAX_SCOPES + 10; i++) {
			recentKeysFor(`scope-${i}`, 10);
			if (i % 100 === 0) recentKeysFor('scope-0', 10); // in use: never the least recently used
		}
		expect(scopeCount()).toBeLessThanOrEqual(MAX_SCOPES);
		expect(recentKeysFor('scope-0', 10)).toBe(first);
		// scope-1 was not used again: it was the least recently used and its memory is gone.
		expect(recentKeysFor('scope-1', 10).has('early')).toBe(false);
		for (let i = 0; i < MAX_SCOPES + 10; i++) forgetScope(`scope-${i}`);
	});
});

describe('RecentKeys with event and timestamp', () => {
	it('tells events of one appointment apart and forgets them oldest first', () => {
		const keys = new RecentKeys(3);
		expect(keys.remember('k1', 'appointment.created', 't1')).toBe(true);
		expect(keys.remember('k1', 'appointment.updated', 't2')).toBe(true);
		expect(keys.remember('k1', 'appointment.created', 't1')).toBe(false);
		expect(keys.remember('k2', 'appointment.created', 't1')).toBe(true);
		expect(keys.size).toBe(3);
		expect(keys.remember('k1', 'appointment.canceled', 't3')).toBe(true); // evicts (k1, created, t1)
		expect(keys.size).toBe(3);
		expect(keys.has('k1', 'appointment.created', 't1')).toBe(false);
		expect(keys.has('k1', 'appointment.updated', 't2')).toBe(true);
		expect(keys.has('k1', 'appointment.canceled', 't3')).toBe(true);
		expect(keys.has('k2', 'appointment.created', 't1')).toBe(true);
	});

	it('a deleted entry can be remembered again and is not evicted twice', () => {
		const keys = new RecentKeys(2);
		keys.remember('a');
		keys.remember('b');
		keys.delete('a');
		expect(keys.size).toBe(1);
		expect(keys.remember('a')).toBe(true); // evicts the dead slot of the first 'a', not the new one
		expect(keys.has('a')).toBe(true);
		expect(keys.has('b')).toBe(true);
		expect(keys.size).toBe(2);
		keys.remember('c'); // evicts 'b' (oldest live)
		expect(keys.has('b')).toBe(false);
		expect(keys.has('a')).toBe(true);
		expect(keys.size).toBe(2);
	});

	it.each([
		[17, 25, 20000],
		[300, 2000, 60000],
	])('random operations (window %i, %i keys) keep the exact FIFO semantics of a reference list', (start, keyCount, steps) => {
		let seed = 7;
		const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
		let limit = start;
		const keys = new RecentKeys(limit);
		// The reference: ring slots oldest first, a deleted entry's slot stays until it is reused.
		let ring: Array<{ id: string; live: boolean }> = [];
		for (let i = 0; i < steps; i++) {
			const id = `k${rnd(keyCount)}|appointment.e${rnd(3)}`;
			const [key, event] = id.split('|');
			const op = rnd(100);
			if (op < 8) {
				keys.delete(key, event, '2026-01-01T00:00:00Z');
				const slot = ring.find((s) => s.id === id && s.live);
				if (slot) slot.live = false;
			} else if (op === 99) {
				limit = 1 + rnd(start * 2);
				keys.resize(limit);
				ring = ring.filter((s) => s.live).slice(-limit);
			} else {
				const fresh = keys.remember(key, event, '2026-01-01T00:00:00Z');
				const held = ring.some((s) => s.id === id && s.live);
				if (fresh !== !held) throw new Error(`step ${i}: remember(${id}) said ${fresh}, reference holds it: ${held}`);
				if (!held) {
					ring.push({ id, live: true });
					if (ring.length > limit) ring = ring.slice(ring.length - limit);
				}
			}
			const live = ring.filter((s) => s.live);
			if (keys.size !== live.length) throw new Error(`step ${i}: size ${keys.size}, reference ${live.length}`);
		}
		for (const s of ring) {
			const held = ring.some((o) => o.id === s.id && o.live);
			expect(keys.has(s.id.split('|')[0], s.id.split('|')[1], '2026-01-01T00:00:00Z')).toBe(held);
		}
	});
});

describe('rememberEvent', () => {
	const s = () => new RecentKeys(100);
	it('event + key + timestamp (default): a redelivery is a duplicate, a later event of the appointment is not', () => {
		const store = s();
		expect(rememberEvent(store, 'eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z')).toBe(true);
		expect(rememberEvent(store, 'eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z')).toBe(false);
		expect(rememberEvent(store, 'eventKeyTimestamp', 'appointment.canceled', 'k1', '2026-01-01T00:00:00Z')).toBe(true);
		expect(rememberEvent(store, 'eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:01Z')).toBe(true);
		forgetEvent(store, 'eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z');
		expect(rememberEvent(store, 'eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z')).toBe(true);
	});

	it('appointment key alone: any second event of the appointment is a duplicate', () => {
		const store = s();
		expect(rememberEvent(store, 'appointmentKey', 'appointment.created', 'k1', 't1')).toBe(true);
		expect(rememberEvent(store, 'appointmentKey', 'appointment.canceled', 'k1', 't2')).toBe(false);
		forgetEvent(store, 'appointmentKey', 'appointment.created', 'k1', 't1');
		expect(rememberEvent(store, 'appointmentKey', 'appointment.canceled', 'k1', 't2')).toBe(true);
	});

	it('off: everything is new', () => {
		const store = s();
		expect(rememberEvent(store, 'off', 'e', 'k1', 't1')).toBe(true);
		expect(rememberEvent(store, 'off', 'e', 'k1', 't1')).toBe(true);
		expect(store.size).toBe(0);
	});
});
